"""ibstat, ibstatus and perfquery read the way gpud and the InfiniBand exporters read them."""

from __future__ import annotations

import re

from tests.conformance import parsers
from tests.conformance.support import on, together, truth

IBSTAT_CARD_KEYS = {"CA type", "Number of ports", "Firmware version", "Hardware version", "Node GUID",
                    "System image GUID"}
IBSTAT_PORT_KEYS = {"State", "Physical state", "Rate", "Base lid", "LMC", "SM lid", "Capability mask",
                    "Port GUID", "Link layer"}


def test_ibstat_parses_into_one_record_per_ca_with_its_ports() -> None:
    out, status = on("node01").execute("ibstat")
    assert status == 0
    cards = parsers.ibstat(out)
    assert [c.name for c in cards] == [f"mlx5_{n}" for n in range(len(cards))] and len(cards) >= 8
    for card in cards:
        assert set(card.fields) >= IBSTAT_CARD_KEYS, card.name
        assert int(card.fields["Number of ports"]) == len(card.ports)
        assert re.fullmatch(r"0x[0-9a-f]{16}", card.fields["Node GUID"])
        for port in card.ports:
            assert set(port.fields) >= IBSTAT_PORT_KEYS
            assert port.fields["State"] in ("Active", "Down", "Initializing", "Armed")
            assert port.fields["Physical state"] in ("LinkUp", "Disabled", "Polling", "Sleep", "LinkErrorRecovery")
            assert int(port.fields["Rate"]) in (10, 25, 40, 50, 56, 100, 200, 400)
            assert port.fields["Link layer"] in ("InfiniBand", "Ethernet")


def test_ibstat_reports_the_downgraded_port_that_gpud_would_flag() -> None:
    s = on(None, "fabric-triage")
    t = truth(s, "link-rate")
    out, _ = s.execute(f"ssh {t['node']} ibstat")
    healthy, _ = on(None).execute(f"ssh {t['node']} ibstat")

    def rates(text: str) -> dict[str, int]:
        return {c.name: int(c.ports[0].fields["Rate"]) for c in parsers.ibstat(text)}

    faulted, before = rates(out), rates(healthy)
    assert faulted[t["port"]] == int(t["rate"]) < before[t["port"]]
    assert {k: v for k, v in faulted.items() if k != t["port"]} == {k: v for k, v in before.items() if k != t["port"]}


def test_ibstat_and_ibstatus_agree_port_by_port() -> None:
    s = on("node03")
    stat_text, status_text = together(s, "ibstat", "ibstatus")
    cards = parsers.ibstat(stat_text)
    blocks = parsers.ibstatus(status_text)
    for card in cards:
        for port in card.ports:
            block = blocks[(card.name, port.number)]
            assert block["state"].split(": ")[1] == port.fields["State"].upper()
            assert block["phys state"].split(": ")[1] == port.fields["Physical state"]
            assert block["rate"].split()[0] == port.fields["Rate"]
            assert int(block["base lid"], 16) == int(port.fields["Base lid"])
            assert block["link_layer"] == port.fields["Link layer"]
            guid = port.fields["Port GUID"][2:]
            assert block["default gid"].replace(":", "").endswith(guid)


def test_perfquery_extended_counters_parse_as_dotted_fields() -> None:
    out, status = on("node01").execute("perfquery -x")
    assert status == 0
    # perfquery.c: "(CapMask: 0x%02X CapMask2: 0x%07X)"
    assert re.match(r"# Port extended counters: Lid \d+ port \d+ \(CapMask: 0x[0-9A-F]{2,4} CapMask2: 0x[0-9A-F]{7}\)\n",
                    out)
    counters = parsers.perfquery(out)
    for name in ("PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortUnicastXmitPkts",
                 "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts"):
        assert name in counters
    assert counters["PortXmitPkts"] >= counters["PortUnicastXmitPkts"]


def test_perfquery_symbol_errors_show_on_the_faulted_port() -> None:
    s = on(None, "multi-node-slowdown")
    fault = next(f for f in s.cluster.faults if f.name == "symbol-errors")
    t = fault.truth
    out, status = s.execute(f"ssh {t['node']} perfquery -x -C {t['port']} -P 1")
    assert status == 0, out
    counters = parsers.perfquery(out)
    assert counters["SymbolErrorCounter"] > 0


def test_fabric_exporter_ibqueryerrors_invocation_runs() -> None:
    s = on(None, "multi-node-slowdown")
    t = truth(s, "symbol-errors")
    out, status = s.execute(f"ssh node01 ibqueryerrors -C {t['port']} --verbose --details --suppress-common --data "
                            "--report-port --switch --ca")
    assert status == 0
    names = re.findall(r'^Errors for (?:0x[\da-f]+ )?"(.*)"$', out, re.M)
    assert f"{t['node']} {t['port']}" in names
