"""GPU readings under load: what NVML (nvidia-smi, DCGM) would sample now.

The GPU dataclass holds conditions (clock caps, active slowdown reasons,
error counts); this module turns them and the training load into the
numbers tools print.
"""

from __future__ import annotations

from .catalog import H100
from .hardware import GPU


def sm_clock_under_load(gpu: GPU) -> int:
    """SM clock (MHz) while running kernels: max boost unless a slowdown caps it."""
    if gpu.slowdown_cap_mhz is not None:
        return min(H100.max_sm_mhz, gpu.slowdown_cap_mhz)
    return H100.max_sm_mhz


def gpu_speed_factor(gpu: GPU) -> float:
    """Relative compute speed under load, 1.0 for a healthy GPU at full boost."""
    return sm_clock_under_load(gpu) / H100.max_sm_mhz
