"""systemctl, journalctl and dmesg through the shell, healthy and under GPU faults."""

from __future__ import annotations

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.system.dmesg import Dmesg
from emulator.commands.system.journalctl import Journalctl
from emulator.commands.system.systemctl import Systemctl
from emulator.session import Session
from tests.support import golden, on


@pytest.mark.parametrize("name,line", [
    ("systemctl_status_fm.txt", "systemctl status nvidia-fabricmanager"),
    ("journalctl_u_fm.txt", "journalctl -u nvidia-fabricmanager --no-pager"),
    ("dmesg.txt", "dmesg"),
])
def test_healthy_output_matches_golden(name, line):
    out, status = on("node01").execute(line)
    assert status == 0
    golden(name, out)


def test_status_header_uses_simulated_time_and_systemd_relative_age():
    s = on("node01")
    out, _ = s.execute("systemctl status nvidia-persistenced")
    assert out.startswith("● nvidia-persistenced.service - NVIDIA Persistence Daemon\n")
    assert "     Active: active (running) since Thu 2026-02-26 20:46:44 UTC; 1 week 5 days ago\n" in out


def test_login_node_has_no_gpu_services():
    out, status = on("login01").execute("systemctl status nvidia-fabricmanager")
    assert (out, status) == ("Unit nvidia-fabricmanager.service could not be found.\n", 4)


def test_unknown_option_is_gnu_style():
    out, status = on("node01").execute("dmesg --bogus")
    assert out == "dmesg: unrecognized option '--bogus'\nTry 'dmesg --help' for more information.\n"
    assert status == 1


def test_dmesg_time_formats_agree_on_the_instant():
    s = on("node01")
    raw, _ = s.execute("dmesg")
    ctime, _ = s.execute("dmesg -T")
    iso, _ = s.execute("dmesg --time-format iso")
    assert raw.splitlines()[0].startswith("[    0.000000] Linux version")
    assert ctime.splitlines()[0].startswith("[Thu Feb 26 20:46:24 2026] Linux version")
    assert iso.splitlines()[0].startswith("2026-02-26T20:46:24,")


def test_journalctl_times_may_end_in_utc_as_systemd_time_says():
    s = on("node01")
    for since in ("'2026-02-26 20:46:30'", "'2026-02-26 20:46:30 UTC'", "'Thu 2026-02-26 20:46:30 UTC'",
                  "'2026-02-26 20:46:30.000 UTC'"):
        out, status = s.execute(f"journalctl -k --utc -o short-iso --since {since} --until '2026-02-26 20:46:31 UTC'")
        assert status == 0, since
        assert out.splitlines()[0] == ("2026-02-26T20:46:30+0000 node01 kernel: mlx5_core 0000:18:00.0: "
                                       "firmware version: 28.39.1002"), since
        assert all(line.startswith("2026-02-26T20:46:30") for line in out.splitlines()), since
    for bad in ("'2026-02-26 20:46:30 CET'", "'Wed 2026-02-26 20:46:30'", "'2026-02-26T20:46:30'"):
        assert s.execute(f"journalctl --since {bad}") == \
            (f"Failed to parse timestamp: {bad.strip(chr(39))}\n", 1), bad


def test_journalctl_kernel_log_and_dmesg_agree_on_every_events_time():
    """journalctl -k -o short-iso --utc and dmesg --time-format iso stamp each message at the same instant."""
    s = Session(lab="gpu-data-path", seed=0)
    s.execute("sudo scontrol reboot node07; sleep 300")
    for node in ("node01", "node02", "node07"):
        journal = s.execute(f"ssh {node} journalctl -k -o short-iso --utc")[0].splitlines()
        ring = s.execute(f"ssh {node} dmesg --time-format iso")[0].splitlines()
        assert len(journal) == len(ring) > 20, node
        for j, d in zip(journal, ring, strict=True):
            stamp, _, rest = j.partition(f" {node} kernel: ")
            assert (stamp[:19], rest) == (d[:19], d.split(" ", 1)[1]), (node, j, d)
            assert stamp.endswith("+0000") and d[19:27].startswith(",") and d[26:33] == "+00:00 ", (j, d)


def test_journalctl_without_entries_says_so():
    assert on("node01").execute("journalctl -u nvidia-fabricmanager --since today") == ("-- No entries --\n", 0)


