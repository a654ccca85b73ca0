#!/usr/bin/env python3
"""perf/npy_head.py SRC DST N: the first N sentences of the score lattices in directory SRC
(E.npy, N.npy, A.npy, S.npy, F.npy, R.npy, labels.txt as `vitesse lattice` writes them) into DST,
with the Python standard library only (no NumPy): E is cut after the first N sentences' rows,
N to its first N lengths; the other files are copied."""
import ast
import os
import shutil
import struct
import sys


def read_npy(path):
    """Returns (header dict, byte offset of the data, file bytes) of a version 1/2/3 .npy."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = raw[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", raw[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", raw[8:12]), 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    return header, start + hlen, raw


def write_npy(path, descr, shape, data):
    """Writes a version 1.0 .npy (C order) with a header padded to 64 bytes."""
    head = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    pad = 64 - (10 + len(head) + 1) % 64
    head = head + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode("latin1"))
        f.write(data)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: npy_head.py SRC DST N")
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(dst, exist_ok=True)
    hn, on, rn = read_npy(os.path.join(src, "N.npy"))
    he, oe, re_ = read_npy(os.path.join(src, "E.npy"))
    if hn["fortran_order"] or he["fortran_order"]:
        sys.exit("Fortran-order arrays are not supported")
    nsize = int(hn["descr"][-1])
    fmt = {("<", 8): "<q", ("<", 4): "<i"}[(hn["descr"][0], nsize)]
    total = hn["shape"][0]
    n = min(n, total)
    lengths = [struct.unpack_from(fmt, rn, on + i * nsize)[0] for i in range(n)]
    rows, L = sum(lengths), he["shape"][1]
    esize = int(he["descr"][-1])
    write_npy(os.path.join(dst, "N.npy"), hn["descr"], (n,), rn[on:on + n * nsize])
    write_npy(os.path.join(dst, "E.npy"), he["descr"], (rows, L), re_[oe:oe + rows * L * esize])
    for name in ("A.npy", "S.npy", "F.npy", "R.npy", "labels.txt"):
        if os.path.exists(os.path.join(src, name)):
            shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))
    print(f"{dst}: {n} sentences, {rows} tokens, {L} labels")


if __name__ == "__main__":
    main()
