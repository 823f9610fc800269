"""NVLinks that never trained tell one story in every tool, typed through the shell: the inactive
links in nvidia-smi are the links of the GPU's Xid 74 lines, each NVSwitch port the kernel's SXid 20034
names is the one Fabric Manager's journal names, DCGM's health check and XID field agree, and the
job that needed the GPU failed at start-up."""

import re

import pytest

from emulator.session import Session
from tests.support import run


@pytest.mark.parametrize("seed", [1, 3])   # four links down, then two
def test_the_links_that_never_trained_agree_across_nvidia_smi_the_kernel_fabric_manager_and_dcgm(seed):
    session = Session("nvlink", seed)
    t = session.cluster.truth()
    assert t["cause"] == "nvlink-down"
    node, gpu = t["node"], t["gpu"]
    links = t["links"].split(",")
    assert len(links) == (4 if seed == 1 else 2)

    status = run(session, f"ssh {node} nvidia-smi nvlink --status -i {gpu}")
    assert re.findall(r"Link (\d+): <inactive>", status) == links

    kernel = run(session, f"ssh {node} dmesg")
    tag = "0000:" + t["bus_id"].split(":", 1)[1].lower()[:5]
    assert re.findall(rf"NVRM: Xid \(PCI:{tag}\): 74, .*NVLink: fatal error detected on link (\d+)\(", kernel) == links
    sxid = re.findall(r"nvidia-nvswitch(\d): SXid \(PCI:0000:(0[5-8]):00\.0\): 20034, Fatal, Link (\d+) LTSSM Fault Up",
                      kernel)
    assert len(sxid) == len(links) and all(int(bus, 16) - 5 == int(switch) for switch, bus, _ in sxid)

    journal = run(session, f"ssh {node} journalctl -u nvidia-fabricmanager --no-pager")
    fm = re.findall(r"detected NVSwitch fatal error 20034 on NodeId 0 on NVSwitch pci bus id 00000000:(0[5-8]):00\.0 "
                    r"physical id (\d) port (\d+)$", journal, re.M)
    assert sorted((bus, switch, port) for bus, switch, port in fm) == sorted((b, s, p) for s, b, p in sxid)
    assert len(set(fm)) == len(links)           # one switch port per failed link

    health = run(session, f"ssh {node} dcgmi health -c")
    assert sorted(re.findall(rf"GPU {gpu}'s NvLink link (\d+) is currently down", health)) == sorted(links)
    dmon = run(session, f"ssh {node} dcgmi dmon -e 230 -c 1")
    assert re.search(rf"^GPU {gpu}\s+74\s*$", dmon, re.M)
    assert re.search(r"Status\s+: (?!Success)", run(session, f"ssh {node} nvidia-smi -q -i {gpu}"))
    assert "FAILED" in run(session, "sacct -j 48213 -X -o State")


def test_the_healthy_twin_logs_no_link_fault():
    twin = Session("nvlink", 1, faults=False)
    for node in ("node01", "node02", "node03", "node04"):
        assert "SXid" not in run(twin, f"ssh {node} dmesg")
        assert "fatal error" not in run(twin, f"ssh {node} journalctl -u nvidia-fabricmanager --no-pager")
