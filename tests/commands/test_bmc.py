"""ipmitool through the shell: BMC views rendered from the model, power actions that change it."""

from __future__ import annotations

import pytest

from emulator.cluster import lifecycle
from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import golden, run

LAN = "ipmitool -I lanplus -H {bmc} -U admin -P admin"



def down(cause: str, node: str = "node03") -> Session:
    s = Session()
    apply_fault(s.cluster, "host-down", {"node": node, "cause": cause})
    return s


def ipmi(s: Session, words: str, bmc: str = "node03-bmc") -> tuple[str, int]:
    return s.execute(f"{LAN.format(bmc=bmc)} {words}")


@pytest.mark.parametrize("name,cause,words", [
    ("ipmitool_chassis_status_psu.txt", "psu-failure", "chassis status"),
    ("ipmitool_sel_elist_psu.txt", "psu-failure", "sel elist"),
    ("ipmitool_sel_list_panic.txt", "kernel-panic", "sel list"),
    ("ipmitool_sdr_elist_psu.txt", "psu-failure", "sdr elist"),
    ("ipmitool_sol_panic.txt", "kernel-panic", "sol activate"),
    ("ipmitool_sensor.txt", "cpu-ierr", "sensor"),
    ("ipmitool_lan_print.txt", "cpu-ierr", "lan print 1"),
    ("ipmitool_mc_info.txt", "cpu-ierr", "mc info"),
    ("ipmitool_sel_info.txt", "cpu-ierr", "sel info"),
    ("ipmitool_fru_print.txt", "cpu-ierr", "fru print"),
])
def test_golden_output(name, cause, words):
    out, status = ipmi(down(cause), words)
    assert status == 0
    golden(name, out)


def test_healthy_node_chassis_and_console():
    s = Session()
    out, _ = ipmi(s, "chassis status", "node05-bmc")
    assert out.splitlines()[0] == "System Power         : on"
    assert "Last Power Event     : \n" in out
    out, _ = ipmi(s, "sol activate", "node05-bmc")
    assert "node05 login: " in out and out.endswith("[terminated ipmitool]\n")


def test_bmc_gpu_temperatures_are_the_ones_nvml_reports_numbered_from_one():
    s = Session()
    s.execute("ssh node01")
    out, _ = s.execute("nvidia-smi --query-gpu=index,temperature.gpu --format=csv,noheader; "
                       "ipmitool sdr type Temperature")
    lines = out.splitlines()
    nvml = {int(i) + 1: int(t) for i, t in (line.split(", ") for line in lines[:8])}
    bmc = {int(line[3]): int(line.split("|")[4].split()[0]) for line in lines[8:] if line.startswith("GPU")}
    assert nvml == bmc


def test_restart_cause_and_last_entries_of_the_sel():
    s = down("watchdog")
    assert ipmi(s, "chassis restart_cause") == ("System restart cause: watchdog expired\n", 0)
    out, _ = ipmi(s, "sel elist last 2")
    assert len(out.splitlines()) == 2 and out.endswith("| OEM System boot event | Asserted\n")
    ipmi(s, "power cycle")
    assert ipmi(s, "chassis restart_cause")[0] == "System restart cause: chassis power control command\n"


def test_unreachable_or_unknown_bmc_cannot_open_a_session():
    s = Session()
    for bmc in ("node03", "nosuch-bmc", "10.99.0.1"):
        assert ipmi(s, "power status", bmc) == ("Error: Unable to establish IPMI v2 / RMCP+ session\n", 1)
    assert s.execute("ipmitool -I lanplus -H node03-bmc -U admin power status")[1] == 1


def test_password_from_the_environment_with_dash_e():
    s = Session()
    assert s.execute("ipmitool -I lanplus -H node03-bmc -U admin -E power status")[1] == 1
    out, status = s.execute("IPMI_PASSWORD=admin ipmitool -I lanplus -H node03-bmc -U admin -E power status")
    assert (out, status) == ("Chassis Power is on\n", 0)
    wrong = s.execute("IPMI_PASSWORD=x ipmitool -I lanplus -H node03-bmc -U admin -E power status")
    assert wrong == ("Error: Unable to establish IPMI v2 / RMCP+ session\n", 1)


def test_a_wrong_user_or_password_cannot_open_a_session_and_changes_nothing():
    s = Session()
    for cred in ("-U admin -P secret", "-U root -P admin", "-U ADMIN -P admin"):
        line = f"ipmitool -I lanplus -H node03-bmc {cred} power off"
        assert s.execute(line) == ("Error: Unable to establish IPMI v2 / RMCP+ session\n", 1)
    assert s.execute("ipmitool -I lan -H node03-bmc -U admin -P secret power status") == (
        "Error: Unable to establish LAN session\nError: Unable to establish IPMI v1.5 / RMCP session\n", 1)
    assert s.execute("ipmitool -v -I lanplus -H node03-bmc -U admin -P secret power status") == (
        "> RAKP 2 HMAC is invalid\nError: Unable to establish IPMI v2 / RMCP+ session\n", 1)
    assert s.execute("ipmitool -v -I lanplus -H node03-bmc -U root -P admin power status")[0].startswith(
        "RAKP 2 message indicates an error : unauthorized name\n")
    assert ipmi(s, "power status") == ("Chassis Power is on\n", 0)


