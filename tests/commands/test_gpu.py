"""nvidia-smi through the shell: layouts, flags, errors and agreement with the model."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.nvsmi.nvidia_smi import NvidiaSmi
from emulator.commands.nvsmi.options import ABRIDGED, LISTED
from emulator.session import Session
from tests.support import golden, on, run

# -- golden outputs on the healthy sandbox, seed 0 --------------------------------------

@pytest.mark.parametrize("name,host,line", [
    ("nvidia-smi_busy.txt", "node01", "nvidia-smi"),
    ("nvidia-smi_idle.txt", "node08", "nvidia-smi"),
    ("nvidia-smi_L.txt", "node01", "nvidia-smi -L"),
    ("nvidia-smi_q_i0.txt", "node01", "nvidia-smi -q -i 0"),
    ("nvidia-smi_q_x_i0.xml", "node01", "nvidia-smi -q -x -i 0"),
    ("nvidia-smi_topo_m.txt", "node01", "nvidia-smi topo -m"),
    ("nvidia-smi_query_csv.txt", "node01",
     "nvidia-smi --query-gpu=index,name,pci.bus_id,temperature.gpu,power.draw,power.limit,utilization.gpu,"
     "memory.used,memory.total,clocks.sm,clocks.max.sm,pstate,clocks_event_reasons.active --format=csv"),
    ("nvidia-smi_dmon.txt", "node01", "nvidia-smi dmon -c 2 -s pucvmet -i 0,7"),
    ("nvidia-smi_query_remapped_rows.txt", "node01", "nvidia-smi --query-remapped-rows=gpu_bus_id,gpu_uuid,"
     "remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure --format=csv"),
])
def test_healthy_output_matches_golden(name, host, line):
    out, status = on(host).execute(line)
    assert status == 0
    golden(name, out)


# -- the summary table ---------------------------------------------------------------------

def test_summary_rows_are_the_real_width_and_list_each_rank():
    s = on("node01")
    out, _ = s.execute("nvidia-smi")
    table = [ln for ln in out.splitlines()[1:] if ln.strip()]
    assert {len(ln) for ln in table} == {91}
    ranks = [r for r in s.cluster.training.ranks if r.node == "node01"]
    for rank in ranks:
        assert f"{rank.pid}      C   /usr/bin/python3" in out
    assert "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |" in out


def test_idle_node_shows_no_processes_and_idle_clocks():
    out, _ = on("node08").execute("nvidia-smi")
    assert "No running processes found" in out
    assert "      1MiB /  81559MiB |      0%      Default |" in out


def test_login_node_has_no_driver():
    out, status = on("login01").execute("nvidia-smi")
    assert status == 9
    assert out.startswith("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")


# -- selection and errors ------------------------------------------------------------------

def test_id_accepts_index_uuid_and_bus_id():
    s = on("node02")
    gpu = s.cluster.nodes["node02"].gpus[3]
    for ident in ("3", gpu.uuid, gpu.pci_bus_id, gpu.pci_bus_id[4:]):
        out, status = s.execute(f"nvidia-smi -L -i {ident}")
        assert (out, status) == (f"GPU 3: NVIDIA H100 80GB HBM3 (UUID: {gpu.uuid})\n", 0)


def test_bad_index_says_no_devices_found():
    assert on("node01").execute("nvidia-smi -i 8") == ("No devices were found\n", 6)


def test_unknown_option_uses_the_real_wording():
    out, status = on("node01").execute("nvidia-smi --bogus")
    assert (out, status) == ("ERROR: Option --bogus is not recognized. Please run 'nvidia-smi -h'.\n", 2)


def test_list_with_query_is_an_invalid_combination():
    out, status = on("node01").execute("nvidia-smi -L -q")
    assert out == "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"
    assert status == 2


def test_unknown_query_field_is_rejected():
    out, status = on("node01").execute("nvidia-smi --query-gpu=index,foo --format=csv")
    assert out == 'Field "foo" is not a valid field to query.\n\n' and status == 2


def test_query_without_format_is_rejected():
    assert on("node01").execute("nvidia-smi --query-gpu=index")[1] == 2


def test_csv_noheader_nounits_prints_bare_values():
    s = on("node01")
    out, _ = s.execute("nvidia-smi --query-gpu=index,memory.total,power.limit,clocks.max.sm "
                       "--format=csv,noheader,nounits -i 0")
    assert out == "0, 81559, 700.00, 1980\n"


def test_query_values_agree_with_the_table():
    s = on("node03")
    gpu = s.cluster.nodes["node03"].gpus[5]
    out, _ = s.execute("nvidia-smi --query-gpu=uuid,pci.bus_id,serial --format=csv,noheader -i 5")
    assert out == f"{gpu.uuid}, {gpu.pci_bus_id}, {gpu.serial}\n"


def test_display_limits_the_report_to_its_sections():
    out, _ = on("node01").execute("nvidia-smi -q -d ROW_REMAPPER -i 0")
    assert "Remapped Rows" in out and "Clocks Event Reasons" not in out and "Product Name" not in out


def test_bad_display_type_is_rejected():
    assert on("node01").execute("nvidia-smi -q -d BOGUS")[1] == 2


def test_temperatures_are_t_limit_margins():
    out, _ = on("node01").execute("nvidia-smi -q -d TEMPERATURE -i 0")
    assert "GPU Slowdown T.Limit Temp         : -2 C" in out
    assert "GPU Shutdown T.Limit Temp         : -8 C" in out


# -- streaming -------------------------------------------------------------------------------

def test_loop_streams_one_table_per_interval_on_the_simulated_clock():
    s = on("node01")
    run = s.run("nvidia-smi --query-gpu=index,timestamp --format=csv,noheader -i 0 -l 5")
    start = s.cluster.clock.now()
    first = run.step()
    assert first.pause == 5.0 and first.text().startswith(f"0, {start:%Y/%m/%d %H:%M:%S}")
    second = run.step()
    assert second.text().startswith(f"0, {start + timedelta(seconds=5):%Y/%m/%d %H:%M:%S}")
    run.interrupt()
    assert run.step().status == 130


def test_dmon_prints_count_samples_per_gpu():
    out, status = on("node01").execute("nvidia-smi dmon -c 3 -i 2")
    lines = out.splitlines()
    assert status == 0 and len(lines) == 5
    assert lines[0] == "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk "


def test_dmon_rejects_an_unknown_metric():
    assert on("node01").execute("nvidia-smi dmon -s z -c 1")[1] == 2


def test_pmon_names_the_training_rank():
    s = on("node02")
    rank = next(r for r in s.cluster.training.ranks if r.node == "node02" and r.gpu == 4)
    out, _ = s.execute("nvidia-smi pmon -c 1 -i 4")
    assert f"    4 {rank.pid:>11}      C" in out and "python3" in out


def test_topo_pairs_each_gpu_with_its_rail_nic():
    out, _ = on("node01").execute("nvidia-smi topo -m")
    rows = {ln.split("\t")[0]: ln.split("\t") for ln in out.splitlines() if ln.startswith("GPU")}
    assert rows["GPU0"][9] == "PXB" and rows["GPU0"][13] == "SYS" and rows["GPU7"][2] == "NV18"
    assert "  NIC8: mlx5_8" in out


def test_nvlink_status_shows_eighteen_links_at_h100_speed():
    out, _ = on("node01").execute("nvidia-smi nvlink -s -i 0")
    assert out.count("26.562 GB/s") == 18


# -- faults in nvidia-smi ---------------------------------------------------------------------

def test_fallen_gpu_breaks_the_summary_with_the_real_error():
    s = on("node02")
    apply_fault(s.cluster, "xid", {"code": 79, "node": "node02", "gpu": 6})
    out, status = s.execute("nvidia-smi")
    bus = s.cluster.nodes["node02"].gpus[6].pci_bus_id[4:]
    assert (out, status) == (f"Unable to determine the device handle for GPU{bus}: Unknown Error\n", 15)


def test_fallen_gpu_q_report_lists_the_others_like_list_and_query_gpu():
    s = on("node02")
    apply_fault(s.cluster, "xid", {"code": 79, "node": "node02", "gpu": 6})
    gpus = s.cluster.nodes["node02"].gpus
    lost = f"Unable to determine the device handle for GPU{gpus[6].pci_bus_id[4:]}: Unknown Error"
    out, status = s.execute("nvidia-smi -q")
    assert status == 15 and "Attached GPUs                             : 8\n" in out
    heads = [ln for ln in out.splitlines() if ln.startswith(("GPU ", "Unable"))]
    assert heads == [f"GPU {g.pci_bus_id}" for g in gpus[:6]] + [lost, f"GPU {gpus[7].pci_bus_id}"]
    assert out.count("    Product Name") == 7
    listed = s.execute("nvidia-smi -L")[0].splitlines()
    queried = s.execute("nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader")[0].splitlines()
    assert [ln.startswith("GPU ") for ln in listed] == [not ln.startswith("Unable") for ln in queried] == \
        [g.present for g in gpus]
    assert [q for q in queried if not q.startswith("Unable")] == [h[4:] for h in heads if h.startswith("GPU ")]


def test_query_gpu_remapped_rows_agree_with_row_remapper_report_and_remapped_rows_query():
    """--query-gpu knows the remapped_rows.* fields: counts as numbers, pending/failure as Yes/No."""
    s = on("node02")
    apply_fault(s.cluster, "ecc-dbe-remap", {"node": "node02", "gpu": 3})
    fields = "remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure"
    out = run(s, f"nvidia-smi -i 3 --query-gpu={fields} --format=csv")
    assert out == f"{fields.replace(',', ', ')}\n0, 1, Yes, No\n"
    assert run(s, f"nvidia-smi -i 3 --query-remapped-rows={fields} --format=csv,noheader") == "0, 1, 1, 0\n"
    report = run(s, "nvidia-smi -q -d ROW_REMAPPER -i 3")
    assert "Uncorrectable Error               : 1" in report and "Pending                           : Yes" in report
    assert run(s, f"nvidia-smi -i 2 --query-gpu={fields} --format=csv,noheader") == "0, 0, No, No\n"


def test_compute_apps_lists_each_rank_with_its_gpu():
    s = on("node03")
    out, _ = s.execute("nvidia-smi --query-compute-apps=pid,process_name,used_memory,gpu_bus_id --format=csv")
    lines = out.splitlines()
    assert lines[0] == "pid, process_name, used_gpu_memory [MiB], gpu_bus_id" and len(lines) == 9
    rank = next(r for r in s.cluster.training.ranks if r.node == "node03" and r.gpu == 0)
    assert lines[1].startswith(f"{rank.pid}, /usr/bin/python3, ") and lines[1].endswith(", 00000000:1B:00.0")


def test_changing_gpu_state_needs_root():
    s = on("node01")
    out, status = s.execute("nvidia-smi -i 2 -pl 500")
    assert status == 4
    assert out == ("Unable to set power limit for GPU 00000000:52:00.0: Insufficient Permissions\n"
                   "Terminating early due to previous errors.\n")
    assert s.execute("nvidia-smi -r -i 0")[1] == 4


def test_supported_clocks_run_from_max_boost_to_idle_in_15_mhz_steps():
    out, _ = on("node08").execute("nvidia-smi -q -d SUPPORTED_CLOCKS -i 0")
    graphics = [int(ln.split(": ")[1].split()[0]) for ln in out.splitlines() if "Graphics" in ln]
    assert graphics[0] == 1980 and graphics[-1] == 345 and len(graphics) == 110


def test_nvlink_data_counters_grow_only_while_the_job_runs():
    def tx(s: Session) -> int:
        out, _ = s.execute("nvidia-smi nvlink -gt d -i 0 -l 0")
        return int(out.splitlines()[1].split("Data Tx: ")[1].split()[0])

    busy, idle = on("node01"), on("node08")
    b0, i0 = tx(busy), tx(idle)
    assert tx(busy) > b0 and tx(idle) == i0


# -- the declared flags ------------------------------------------------------------------------

#: A valid use of each top-level flag (by long name); ``{}`` stands for the spelling under test.
FLAG_USES = {
    "--help": "{}", "--list-gpus": "{}", "--id": "-L {} 0", "--query": "{} -i 0", "--xml-format": "-q {} -i 0",
    "--display": "-q -i 0 {} MEMORY", "--loop": "-i 0 {} 1", "--loop-ms": "-i 0 {} 500",
    "--query-gpu": "{} index --format=csv", "--help-query-gpu": "{}", "--format": "--query-gpu=index {} csv",
    "--query-compute-apps": "{} pid --format=csv", "--query-remapped-rows": "{} gpu_uuid --format=csv",
    "--help-query-remapped-rows": "{}", "--persistence-mode": "{} 1", "--power-limit": "{} 500",
    "--lock-gpu-clocks": "{} 1500,1500", "--reset-gpu-clocks": "{}", "--applications-clocks": "{} 2619,1980",
    "--ecc-config": "{} 1", "--compute-mode": "{} 3", "--gpu-reset": "{} -i 0",
}


def first_chunk(session: Session, line: str) -> tuple[str, int | None]:
    """What ``line`` prints before its first pause, and its status (None: it was still running, and is interrupted)."""
    run = session.run(line)
    chunk = run.step()
    if not chunk.done:
        run.interrupt()
        run.step()
    return chunk.text(), chunk.status


@pytest.mark.parametrize("flag", NvidiaSmi.flags, ids=lambda flag: flag.long)
def test_every_declared_flag_is_accepted(flag):
    s = on("node01")
    for spelling in flag.strings():
        line = "nvidia-smi " + FLAG_USES[flag.long].format(spelling)
        out, status = first_chunk(s, line)
        assert "is not recognized" not in out and "Invalid combination" not in out and status != 2, line


def test_the_help_copy_lists_every_declared_flag_but_the_abridged_ones():
    text, status = on("node01").execute("nvidia-smi -h")
    assert status == 0

    def listed(spelling: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", text) is not None

    assert [s for flag in LISTED for s in flag.strings() if not listed(s)] == []
    assert [s for flag in ABRIDGED for s in flag.strings() if listed(s)] == []


def _rank_memory(lab: str, seed: int, node: str) -> list[int]:
    out = run(on(None, lab, seed), f"ssh {node} nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits")
    return [int(line) for line in out.split()]


def test_ranks_of_one_symmetric_job_hold_about_the_same_gpu_memory() -> None:
    for lab, seed, node in (("input-wait", 0, "node01"), ("checkpointing", 0, "node04"), ("late-rank", 1, "node03")):
        used = _rank_memory(lab, seed, node)
        assert len(used) == 8 and max(used) - min(used) <= 1_600, (lab, seed, used)


def test_the_rank_that_ran_out_of_gpu_memory_stands_out_from_its_peers() -> None:
    # checkpointing seed 2: one rank's save ran out of GPU memory (train.log's torch.OutOfMemoryError).
    assert "torch.OutOfMemoryError" in run(on(None, "checkpointing", 2), "grep -A20 ERROR /lustre/jobs/llm-pretrain/train.log")
    used = sorted(u for node in ("node01", "node02", "node03", "node04") for u in _rank_memory("checkpointing", 2, node))
    assert used[-1] > 79_500 and used[-1] - used[-2] > 8_000 and used[-2] - used[0] <= 1_600, used
