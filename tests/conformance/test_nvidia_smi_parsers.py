"""nvidia-smi read by exporters: --query-gpu CSV with its units, and the -q -x XML against -q and --query-gpu."""

from __future__ import annotations

import re

import pytest

from tests.conformance import parsers
from tests.conformance.support import on, together, truth

#: XML path → the --query-gpu field that reports the same value.
XML_TO_QUERY = {
    "uuid": "uuid", "serial": "serial", "product_name": "name", "vbios_version": "vbios_version",
    "persistence_mode": "persistence_mode", "pci/pci_bus_id": "pci.bus_id",
    "pci/pci_gpu_link_info/pcie_gen/current_link_gen": "pcie.link.gen.current",
    "pci/pci_gpu_link_info/pcie_gen/max_link_gen": "pcie.link.gen.max",
    "pci/pci_gpu_link_info/link_widths/current_link_width": "pcie.link.width.current",
    "pci/pci_gpu_link_info/link_widths/max_link_width": "pcie.link.width.max",
    "performance_state": "pstate",
    "clocks_event_reasons/clocks_event_reason_gpu_idle": "clocks_event_reasons.gpu_idle",
    "clocks_event_reasons/clocks_event_reason_sw_power_cap": "clocks_event_reasons.sw_power_cap",
    "clocks_event_reasons/clocks_event_reason_hw_slowdown": "clocks_event_reasons.hw_slowdown",
    "clocks_event_reasons/clocks_event_reason_hw_thermal_slowdown": "clocks_event_reasons.hw_thermal_slowdown",
    "clocks_event_reasons/clocks_event_reason_hw_power_brake_slowdown":
        "clocks_event_reasons.hw_power_brake_slowdown",
    "clocks_event_reasons/clocks_event_reason_sw_thermal_slowdown": "clocks_event_reasons.sw_thermal_slowdown",
    "fb_memory_usage/total": "memory.total", "fb_memory_usage/reserved": "memory.reserved",
    "fb_memory_usage/used": "memory.used", "fb_memory_usage/free": "memory.free",
    "utilization/gpu_util": "utilization.gpu", "utilization/memory_util": "utilization.memory",
    "ecc_mode/current_ecc": "ecc.mode.current",
    "ecc_errors/volatile/dram_uncorrectable": "ecc.errors.uncorrected.volatile.dram",
    "ecc_errors/aggregate/dram_uncorrectable": "ecc.errors.uncorrected.aggregate.dram",
    "ecc_errors/volatile/dram_correctable": "ecc.errors.corrected.volatile.dram",
    "temperature/gpu_temp": "temperature.gpu", "temperature/gpu_temp_tlimit": "temperature.gpu.tlimit",
    "temperature/memory_temp": "temperature.memory",
    "gpu_power_readings/power_draw": "power.draw", "gpu_power_readings/current_power_limit": "power.limit",
    "gpu_power_readings/default_power_limit": "power.default_limit",
    "gpu_power_readings/min_power_limit": "power.min_limit", "gpu_power_readings/max_power_limit": "power.max_limit",
    "clocks/graphics_clock": "clocks.current.graphics", "clocks/sm_clock": "clocks.current.sm",
    "clocks/mem_clock": "clocks.current.memory", "clocks/video_clock": "clocks.current.video", "max_clocks/sm_clock": "clocks.max.sm",
    "max_clocks/mem_clock": "clocks.max.memory", "applications_clocks/graphics_clock": "clocks.applications.graphics",
    "fabric/state": "fabric.state", "fabric/status": "fabric.status",
    "gpu_reset_status/reset_required": "reset_status.reset_required",
}

