"""Labs whose seed picks the cause: each cause occurs, each is told apart from the other by what the
reference procedure's commands print, and only the seed's own cause, typed in a learner's words, passes.

Typed through the shell as a learner types (:func:`tests.support.run`), for seeds 0-5.
"""

from __future__ import annotations

import re

import pytest

from emulator import labs
from emulator.session import Session
from tests.support import run

SEEDS = (0, 1, 2, 3, 4, 5)

#: Lab -> cause the seed may pick -> how a learner might put it.
CAUSES = {
    "topology": {
        "cpu-misbinding": "the rank's cpus are on the other socket",
        "memory-misbinding": "its memory is bound to the other numa node",
    },
    "input-wait": {
        "slow-input": "the loader has too few workers",
        "cpu-contention": "another user's processes outside slurm starve the workers of cpu",
        "storage-contention": "another tenant's job saturates the lustre reads",
    },
    "workloads-cost": {
        "communication-bound": "the all-reduce crosses the oversubscribed spine",
        "input-bound": "the data loader has too few workers",
    },
}


@pytest.mark.parametrize("lab_id", CAUSES)
def test_the_seeds_pick_every_cause(lab_id: str) -> None:
    lab = labs.get(lab_id)
    picked = [labs.build(lab, seed).truth()["cause"] for seed in SEEDS]
    assert set(picked) == set(CAUSES[lab_id])
    # Any two consecutive seeds see both.
    assert all(a != b for a, b in zip(picked, picked[1:], strict=False))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", CAUSES)
def test_only_the_seeds_own_cause_in_a_learners_words_passes(lab_id: str, seed: int) -> None:
    lab = labs.get(lab_id)
    assert lab.check is not None
    session = Session(lab_id, seed)
    truth = session.cluster.truth()
    place = " ".join(f"{k}={truth[k]}" for k in lab.check.fields if k != "cause")
    for cause, words in CAUSES[lab_id].items():
        assert lab.check.vocabularies["cause"].resolve(words) == [cause]
        if cause != truth["cause"]:
            out, status = session.execute(f'submit {place} cause="{words}"')
            assert status == 1 and out.startswith("Not yet"), out
            for feedback in lab.check.feedback:
                if feedback.when == {"cause": cause}:
                    assert " ".join(feedback.say.split()) in " ".join(out.split()), out
    out = run(session, f'submit {place} cause="{CAUSES[lab_id][truth["cause"]]}"')
    assert out.startswith("✓ Correct"), out


def test_numa_misbinding_alone_names_neither_binding() -> None:
    """Both topology causes are a binding to the wrong NUMA node: the learner must say which."""
    session = Session("topology", 0)
    truth = session.cluster.truth()
    out, status = session.execute(f'submit node={truth["node"]} rank={truth["rank"]} cause="numa misbinding"')
    assert status != 0 and "✓" not in out


@pytest.mark.parametrize("seed", SEEDS)
def test_taskset_and_numa_maps_tell_the_two_bindings_apart(seed: int) -> None:
    """CPUs misbound: taskset names the other node's CPUs and numa_maps binds the memory to the GPU's node.
    Memory misbound: taskset names the GPU's own CPUs and numa_maps binds the memory to the other node."""
    session = Session("topology", seed)
    t = session.cluster.truth()
    rows = re.findall(r"^GPU(\d+)\t.*\t(\S+)\t(\d+)\t\tN/A$", run(session, f"ssh {t['node']} nvidia-smi topo -m"), re.M)
    own_cpus, own_numa = next((c, n) for g, c, n in rows if g == t["gpu"])
    bound = re.search(r"current affinity list: (\S+)$", run(session, f"ssh {t['node']} taskset -cp {t['pid']}"))
    maps = run(session, f"ssh {t['node']} head -n 2 /proc/{t['pid']}/numa_maps")
    policy = set(re.findall(r"^[0-9a-f]+ bind:(\d+) ", maps, re.M))
    memory_misbound = t["cause"] == "memory-misbinding"
    assert bound is not None and policy == ({t["numa"]} if memory_misbound else {own_numa})
    assert (bound.group(1) == own_cpus) == memory_misbound


@pytest.mark.parametrize("seed", SEEDS)
def test_the_step_breakdown_and_its_why_tell_input_from_communication(seed: int) -> None:
    """Input-bound: a data wait and little exposed all-reduce, every node under one leaf, two loader
    workers per rank. Communication-bound: the reverse, with the added nodes under another leaf."""
    session = Session("workloads-cost", seed)
    cause = session.cluster.truth()["cause"]
    row = re.search(r"^\s+0\s+node01\s+0\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s", run(session, "timeline --ranks"), re.M)
    assert row is not None
    data, wait = float(row.group(1)), float(row.group(2))
    leaves = re.findall(r"^Switch: \S+ (leaf-r0-\d+):", run(session, "ssh node01 iblinkinfo"), re.M)
    workers = re.search(r"^  num_workers: (\d+)$", run(session, "cat /home/alice/jobs/configs/llama-8b.yaml"), re.M)
    assert workers is not None
    if cause == "input-bound":
        assert data > 0.1 > wait and leaves == ["leaf-r0-01"] and workers.group(1) == "2"
    else:
        assert wait > 0.1 > data and leaves == ["leaf-r0-01", "leaf-r0-02"] and workers.group(1) == "8"