def test_fabric_manager_failure_shows_in_status_is_active_list_units_and_journal():
    s = on("node07")
    apply_fault(s.cluster, "fabricmanager-stopped", {"node": "node07"})
    out, status = s.execute("systemctl status nvidia-fabricmanager")
    assert status == 3
    assert out.startswith("× nvidia-fabricmanager.service - NVIDIA fabric manager service\n")
    assert "Active: failed (Result: exit-code) since" in out
    assert "systemd[1]: Failed to start NVIDIA fabric manager service." in out
    assert s.execute("systemctl is-active nvidia-fabricmanager") == ("failed\n", 3)
    listed, _ = s.execute("systemctl list-units --failed")
    assert "● nvidia-fabricmanager.service loaded failed failed NVIDIA fabric manager service" in listed
    journal, _ = s.execute("journalctl -u nvidia-fabricmanager -p err")
    assert "Failed with result 'exit-code'." in journal


def test_dbe_leaves_the_48_63_94_sequence_in_dmesg():
    s = on("node02")
    truth = apply_fault(s.cluster, "ecc-dbe-remap", {"node": "node02", "gpu": 1}).truth
    out, _ = s.execute("dmesg -l err")
    codes = [int(line.split("): ")[1].split(",")[0]) for line in out.splitlines() if "NVRM: Xid" in line]
    assert codes[:3] == [48, 63, 94] and set(codes[3:]) == {94}
    pid = next(r.pid for r in s.cluster.training.ranks if r.node == "node02" and r.gpu == 1)
    tag = truth["bus_id"].split(":", 1)[1].lower().rsplit(".", 1)[0]
    assert f"NVRM: Xid (PCI:0000:{tag}): 94, pid={pid}, name=python3, Ch 00000008" in out


def test_pcie_downgrade_logs_the_limited_by_line_at_boot():
    s = on("node03")
    apply_fault(s.cluster, "pcie-downgrade", {"node": "node03", "gpu": 4, "gen": 4})
    out, _ = s.execute("dmesg")
    assert ("pci 0000:9d:00.0: 252.048 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x16 link at "
            "0000:9c:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)") in out


def test_xid_79_names_the_gpu_that_fell_off_the_bus():
    s = on("node04")
    apply_fault(s.cluster, "xid", {"code": 79, "node": "node04", "gpu": 2})
    out, _ = s.execute("journalctl -k -p err")
    assert "kernel: NVRM: Xid (PCI:0000:52:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." in out


def test_follow_prints_the_tail_then_waits_until_interrupted():
    s = on("node01")
    run = s.run("journalctl -f -u nvidia-fabricmanager")
    first = run.step()
    assert first.text().startswith("Feb 26 ") and first.pause == 1.0
    run.interrupt()
    assert run.step().status == 130


def test_a_follow_left_alone_stops_after_an_hour_and_says_so():
    s = on("node01")
    for line, tool in (("journalctl -f -n 0", "journalctl"), ("dmesg -w > /dev/null", "dmesg")):
        out, status = s.execute(line)
        assert status == 1 and out.endswith(
            f"{tool}: stopped following after 3600 seconds (a limit of this simulated terminal)\n"), out


def test_slurmd_journal_reports_the_node_it_registers():
    out, _ = on("node01").execute("journalctl -u slurmd")
    assert "slurmd[" in out and "slurmd version 23.11.10 started" in out
    assert "CPUs=224 Boards=1 Sockets=2 Cores=56 Threads=2" in out


def test_journalctl_relative_times_and_boot_offsets():
    s = on("node02")
    apply_fault(s.cluster, "xid", {"code": 95, "node": "node02", "gpu": 4, "at": -1200})
    out, _ = s.execute("journalctl -k --since '30 min ago' -p err")
    assert "): 95, " in out
    assert s.execute("journalctl -k --since '10 min ago' -p err") == ("-- No entries --\n", 0)
    out, status = s.execute("journalctl -b -1")
    assert status == 1 and out == "Data from the specified boot (-1) is not available: No such boot ID in journal\n"


def test_a_failed_unit_degrades_the_host_state():
    s = on("node03")
    assert s.execute("systemctl is-system-running") == ("running\n", 0)
    apply_fault(s.cluster, "fabricmanager-stopped", {"node": "node03"})
    out, _ = s.execute("systemctl status")
    assert out.startswith("● node03\n    State: degraded\n     Jobs: 0 queued\n   Failed: 1 units\n")
    assert s.execute("systemctl is-system-running") == ("degraded\n", 1)


