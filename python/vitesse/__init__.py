"""vitesse: exact, fast decoding of linear-chain sequence-labeling models.

A thin binding over libvitesse (the C library and its one header, vitesse.h):

* ``decode(emissions, transitions, ...)``: the exact decoders (Viterbi, staggered, A*, ...)
  on NumPy emission arrays, one sentence or a batch, k-best, on every core;
* ``Transitions``: a transition model bound once, for many ``decode`` calls;
* ``Model(path)``: any model ``vitesse tag`` accepts; ``.tag``, ``.tag_many``, ``.tag_file``;
* ``train(template, corpus, ...)``: a tagger (averaged perceptron or CRF), returned as a Model;
* ``train_items(items, ...)``: a CRF on CRFsuite items (files or python-crfsuite sequences);
* ``vitesse.sklearn.Tagger``: a scikit-learn style estimator (fit/predict/score);
* ``Error`` (a ValueError) and ``FileError`` (also an OSError): the library's failures, with
  its one-line message.
"""
import os as _os

# The trainers' OpenMP teams meet at barriers many times an iteration; libgomp's threads spin
# there before they sleep, and on a machine whose cores are busy a spinning thread burns the CPU
# its descheduled partner needs. libgomp reads its environment once, when it is loaded (here,
# unless the process loaded it already): wait passively unless the user chose otherwise.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

from ._vitesse import (DEFAULT_L_ITER, Error, FileError, Model, Transitions, algorithms,
                       decode, default_algo, library_version, max_model_memory, simd)

from ._train import train, train_items

__version__ = library_version

__all__ = ["decode", "Transitions", "Model", "train", "train_items", "Error", "FileError",
           "algorithms", "default_algo", "simd", "library_version", "max_model_memory",
           "DEFAULT_L_ITER"]
