"""The late rank by its numbers: /proc/PID/environ maps rank to node and GPU, timeline names no culprit, a per-GPU slowdown."""

from __future__ import annotations

from tests.support import on, run


def _env(session, pid: str) -> dict[str, str]:
    text = run(session, f"cat /proc/{pid}/environ | tr '\\0' '\\n'")
    return dict(line.split("=", 1) for line in text.splitlines())


def test_each_rank_environment_maps_rank_to_node_and_gpu_as_timeline_does():
    s = on("node02", "late-rank", 0)
    rows = {int(f[0]): (f[1], int(f[2])) for f in
            (line.split() for line in run(s, "timeline --ranks").splitlines()[2:]) if f and f[0].isdigit()}
    pids = run(s, "pgrep -u alice pt_main_thread").split()
    assert len(pids) == 8
    for pid in pids:
        env = _env(s, pid)
        rank = int(env["RANK"])
        gpu = int(env["CUDA_VISIBLE_DEVICES"].split(",")[int(env["LOCAL_RANK"])])
        assert rows[rank] == ("node02", gpu)
        assert env["WORLD_SIZE"] == "32" and env["MASTER_ADDR"] == "node01" and env["SLURMD_NODENAME"] == "node02"


def test_environ_is_nul_separated_and_readable_by_its_owner_and_root_only():
    s = on("node02", "late-rank", 0)
    pid = run(s, "pgrep -u alice pt_main_thread").split()[0]
    raw = run(s, f"cat /proc/{pid}/environ")
    assert "\n" not in raw and raw.endswith("\0") and "\0RANK=" in raw
    assert run(s, f"ls -l /proc/{pid}/environ").startswith("-r-------- 1 alice alice ")
    root_pid = run(s, "pgrep -u root slurmd").split()[0]
    assert s.execute(f"cat /proc/{root_pid}/environ") == (f"cat: /proc/{root_pid}/environ: Permission denied\n", 1)
    assert "PATH=" in run(s, f"sudo cat /proc/{root_pid}/environ")


def test_timeline_ranks_marks_no_rank_late():
    for seed in range(3):
        assert "late" not in run(on(None, "late-rank", seed), "timeline --ranks")


def test_tr_reads_octal_escapes():
    assert run(on(None), "printf 'a\\0b\\0' | tr '\\0' '\\n'") == "a\nb\n"


def test_late_rank_hw_slowdown_is_one_gpus_own_and_not_a_board_power_brake():
    s = on(None, "late-rank", 2)
    assert "Correct: A late rank" in run(s, "submit rank=16 node=node03 gpu=0 cause=\"hw slowdown\"")
    s = on(None, "late-rank", 2)
    out = run(s, "ssh node03 nvidia-smi --query-gpu=index,clocks_event_reasons.active --format=csv,noheader")
    reasons = dict(line.split(", ") for line in out.splitlines())
    assert reasons.pop("0") == "0x0000000000000008" and "0x0000000000000008" not in reasons.values()
    perf = run(s, "ssh node03 nvidia-smi -q -i 0 -d PERFORMANCE")
    assert "HW Power Brake Slowdown       : Not Active" in perf and "HW Thermal Slowdown           : Not Active" in perf
