"""nccl-tests binaries and mpirun through the shell: layout, flags, errors, launchers, faults."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import golden

ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)"
                 r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)$")



def rows(out: str) -> list[tuple[int, float, float]]:
    """(size, out-of-place algbw, out-of-place busbw) of each result row."""
    found = []
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            found.append((int(m.group(1)), float(m.group(7)), float(m.group(8))))
    return found


def test_single_node_sweep_matches_golden() -> None:
    out, status = Session().execute("ssh node07 all_reduce_perf -b 8 -e 8G -f 8 -g 8")
    assert status == 0
    golden("all_reduce_perf_node07_g8.txt", out)


def test_buffers_that_do_not_fit_beside_the_job_fail_in_cudamalloc() -> None:
    s = Session()
    free = [int(v) for v in s.execute("ssh node01 nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits")[0]
            .split()]
    assert max(free) < 3 * 8192, "the training job leaves too much room for the test to fail"
    out, status = s.execute("srun --jobid=48213 --overlap -w node01 -N1 --ntasks-per-node=8 all_reduce_perf "
                            "-b 8G -e 8G -g 1")
    assert status != 0 and not rows(out)
    assert len(re.findall(r"^node01: Test CUDA failure common\.cu:\d+ 'out of memory'$", out, re.M)) == 8
    assert re.search(r"^ \.\. node01 pid \d+: Test failure common\.cu:\d+$", out, re.M)
    # 1 GiB buffers (3 GiB with validation) fit in what every GPU has left.
    assert min(free) > 3 * 1024 + 520
    out, status = s.execute("ssh node01 all_reduce_perf -b 1G -e 1G -g 8")
    assert status == 0 and rows(out)


def test_a_test_beside_a_busy_job_gets_half_the_gpu_time() -> None:
    s = Session()
    util = s.execute("ssh node01 nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits")[0].split()
    assert min(int(u) for u in util) >= 95
    busy = rows(s.execute("ssh node01 all_reduce_perf -b 1G -e 1G -g 8")[0])[-1][2]
    idle = rows(s.execute("ssh node07 all_reduce_perf -b 1G -e 1G -g 8")[0])[-1][2]
    assert busy / idle == pytest.approx(0.5, abs=0.03)


def test_header_and_footer_follow_nccl_tests_2_13() -> None:
    out, _ = Session().execute("ssh node02 all_gather_perf -b 1M -e 4M -f 2 -g 8")
    lines = out.splitlines()
    assert lines[0] == ("# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 "
                        "iters: 20 agg iters: 1 validation: 1 graph: 0")
    assert re.match(r"#  Rank  0 Group  0 Pid +\d+ on     node02 device  0 \[0000:1b:00\] NVIDIA H100 80GB HBM3", lines[3])
    assert "# Out of bounds values : 0 OK" in lines
    assert any(re.fullmatch(r"# Avg bus bandwidth    : [\d.]+ ", line) for line in lines)


def test_alltoall_and_sendrecv_have_no_in_place_validation() -> None:
    for tool in ("alltoall_perf", "sendrecv_perf"):
        out, _ = Session().execute(f"ssh node01 {tool} -b 1M -e 2M -f 2 -g 8")
        rows = [line.split() for line in out.splitlines() if line and not line.startswith("#")]
        assert rows and all(row[-1] == "N/A" and row[-5] == "0" for row in rows)


def test_avg_bus_bandwidth_is_the_mean_of_every_row() -> None:
    out, _ = Session().execute("ssh node01 all_reduce_perf -b 8 -e 1G -f 4 -g 8")
    busbw = [float(x) for line in out.splitlines() if (m := ROW.match(line)) for x in (m.group(8), m.group(12))]
    avg = float(re.search(r"# Avg bus bandwidth    : ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    assert avg == pytest.approx(sum(busbw) / len(busbw), rel=1e-4)


def test_busbw_column_is_algbw_times_the_all_reduce_factor() -> None:
    out, _ = Session().execute("ssh node07 all_reduce_perf -b 64M -e 8G -f 2 -g 8")
    for _size, alg, bus in rows(out):
        assert bus == pytest.approx(alg * 2 * 7 / 8, abs=0.02)
    assert 460 <= rows(out)[-1][2] <= 495


def test_all_gather_count_is_per_rank() -> None:
    out, _ = Session().execute("ssh node01 all_gather_perf -b 1M -e 1M -g 8")
    assert re.search(r"^\s+1048576\s+32768\s+float\s+none\s+-1", out, re.M)


def test_mpirun_across_two_nodes_prints_once_from_rank_0() -> None:
    out, status = Session().execute("mpirun -np 16 -H node07:8,node08:8 all_reduce_perf -b 8G -e 8G -g 1")
    assert status == 0
    assert out.count("# nThread") == 1
    assert "Rank 15 Group  0" in out and "on     node08 device  7" in out
    assert 400 <= rows(out)[-1][2] <= 495


def test_srun_environment_places_tasks_in_blocks() -> None:
    env = "SLURM_PROCID=0 SLURM_NTASKS=16 SLURM_NNODES=2 SLURM_JOB_NODELIST=node[05-06]"
    out, _ = Session().execute(f"ssh node05 {env} all_reduce_perf -b 1G -e 1G -g 1")
    assert "Rank  8 Group  0" in out and "on     node06 device  0" in out
    quiet, status = Session().execute("ssh node06 SLURM_PROCID=3 SLURM_NTASKS=16 all_reduce_perf -g 1")
    assert (quiet, status) == ("", 0)


def test_degraded_port_halves_the_two_node_busbw_of_a_forced_ring() -> None:
    s = Session()
    line = "mpirun -np 16 -H node07:8,node08:8 -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1"
    healthy = rows(s.execute(line)[0])[-1][2]
    apply_fault(s.cluster, "link-rate", {"node": "node08", "port": "mlx5_3"})
    degraded = rows(s.execute(line)[0])[-1][2]
    assert degraded / healthy == pytest.approx(0.5, abs=0.05)


def test_nccl_debug_info_shows_ib_devices_and_socket_fallback() -> None:
    s = Session()
    out, _ = s.execute("mpirun -np 16 -x NCCL_DEBUG=INFO -H node01:8,node02:8 all_reduce_perf -b 1M -e 1M -g 1")
    assert "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB" in out
    assert re.search(r"via NET/IB/\d/GDRDMA", out)
    out, _ = s.execute("mpirun -np 16 -x NCCL_DEBUG=INFO -x NCCL_IB_HCA==ibp24s0 -H node01:8,node02:8 "
                       "all_reduce_perf -b 1M -e 1M -g 1")
    assert "NCCL INFO NET/IB : No device found." in out
    assert "NCCL INFO Using network Socket" in out and "via NET/Socket/0" in out


def test_debug_subsys_filters_lines() -> None:
    out, _ = Session().execute("ssh node01 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=NET all_reduce_perf -g 8")
    assert "NET/IB : Using" in out and "Channel 00/32" not in out


def test_no_gpus_on_the_login_node_is_a_cuda_failure() -> None:
    out, status = Session().execute("all_reduce_perf -g 8")
    assert status == 1
    assert "login01: Test CUDA failure common.cu:892 'no CUDA-capable device is detected'" in out


def test_more_gpus_than_the_node_has_is_an_invalid_device_ordinal() -> None:
    out, status = Session().execute("ssh node01 all_reduce_perf -g 9")
    assert status == 1 and "'invalid device ordinal'" in out


def test_unknown_option_prints_getopt_error_and_usage() -> None:
    out, status = Session().execute("ssh node01 all_reduce_perf -q 1")
    assert status == 1
    assert "all_reduce_perf: invalid option -- 'q'" in out and "USAGE: all_reduce_perf" in out


def test_bad_size_is_reported_like_nccl_tests() -> None:
    out, status = Session().execute("ssh node01 all_reduce_perf -b 8X")
    assert status != 0 and "invalid size specified for 'minbytes'" in out


def test_mpirun_without_enough_slots_refuses() -> None:
    out, status = Session().execute("mpirun -np 4 -H node01:2 hostname")
    assert status == 1 and "There are not enough slots available" in out


def test_sweep_streams_one_row_per_chunk() -> None:
    run = Session().run("ssh node01 all_reduce_perf -b 1K -e 1M -f 4 -g 8")
    chunks = []
    while (chunk := run.step()) is not None:
        chunks.append(chunk)
    assert len(chunks) >= 6


def test_min_bw_check_fails_a_slow_run() -> None:
    out, status = Session().execute("ssh node07 NCCL_TESTS_MIN_BW=400 all_reduce_perf -b 8G -e 8G -g 8")
    assert status == 0 and re.search(r"# Avg bus bandwidth    : [\d.]+ OK", out)
    out, status = Session().execute("ssh node07 NCCL_TESTS_MIN_BW=900 all_reduce_perf -b 8G -e 8G -g 8")
    assert status == 1 and re.search(r"# Avg bus bandwidth    : [\d.]+ FAILED", out)
