"""Builds the vitesse Python package: the C extension vitesse._vitesse over libvitesse.

Where libvitesse comes from:

* ``VITESSE_BUILD_DIR=DIR``: a CMake build tree of this repository (``cmake -S . -B DIR &&
  cmake --build DIR``); the extension links its static ``engine/libvitesse.a`` and takes the
  header from ``../engine`` (or ``VITESSE_INCLUDE_DIR``).
* otherwise an installed vitesse found by pkg-config (``cmake --install``; set
  ``PKG_CONFIG_PATH`` for a prefix of your own): its static archive when there is one, else
  the shared library, found at run time through an rpath.

Either way the extension needs nothing at run time but NumPy and the shared libraries libvitesse
itself links (hwloc, zlib, OpenBLAS, liblbfgs, libgomp; not jemalloc, which cannot be dlopen'ed: src/mallctl.c).
``VITESSE_WERROR=1`` turns warnings into errors.
"""
import os
import re
import shlex
import subprocess

import sys

try:
    import numpy
except ImportError:  # one line that says how, not a traceback
    raise SystemExit("vitesse: NumPy is needed to build the extension and %s has none: install "
                     "it for that interpreter (Debian: apt-get install python3-numpy, with "
                     "/usr/bin/python3; else pip install numpy), or build with a Python that "
                     "has it" % sys.executable) from None
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    """The words pkg-config prints for `args`; SystemExit with a hint when it fails."""
    try:
        out = subprocess.run(["pkg-config", *args], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            "vitesse: pkg-config %s failed (%s): set VITESSE_BUILD_DIR to a CMake build tree "
            "of vitesse, or install vitesse and its dependencies (sh .ci/setup.sh; cmake "
            "--install BUILD) where pkg-config finds them" % (" ".join(args), e))
    return shlex.split(out)


def library():
    """(include_dirs, extra_objects, extra_link_args) that build the extension."""
    build = os.environ.get("VITESSE_BUILD_DIR")
    if build:
        archive = os.path.join(os.path.abspath(build), "engine", "libvitesse.a")
        # The build tree's public include root (vitesse.h alone), as an installed tree has it.
        include = os.environ.get("VITESSE_INCLUDE_DIR",
                                 os.path.join(os.path.abspath(build), "views", "public"))
        if not os.path.isfile(archive):
            raise SystemExit("vitesse: no %s: build the library first (cmake --build %s)"
                             % (archive, build))
        if not os.path.isfile(os.path.join(include, "vitesse.h")):
            raise SystemExit("vitesse: no vitesse.h in %s: set VITESSE_INCLUDE_DIR" % include)
        # What libvitesse.a itself links: hwloc, zlib and liblbfgs (the CRF trainer; it loads
        # OpenBLAS when it starts).
        deps = pkg_config("--libs", "hwloc", "zlib", "liblbfgs")
        return [include], [archive], deps + ["-fopenmp", "-lm", "-ldl", "-pthread"]
    include = [w[2:] for w in pkg_config("--cflags-only-I", "vitesse")]
    libdir = pkg_config("--variable=libdir", "vitesse")[0]
    archive = os.path.join(libdir, "libvitesse.a")
    if os.path.isfile(archive):
        libs = pkg_config("--static", "--libs", "vitesse")
        libs = [w for w in libs if w not in ("-lvitesse", "-ljemalloc")]
        return include, [archive], libs
    # libvitesse.so links libjemalloc.so.2, which may fail to load into a running Python
    # ("cannot allocate memory in static TLS block"): the static archive is the way that works.
    return include, [], pkg_config("--libs", "vitesse") + ["-Wl,-rpath," + libdir]


def version(include_dirs):
    """The library version from vitesse.h (the package has the library's version)."""
    for d in include_dirs:
        path = os.path.join(d, "vitesse.h")
        if os.path.isfile(path):
            with open(path) as f:
                text = f.read()
            parts = [re.search(r"#define VT_VERSION_%s (\d+)" % p, text).group(1)
                     for p in ("MAJOR", "MINOR", "PATCH")]
            return ".".join(parts)
    return "0.0.0"


include_dirs, objects, link_args = library()
cflags = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
          "-fvisibility=hidden"]
if os.environ.get("VITESSE_WERROR") == "1":
    cflags.append("-Werror")
sources = ["module.c", "common.c", "trans.c", "decode.c", "model.c", "train.c", "items.c",
           "sentences.c", "interrupt.c", "mallctl.c"]

setup(
    name="vitesse",
    version=version(include_dirs),
    description="Exact, fast decoding of linear-chain sequence-labeling models (CRF, "
                "perceptron, HMM): NumPy emissions, tagging, training",
    packages=["vitesse"],
    package_data={"vitesse": ["*.pyi", "py.typed"]},
    python_requires=">=3.9",
    install_requires=["numpy"],
    ext_modules=[Extension(
        "vitesse._vitesse",
        sources=[os.path.join("src", s) for s in sources],
        include_dirs=include_dirs + [numpy.get_include()],
        extra_objects=objects,
        depends=objects,  # a rebuilt libvitesse.a relinks the extension
        extra_compile_args=cflags,
        extra_link_args=link_args,
    )],
    zip_safe=False,
)
