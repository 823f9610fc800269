"""Benchmarks of the emulator in CPython: command latency and model scaling.

Each function returns rows ``(name, value, unit, target, target_kind)``; the
runner prints them next to their targets and writes them as JSON.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.session import Session
from emulator.shell.interpreter import Shell

HERE = Path(__file__).resolve().parent
Row = tuple[str, float, str, float | None, str]


def representative_commands() -> list[str]:
    lines = (HERE / "representative_commands.txt").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def paced_commands() -> set[str]:
    """The representative commands that stream with pauses (their output is paced on purpose)."""
    session = Session(lab=None, seed=0)
    paced = set()
    for line in representative_commands():
        run = session.run(line)
        while (chunk := run.step()) is not None:
            if chunk.pause:
                paced.add(line)
    return paced


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _timed(fn: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def command_latency(rounds: int = 5) -> list[Row]:
    """p50 and p95 of the representative commands through the Session API."""
    commands = representative_commands()
    session = Session(lab=None, seed=0)
    for line in commands:  # warm caches: lazily built hardware, compiled regexes
        session.execute(line)
    samples: list[float] = []
    per_command: dict[str, list[float]] = {line: [] for line in commands}
    for _ in range(rounds):
        for line in commands:
            (elapsed,) = _timed(lambda line=line: session.execute(line), 1)
            samples.append(elapsed)
            per_command[line].append(elapsed)
    slowest = max(per_command, key=lambda line: statistics.median(per_command[line]))
    print(f"slowest command in CPython: {slowest}")
    return [
        ("cpython command p50", percentile(samples, 0.50), "ms", None, ""),
        ("cpython command p95", percentile(samples, 0.95), "ms", 5.0, "max"),
        ("cpython slowest command, median", statistics.median(per_command[slowest]), "ms", None, ""),
    ]


def sandbox_of(nodes: int) -> Session:
    """A healthy session on a cluster of ``nodes`` compute nodes."""
    session = Session(lab=None, seed=0)
    session.cluster = build_cluster(ClusterSpec(nodes=nodes, seed=0))
    session.shell = Shell(session, session.cluster)
    return session


def model_scaling(sizes: tuple[int, ...] = (2, 16, 128, 1024), repeat: int = 5) -> list[Row]:
    """sinfo, squeue and one multi-node all_reduce_perf at several model sizes."""
    rows: list[Row] = []
    for nodes in sizes:
        session = sandbox_of(nodes)
        span = min(nodes, 2)
        for line in ("sinfo", "squeue", f"srun -N {span} --ntasks-per-node=8 all_reduce_perf -b 1M -e 1G -f 4 -g 1"):
            session.execute(line)
            median = statistics.median(_timed(lambda line=line, session=session: session.execute(line), repeat))
            target = 100.0 if nodes == 1024 else None
            rows.append((f"{nodes} nodes: {line.split()[0]}", median, "ms", target, "max" if target else ""))
    return rows
