#!/usr/bin/env python3
"""circles.py SRC BUILD [CC]: no circle of files anywhere in the tree.

A circle is files that need each other, round and round: a.c calls a function of b.c, and b.c
(or a file b.c needs) calls one of a.c. Two kinds of need, checked for cycles (strongly
connected components of more than one file):
- symbols: the object files of the library's layers, the CLI and vitesse-mpi in BUILD (one file
  needs another when it uses a symbol the other defines), and the Python extension's sources
  compiled on the spot (with CC, when Python's and NumPy's headers are there);
- includes: every C source and header of SRC, a file x.c and its x.h taken as one unit.
Both views make one graph (a file may need another by including its header and be needed back
by a call). Prints each circle with its edges and exits 1 when there is any; prints the counts
checked. The same symbols also show whether a layer calls up: no object of a library layer may
use a symbol that an object of a higher layer defines (the compiler's include roots keep the
headers in order; a public function declared in vitesse.h but defined above its caller would
slip past them).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile


def cycles(graph):
    """The strongly connected components of more than one node (iterative Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def symbol_graph(objects):
    """objects: {unit: path of .o}; an edge a -> b when a uses a symbol b defines."""
    defined, used = {}, {}
    for unit, obj in objects.items():
        res = subprocess.run(["nm", obj], capture_output=True, text=True, check=True)
        used[unit] = set()
        for line in res.stdout.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                used[unit].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRC":
                defined.setdefault(f[2], set()).add(unit)
    return {u: {d for s in syms for d in defined.get(s, ()) if d != u} for u, syms in used.items()}


def build_objects(build, src):
    """The library's, the CLI's and vitesse-mpi's object files, by source path; an object whose
    source is gone (left in a reused build folder by a moved or renamed file) is not counted."""
    objs = {}
    for obj in glob.glob(os.path.join(build, "**", "*.c.o"), recursive=True):
        rel = os.path.relpath(obj, build)
        m = re.match(r"(.*?)/?CMakeFiles/([^/]+)\.dir/(.*)\.c\.o$", rel)
        if not m or not (m.group(2).startswith("vt_") or m.group(2) in (
                "vitesse_cli", "vitesse", "vitesse-mpi")):
            continue
        path = os.path.join(m.group(1), m.group(3)).replace("\\", "/")
        if os.path.isfile(os.path.join(src, path + ".c")):
            objs[path] = obj
    return objs


def python_objects(src, cc, tmp):
    """The Python extension's sources compiled into tmp, or {} when its headers are missing."""
    try:
        import numpy
        inc = [sysconfig.get_paths()["include"], numpy.get_include()]
    except ImportError:
        return {}
    if not os.path.isfile(os.path.join(inc[0], "Python.h")):
        return {}
    pub = os.path.join(tmp, "public")
    os.makedirs(pub)
    shutil.copy(os.path.join(src, "engine", "vitesse.h"), pub)
    objs = {}
    for c in sorted(glob.glob(os.path.join(src, "python", "src", "*.c"))):
        obj = os.path.join(tmp, os.path.basename(c) + ".o")
        cmd = [cc, "-c", "-std=c11", "-fPIC", "-I" + pub] + ["-I" + d for d in inc] + [c, "-o", obj]
        subprocess.run(cmd, check=True)
        objs[os.path.relpath(c, src)[:-2]] = obj
    return objs


def include_graph(src):
    """Units (x.c + x.h) of the tracked C files; an edge when a unit includes another's header."""
    res = subprocess.run(["git", "-C", src, "ls-files", "*.c", "*.h"], capture_output=True,
                         text=True)
    if res.returncode == 0:
        files = res.stdout.split()
    else:  # not a git checkout: every C file but build trees'
        files = [os.path.relpath(os.path.join(d, f), src)
                 for d, subdirs, names in os.walk(src)
                 if not os.path.relpath(d, src).split(os.sep)[0].startswith(("build", "."))
                 for f in names if f.endswith((".c", ".h"))]
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)
    graph = {}
    for f in files:
        unit = f[:-2]
        graph.setdefault(unit, set())
        text = open(os.path.join(src, f), encoding="utf-8", errors="replace").read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            cands = by_base.get(os.path.basename(inc), [])
            here = [c for c in cands if os.path.dirname(c) == os.path.dirname(f)]
            named = [c for c in cands if c.endswith("/" + inc)]
            target = (here or named or (cands if len(cands) == 1 else [None]))[0]
            if target and target[:-2] != unit:
                graph[unit].add(target[:-2])
    return graph


def isa_family(unit):
    """A per-ISA file (FAMILY_scalar/avx2/avx512, cmake/VtIsa.cmake) is a part of its family's
    unit: the family is one contract header, its dispatcher and one table per level."""
    return re.sub(r"_(scalar|avx2|avx512)$", "", unit)


def merge_isa(graph):
    out = {}
    for u, deps in graph.items():
        out.setdefault(isa_family(u), set()).update(isa_family(d) for d in deps)
    return {u: deps - {u} for u, deps in out.items()}


# The library's layers, lowest first (cmake/VtLayers.cmake), by the folder of their objects.
LAYERS = ["alloc", "engine/core", "io", "engine/decode", "engine/text", "engine/chunk",
          "engine/models", "engine/train", "engine/sched", "engine/api"]


def upward_calls(syms):
    """(caller, callee) pairs of library objects where the callee's layer is above the caller's."""
    rank = {}
    for u in syms:
        folder = os.path.dirname(u)
        if folder in LAYERS:
            rank[u] = LAYERS.index(folder)
    return sorted((u, d) for u in syms if u in rank
                  for d in syms[u] if d in rank and rank[d] > rank[u])


def report(kind, graph):
    bad = cycles(graph)
    for comp in bad:
        print("circle of files (%s): %s" % (kind, ", ".join(comp)))
        for u in comp:
            print("  %s -> %s" % (u, ", ".join(sorted(graph[u] & set(comp)))))
    return len(bad)


def main():
    src, build = sys.argv[1], sys.argv[2]
    cc = sys.argv[3] if len(sys.argv) > 3 else "cc"
    objs = build_objects(build, src)
    if not objs:
        print("circles.py: no object files of the library under %s" % build)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        py = python_objects(src, cc, tmp)
        syms = symbol_graph(dict(objs, **py))
    inc = include_graph(src)
    # One graph of both kinds of need: a file that includes another's header while that one
    # calls back into it is a circle too.
    both = merge_isa({u: set(syms.get(u, ())) | set(inc.get(u, ())) for u in set(syms) | set(inc)})
    bad = report("symbols and includes", both)
    up = upward_calls(syms)
    for caller, callee in up:
        print("upward call: %s uses a symbol of %s, a higher layer" % (caller, callee))
    bad += len(up)
    print("%d object files, %d Python extension files%s, %d include units: %d circles or upward "
          "calls" % (
        len(objs), len(py), "" if py else " (no Python headers: skipped)", len(inc), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
