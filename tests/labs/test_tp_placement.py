"""parallelism-placement, typed through the shell: a tensor-parallel group of one node's size (tp=8, a size
Llama-8B's eight key/value heads allow) lands across nodes by a real configuration, and every artefact says
which: the config's ``order: dp-tp`` under torchrun's node-major ranks, or srun's ``--distribution=cyclic``
with ``order: tp-dp``. The finding names that cause; a cause that fits the other variant is refused with
feedback, a phrase that fits both names neither."""

import json
import re

import pytest

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import run

LAB = "parallelism-placement"


def _lab(how: str) -> Session:
    """The first seed of the lab whose fault is the variant ``how``."""
    for seed in range(4):
        session = Session(LAB, seed)
        if session.cluster.truth()["how"] == how:
            return session
    raise AssertionError(f"no seed of {LAB} picks {how}")


def _rank_nodes(session: Session) -> dict[int, str]:
    table = run(session, "timeline -r")
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\s+(\d+)\s+(node\d+)\s", table, re.M)}


def test_the_cyclic_launch_deals_consecutive_ranks_to_different_nodes_in_every_artefact():
    session = _lab("cyclic")
    script = run(session, "cat /home/alice/jobs/pretrain.sbatch")
    assert "#SBATCH --ntasks-per-node=8" in script
    assert "srun --ntasks-per-node=8 --distribution=cyclic --kill-on-bad-exit=1" in script
    assert "torchrun" not in script
    assert "order: tp-dp" in run(session, "cat /home/alice/jobs/configs/llama-8b.yaml")
    log = run(session, "head -n 4 /lustre/jobs/llm-pretrain/train.log")
    assert "world size 32 (tp=8 pp=1 dp=4)" in log
    assert "tensor-parallel group 0 = ranks [0, 1, 2, 3, 4, 5, 6, 7] on node[01-04]" in log
    nodes = _rank_nodes(session)
    assert [nodes[r] for r in range(8)] == ["node01", "node02", "node03", "node04"] * 2
    steps = json.loads(run(session, "sacct -j 48213 --json"))["jobs"][0]["steps"]
    assert "Cyclic" in [s["task"]["distribution"] for s in steps]
    assert "--distribution=cyclic" in run(session, "cat /lustre/jobs/llm-pretrain/slurm-48213.out")
    assert "torchrun" not in run(session, "ssh node01 ps -eo comm")


def test_the_rank_order_variant_strides_the_group_under_torchruns_node_major_ranks():
    session = _lab("rank-order")
    assert "torchrun --nnodes=$SLURM_NNODES --nproc-per-node=8" in run(session, "cat /home/alice/jobs/pretrain.sbatch")
    assert "order: dp-tp" in run(session, "cat /home/alice/jobs/configs/llama-8b.yaml")
    log = run(session, "head -n 4 /lustre/jobs/llm-pretrain/train.log")
    assert "world size 32 (tp=8 pp=1 dp=4)" in log
    assert "tensor-parallel group 0 = ranks [0, 4, 8, 12, 16, 20, 24, 28] on node[01-04]" in log
    nodes = _rank_nodes(session)
    assert [nodes[r] for r in range(8)] == ["node01"] * 8
    steps = json.loads(run(session, "sacct -j 48213 --json"))["jobs"][0]["steps"]
    assert "Cyclic" not in [s["task"]["distribution"] for s in steps]


@pytest.mark.parametrize("how, right, other", [
    ("rank-order", "the config orders dp before tp", "srun cyclic distribution"),
    ("cyclic", "srun -m cyclic deals ranks round robin", "rank order dp-tp"),
])
def test_each_variant_accepts_its_own_cause_and_explains_the_other(how, right, other):
    session = _lab(how)
    out, status = session.execute(f'submit cause="{other}"')
    said = " ".join(out.split())
    assert status != 0 and "not what the cluster shows" in said
    own, wrong = ("ask on which node each rank was started", "ask which ranks the config's order groups together")
    if how == "rank-order":
        own, wrong = wrong, own
    assert own in said and wrong not in said
    assert "Correct" in run(session, f'submit cause="{right}"')


@pytest.mark.parametrize("how", ["rank-order", "cyclic"])
@pytest.mark.parametrize("broad", ["tp across nodes", "tp larger than a node", "tensor parallel group spans nodes"])
def test_a_cause_that_fits_both_variants_names_neither(how, broad):
    out, status = _lab(how).execute(f'submit cause="{broad}"')
    assert status != 0 and "Correct" not in out


