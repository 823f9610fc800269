"""Link rates as traffic experiences them.

A port's negotiated rate bounds it; rising physical errors (symbol errors,
link recovery) cost retransmissions on top. Collectives and step times read
:func:`effective_gbps`, never the raw fields.
"""

from __future__ import annotations

from .hardware import NIC


def effective_gbps(nic: NIC) -> float:
    """Usable bandwidth of a port in Gb/s (0 when it is not Active)."""
    if nic.state != "Active":
        return 0.0
    return float(nic.rate_gbps) * (1.0 - nic.retransmit_fraction)
