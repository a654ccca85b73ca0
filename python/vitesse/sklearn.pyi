# Type hints of vitesse.sklearn.
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import Model

Token = Union[str, Sequence[str], Mapping[str, Any]]
X_t = Sequence[Sequence[Token]]

class Tagger:
    template: Optional[str]
    epochs: int
    decoder: Optional[str]
    seed: int
    min_count: int
    algo: Optional[str]
    threads: int
    model_: Model
    classes_: List[str]
    columns_: Optional[List[str]]
    def __init__(self, template: Optional[str] = ..., epochs: int = ...,
                 decoder: Optional[str] = ..., seed: int = ..., min_count: int = ...,
                 algo: Optional[str] = ..., threads: int = ...) -> None: ...
    def get_params(self, deep: bool = ...) -> Dict[str, Any]: ...
    def set_params(self, **params: Any) -> "Tagger": ...
    def fit(self, X: X_t, y: Sequence[Sequence[str]], X_dev: Optional[X_t] = ...,
            y_dev: Optional[Sequence[Sequence[str]]] = ...) -> "Tagger": ...
    def predict(self, X: X_t) -> List[List[str]]: ...
    def predict_single(self, xseq: Sequence[Token]) -> List[str]: ...
    def predict_topk(self, X: X_t, k: int = ...) -> List[List[Tuple[float, List[str]]]]: ...
    def score(self, X: X_t, y: Sequence[Sequence[str]]) -> float: ...

class CRF:
    algorithm: Optional[str]
    c1: Optional[float]
    c2: Optional[float]
    max_iterations: Optional[int]
    verbose: bool
    model_filename: Optional[str]
    training_log_: Any
    def __init__(self, algorithm: Optional[str] = ..., min_freq: Optional[float] = ...,
                 all_possible_states: Optional[bool] = ...,
                 all_possible_transitions: Optional[bool] = ..., c1: Optional[float] = ...,
                 c2: Optional[float] = ..., max_iterations: Optional[int] = ...,
                 num_memories: Optional[int] = ..., epsilon: Optional[float] = ...,
                 period: Optional[int] = ..., delta: Optional[float] = ...,
                 linesearch: Optional[str] = ..., max_linesearch: Optional[int] = ...,
                 calibration_eta: Optional[float] = ..., calibration_rate: Optional[float] = ...,
                 calibration_samples: Optional[float] = ...,
                 calibration_candidates: Optional[int] = ...,
                 calibration_max_trials: Optional[int] = ..., pa_type: Optional[int] = ...,
                 c: Optional[float] = ..., error_sensitive: Optional[bool] = ...,
                 averaging: Optional[bool] = ..., variance: Optional[float] = ...,
                 gamma: Optional[float] = ..., verbose: bool = ...,
                 model_filename: Optional[str] = ..., keep_tempfiles: bool = ...,
                 trainer_cls: Any = ..., checkpoint: Optional[str] = ...,
                 checkpoint_every: Optional[int] = ...) -> None: ...
    def get_params(self, deep: bool = ...) -> Dict[str, Any]: ...
    def set_params(self, **params: Any) -> "CRF": ...
    def fit(self, X: Sequence[Any], y: Sequence[Sequence[str]], X_dev: Optional[Sequence[Any]] = ...,
            y_dev: Optional[Sequence[Sequence[str]]] = ...) -> "CRF": ...
    def predict(self, X: Sequence[Any]) -> List[List[str]]: ...
    def predict_single(self, xseq: Any) -> List[str]: ...
    def predict_marginals(self, X: Sequence[Any]) -> List[List[Dict[str, float]]]: ...
    def predict_marginals_single(self, xseq: Any) -> List[Dict[str, float]]: ...
    def score(self, X: Sequence[Any], y: Sequence[Sequence[str]]) -> float: ...
    @property
    def tagger_(self) -> Any: ...
    @property
    def classes_(self) -> Optional[List[str]]: ...
    @property
    def size_(self) -> Optional[int]: ...
