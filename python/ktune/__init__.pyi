import os
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

class Error(RuntimeError): ...

class TunedInfo(TypedDict):
    backend: str
    configs: list[str]
    baseline: int

TunedGemmInfo = TunedInfo

class Dataset(TypedDict):
    family: str
    device: str
    problems: list[str]
    problem_groups: list[list[str]]
    feature_names: list[str]
    features: npt.NDArray[np.float64]
    work: npt.NDArray[np.float64]
    configs: list[str]
    config_param_names: list[str]
    config_params: npt.NDArray[np.float64]
    perf: npt.NDArray[np.float64]
    valid: npt.NDArray[np.bool_]
    measured: npt.NDArray[np.bool_]
    vendors: list[str]
    vendor_perf: npt.NDArray[np.float64]

_Path = str | os.PathLike[str]
_Option = str | int | float | bool | os.PathLike[str] | list[Any] | tuple[Any, ...] | None

def gemm(a: Any, b: Any, c: Any, alpha: float = ..., beta: float = ...,
         stream: int | None = ...) -> Any: ...
def tuned_gemm_info(device: str = ...) -> TunedInfo: ...
def conv2d(input: Any, filter: Any, stride: int = ..., pad: int = ..., out: Any = ...,
           stream: int | None = ...) -> Any: ...
def tuned_conv2d_info(device: str = ...) -> TunedInfo: ...
def infer_onnx(path: _Path, input: Any, backend: str = ...) -> npt.NDArray[np.float32]: ...
def backends() -> list[tuple[str, str]]: ...
class CpuDevice(TypedDict):
    slug: str
    name: str

def cpu_device() -> CpuDevice: ...
def open_store(path: _Path, device: str = ..., family: str = ...) -> dict[str, npt.NDArray[Any]]: ...
def load_dataset(path: _Path, device: str = ..., family: str = ...) -> Dataset: ...
def run(verb: str, *args: Any, **options: _Option) -> None: ...
def bench(**options: _Option) -> None: ...
def prune(**options: _Option) -> None: ...
def train(**options: _Option) -> None: ...
def eval(**options: _Option) -> None: ...
def codegen(**options: _Option) -> None: ...
def deploy(**options: _Option) -> None: ...
