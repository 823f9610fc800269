"""The checkpointing lab, typed through the shell: the failed save is what DCP leaves, each seed's why
shows in its own artefact and nowhere else, and the finding must name the why."""

from __future__ import annotations

import re

import pytest

from emulator import labs
from emulator.session import Session
from tests.support import run

LAB = "checkpointing"
CKPT = "/lustre/ckpt/llama-8b"
LOG = "/lustre/jobs/llm-pretrain/train.log"


def seed_for(why: str) -> int:
    """The first seed whose fault picked ``why``."""
    return next(s for s in range(6) if labs.build(labs.get(LAB), s).truth()["why"] == why)


@pytest.fixture(params=["ost-full", "quota", "oom"])
def lab(request: pytest.FixtureRequest) -> tuple[Session, dict[str, str]]:
    session = Session(LAB, seed_for(request.param))
    return session, session.cluster.truth()


def test_every_seed_of_three_consecutive_picks_a_different_why() -> None:
    assert {labs.build(labs.get(LAB), s).truth()["why"] for s in range(3)} == {"ost-full", "quota", "oom"}


def test_the_failed_save_has_every_shard_one_short_and_no_metadata(lab: tuple[Session, dict[str, str]]) -> None:
    session, truth = lab
    step, rank = int(truth["step"]), truth["missing_rank"]
    broken = f"{CKPT}/step_{step:07d}"
    listing = run(session, f"ls -la {broken}")
    assert ".metadata" not in listing
    sizes = {m.group(2): int(m.group(1)) for m in re.finditer(r" (\d+) \w{3} .* (__\d+_0\.distcp)$", listing, re.M)}
    assert len(sizes) == 32
    short = sizes.pop(f"__{rank}_0.distcp")
    assert short < min(sizes.values()) and len(set(sizes.values())) == 1
    assert run(session, f"find {CKPT} -name .metadata").split() == [
        f"{CKPT}/step_{s:07d}/.metadata" for s in (step - 300, step - 200, step - 100)]
    assert run(session, f"cat {CKPT}/latest_checkpointed_iteration.txt") == f"{step - 100}\n"
    # Directories are dated by their last entry: the failed save's shards came after the pointer was written.
    assert run(session, f"ls -t {CKPT}").split()[0] == f"step_{step:07d}"


def test_the_log_shows_the_checkpoint_exception_dcp_raises_and_no_clean_save(
        lab: tuple[Session, dict[str, str]]) -> None:
    session, truth = lab
    step, rank = truth["step"], truth["missing_rank"]
    log = run(session, f"cat {LOG}")
    assert f"saved checkpoint step {step} " not in log
    failed = run(session, f"grep -A20 'checkpoint step {step} failed' {LOG}")
    assert f"CheckpointException ranks:dict_keys([{rank}])\nTraceback (most recent call last): (RANK {rank})\n" in failed
    assert f"latest checkpoint stays step {int(step) - 100}" in failed
    raised = {"ost-full": "OSError: [Errno 28] No space left on device",
              "quota": "OSError: [Errno 122] Disk quota exceeded",
              "oom": "torch.OutOfMemoryError: CUDA out of memory."}
    for why, text in raised.items():
        assert (text in failed) == (why == truth["why"])


def _full_osts(session: Session) -> list[str]:
    return re.findall(r"100% /lustre\[OST:(\d+)\]", run(session, "lfs df /lustre"))


def _over_quota(session: Session) -> bool:
    return "*" in run(session, "lfs quota -v -p 2001 /lustre")


def _gpu_full(session: Session, truth: dict[str, str]) -> bool:
    used = [int(m) for m in re.findall(r"python3\s+(\d+)MiB", run(session, f"ssh {truth['rank_node']} nvidia-smi"))]
    return max(used) > 79_000


def test_each_why_shows_in_its_own_artefact_only(lab: tuple[Session, dict[str, str]]) -> None:
    session, truth = lab
    why = truth["why"]
    assert bool(_full_osts(session)) == (why == "ost-full")
    assert _over_quota(session) == (why == "quota")
    assert _gpu_full(session, truth) == (why == "oom")
    healthy = Session(LAB, seed_for(why), faults=False)
    assert not _full_osts(healthy) and not _over_quota(healthy) and not _gpu_full(healthy, truth)


