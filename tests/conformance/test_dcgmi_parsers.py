"""dcgmi read by node health checks: ``diag -j`` JSON walked category → test → result, ``dmon`` rows split on blanks."""

from __future__ import annotations

import json

import pytest

from tests.conformance.support import on, truth


def failing_tests(text: str) -> dict[str, set[str]]:
    """Test name → the gpu_ids whose status is not Pass, as health checks walk ``dcgmi diag -j``."""
    document = json.loads(text)
    failing: dict[str, set[str]] = {}
    for category in document["DCGM GPU Diagnostic"]["test_categories"]:
        assert category["category"] in ("Deployment", "Integration", "Hardware", "Stress")
        for test in category["tests"]:
            for result in test["results"]:
                assert result["status"] in ("Pass", "Fail", "Warn", "Skip")
                if result["status"] not in ("Pass", "Skip"):
                    failing.setdefault(test["name"], set()).add(result["gpu_ids"])
                    assert result["warnings"] and all(w["warning"] for w in result["warnings"])
    return failing


def test_diag_json_on_a_healthy_node_passes_every_test() -> None:
    s = on("node07")
    out, status = s.execute("dcgmi diag -r 3 -j")
    assert status == 0
    assert failing_tests(out) == {}
    document = json.loads(out)["DCGM GPU Diagnostic"]
    assert document["version"] == "3.3.9"
    names = [t["name"] for c in document["test_categories"] for t in c["tests"]]
    assert {"Denylist", "PCIe", "GPU Memory", "Targeted Stress", "Targeted Power", "Memory Bandwidth"} <= set(names)


def test_diag_json_and_table_give_the_same_verdicts_under_a_pending_row_remap() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    table, table_status = s.execute("dcgmi diag -r 1")
    out, status = s.execute("dcgmi diag -r 1 -j")
    assert status == table_status != 0
    assert failing_tests(out) == {"Page Retirement/Row Remap": {"0,1,2,3,4,5,6,7"}}
    assert f"GPU {t['gpu']} has uncorrectable memory errors" in table and f"GPU {t['gpu']} has" in out


@pytest.mark.parametrize("seed", range(3))
def test_diag_json_names_each_gpu_a_down_nvlink_fails(seed: int) -> None:
    s = on(None, "nvlink", seed)
    fault = s.cluster.faults[0]
    s.execute(f"ssh {fault.truth['node']}")
    out, status = s.execute("dcgmi diag -r 2 -j")
    failing = failing_tests(out)
    assert status == 226 and "PCIe" in failing
    if fault.name == "nvlink-down":
        assert failing["PCIe"] == {fault.truth["gpu"]}
    else:  # a stopped Fabric Manager fails every CUDA test on every GPU
        assert failing["PCIe"] == {str(n) for n in range(8)}


def test_dmon_rows_split_into_entity_and_one_value_per_field() -> None:
    out, status = on("node01").execute("dcgmi dmon -e 150,155,203,204 -c 2")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["#Entity", "TMPTR", "POWER", "GPUTL", "MCUTL"]
    # DCGM's layout: a 10-wide entity column, each field in its width + 8, the units row under the header.
    assert lines[1].split() == ["ID", "C", "W"] and lines[1].index("C") == 11 and lines[1].index("W") == 24
    rows = [line.split() for line in lines[2:]]
    assert len(rows) == 16
    for cells in rows:
        assert cells[0] == "GPU" and cells[1].isdigit() and len(cells) == 6
        for cell in cells[2:]:
            float(cell)


def test_dmon_repeats_its_header_after_fifteen_samples() -> None:
    out, _ = on("node01").execute("dcgmi dmon -e 203 -i 0 -c 31 -d 100")
    headers = [n for n, line in enumerate(out.splitlines()) if line.startswith("#Entity")]
    assert headers == [0, 17, 33]


def test_health_json_names_the_failing_gpu_and_system_like_the_table() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    table, _ = s.execute("dcgmi health -c")
    document = json.loads(s.execute("dcgmi health -c -j")[0])
    assert document["header"] == ["Health Monitor Report"]
    body = document["body"]
    assert body["Overall Health"]["value"] == "Failure" and "| Failure" in table
    entity = body["GPU"]["children"][t["gpu"]]
    assert entity["value"] == "Failure"
    memory = entity["children"]["Errors"]["children"]["Memory system"]
    assert memory["value"] == "Failure" and any("double-bit ECC" in line for line in memory["overflow"])


def test_health_json_on_a_healthy_node_has_only_the_overall_verdict() -> None:
    document = json.loads(on("node07").execute("dcgmi health -c -j")[0])
    assert document["body"] == {"Overall Health": {"value": "Healthy"}}


def test_diag_limited_to_gpus_reports_only_those_gpus() -> None:
    out, status = on("node07").execute("dcgmi diag -r 2 -i 0,3 -j")
    assert status == 0
    categories = json.loads(out)["DCGM GPU Diagnostic"]["test_categories"]
    ids = {r["gpu_ids"] for c in categories for t in c["tests"] for r in t["results"]}
    assert ids == {"0,3", "0", "3"}
    assert on("node07").execute("dcgmi diag -r 1 -i 12")[1] == 255
