"""dcgmi through the shell: discovery, diag verdicts from the model, dmon fields, health."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.dcgm.dcgmi import Dcgmi
from emulator.commands.dcgm.diag import DIAG_FLAGS
from emulator.commands.dcgm.discovery import LIST_FLAGS
from emulator.commands.dcgm.dmon import DMON_FLAGS
from emulator.commands.dcgm.health import HEALTH_FLAGS
from emulator.commands.dcgm.stats import STATS_FLAGS
from tests.support import golden, on


def cells(table: str, width: int = 45) -> str:
    """The right-hand column of a DCGM table with its hard wraps joined back."""
    return "".join(line[30:30 + width] if line.startswith("|                           |") else "\n" + line[30:30 + width]
                   for line in table.splitlines() if line.startswith("| "))



@pytest.mark.parametrize("name,line", [
    ("dcgmi_discovery_l.txt", "dcgmi discovery -l"),
    ("dcgmi_diag_r3.txt", "dcgmi diag -r 3"),
    ("dcgmi_dmon.txt", "dcgmi dmon -e 150,155,203,204,1001,1002 -c 2"),
    ("dcgmi_health_c.txt", "dcgmi health -c"),
])
def test_healthy_output_matches_golden(name, line):
    out, status = on("node01").execute(line)
    assert status == 0
    golden(name, out)


def test_diag_levels_advance_the_clock_by_their_length():
    for level, low, high in ((1, 5, 30), (2, 90, 180), (3, 600, 900)):
        s = on("node06")
        before = s.cluster.clock.elapsed
        s.execute(f"dcgmi diag -r {level}")
        assert low <= s.cluster.clock.elapsed - before <= high


def test_diag_r1_has_only_metadata_and_deployment():
    out, _ = on("node06").execute("dcgmi diag -r 1")
    assert "Deployment" in out and "Integration" not in out and "Stress" not in out


def test_login_node_has_no_host_engine():
    out, status = on("login01").execute("dcgmi discovery -l")
    assert status == 255 and out.startswith("Error: unable to establish a connection to the specified host")


def test_unknown_dmon_field_is_rejected():
    assert on("node01").execute("dcgmi dmon -e 99999 -c 1")[1] == 255


def test_thermal_fault_fails_gpu_memory_with_violation_time_and_warns_in_health():
    s = on("node02")
    apply_fault(s.cluster, "gpu-thermal", {"node": "node02", "gpu": 5})
    out, status = s.execute("dcgmi diag -r 2")
    assert status != 0
    assert "| GPU Memory                | Pass - GPUs: 0, 1, 2, 3, 4, 6, 7               |" in out
    assert "|                           | Fail - GPU: 5                                  |" in out
    assert "| Warning                   | GPU 5 Thermal violations totaling" in out
    health, _ = s.execute("dcgmi health -c")
    assert "Detected clocks event due to thermal violation in GPU 5." in health


def test_pending_row_remap_fails_deployment():
    s = on("node03")
    apply_fault(s.cluster, "ecc-dbe-remap", {"node": "node03", "gpu": 3})
    out, _ = s.execute("dcgmi diag -r 2")
    assert "| Page Retirement/Row Remap | Fail                                           |" in out
    assert "| Error                     | GPU 3 has uncorrectable memory errors and row  |" in out
    assert "Integration" not in out


def test_stopped_fabric_manager_fails_every_cuda_test():
    s = on("node07")
    apply_fault(s.cluster, "fabricmanager-stopped", {"node": "node07"})
    out, _ = s.execute("dcgmi diag -r 2")
    assert "| GPU Memory                | Fail - All                                     |" in out
    assert "GPU 0 Error using CUDA API cuInit" in cells(out) and "'system not yet initialized'" in cells(out)


def test_pcie_downgrade_fails_the_pcie_test_for_that_gpu():
    s = on("node04")
    apply_fault(s.cluster, "pcie-downgrade", {"node": "node04", "gpu": 6, "gen": 4})
    out, _ = s.execute("dcgmi diag -r 2")
    assert "|                           | Fail - GPU: 6                                  |" in out
    assert "Bandwidth of GPU 6 in direction h2d" in out


def test_nvlink_down_shows_in_diag_and_health():
    s = on("node01")
    truth = apply_fault(s.cluster, "nvlink-down", {"node": "node01", "gpu": 2, "links": 1}).truth
    link = truth["links"]
    health, _ = s.execute("dcgmi health -c")
    assert f"GPU 2's NvLink link {link} is currently down" in cells(health, 56)


def test_fallen_gpu_is_missing_from_discovery():
    s = on("node02")
    apply_fault(s.cluster, "xid", {"code": 79, "node": "node02", "gpu": 0})
    out, _ = s.execute("dcgmi discovery -l")
    assert out.startswith("7 GPUs found.")


def test_group_list_shows_the_default_gpu_and_nvswitch_groups():
    out, status = on("node01").execute("dcgmi group -l")
    assert status == 0 and "| 2 groups found." in out
    assert "GPU 0, GPU 1, GPU 2, GPU 3, GPU 4, GPU 5, GPU 6, GPU 7" in out and "DCGM_ALL_SUPPORTED_NVSWITCHES" in out


# -- the declared flags ------------------------------------------------------------------------

#: Each subsystem's declared flags, and a valid use of each (by long name); ``{}`` stands for the spelling.
SUBSYSTEM_FLAGS = {
    "discovery": (LIST_FLAGS, {"--help": "{}", "--list": "{}"}),
    "group": (LIST_FLAGS, {"--help": "{}", "--list": "{}"}),
    "diag": (DIAG_FLAGS, {"--help": "{}", "--json": "-r 1 {}", "--run": "{} 1", "--group": "-r 1 {} 0",
                          "--gpuList": "-r 1 {} 0"}),
    "dmon": (DMON_FLAGS, {"--help": "{}", "--field-id": "{} 150 -c 1", "--count": "-e 150 {} 1",
                          "--delay": "-e 150 -c 1 {} 100", "--gpu-id": "-e 150 -c 1 {} 0", "--list": "{}"}),
    "health": (HEALTH_FLAGS, {"--help": "{}", "--check": "{}", "--set": "{} pm", "--group": "-c {} 0",
                              "--fetch": "{}", "--json": "-c {}"}),
    "stats": (STATS_FLAGS, {"--help": "{}", "--group": "-e {} 0", "--enable": "{}", "--disable": "{}",
                            "--pid": "{} 1", "--jstart": "{} mine", "--jstop": "{} 48213", "--job": "{} 48213",
                            "--jremove": "{} 48213", "--jremoveall": "{}", "--verbose": "-j 48213 {}",
                            "--update-interval": "-e {} 30000", "--max-keep-age": "-e {} 3600",
                            "--host": "-e {} localhost"}),
}


@pytest.mark.parametrize("sub", SUBSYSTEM_FLAGS)
def test_every_declared_subsystem_flag_is_accepted(sub):
    flags, uses = SUBSYSTEM_FLAGS[sub]
    assert {flag.long for flag in flags} == set(uses)
    for flag in flags:
        for spelling in flag.strings():
            line = f"dcgmi {sub} " + uses[flag.long].format(spelling)
            out, status = on("node01").execute(line)
            assert "PARSE ERROR" not in out and status != 255, (line, out)


def test_every_declared_flag_is_accepted_and_in_the_help():
    s = on("node01")
    usage, status = s.execute("dcgmi --help")
    assert status == 0 and Dcgmi.words == ("discovery", "diag", "dmon", "health", "group", "stats")
    for flag in Dcgmi.flags:
        for spelling in flag.strings():
            assert re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", usage), spelling
            assert s.execute(f"dcgmi {spelling}")[1] == 0


def test_the_stats_help_lists_every_stats_flag():
    text = on("node01").execute("dcgmi stats --help")[0]
    missing = [s for flag in STATS_FLAGS for s in flag.strings()
               if not re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text)]
    assert missing == []


def test_dmon_field_112_is_the_clock_event_bitmask_nvidia_smi_reports():
    from tests.support import on, run
    s = on("node03", "late-rank", 2)
    rows = run(s, "dcgmi dmon -e 112 -c 1").splitlines()
    assert rows[0].split() == ["#Entity", "DVCCTR"]
    dcgm = [int(row.split()[2]) for row in rows[2:] if row.startswith("GPU")]
    smi = [int(x, 16) for x in run(s, "nvidia-smi --query-gpu=clocks_event_reasons.active "
                                     "--format=csv,noheader").split()]
    assert dcgm == smi and dcgm[0] == 0x8
    assert "current_clock_throttle_reasons" in run(s, "dcgmi dmon -l")


def test_input_wait_gpu_tools_read_one_busy_idle_pattern():
    """Utilisation, SM activity and power come from one sample: an idle share lowers all three together."""
    from tests.support import on, run
    s = on("node01", "input-wait", 0)
    rows = [line.split() for line in run(s, "dcgmi dmon -e 203,1002,155 -i 0 -c 12").splitlines()
            if line.startswith("GPU")]
    seen = set()
    for _, _, util, smact, power in rows:
        seen.add(int(util) == 100)
        assert float(smact) <= int(util) / 100 + 1e-9
        assert (float(power) > 600) == (int(util) > 80)
    assert seen == {True, False}     # the data waits show as dips in every tool
    for _ in range(6):
        util, power = run(s, "nvidia-smi -i 0 --query-gpu=utilization.gpu,power.draw "
                             "--format=csv,noheader,nounits").strip().split(", ")
        assert (float(power) > 600) == (int(util) > 80)