def test_the_full_ost_holds_the_failed_shard_and_no_other() -> None:
    session = Session(LAB, seed_for("ost-full"))
    truth = session.cluster.truth()
    broken = f"{CKPT}/step_{int(truth['step']):07d}"
    [full] = _full_osts(session)
    assert run(session, f"lfs getstripe -i {broken}/__{truth['missing_rank']}_0.distcp") == f"{full}\n"
    layout = run(session, f"lfs getstripe {broken}")
    offsets = re.findall(r"^(\S+__(\d+)_0\.distcp)\n(?:.*\n){4}lmm_stripe_offset: (\d+)$", layout, re.M)
    assert len(offsets) == 32
    assert [rank for _path, rank, ost in offsets if ost == full] == [truth["missing_rank"]]


def test_the_oom_figures_agree_between_the_log_and_nvidia_smi() -> None:
    session = Session(LAB, seed_for("oom"))
    truth = session.cluster.truth()
    rank = session.cluster.training.ranks[int(truth["missing_rank"])]
    text = run(session, f"grep -A20 'CheckpointException' {LOG}")
    m = re.search(r"GPU (\d) has a total capacity of 79\.11 GiB .* this process has ([\d.]+) GiB memory in use", text)
    assert m and int(m.group(1)) == rank.gpu
    smi = run(session, f"ssh {rank.node} nvidia-smi")
    row = re.search(rf"^\|\s+{rank.gpu}\s+N/A\s+N/A\s+{rank.pid}\s+C\s+\S+\s+(\d+)MiB", smi, re.M)
    assert row and f"{int(row.group(1)) / 1024:.2f}" == m.group(2)


def _submit(session: Session, truth: dict[str, str], why: str | None) -> tuple[str, int]:
    line = f'submit step={truth["step"]} missing_rank={truth["missing_rank"]} cause="synchronous saves"'
    return session.execute(line + (f' why="{why}"' if why is not None else ""))


@pytest.mark.parametrize(("why", "said"), [("ost-full", "OST0003 is full"), ("quota", "project over its quota"),
                                           ("oom", "the rank's GPU ran out of memory")])
def test_the_finding_is_solved_only_with_the_right_why(why: str, said: str) -> None:
    session = Session(LAB, seed_for(why))
    truth = session.cluster.truth()
    out, status = _submit(session, truth, None)
    assert status != 0 and "missing why" in out
    for other in {"ost-full": "EDQUOT", "quota": "CUDA OOM", "oom": "No space left on device"}[why], "disk full":
        out, status = _submit(Session(LAB, seed_for(why)), truth, other)
        assert status == 1 and out.startswith("Not yet (attempt 1): 1 of 4 parts"), out
    out, status = _submit(session, truth, said)
    assert status == 0 and out.startswith("✓ Correct"), out


def test_saying_the_filesystem_is_full_gets_the_per_ost_feedback() -> None:
    session = Session(LAB, seed_for("ost-full"))
    out, _ = _submit(session, session.cluster.truth(), "the lustre filesystem is full")
    assert "(read as fs-full)" in out and "lfs df prints each OST" in " ".join(out.split())


@pytest.mark.parametrize("why", ["ost-full", "quota", "oom"])
def test_every_phrase_the_lab_lists_for_the_true_why_solves_it(why: str) -> None:
    check = labs.get(LAB).check
    assert check is not None
    session = Session(LAB, seed_for(why))
    truth = session.cluster.truth()
    for phrase in [why, *check.synonyms["why"][why]]:
        out, status = _submit(session, truth, phrase)
        assert status == 0 and out.startswith("✓ Correct"), f"{phrase!r}\n{out}"


def test_three_consecutive_seeds_fail_different_steps_ranks_and_nodes() -> None:
    found = set()
    for seed in range(3):
        out = run(Session(LAB, seed), f"grep ERROR {LOG}")
        m = re.search(r"checkpoint step (\d+) failed .* ranks:dict_keys\(\[(\d+)\]\)", out)
        assert m, out
        found.add(m.groups())
    assert len({step for step, _ in found}) == 3 and len({rank for _, rank in found}) == 3
    assert len({labs.build(labs.get(LAB), s).truth()["rank_node"] for s in range(3)}) >= 2