def test_most_of_each_step_goes_to_communication_as_the_brief_says():
    table = run(_lab("cyclic"), "timeline -r")
    compute, wait = re.search(r"^\s+0\s+node01\s+0\s+\S+\s+(\S+)\s+(\S+)", table, re.M).groups()
    assert float(wait) > float(compute)
    assert "larger model" not in run(Session(LAB, 0), "lab") and "plan" not in run(Session(LAB, 0), "lab")


@pytest.mark.parametrize("how", ["rank-order", "cyclic"])
def test_sharding_the_gemms_eight_ways_costs_compute_time(how):
    session = _lab(how)
    twin = Session(LAB, session.seed, faults=False)   # the same job at tp=1

    def compute(s: Session) -> float:
        return float(re.search(r"^\s+0\s+node01\s+0\s+\S+\s+(\S+)", run(s, "timeline -r"), re.M).group(1))

    assert compute(session) / compute(twin) == pytest.approx(1 / 0.96 ** 3, rel=0.01)


def test_a_tensor_parallel_size_that_does_not_divide_the_kv_heads_is_refused():
    cluster = build_cluster(ClusterSpec(seed=0, nodes=8, training_nodes=4))
    with pytest.raises(ValueError, match="does not divide the model's 8 key/value heads"):
        apply_fault(cluster, "tp-across-nodes", {"tp": 16, "how": "rank-order"})


def _comm_lines(session: Session, nranks: int) -> list[str]:
    """NCCL INFO lines of the communicators with ``nranks`` ranks in the job's Slurm output."""
    out = run(session, f"grep -E 'nranks {nranks} |nRanks {nranks} ' /lustre/jobs/llm-pretrain/slurm-48213.out")
    return out.splitlines()


@pytest.mark.parametrize("how", ["rank-order", "cyclic"])
def test_nccl_starts_a_communicator_per_tensor_parallel_group_where_the_launch_put_its_ranks(how):
    """After the world's communicator, each of the four groups inits its own: ranks 0-7, own commId, across nodes."""
    session = _lab(how)
    world = _comm_lines(session, 32)
    assert any(" rank 0 nRanks 32 nNodes 4 localRanks 8 " in line for line in world)
    tp = _comm_lines(session, 8)
    starts = [re.search(r"rank (\d) nranks 8 .* commId (0x[0-9a-f]{16}) - Init START$", line) for line in tp]
    starts = [m for m in starts if m]
    assert len(starts) == 32 and sorted(int(m.group(1)) for m in starts) == sorted(list(range(8)) * 4)
    world_id = re.search(r"commId (0x[0-9a-f]{16})", world[0]).group(1)
    assert len({m.group(2) for m in starts} | {world_id}) == 5
    completes = [line for line in tp if line.endswith("- Init COMPLETE")]
    assert len(completes) == 32
    assert any(" rank 0 nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0" in line for line in tp)
    # Group 0's rank 0 (global rank 0, node01 GPU 0) sends to a peer on another node over the network.
    channels = run(session, "grep -F 'Channel 01/0 : 0[0] ->' /lustre/jobs/llm-pretrain/slurm-48213.out")
    assert re.search(r"\[send\] via NET/IB/0/GDRDMA$", channels.splitlines()[-1])


def _tp0_init(session: Session) -> str:
    """What the thread initialising tensor-parallel group 0's rank 0 printed."""
    out = run(session, "grep -F ' nRanks 8 ' /lustre/jobs/llm-pretrain/slurm-48213.out")
    prefix = out.split(" NCCL INFO ")[0]
    return run(session, f"grep -F '{prefix} ' /lustre/jobs/llm-pretrain/slurm-48213.out")


def test_a_group_spread_over_nodes_reaches_its_peers_over_the_network():
    init = _tp0_init(_lab("cyclic"))
    assert "nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0" in init
    assert "Channel 00/32 :    0   4   1   5   2   6   3   7\n" in init
    assert "Channel 00/0 : 0[0] -> 4[1] via P2P/CUMEM/read\n" in init       # rank 4 shares node01
    assert "Channel 01/0 : 0[0] -> 5[1] [send] via NET/IB/0/GDRDMA\n" in init
    assert "NVLS" not in init and "Connected all trees" in init


def test_a_group_inside_one_node_connects_over_nvlink():
    """The same job with tp-dp order under torchrun's node-major ranks: the group is one node's GPUs."""
    session = _lab("rank-order")
    session.cluster.training.parallel_order = "tp-dp"
    init = _tp0_init(session)
    assert "nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0" in init
    assert "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n" in init
    assert "Connected NVLS" in init and "NET/IB" not in init and "Connected all trees" not in init
