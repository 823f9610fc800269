"""nvidia-bug-report.sh: root only, the real banner, and a log the other tools agree with.

Typed through the shell on the node of diagnostic-snapshot's Xid: as the learner it refuses in the
script's words; with sudo it writes nvidia-bug-report.log (no gzip on these hosts, the script's own
fallback) holding nvidia-smi --query, dmesg with the node's Xid lines, lspci and dcgmi discovery.
"""

from __future__ import annotations

from tests.support import on, run

LAB = "diagnostic-snapshot"


def test_as_a_normal_user_it_asks_for_root_and_writes_nothing() -> None:
    session = on("node01", LAB, seed=0)
    out, status = session.execute("nvidia-bug-report.sh")
    assert (out, status) == ("ERROR: Please run nvidia-bug-report.sh as root.\n", 1)
    assert "No such file" in session.execute("ls nvidia-bug-report.log")[0]


def test_as_root_it_prints_the_banner_and_writes_the_log_in_the_current_directory() -> None:
    session = on("node01", LAB, seed=0)
    out = run(session, "sudo nvidia-bug-report.sh")
    assert out.startswith("\nnvidia-bug-report.sh will now collect information about your\n"
                          "system and create the file 'nvidia-bug-report.log' in the current\n")
    assert out.endswith("Running nvidia-bug-report.sh... complete.\n\n")
    log = run(session, "cat /home/alice/nvidia-bug-report.log")
    assert log.startswith("____________________________________________\n\nStart of NVIDIA bug report log file.")
    assert log.endswith("End of NVIDIA bug report log file.\n")
    for command in ("nvidia-smi --query", "dmesg", "lspci -nnDvvv", "dcgmi discovery -l"):
        assert f"\n\n{command}\n\n" in log
    xids = run(session, "grep 'NVRM: Xid' nvidia-bug-report.log")
    assert xids == run(session, "dmesg | grep 'NVRM: Xid'")
    assert ": 48, " in xids
    ecc = run(session, "grep -m1 -A0 'DRAM Uncorrectable' nvidia-bug-report.log")
    assert ecc.split(":")[-1].strip() == "1"


def test_a_second_run_keeps_the_first_log_as_old_and_the_output_file_is_honoured() -> None:
    session = on("node01", LAB, seed=0)
    run(session, "sudo nvidia-bug-report.sh")
    run(session, "sudo nvidia-bug-report.sh --output-file node01.log")
    run(session, "sudo nvidia-bug-report.sh")
    listing = run(session, "ls").split()
    assert {"nvidia-bug-report.log", "nvidia-bug-report.log.old", "node01.log"} <= set(listing)


def test_the_login_node_log_says_what_its_tools_said() -> None:
    session = on(None, LAB, seed=0)
    run(session, "sudo nvidia-bug-report.sh")
    assert "\n\nnvidia-smi --query\n\n" in run(session, "cat nvidia-bug-report.log")