def test_timeline_draws_the_failed_save_as_a_failure_as_the_log_logs_it(lab: tuple[Session, dict[str, str]]) -> None:
    session, truth = lab
    out = run(session, "timeline")
    bar = out.splitlines()[2]
    assert bar.count("!") == 1 and bar.rstrip("=|").endswith("!")
    row = next(line for line in out.splitlines() if line.startswith("failure "))
    assert f"checkpoint step {truth['step']} failed: rank {truth['missing_rank']}" in row
    assert f"step {truth['step']}, sync" not in out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_storage_lab_has_no_failed_save_and_no_full_quota(seed: int) -> None:
    session = Session("storage", seed)
    assert "ERROR" not in run(session, f"cat {LOG}")
    assert "!" not in run(session, "timeline").splitlines()[2]
    assert "*" not in run(session, "lfs quota -h -p 2001 /lustre")
    listing = run(session, f"ls -la {CKPT}/step_*")
    assert listing.count(".metadata") == 3


@pytest.mark.parametrize("lab_id", [LAB, "storage"])
def test_every_save_the_listing_lacks_the_log_says_was_removed_and_none_it_shows(lab_id: str) -> None:
    session = Session(lab_id, 0)
    log = run(session, f"grep checkpoint.py {LOG}")
    assert "keep_last=3" in run(session, f"grep config {LOG}")
    listed = set(re.findall(r"step_(\d{7})$", run(session, f"ls -l {CKPT}"), re.M))
    removed = set(re.findall(r"removed old checkpoint \S+/step_(\d{7}) \(keep_last=3\)$", log, re.M))
    logged = set(re.findall(r"(?:saved|loaded) checkpoint (?:step |\S+/step_)(\d+)", log))
    assert removed and not removed & listed
    assert {f"{int(s):07d}" for s in logged} <= listed | removed
    saved_ok = re.findall(r"saved checkpoint step (\d+)", log)
    assert len(re.findall("removed old checkpoint", log)) == len(saved_ok)


def test_the_oom_is_raised_where_the_save_allocates_on_the_gpu_not_by_the_copy_to_host() -> None:
    session = Session(LAB, seed_for("oom"))
    failed = run(session, f"grep -B4 'torch.OutOfMemoryError' {LOG}")
    assert "return tensor.contiguous()" in failed and 'File "/home/alice/jobs/checkpoint.py"' in failed
    assert 'tensor.to(device="cpu"' not in run(session, f"cat {LOG}")
    node = session.cluster.truth()["rank_node"]
    assert "Xid" not in run(session, f"ssh {node} dmesg")


def test_the_quota_ran_out_on_the_failed_shards_ost_during_the_saves_last_writes() -> None:
    """lfs quota -v: the master granted the whole limit; only the OST under the failed shard used its grant up."""
    session = Session(LAB, seed_for("quota"))
    truth = session.cluster.truth()
    step, rank = int(truth["step"]), truth["missing_rank"]
    out = run(session, "lfs quota -v -p 2001 /lustre")
    total = re.search(r"^\s+/lustre (\d+)(\*?) +0 (\d+) ", out, re.M)
    assert total
    used, hard = int(total[1]), int(total[3])
    assert 0 < hard - used < 4 * 1024 ** 2 and not total[2]            # under the limit by less than 4 GiB
    rows = re.findall(r"^lustre-(OST|MDT)(\w{4})_UUID\n\s+(\d+)(\*?)\s+-\s+(\d+)\s", out, re.M)
    assert len(rows) == 9 and sum(int(r[2]) for r in rows) == used
    granted = int(re.search(r"total allocated block limit: (\d+)", out)[1])
    assert granted + int(rows[0][4]) == hard                               # every KiB of the limit is granted
    stripe = run(session, f"lfs getstripe -i {CKPT}/step_{step:07d}/__{rank}_0.distcp").strip()
    assert [int(r[1], 16) for r in rows if r[3]] == [int(stripe)]
    listing = run(session, f"ls -l {CKPT}/step_{step:07d}")
    sizes = sorted(int(m) for m in re.findall(r" (\d+) \w{3} +\d+ [\d:]+ __\d+_0\.distcp$", listing, re.M))
    assert 0.85 < sizes[0] / sizes[-1] < 0.98 and sizes[1] == sizes[-1]   # one shard short, near its end


def test_lfs_quota_verbose_for_an_id_without_limits_has_no_grants() -> None:
    out = run(Session(LAB, 0), "lfs quota -v -u alice /lustre")
    assert "lustre-OST0007_UUID" in out and "total allocated block limit: 0" in out
