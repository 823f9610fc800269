"""``lfs quota``, ``lfs getstripe`` and ``lfs project`` in lfs's own formats, from the model."""

from __future__ import annotations

import re

import pytest

from emulator.session import Session
from tests.support import on, run

HEADER = "     Filesystem  kbytes   quota   limit   grace   files   quota   limit   grace"


def test_quota_without_an_id_shows_the_users_and_groups_usage_without_limits() -> None:
    out = run(on(None), "lfs quota /lustre")
    lines = out.splitlines()
    assert lines[0] == "Disk quotas for usr alice (uid 1001):" and lines[1] == HEADER
    assert lines[3] == "Disk quotas for grp alice (gid 1001):"
    assert re.fullmatch(r"\s{8}/lustre\s+\d+\s+0\s+0\s+-\s+\d+\s+0\s+0\s+-", lines[2])
    assert "*" not in out


def test_a_project_whose_limit_is_all_granted_marks_the_target_that_used_its_grant() -> None:
    """Just under the hard limit in total; -v marks the one OST at its grant, and says how much is granted."""
    session = Session("checkpointing", 0)
    assert session.cluster.truth()["why"] == "quota"
    row = run(session, "lfs quota -p 2001 /lustre").splitlines()[2]
    used, limit = re.fullmatch(r"\s+/lustre (\d+) \s+0\s+(\d+)\s+-\s+\d+\s+0\s+0\s+-", row).groups()  # type: ignore[union-attr]
    assert limit == str(64 * 1024 ** 3) and 0 < int(limit) - int(used) < 4 * 1024 ** 2
    human = run(session, "lfs quota -hv -p 2001 /lustre").splitlines()
    assert human[1].startswith("     Filesystem    used") and re.search(r"\s64T\s+0k\s+64T\s", human[2])
    assert human[3] == "lustre-MDT0000_UUID" and re.fullmatch(r" {15} +[\d.]+G  +- +[\d.]+G +- +\d+  +- +0 +-", human[4])
    assert sum("*" in line for line in human[5:]) == 1
    assert human[-1] == "Total allocated inode limit: 0, total allocated block limit:    64T"
    healthy = Session("checkpointing", 0, faults=False)
    assert "*" not in run(healthy, "lfs quota -v -p 2001 /lustre")


@pytest.mark.parametrize(("line", "message", "status"), [
    ("lfs quota", "lfs quota: missing filesystem", 22),
    ("lfs quota -u nobody /lustre", "lfs quota: can't find id for usr nobody", 2),
    ("lfs quota -u alice /home", "lfs quota: /home isn't mounted on lustre", 19),
    ("lfs quota -p", "lfs quota: option requires an argument -- 'p'", 22),
    ("lfs quota -x /lustre", "lfs quota: unrecognized option '-x'", 22),
    ("lfs getstripe /lustre/nope", "lfs getstripe: cannot open '/lustre/nope': No such file or directory (2)", 2),
    ("lfs getstripe /home/alice", "lfs getstripe: /home/alice: not on a Lustre filesystem", 25),
    ("lfs getstripe", "lfs getstripe: no file or directory given", 22),
    ("lfs project -z /lustre", "lfs project: unrecognized option '-z'", 22),
])
def test_bad_lfs_arguments_fail_in_lfs_words(line: str, message: str, status: int) -> None:
    out, code = on(None).execute(line)
    assert code == status and out.startswith(message), out


def test_getstripe_prints_a_files_layout_and_a_directorys_default() -> None:
    session = on(None, "checkpointing", 1)
    step = session.cluster.truth()["step"]
    path = f"/lustre/ckpt/llama-8b/step_{int(step):07d}/__3_0.distcp"
    lines = run(session, f"lfs getstripe {path}").splitlines()
    assert lines[:5] == [path, "lmm_stripe_count:  1", "lmm_stripe_size:   1048576", "lmm_pattern:       raid0",
                         "lmm_layout_gen:    0"]
    ost = lines[5].removeprefix("lmm_stripe_offset: ")
    assert lines[6] == "\tobdidx\t\t objid\t\t objid\t\t group"
    index, objid, hexid, group = lines[7].split()
    assert index == ost and hex(int(objid)) == hexid and group == "0"
    assert run(session, f"lfs getstripe -i {path}") == f"{ost}\n"
    assert run(session, f"lfs getstripe -c {path}") == "1\n"
    assert run(session, "lfs getstripe -d /lustre/ckpt/llama-8b") == (
        "/lustre/ckpt/llama-8b\nstripe_count:  1 stripe_size:   1048576 pattern:       raid0 stripe_offset: -1\n\n")


def test_project_shows_the_id_the_checkpoint_tree_carries() -> None:
    session = on(None, "checkpointing", 1)
    assert run(session, "lfs project -d /lustre/ckpt/llama-8b") == " 2001 P /lustre/ckpt/llama-8b\n"
    shard = run(session, "lfs project /lustre/ckpt/llama-8b/latest_checkpointed_iteration.txt")
    assert shard == " 2001 - /lustre/ckpt/llama-8b/latest_checkpointed_iteration.txt\n"
    assert run(session, "lfs project -d /lustre") == "    0 - /lustre\n"


@pytest.mark.parametrize("flags", ["", "-i", "-h"])
def test_lfs_df_columns_stay_apart_when_a_number_is_wider_than_its_field(flags: str) -> None:
    """showdf() prints ``%-20s %11s %11s %11s %4s %s``: 12-digit block counts push right, never run together."""
    out = run(on(None, "checkpointing"), f"lfs df {flags} /lustre")
    rows = [line for line in out.splitlines() if line.startswith(("lustre-", "filesystem_summary:"))]
    assert len(rows) == 10
    for line in rows:
        name, total, used, avail, use, where = line.split()
        if not flags:
            assert int(used) + int(avail) == int(total), line
        assert use.endswith("%") and where.startswith("/lustre"), line