def test_the_operator_credential_is_kept_root_only_on_the_login_node():
    s = Session()
    assert s.execute("ls -l /etc/ipmi/bmc.cred")[0].startswith("-rw------- 1 root root ")
    cred = dict(line.split("=", 1) for line in run(s, "sudo cat /etc/ipmi/bmc.cred").splitlines()
                if not line.startswith("#"))
    line = f"ipmitool -I lanplus -H node05-bmc -U {cred['IPMI_USER']} -P {cred['IPMI_PASSWORD']} power status"
    assert run(s, line) == "Chassis Power is on\n"


def test_in_band_ipmitool_needs_the_local_device():
    s = Session()
    out, status = s.execute("ipmitool chassis power status")
    assert status == 1 and out.startswith("Could not open device at /dev/ipmi0")
    s.execute("ssh node04")
    assert s.execute("ipmitool chassis power status") == ("Chassis Power is on\n", 0)


def test_power_on_boots_a_failed_host_and_slurm_the_sel_and_ssh_follow():
    s = down("psu-failure")
    assert ipmi(s, "power status") == ("Chassis Power is off\n", 0)
    assert ipmi(s, "power cycle")[1] == 1
    assert ipmi(s, "power on") == ("Chassis Power Control: Up/On\n", 0)
    assert s.execute("ssh node03 hostname")[1] == 255
    s.execute(f"sleep {int(lifecycle.BOOT_S)}")
    assert s.execute("ssh node03 hostname") == ("node03\n", 0)
    assert s.execute("sinfo -h -n node03 -p gpu -o %t")[0] == "idle\n"
    sel, _ = ipmi(s, "sel elist")
    assert sel.splitlines()[-2].endswith("Power Unit Pwr Unit Status | Power off/down | Deasserted")
    assert sel.splitlines()[-1].endswith("System Event Sys Boot Event | OEM System boot event | Asserted")


def test_power_off_takes_the_host_out_of_slurm_after_the_timeout():
    s = Session()
    assert ipmi(s, "power off", "node08-bmc") == ("Chassis Power Control: Down/Off\n", 0)
    assert s.execute("ssh node08 true")[1] == 255
    s.execute("sleep 300")
    assert s.execute("sinfo -h -R -o '%E|%N'")[0] == "Not responding|node08\n"


def test_sel_clear_leaves_one_entry():
    s = Session()
    assert ipmi(s, "sel clear") == ("Clearing SEL.  Please allow a few seconds to erase.\n", 0)
    out, _ = ipmi(s, "sel list")
    assert out.endswith("| Event Logging Disabled #0x0f | Log area reset/cleared | Asserted\n")
    assert len(out.splitlines()) == 1


def test_bad_commands_get_ipmitool_wording():
    s = Session()
    assert ipmi(s, "frobnicate") == ("Invalid command: frobnicate\n", 1)
    assert ipmi(s, "power sideways")[0].startswith("chassis power Commands: status, on, off, cycle, reset")


@pytest.mark.parametrize("cause", ["psu-failure", "cpu-ierr", "kernel-panic", "watchdog"])
def test_a_down_host_reads_down_in_every_view(cause):
    """Consistency: sinfo, ssh, chassis status and the SEL agree on the same host and instant."""
    s = down(cause, "node02")
    node = s.cluster.nodes["node02"]
    assert s.execute("sinfo -h -N -n node02 -p gpu -o %t")[0].split() == ["down*"]
    assert s.execute("ssh node02 uptime") == ("ssh: connect to host node02 port 22: No route to host\n", 255)
    status, _ = ipmi(s, "chassis status", "node02-bmc")
    power = "off" if cause == "psu-failure" else "on"
    assert f"System Power         : {power}\n" in status
    sel, _ = ipmi(s, "sel elist", "node02-bmc")
    stamp = s.cluster.clock.at(node.health.last_seen_s).strftime("%m/%d/%Y | %H:%M:%S")
    assert stamp in sel
    reason_time = s.cluster.clock.at(node.health.last_seen_s + 300).strftime("%Y-%m-%dT%H:%M:%S")
    assert s.execute("sinfo -h -R -o '%E|%H'")[0] == f"Not responding|{reason_time}\n"
    assert f"End={reason_time}" not in s.execute("sacct -j 48213 -X -n -o End")[0]
    assert s.execute("sacct -j 48213 -X -n -o End,State")[0].split() == [reason_time, "NODE_FAIL"]


