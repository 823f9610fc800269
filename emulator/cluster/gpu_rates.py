"""How fast a GPU computes under load: its SM clock, and its speed relative to a healthy GPU.

A busy H100 SXM in dense training would draw more than its 700 W software
power limit at full boost (1980 MHz), so the power controller lowers the SM
clock until the draw fits: healthy GPUs sit at the limit with ``SW Power
Cap`` active and SM clocks around 1.75-1.86 GHz, each GPU a little
different (its demand at full boost, seeded per GPU in ``GPU.load_demand_w``),
while the memory clock stays at its maximum. A lowered limit
(``nvidia-smi -pl``) lowers the clock further; a thermal or power-brake
slowdown caps it below that. Sources: NVIDIA quotes H100 SXM's dense BF16
peak at 1830 MHz, not the 1980 MHz maximum (FACTS.md); a binding software
power cap pins the draw within a watt of the limit, lowers only the SM clock
and shows ``sw_power_cap`` active in nearly every busy sample
(ashalliants/ninfer-3090 PR 72); a power cap throttles even a locked clock
(facebookexperimental/triton PR 2023). The exponent of dynamic power in the
clock is a model assumption.

The step model reads these rates; the readings that tools sample
(:mod:`emulator.cluster.telemetry`) build on them.
"""

from __future__ import annotations

from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU

#: Range of what a healthy GPU would draw in dense bf16 training at full boost, W (seeded per GPU).
DEMAND_W = (745.0, 830.0)
#: Dynamic power (above idle) grows about as the SM clock to this power [model assumption].
POWER_EXPONENT = 1.5
#: Clock steps the controller takes, MHz.
CLOCK_STEP_MHZ = 15


def power_capped_mhz(gpu: GPU, demand_w: float | None = None) -> int:
    """The SM clock at which the GPU's draw under load fits its power limit (max boost if it fits)."""
    demand = gpu.load_demand_w if demand_w is None else demand_w
    if demand <= gpu.power_limit_w:
        return H100.max_sm_mhz
    frac = max(0.05, (gpu.power_limit_w - gpu.power_w) / (demand - gpu.power_w)) ** (1 / POWER_EXPONENT)
    return int(min(H100.max_sm_mhz, frac * H100.max_sm_mhz) // CLOCK_STEP_MHZ * CLOCK_STEP_MHZ)


def power_limited(gpu: GPU) -> bool:
    """Whether the power limit, not a slowdown, sets the clock under load."""
    capped = power_capped_mhz(gpu)
    return capped < H100.max_sm_mhz and (gpu.slowdown_cap_mhz is None or gpu.slowdown_cap_mhz >= capped)


def sm_clock_under_load(gpu: GPU) -> int:
    """SM clock (MHz) while running kernels: the power-capped clock, or lower when a slowdown caps it."""
    clock = power_capped_mhz(gpu)
    if gpu.slowdown_cap_mhz is not None:
        return min(clock, gpu.slowdown_cap_mhz)
    return clock


#: The lowest clock a healthy GPU holds at the default limit: the step model counts any clock at or
#: above it as full speed, so the few-percent spread of a power-capped fleet does not turn the least
#: efficient healthy GPU into a straggler (the step's own noise is of that order).
HEALTHY_MHZ = power_capped_mhz(GPU(index=0, uuid="", pci_bus_id="", serial="", numa_node=0, pcie_switch=0, minor=0,
                                   power_w=74.0, power_limit_w=H100.power_limit_w), DEMAND_W[1])


def gpu_speed_factor(gpu: GPU) -> float:
    """Relative compute speed under load, 1.0 for a healthy GPU at the default power limit."""
    return min(1.0, sm_clock_under_load(gpu) / HEALTHY_MHZ)
