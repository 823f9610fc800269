"""Every lab's reference procedure prints exactly what it printed when recorded.

For each lab (the sandbox included) and three seeds, a fresh session types the
lab's brief, its hints, every line of its reference procedure (placeholders
filled from the truth), a survey of everyday commands on the login node and on
a GPU node, and the finding; the whole transcript, prompts and statuses
included, must equal the recorded file in ``tests/labs/transcripts/``. The
same procedure on the healthy twin is recorded too. A change meant to alter
output is recorded again with ``REGOLD=1`` and reviewed as a diff; a
restructuring of the code must leave every file unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from emulator import labs
from emulator.session import Session

HERE = Path(__file__).resolve().parent / "transcripts"
SEEDS = (0, 1, 2)
SURVEY = (
    "help",
    "man nvidia-smi",
    "which ssh sinfo awk",
    "type cd grep",
    "sinfo -N -l",
    "squeue",
    "sacct -X --format=JobID,JobName,State,Elapsed,NodeList",
    "ps aux | head -n 5",
    "cat /proc/meminfo | head -n 3",
    "ssh node01",
    "nvidia-smi",
    "nvidia-smi -q -d ECC | grep -i volatile",
    "ps -eo pid,user,stat,comm | head -n 8",
    "free -m",
    "top -b -n 1 | head -n 12",
    "cat /proc/loadavg /proc/uptime",
    "ls /sys/class/infiniband",
    "lspci | grep -ci nvidia",
    "dcgmi health -c",
    "ibstat mlx5_0 | head -n 8",
    "echo $? $HOSTNAME",
    "exit",
)


def transcript(session: Session, lines: list[str]) -> str:
    parts = []
    for line in lines:
        prompt = session.prompt
        out, status = session.execute(line)
        parts.append(f"{prompt}{line}\n{out}[{status}]\n")
    return "".join(parts)


def procedure(lab: labs.Lab, truth: dict[str, str]) -> list[str]:
    return [labs.substitute(line, truth) for step in lab.solution for line in step.run]


def record(lab_id: str, seed: int) -> str:
    lab = labs.get(lab_id)
    session = Session(lab_id, seed)
    truth = session.cluster.truth()
    lines = ["lab", *(["hint"] * len(lab.hints)), *procedure(lab, truth), *SURVEY]
    if lab.check is not None:
        finding = " ".join(f"{name}={truth[name]}" for name in lab.check.fields)
        lines.append(f"submit {finding}")
    text = f"# {lab_id} seed {seed}\n{session.banner()}\n" + transcript(session, lines)
    if not lab.is_sandbox:
        twin = Session(lab_id, seed, faults=False)
        text += "# healthy twin\n" + transcript(twin, procedure(lab, truth))
    return text


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", labs.known_labs())
def test_the_lab_transcript_is_unchanged(lab_id, seed):
    text = record(lab_id, seed)
    path = HERE / f"{lab_id}-{seed}.txt"
    if os.environ.get("REGOLD"):
        path.write_text(text)
    assert text == path.read_text()
