#!/bin/sh
# perf/decoder_cpu.sh VITESSE ARGS...: runs `VITESSE ARGS...` under `perf record` (linux-perf) and
# prints "DECODER_MS TOTAL_MS": the CPU milliseconds spent in the decoders' functions (the
# kernels, the degenerate lattices, the A* agendas, the sparse route, ...) and in the whole run.
# CPU samples, not wall time: on a shared, loaded machine the decoders of two binaries compare
# fairly side by side (perf/README.md, "AGLDT Greek with a tag dictionary").
set -eu
data=$(mktemp "${TMPDIR:-/tmp}/vt_decoder_cpu.XXXXXX")
trap 'rm -f "$data"' EXIT
perf record -q -F 4000 -o "$data" "$@" >/dev/null 2>&1
perf report -i "$data" --no-children --stdio --sort sym -n 2>/dev/null | awk '
  /^#/ { next }
  /%/ { n = $2; total += n
        if ($0 ~ /maxplus|degen|row_|scan_above|astar|agenda|sparse|viterbi|kbest|vt_decode|bounds_|range_|argmax|carpediem|staggered|sift_down|layer_build|layer_rank|node_open|frame_init|open_charge|pick_value/) dec += n }
  END { printf "%d %d\n", dec / 4, total / 4 }'
