# Type hints of the vitesse package (the C extension vitesse._vitesse and the Python layer).
import os
from typing import (Any, Callable, Dict, Iterable, List, Literal, Optional, Sequence, Tuple, Union,
                    overload)

import numpy as np
import numpy.typing as npt

__version__: str
library_version: str
DEFAULT_L_ITER: int

Algo = Literal["viterbi", "viterbi-scalar", "kbest-viterbi", "beam", "staggered",
               "staggered-col", "astar", "iter-astar", "viterbi-astar", "iter-viterbi-astar",
               "carpediem"]
Path = Union[str, bytes, "os.PathLike[str]"]
Row = Union[str, Sequence[str]]
Sentence = Sequence[Row]
Labels = npt.NDArray[np.int32]
Paths = List[Tuple[float, Labels]]

class Error(ValueError):
    status: int

class FileError(Error, OSError): ...

class Transitions:
    def __init__(self, transitions: npt.ArrayLike, start: Optional[npt.ArrayLike] = ...,
                 end: Optional[npt.ArrayLike] = ..., rank: Optional[npt.ArrayLike] = ...) -> None: ...
    @property
    def labels(self) -> int: ...
    @property
    def transitions(self) -> npt.NDArray[np.float64]: ...
    @property
    def start(self) -> npt.NDArray[np.float64]: ...
    @property
    def end(self) -> npt.NDArray[np.float64]: ...

def decode(emissions: npt.ArrayLike, transitions: Union[npt.ArrayLike, Transitions],
           start: Optional[npt.ArrayLike] = ..., end: Optional[npt.ArrayLike] = ...,
           lengths: Optional[npt.ArrayLike] = ..., *, algo: Optional[Algo] = ..., k: int = ...,
           beam: Optional[int] = ..., rank: Optional[npt.ArrayLike] = ...,
           threads: int = ..., posteriors: bool = ...) -> Union[Paths, List[Paths], Any]: ...

TagResult = Union[None, List[str], List[Tuple[str, str]], List[Tuple[float, List[Any]]]]

class Model:
    train_report: Dict[str, Any]
    def __init__(self, path: Path) -> None: ...
    @classmethod
    def from_bytes(cls, data: bytes, name: Optional[str] = ...) -> "Model": ...
    @property
    def labels(self) -> List[str]: ...
    @property
    def chunk_labels(self) -> List[str]: ...
    @property
    def kind(self) -> Literal["tagger", "joint", "transitions", "crfsuite"]: ...
    @property
    def path(self) -> Optional[str]: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    def tag(self, tokens: Union[Sentence, "Xseq"], *, algo: Optional[Algo] = ..., k: int = ...,
            beam: Optional[int] = ..., marginals: bool = ...) -> Any: ...
    def tag_many(self, sentences: Sequence[Union[Sentence, "Xseq"]], *, threads: int = ...,
                 algo: Optional[Algo] = ..., k: int = ..., beam: Optional[int] = ...,
                 marginals: bool = ...) -> List[Any]: ...
    def save(self, path: Path, *, format: Optional[Literal["vitesse", "crfsuite"]] = ...
             ) -> None: ...
    def to_bytes(self, *, format: Optional[Literal["vitesse", "crfsuite"]] = ...) -> bytes: ...
    def tag_file(self, path_in: Union[Path, Sequence[Path]], path_out: Path, *,
                 algo: Optional[Algo] = ..., k: int = ..., beam: Optional[int] = ...,
                 threads: int = ..., batch_tokens: int = ...,
                 bind: Literal["core", "numa", "none"] = ...) -> Dict[str, Any]: ...

TrainAlgorithm = Literal["perceptron", "lbfgs", "l2sgd"]
LineSearch = Literal["MoreThuente", "Backtracking", "StrongBacktracking"]
Xseq = Sequence[Union[Sequence[Union[str, bytes]], Dict[Any, Any]]]  # python-crfsuite's items
Items = Union[Path, Sequence[Path], Iterable[Tuple[Xseq, Sequence[str]]]]

def train(template: Union[str, "os.PathLike[str]"],
          train: Union[Path, Sequence[Path], Sequence[Sequence[Sequence[str]]]], *,
          dev: Union[None, Path, Sequence[Path], Sequence[Sequence[Sequence[str]]]] = ...,
          epochs: int = ..., decoder: Optional[Algo] = ..., seed: int = ...,
          min_count: int = ..., label_col: int = ..., path: Optional[Path] = ...,
          callback: Optional[Callable[[Dict[str, Any]], Any]] = ...,
          progress: Optional[Callable[[int, int, int, int], Any]] = ...,
          verbose: bool = ..., algorithm: TrainAlgorithm = ..., c1: float = ...,
          c2: float = ..., max_iterations: Optional[int] = ..., epsilon: float = ...,
          period: int = ..., delta: float = ..., num_memories: int = ...,
          linesearch: LineSearch = ..., max_linesearch: int = ...,
          calibration_eta: float = ..., calibration_rate: float = ...,
          calibration_samples: int = ..., calibration_candidates: int = ...,
          calibration_max_trials: int = ..., min_freq: float = ...,
          all_possible_states: bool = ..., all_possible_transitions: bool = ...,
          on_iteration: Optional[Callable[[Dict[str, Any]], Any]] = ...,
          threads: Optional[int] = ..., checkpoint: Optional[Path] = ...,
          checkpoint_every: Optional[int] = ...) -> Model: ...

def train_items(train: Items, *, dev: Optional[Items] = ...,
                algorithm: Literal["lbfgs", "l2sgd", "ap", "pa", "arow"] = ..., c1: float = ...,
                c2: float = ..., max_iterations: Optional[int] = ...,
                epsilon: Optional[float] = ..., period: int = ...,
                delta: float = ..., num_memories: int = ..., linesearch: LineSearch = ...,
                max_linesearch: int = ..., calibration_eta: float = ...,
                calibration_rate: float = ..., calibration_samples: int = ...,
                calibration_candidates: int = ..., calibration_max_trials: int = ...,
                min_freq: float = ..., all_possible_states: bool = ...,
                all_possible_transitions: bool = ..., pa_type: int = ..., c: float = ...,
                error_sensitive: bool = ..., averaging: bool = ..., variance: float = ...,
                gamma: float = ..., init_model: Optional[Path] = ...,
                seed: int = ..., path: Optional[Path] = ...,
                on_iteration: Optional[Callable[[Dict[str, Any]], Any]] = ...,
                verbose: bool = ..., threads: Optional[int] = ...,
                checkpoint: Optional[Path] = ...,
                checkpoint_every: Optional[int] = ...) -> Model: ...

def algorithms() -> Dict[str, Dict[str, bool]]: ...
def default_algo(labels: int, k: int = ...) -> str: ...
def simd() -> Literal["scalar", "avx2", "avx512"]: ...
def max_model_memory(nbytes: Optional[int] = None) -> int: ...
