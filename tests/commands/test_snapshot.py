"""diag-snapshot: one bundle of raw tool output for a scope and a UTC interval, and what it could not collect."""

from __future__ import annotations

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.snapshot.diag_snapshot import HEADER, members
from emulator.session import Session

CMD = "diag-snapshot --nodes node[02-03] --since 2026-03-11T08:00:00Z --until 2026-03-11T09:00:00Z -o /home/alice/b.txt"


@pytest.fixture
def incident() -> Session:
    s = Session()
    apply_fault(s.cluster, "host-down", {"node": "node02", "cause": "kernel-panic", "at_s": -1800.0})
    return s


def bundle(s: Session) -> dict[str, str]:
    return dict(members(s.shell.fs.read("/home/alice/b.txt")))


def test_collects_os_tools_on_live_nodes_and_bmc_data_on_every_node(incident):
    out, status = incident.execute(CMD)
    assert status == 0
    assert out.splitlines()[-1].startswith("diag-snapshot: wrote /home/alice/b.txt (")
    parts = bundle(incident)
    assert list(parts)[0] == "MANIFEST"
    for name in ("node03/nvidia-smi-q.txt", "node03/ibstat.txt", "node03/perfquery-mlx5_7.txt",
                 "node03/systemctl-status.txt", "node02/bmc/sel-elist.txt", "node02/bmc/chassis-status.txt",
                 "slurm/sinfo-R.txt", "slurm/sacct.txt"):
        assert name in parts, name
    assert not any(p.startswith("node02/") and "/bmc/" not in p for p in parts)


def test_member_content_is_the_raw_tool_output(incident):
    incident.execute(CMD)
    parts = bundle(incident)
    assert "Run-time critical stop" in parts["node02/bmc/sel-elist.txt"]
    assert parts["slurm/sinfo-R.txt"].splitlines()[1].startswith("Not responding       slurm     2026-03-11T08:35")
    assert "NODE_FAIL" in parts["slurm/sacct.txt"]
    assert "==============NVSMI LOG==============" in parts["node03/nvidia-smi-q.txt"].splitlines()[:2]


def test_manifest_states_scope_interval_and_what_was_not_collected(incident):
    incident.execute(CMD)
    manifest = bundle(incident)["MANIFEST"]
    assert "scope:     node[02-03] (2 nodes)\n" in manifest
    assert "interval:  2026-03-11T08:00:00Z .. 2026-03-11T09:00:00Z" in manifest
    assert "reason: ssh: connect to host node02 port 22: No route to host" in manifest
    assert "node02/nvidia-smi-q.txt" in manifest.split("not collected")[1]
    assert "ipmitool -I lanplus -H node02-bmc -U admin -E sel elist" in manifest
    assert "collector" not in incident.shell.fs.read("/home/alice/b.txt")  # the BMC password stays out


def test_logs_and_sacct_are_read_in_utc_and_the_manifest_says_so(incident):
    """journalctl reads --since/--until as local time unless they end in " UTC" (systemd.time(7)), and
    sacct reads -S/-E in TZ: the bundle names the zone in both, and runs them exactly as recorded."""
    incident.execute(CMD)
    parts = bundle(incident)
    manifest = parts["MANIFEST"]
    kernel = ("journalctl -k -o short-iso --no-pager --since '2026-03-11 08:00:00 UTC' "
              "--until '2026-03-11 09:00:00 UTC' --utc")
    sacct = ("TZ=UTC sacct -a -N 'node[02-03]' -S 2026-03-11T08:00:00 -E 2026-03-11T09:00:00 --format "
             "JobID,JobName,User,State,ExitCode,Start,End,Elapsed,NodeList%30")
    assert f"$ {kernel}\n" in manifest and f"$ {sacct}\n" in manifest
    assert "--since '2026-03-11 08:00:00 UTC' --until '2026-03-11 09:00:00 UTC' --utc\n" in \
        manifest.split("node03/fabricmanager.log")[1].splitlines()[0] + "\n"
    assert parts["node03/kernel.log"] == incident.execute(f"ssh node03 \"{kernel}\"")[0]
    assert parts["slurm/sacct.txt"] == incident.execute(sacct)[0]


def test_list_and_extract_read_a_bundle_back(incident):
    incident.execute(CMD)
    listing, _ = incident.execute("diag-snapshot --list /home/alice/b.txt")
    assert listing.splitlines()[:2] == ["MANIFEST", "slurm/sinfo.txt"]
    out, status = incident.execute("diag-snapshot --extract /home/alice/b.txt node02/bmc/chassis-status.txt")
    assert status == 0 and out.startswith("System Power         : on\n")
    assert incident.execute("diag-snapshot --extract /home/alice/b.txt nope")[1] == 1


def test_the_bundle_is_one_plain_text_file(incident):
    incident.execute(CMD)
    text = incident.shell.fs.read("/home/alice/b.txt")
    assert text.startswith(HEADER)
    assert incident.execute("cat /home/alice/b.txt")[0] == text


def test_job_scope_and_default_output_path():
    s = Session()
    out, status = s.execute("diag-snapshot --job 48214")
    assert status == 0
    path = out.split("wrote ")[1].split(" ")[0]
    assert path == "/home/alice/diag-snapshot-20260311T090002Z.txt"
    assert "scope:     node05 (1 node)" in dict(members(s.shell.fs.read(path)))["MANIFEST"]


@pytest.mark.parametrize("line,message", [
    ("diag-snapshot", "diag-snapshot: no scope: give --nodes HOSTLIST or --job JOBID"),
    ("diag-snapshot --nodes node99", "diag-snapshot: unknown compute node(s): node99"),
    ("diag-snapshot --nodes node01 --since yesterday", "diag-snapshot: --since: invalid UTC time 'yesterday'"),
    ("diag-snapshot --nodes node01 --since 2026-03-11T09:00:00Z --until 2026-03-11T08:00:00Z",
     "diag-snapshot: --since must be earlier than --until"),
    ("diag-snapshot --list /home/alice/none.txt", "diag-snapshot: /home/alice/none.txt: No such file or directory"),
])
def test_bad_input_gets_a_clear_error(line, message):
    out, status = Session().execute(line)
    assert status != 0 and out.startswith(message)