#: XML path → the ``-q`` section and label that print it.
XML_TO_TEXT = {
    "uuid": ("", "GPU UUID"), "serial": ("", "Serial Number"), "minor_number": ("", "Minor Number"),
    "pci/pci_bus_id": ("PCI", "Bus Id"), "pci/tx_util": ("PCI", "Tx Throughput"),
    "pci/rx_util": ("PCI", "Rx Throughput"), "performance_state": ("", "Performance State"),
    "fb_memory_usage/used": ("FB Memory Usage", "Used"), "fb_memory_usage/free": ("FB Memory Usage", "Free"),
    "bar1_memory_usage/used": ("BAR1 Memory Usage", "Used"), "utilization/gpu_util": ("Utilization", "Gpu"),
    "utilization/memory_util": ("Utilization", "Memory"), "temperature/gpu_temp": ("Temperature", "GPU Current Temp"),
    "temperature/memory_temp": ("Temperature", "Memory Current Temp"),
    "temperature/gpu_temp_max_tlimit_threshold": ("Temperature", "GPU Shutdown T.Limit Temp"),
    "temperature/gpu_temp_slow_tlimit_threshold": ("Temperature", "GPU Slowdown T.Limit Temp"),
    "gpu_power_readings/power_draw": ("GPU Power Readings", "Power Draw"),
    "gpu_power_readings/current_power_limit": ("GPU Power Readings", "Current Power Limit"),
    "clocks/sm_clock": ("Clocks", "SM"), "clocks/mem_clock": ("Clocks", "Memory"),
    "clocks/video_clock": ("Clocks", "Video"), "voltage/graphics_volt": ("Voltage", "Graphics"),
    "remapped_rows/remapped_row_unc": ("Remapped Rows", "Uncorrectable Error"),
    "remapped_rows/remapped_row_pending": ("Remapped Rows", "Pending"),
    "fabric/state": ("Fabric", "State"),
}


def text_sections(text: str) -> dict[tuple[str, str], str]:
    """``-q`` as (depth-1 section, label) → value, the way line-oriented -q parsers read it."""
    values: dict[tuple[str, str], str] = {}
    section = ""
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        name, sep, value = line.strip().partition(":")
        if indent == 4:
            section = name.strip() if not sep else ""
        if sep and indent >= 4:
            values.setdefault((section if indent > 4 else "", name.strip()), value.strip())
    return values


def query_value_matches(xml_text: str, csv_cell: str) -> bool:
    """An XML leaf and a --query-gpu cell say the same thing (XML keeps units, CSV asked for nounits)."""
    xml_text = xml_text.strip()
    if xml_text == "N/A":
        return csv_cell in ("[N/A]", "N/A")
    if xml_text == csv_cell:
        return True
    number, _, unit = xml_text.partition(" ")
    return unit in ("MiB", "%", "W", "MHz", "C") and number == csv_cell or xml_text == csv_cell + "x"


#: nvidia_gpu_exporter's AUTO mode: a property is a quoted name at the start of a line after a blank line.
HELP_FIELD = re.compile(r'\n\s*\n^"([^"]+)"', re.M)


def test_exporter_discovers_every_field_from_the_help_and_queries_them_all() -> None:
    s = on("node01")
    listing, _ = s.execute("nvidia-smi --help-query-gpu")
    assert listing.startswith('List of valid properties to query for the switch "--query-gpu":\n\n"timestamp"\n')
    fields = HELP_FIELD.findall(listing)
    assert len(fields) > 100 and len(set(fields)) == len(fields)
    assert {"name", "uuid", "pci.bus_id", "memory.used", "utilization.gpu", "power.draw", "temperature.gpu",
            "clocks_event_reasons.active", "ecc.errors.uncorrected.volatile.total", "compute_cap"} <= set(fields)
    out, status = s.execute(f"nvidia-smi --query-gpu={','.join(fields)} --format=csv")
    assert status == 0, out
    units = parsers.header_units(out)
    assert list(units) == fields  # the returned header names the fields in the order asked
    rows = parsers.query_gpu_csv(out)
    assert len(rows) == 8
    for row in rows:
        for name, cell in row.items():
            unit = units[name]
            if unit and cell not in ("[N/A]", "N/A"):
                assert cell.endswith(" " + unit), (name, cell)
                parsers.csv_number(cell)


