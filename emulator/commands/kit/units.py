"""Sizes and durations as each real tool rounds and spells them, one preset a tool family.

coreutils (``ls -h``, ``du -h``, ``df -h``) round up with one decimal below
10; procps (``free -h``) rounds to nearest with ``Ki``/``Mi`` suffixes;
util-linux (``lsblk``) drops a zero decimal; Lustre's ``lfs df -h`` always
keeps one. Slurm, ps and top each write durations their own way.
"""

from __future__ import annotations

import math


def _dhms(seconds: float) -> tuple[int, int, int, int]:
    days, rest = divmod(max(0, int(seconds)), 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return days, hours, minutes, secs


def coreutils_size(size: int) -> str:
    """``ls -h`` / ``du -h`` sizes: 512, 4.0K, 12K, 1.5M (rounded up, as GNU does)."""
    if size < 1024:
        return str(size)
    value = float(size)
    for unit in "KMGTPE":
        value /= 1024
        if value < 1024 or unit == "E":
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{unit}"
            return f"{math.ceil(value)}{unit}"
    return str(size)


def procps_size(kib: int) -> str:
    """procps' human units: ``2.0Ti``, ``412Gi``, ``0B``."""
    if kib == 0:
        return "0B"
    value = kib * 1024.0
    for unit in ("B", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if value < 1024 or unit == "Pi":
            if unit == "B":
                return f"{int(value)}B"
            return f"{value:.1f}{unit}" if value < 10 else f"{int(round(value))}{unit}"
        value /= 1024
    return f"{value:.1f}Pi"



def top_cputime(seconds: float) -> str:
    """``TIME+``: minutes:seconds.hundredths."""
    hundredths = int(seconds * 100)
    minutes, rest = divmod(hundredths, 6000)
    return f"{minutes}:{rest // 100:02d}.{rest % 100:02d}"



def ps_cputime(seconds: float, long: bool) -> str:
    """``ps`` TIME: ``m:ss`` in BSD style, ``[dd-]hh:mm:ss`` in the long form."""
    s = int(seconds)
    if not long:
        return f"{s // 60}:{s % 60:02d}"
    days, rest = divmod(s, 86_400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text



def ps_etime(seconds: int) -> str:
    """``ps -o etime``: ``[[dd-]hh:]mm:ss``."""
    days, hours, minutes, secs = _dhms(seconds)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def coreutils_kib(kib: int, si: bool = False) -> str:
    """coreutils' ``-h`` sizes: rounded up, one decimal below 10 (``5.2M``, ``207G``, ``0``)."""
    if kib == 0:
        return "0"
    base = 1000.0 if si else 1024.0
    value = kib * 1024.0 / base if not si else kib * 1024.0 / 1000.0
    units = "kMGTPE" if si else "KMGTPE"
    for unit in units:
        if value < base or unit == units[-1]:
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{unit}"
            return f"{math.ceil(value):.0f}{unit}"
        value /= base
    return f"{value:.0f}E"



def util_linux_size(size_bytes: int) -> str:
    """util-linux sizes: ``1.7T``, ``512M``, one decimal only when it is not zero."""
    value = float(size_bytes)
    for unit in ("B", "K", "M", "G", "T", "P"):
        if value < 1024 or unit == "P":
            whole, frac = int(value), round((value - int(value)) * 10)
            if frac == 10:
                whole, frac = whole + 1, 0
            return f"{whole}.{frac}{unit}" if frac else f"{whole}{unit}"
        value /= 1024
    return f"{value:.1f}P"



def lustre_size(kib: int) -> str:
    """``lfs df -h``: one decimal always, plain KiB below a MiB."""
    value = float(kib)
    for unit in ("K", "M", "G", "T", "P", "E"):
        if value < 1024 or unit == "E":
            return f"{value:.1f}{unit}" if unit != "K" else f"{int(value)}"
        value /= 1024
    return f"{value:.1f}E"


def slurm_duration(seconds: float) -> str:
    """squeue/sinfo time: ``M:SS``, ``H:MM:SS`` or ``D-HH:MM:SS``."""
    days, hours, minutes, secs = _dhms(seconds)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"



def slurm_elapsed(seconds: float) -> str:
    """sacct/scontrol elapsed time: ``HH:MM:SS`` or ``D-HH:MM:SS``."""
    days, hours, minutes, secs = _dhms(seconds)
    return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}" if days else f"{hours:02d}:{minutes:02d}:{secs:02d}"