def test_journalctl_list_boots_after_a_power_cycle_keeps_the_earlier_boot():
    import json
    import re

    s = Session(None, 0)
    s.execute("ipmitool -I lanplus -H node03-bmc -U admin -P admin chassis power cycle")
    s.execute("sleep 600")
    s.execute("ssh node03")
    out, status = s.execute("journalctl --list-boots")
    rows = out.splitlines()
    assert status == 0 and len(rows) == 2
    pattern = r"( 0|-1) ([0-9a-f]{32}) (\w{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC)—(\w{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC)"
    (prev, prev_id, *_), (cur, cur_id, cur_first, _) = (re.fullmatch(pattern, row).groups() for row in rows)
    assert (prev, cur) == ("-1", " 0") and prev_id != cur_id
    earlier = s.execute("journalctl -b -1 -o short-iso")[0].splitlines()
    assert earlier and all(line.split()[0] < "2026-03-11T09" for line in earlier)
    assert s.execute(f"journalctl -b {prev_id} -o short-iso")[0].splitlines() == earlier
    assert json.loads(s.execute("journalctl -b -o json -n 1")[0])["_BOOT_ID"] == cur_id
    first = s.execute("journalctl -b 0 -o short-iso")[0].splitlines()[0]
    assert first.startswith(s.cluster.clock.at(s.cluster.nodes["node03"].health.boots[-1].offset_s)
                            .strftime("%Y-%m-%dT%H:%M:%S")) and cur_first.startswith("Wed 2026-03-11")
    assert s.execute("journalctl -b -2")[1] == 1


def test_a_reboot_of_a_node_nobody_looked_at_keeps_its_earlier_boot_in_the_journal():
    s = Session("late-rank", 0)
    s.execute("sudo scontrol reboot node07")
    s.execute("sleep 600")
    earlier = s.execute("ssh node07 journalctl -k -b -1 -o short-iso")[0].splitlines()
    assert earlier and "Linux version" in earlier[0] and all(line < "2026-03-11T09" for line in earlier)
    # --list-boots gives the first and last entry that journalctl -b -1 shows.
    previous = s.execute("ssh node07 journalctl --list-boots")[0].splitlines()[0]
    first, last = (stamp[4:23] for stamp in previous.split(" ", 2)[2].split("—"))
    assert (first, last) == (earlier[0][:19].replace("T", " "), earlier[-1][:19].replace("T", " "))


# -- the declared flags ------------------------------------------------------------------------

#: Each command, and a valid use of each of its flags (by long name, else short); ``{}`` stands for the spelling.
FLAG_USES = {
    Systemctl: {"--help": "{}", "--failed": "{}", "--no-pager": "{} list-units", "--full": "{} status sshd",
                "--lines": "status nvidia-fabricmanager {} 5", "--state": "{} failed", "--type": "{} service",
                "--all": "{}", "--quiet": "{} is-active sshd"},
    Journalctl: {"--help": "{}", "--unit": "{} nvidia-fabricmanager", "--dmesg": "{}", "--boot": "{} 0",
                 "--list-boots": "{}", "--lines": "{} 5", "--since": "{} today", "--until": "{} now",
                 "--priority": "{} err", "--reverse": "{}", "--output": "{} cat", "--pager-end": "{}",
                 "--catalog": "{}", "--follow": "{}", "--no-pager": "{}", "--no-hostname": "{}", "--utc": "{}",
                 "--all": "{}"},
    Dmesg: {"--help": "{}", "--ctime": "{}", "--time-format": "{} iso", "--level": "{} err", "--human": "{}",
            "--kernel": "{}", "--notime": "{}", "--decode": "{}", "-L": "{}", "--color": "{} never",
            "--follow": "{}", "--read-clear": "{}", "--clear": "{}", "--nopager": "{}", "--buffer-size": "{} 4096"},
}


def first_chunk(session: Session, line: str) -> str:
    """What ``line`` prints before its first pause (a follow is then interrupted)."""
    run = session.run(line)
    chunk = run.step()
    if not chunk.done:
        run.interrupt()
        run.step()
    return chunk.text()


@pytest.mark.parametrize("command", FLAG_USES, ids=lambda command: command.name)
def test_every_declared_flag_is_accepted(command):
    uses = FLAG_USES[command]
    assert {flag.long or flag.short for flag in command.flags} == set(uses)
    s = on("node01")
    for flag in command.flags:
        for spelling in flag.strings():
            line = f"{command.name} " + uses[flag.long or flag.short].format(spelling)
            out = first_chunk(s, line)
            assert not any(bad in out for bad in ("invalid option", "unrecognized option", "requires an argument",
                                                  "bad usage")), (line, out)