def test_nounits_cells_are_bare_numbers_an_exporter_converts() -> None:
    s = on("node02")
    fields = ("index,uuid,pci.bus_id,temperature.gpu,utilization.gpu,utilization.memory,memory.used,memory.free,"
              "power.draw,power.limit,clocks.sm,clocks.mem,pstate,clocks_event_reasons.active,"
              "ecc.errors.uncorrected.volatile.total,fan.speed")
    out, status = s.execute(f"nvidia-smi --query-gpu={fields} --format=csv,noheader,nounits")
    assert status == 0
    for line in out.splitlines():
        cells = next(iter(__import__("csv").reader([line], skipinitialspace=True)))
        assert len(cells) == 16
        assert re.fullmatch(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", cells[1])
        assert re.fullmatch(r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-9]", cells[2])
        for cell in cells[3:]:
            parsers.csv_number(cell)  # raises on a cell an exporter cannot convert


@pytest.mark.parametrize(("lab", "fault"), [(None, None), ("gpu-data-path", "gpu-power-cap"),
                                            ("diagnostic-snapshot", "xid"), ("late-rank", "straggler")])
def test_xml_agrees_with_q_and_query_gpu_for_each_gpu(lab: str | None, fault: str | None) -> None:
    s = on(None, lab)
    node = truth(s, fault)["node"] if fault else "node01"
    s.execute(f"ssh {node}")
    fields = ",".join(XML_TO_QUERY.values())
    xml_text, text, csv_text = together(s, "nvidia-smi -q -x", "nvidia-smi -q",
                                        f"nvidia-smi --query-gpu={fields} --format=csv,nounits")
    root = parsers.smi_xml(xml_text)
    gpus = root.findall("gpu")
    assert root.findtext("attached_gpus") == str(len(gpus)) == "8"
    assert root.findtext("driver_version") == "550.90.07" and root.findtext("cuda_version") == "12.4"
    rows = parsers.query_gpu_csv(csv_text)
    blocks = re.split(r"^GPU (?=0000)", text, flags=re.M)[1:]
    assert len(rows) == len(blocks) == len(gpus)
    for gpu, row, block in zip(gpus, rows, blocks, strict=True):
        assert gpu.get("id") == gpu.findtext("pci/pci_bus_id") == row["pci.bus_id"] == block.split("\n")[0]
        for path, name in XML_TO_QUERY.items():
            assert query_value_matches(gpu.findtext(path) or "", row[name]), (gpu.get("id"), path, row[name])
        labelled = text_sections(block)
        for path, key in XML_TO_TEXT.items():
            assert gpu.findtext(path) == labelled[key], (gpu.get("id"), path)
        pids = [p.findtext("pid") for p in gpu.findall("processes/process_info")]
        assert pids == re.findall(r"Process ID\s+: (\d+)", block)


def test_xml_shows_the_injected_power_cap_where_an_exporter_looks() -> None:
    s = on(None, "gpu-data-path")
    t = truth(s, "gpu-power-cap")
    out, status = s.execute(f"ssh {t['node']} nvidia-smi -q -x -i {t['gpu']}")
    assert status == 0
    gpu = parsers.smi_xml(out).find("gpu")
    assert gpu is not None and gpu.get("id") == t["bus_id"] and gpu.findtext("uuid") == t["uuid"]
    assert parsers.xml_number(gpu, "gpu_power_readings/current_power_limit") == float(t["limit_w"])
    assert gpu.findtext("clocks_event_reasons/clocks_event_reason_sw_power_cap") == "Active"
    assert parsers.xml_number(gpu, "clocks/sm_clock") <= float(t["sm_cap_mhz"])


def test_xml_carries_the_double_bit_error_and_row_remap_of_an_xid_48() -> None:
    s = on(None, "diagnostic-snapshot", seed=0)
    t = truth(s, "xid")
    out, _ = s.execute(f"ssh {t['node']} nvidia-smi -q -x -i {t['bus_id']}")
    gpu = parsers.smi_xml(out).find("gpu")
    assert gpu is not None and gpu.get("id") == t["bus_id"]
    assert int(gpu.findtext("ecc_errors/aggregate/dram_uncorrectable") or 0) >= 1
    assert gpu.findtext("remapped_rows/remapped_row_pending") == "Yes"


def test_xml_refuses_a_display_filter_like_the_real_tool() -> None:
    out, status = on("node01").execute("nvidia-smi -q -x -d MEMORY")
    assert status == 2 and out.startswith("Invalid combination of input arguments")


def test_x_without_q_is_an_invalid_combination() -> None:
    out, status = on("node01").execute("nvidia-smi -x")
    assert status == 2 and "Invalid combination" in out


def test_aliases_answer_with_the_canonical_header() -> None:
    out, _ = on("node01").execute("nvidia-smi --query-gpu=gpu_name,clocks.sm,clocks_throttle_reasons.active "
                                  "--format=csv -i 0")
    assert out.splitlines()[0] == "name, clocks.current.sm [MHz], clocks_event_reasons.active"


def test_row_remap_fields_answer_in_both_queries() -> None:
    """--query-gpu lists remapped_rows.* after retired_pages (nvidia_gpu_exporter's catalog of
    nvidia-smi --help-query-gpu, checked on an H100), with Yes/No flags; --query-remapped-rows prints 0/1."""
    s = on("node01")
    out, status = s.execute("nvidia-smi --query-gpu=remapped_rows.pending --format=csv")
    assert status == 0 and out == "remapped_rows.pending\n" + "No\n" * 8
    out, status = s.execute("nvidia-smi --query-remapped-rows=remapped_rows.failure,gpu_bus_id --format=csv,noheader")
    assert status == 0
    # NVIDIA's compatibility check for this query: failure is 0 or 1, then the bus id.
    assert all(re.fullmatch(r"[01], [0-9a-fA-F]{8}:.*", line) for line in out.splitlines()) and out.count("\n") == 8


def test_remapped_rows_query_agrees_with_the_xml_after_a_double_bit_error() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    xml_text, csv_text = together(s, f"nvidia-smi -q -x -i {t['gpu']}", f"nvidia-smi -i {t['gpu']} "
                                  "--query-remapped-rows=gpu_uuid,remapped_rows.correctable,remapped_rows.uncorrectable,"
                                  "remapped_rows.pending,remapped_rows.failure --format=csv")
    gpu = parsers.smi_xml(xml_text).find("gpu")
    (row,) = parsers.query_gpu_csv(csv_text)
    assert gpu is not None and row["gpu_uuid"] == gpu.findtext("uuid") == t["uuid"]
    assert row["remapped_rows.uncorrectable"] == gpu.findtext("remapped_rows/remapped_row_unc")
    assert row["remapped_rows.correctable"] == gpu.findtext("remapped_rows/remapped_row_corr")
    yes_no = {"1": "Yes", "0": "No"}
    assert yes_no[row["remapped_rows.pending"]] == gpu.findtext("remapped_rows/remapped_row_pending") == "Yes"
    assert yes_no[row["remapped_rows.failure"]] == gpu.findtext("remapped_rows/remapped_row_failure")


#: The XML leaves a netdata-style collector turns into metrics, with the unit it strips from each.
NETDATA_LEAVES = {
    "fan_speed": "%", "performance_state": "", "pci/tx_util": "KB/s", "pci/rx_util": "KB/s",
    "pci/pci_gpu_link_info/pcie_gen/current_link_gen": "", "utilization/gpu_util": "%",
    "utilization/memory_util": "%", "utilization/encoder_util": "%", "utilization/decoder_util": "%",
    "temperature/gpu_temp": "C", "clocks/graphics_clock": "MHz", "clocks/video_clock": "MHz",
    "clocks/sm_clock": "MHz", "clocks/mem_clock": "MHz", "gpu_power_readings/power_draw": "W",
    "voltage/graphics_volt": "mV", "bar1_memory_usage/used": "MiB", "bar1_memory_usage/free": "MiB",
    "fb_memory_usage/used": "MiB", "fb_memory_usage/free": "MiB", "fb_memory_usage/reserved": "MiB",
}


def test_every_metric_leaf_a_collector_reads_has_its_unit_or_na() -> None:
    out, _ = on("node01").execute("nvidia-smi -q -x")
    for gpu in parsers.smi_xml(out).findall("gpu"):
        for path, unit in NETDATA_LEAVES.items():
            text = gpu.findtext(path)
            assert text is not None, path
            if text == "N/A":
                continue
            number, _, got = text.partition(" ")
            assert got == unit, (path, text)
            float(number.lstrip("P"))
        for proc in gpu.findall("processes/process_info"):
            assert proc.findtext("pid", "").isdecimal() and proc.findtext("process_name")
            assert (proc.findtext("used_memory") or "").endswith(" MiB")
        reasons = gpu.findall("clocks_event_reasons/*")
        assert len(reasons) == 9
        for reason in reasons:
            assert reason.tag.startswith("clocks_event_reason_") and reason.text in ("Active", "Not Active")
