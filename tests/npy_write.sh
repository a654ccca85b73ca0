# tests/npy_write.sh: shell functions that write .npy files with printf octal escapes (no
# python, no numpy), sourced by tests/badinput.sh and tests/fuzz/make_seeds.sh.

# byte N: writes the byte of value N (0..255).
byte() {
  # shellcheck disable=SC2059
  printf "$(printf '\\%03o' "$1")"
}

# rep N STR: STR repeated N times.
rep() {
  r=""
  i=0
  while [ "$i" -lt "$1" ]; do
    r="$r$2"
    i=$((i + 1))
  done
  printf '%s' "$r"
}

# npy FILE DESCR FORTRAN SHAPE DATA [MAJOR]: writes a .npy file whose header dict has those
# fields, padded to 64 bytes as numpy does; DATA is a printf format of the data bytes.
npy() {
  _dict="{'descr': '$2', 'fortran_order': $3, 'shape': $4, }"
  _major=${6:-1}
  _pre=10
  if [ "$_major" -ne 1 ]; then _pre=12; fi
  _len=${#_dict}
  _hlen=$(( (_pre + _len + 1 + 63) / 64 * 64 - _pre ))
  {
    printf '\223NUMPY'
    byte "$_major"
    byte 0
    byte $((_hlen % 256))
    byte $((_hlen / 256))
    if [ "$_pre" -eq 12 ]; then byte 0; byte 0; fi
    printf '%s' "$_dict"
    printf "%$((_hlen - _len - 1))s\\n" ''
    # shellcheck disable=SC2059
    printf "$5"
  } >"$1"
}

# Little-endian element bytes.
F0='\000\000\000\000'           # float32 0
F1='\000\000\200\077'           # float32 1
FNINF='\000\000\200\377'        # float32 -inf
FNAN='\000\000\300\177'         # float32 NaN
D0='\000\000\000\000\000\000\000\000' # float64 0
D1='\000\000\000\000\000\000\360\077' # float64 1
DNINF='\000\000\000\000\000\000\360\377' # float64 -inf
DPINF='\000\000\000\000\000\000\360\177' # float64 +inf
DHUGE='\000\000\000\000\000\000\340\177' # float64 2^1023 (8.99e307)
DNHUGE='\000\000\000\000\000\000\340\377' # float64 -2^1023
I0='\000\000\000\000'
I1='\001\000\000\000'
I2='\002\000\000\000'
I3='\003\000\000\000'
Q2='\002\000\000\000\000\000\000\000' # int64 2
Q3='\003\000\000\000\000\000\000\000'
Q4='\004\000\000\000\000\000\000\000'
Q6='\006\000\000\000\000\000\000\000'
QM1='\377\377\377\377\377\377\377\377' # int64 -1
