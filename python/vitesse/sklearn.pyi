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