def test_after_a_cpu_ierr_the_next_boot_logs_the_machine_check():
    s = down("cpu-ierr")
    ipmi(s, "power cycle")
    s.execute("sleep 240")
    out, _ = s.execute("ssh node03 dmesg")
    assert "mce: [Hardware Error]: Machine check events logged" in out
    epoch = int(s.cluster.clock.at(s.cluster.nodes["node03"].health.last_seen_s).timestamp())
    assert f"TIME {epoch} SOCKET" in out


def test_sol_shows_the_boot_scrolling_by_then_the_login_prompt():
    s = down("kernel-panic")
    ipmi(s, "power reset")
    s.execute("sleep 190")
    out, _ = ipmi(s, "sol activate")
    assert "Booting from NVMe" in out and "Loading initial ramdisk ..." in out
    assert "login:" not in out
    s.execute("sleep 60")
    out, _ = ipmi(s, "sol activate")
    assert "node03 login: \n[terminated ipmitool]\n" in out


def test_chassis_identify_bootdev_and_power_on_hours():
    s = Session()
    assert ipmi(s, "chassis identify 60") == ("Chassis identify interval: 60 seconds\n", 0)
    assert ipmi(s, "chassis bootdev pxe") == ("Set Boot Device to pxe\n", 0)
    assert ipmi(s, "chassis bootdev tape")[1] == 1
    out, _ = ipmi(s, "chassis poh")
    assert out.startswith("POH Counter  : ") and out.endswith(" hours)\n")


def test_sensor_get_shows_the_failed_supply_and_sel_time_is_the_simulated_clock():
    s = down("psu-failure")
    out, status = ipmi(s, "sensor get 'PSU2 Status'")
    assert status == 0 and out.endswith("[Presence detected]\n                         [Failure detected]\n")
    out, _ = ipmi(s, "sensor get 'PSU5 Status'")
    assert out.endswith("[Presence detected]\n                         [Power Supply AC lost]\n")
    assert ipmi(s, "sensor get Nope")[1] == 1
    out, _ = ipmi(s, "sel time get")
    assert out == s.cluster.clock.now().strftime("%m/%d/%Y %H:%M:%S\n")


def test_an_hgx_node_has_six_supplies_and_draws_what_its_gpus_and_the_rest_draw():
    """Six PSUs in 4+2; Total Power is the GPUs' power.draw (as nvidia-smi reads it) plus the rest of the system."""
    s = Session()
    out = ipmi(s, "sdr type 'Power Supply'", "node01-bmc")[0]
    assert [line.split("|")[0].strip() for line in out.splitlines()] == [
        *(f"PSU{i} Status" for i in range(1, 7)), "PS Redundancy"]
    assert out.splitlines()[-1].endswith("| ok  | 10.0 | Fully Redundant")
    for node, lo, hi in (("node01", 8_500, 10_200), ("node08", 2_300, 3_000)):   # training / idle
        total = int(ipmi(s, "sdr list", f"{node}-bmc")[0].split("Total Power")[1].split("|")[1].split()[0])
        draws = run(s, f"ssh {node} nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits").split()
        assert lo < total < hi
        assert 1_900 < total - sum(map(float, draws)) < 4_300


def test_losing_one_supply_keeps_the_node_up_and_says_redundancy_degraded():
    s = Session()
    apply_fault(s.cluster, "gpu-power-brake", {"node": "node03", "scope": "node"})
    assert ipmi(s, "chassis status")[0].startswith("System Power         : on\n")
    sel = ipmi(s, "sel elist")[0].splitlines()
    lost = [line for line in sel if "| Power Supply AC lost |" in line]
    assert len(lost) == 1 and lost[0].split("|")[3].strip().startswith("Power Supply PSU")
    assert sel[-1].endswith("| Power Supply PS Redundancy | Redundancy Degraded | Asserted")
    sdr = ipmi(s, "sdr elist")[0]
    assert "| cr  | 10.0 | Redundancy Degraded" in sdr and sdr.count("Presence detected, Power Supply AC lost") == 1
    assert run(s, "ssh node03 hostname") == "node03\n"


def test_a_psu_failure_that_takes_the_node_down_needs_more_supplies_lost_than_the_spares():
    s = down("psu-failure")
    sel = ipmi(s, "sel elist")[0]
    assert "| Power Supply PSU2 Status | Failure detected | Asserted" in sel
    assert sel.count("| Power Supply AC lost | Asserted") == 3
    assert "| Non-Redundant: Insufficient Resources | Asserted" in sel
    assert ipmi(s, "chassis status")[0].startswith("System Power         : off\nPower Overload       : true\n")
