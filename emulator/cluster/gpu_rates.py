"""How fast a GPU computes under load: its SM clock, and its speed relative to a healthy GPU at full boost.

The step model reads these rates; the readings that tools sample
(:mod:`emulator.cluster.telemetry`) build on them.
"""

from __future__ import annotations

from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU


def sm_clock_under_load(gpu: GPU) -> int:
    """SM clock (MHz) while running kernels: max boost unless a slowdown caps it."""
    if gpu.slowdown_cap_mhz is not None:
        return min(H100.max_sm_mhz, gpu.slowdown_cap_mhz)
    return H100.max_sm_mhz



def gpu_speed_factor(gpu: GPU) -> float:
    """Relative compute speed under load, 1.0 for a healthy GPU at full boost."""
    return sm_clock_under_load(gpu) / H100.max_sm_mhz
