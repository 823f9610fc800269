"""Deterministic identifiers and random sources.

Every random choice in the model comes from :func:`rng`, seeded from the
cluster seed and a stable name, so the same lab and seed always give the same
UUIDs, serials, GUIDs and samples, whatever Python's hash seed is.
"""

from __future__ import annotations

import random


def rng(seed: int, *names: object) -> random.Random:
    """A random source for one named thing (``rng(7, "node03", "gpu", 2)``)."""
    return random.Random(f"{seed}|" + "|".join(str(n) for n in names))


def gpu_uuid(r: random.Random) -> str:
    h = f"{r.getrandbits(128):032x}"
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def uuid4_hex(r: random.Random) -> str:
    """A random (version 4, RFC 4122 variant) UUID as 32 hex digits, as the kernel makes a boot ID."""
    bits = r.getrandbits(128) & ~(0xF000 << 64) & ~(0xC000 << 48) | (0x4000 << 64) | (0x8000 << 48)
    return f"{bits:032x}"


def serial(r: random.Random, prefix: str = "16549220") -> str:
    """A 13-digit board serial like NVIDIA's."""
    return prefix + f"{r.randrange(10**5):05d}"


def guid(r: random.Random, oui: int = 0xA088C2) -> str:
    """A 64-bit InfiniBand GUID built from a vendor OUI (``0xa088c20300da6342``)."""
    return f"0x{oui:06x}0300{r.getrandbits(24):06x}"


def mac(r: random.Random, oui: int = 0xA088C2) -> str:
    low = r.getrandbits(24)
    octets = [(oui >> 16) & 0xFF, (oui >> 8) & 0xFF, oui & 0xFF, (low >> 16) & 0xFF, (low >> 8) & 0xFF, low & 0xFF]
    return ":".join(f"{o:02x}" for o in octets)
