from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

class TunedGemmInfo(TypedDict):
    backend: str
    configs: list[str]
    baseline: int

def gemm(a: Any, b: Any, c: Any, alpha: float = ..., beta: float = ...) -> Any: ...
def tuned_gemm_info() -> TunedGemmInfo: ...
