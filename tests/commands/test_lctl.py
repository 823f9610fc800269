"""lctl get_param on a client, typed through the shell: the layout of the RPC statistics, the servers' wait under
each cause of the storage lab, and the server parameters a client does not have."""

from __future__ import annotations

import re

import pytest

from emulator.labs.clusters import fault_params
from emulator.labs.loader import get
from emulator.session import Session
from tests.support import on, run


def _cause(seed: int) -> str:
    return fault_params(get("storage"), seed)[0][0]


def _mean_wait_us(stats: str) -> float:
    m = re.search(r"^req_waittime\s+(\d+) samples \[usec\] \d+ \d+ (\d+) \d+$", stats, re.M)
    assert m, stats
    return int(m.group(2)) / int(m.group(1))


def test_the_seeds_alternate_the_two_causes() -> None:
    assert {_cause(s) for s in range(2)} == {"storage-contention", "checkpoint-stall"}


@pytest.mark.parametrize("seed", range(4))
def test_saturated_servers_fill_the_rpc_slots_and_stretch_each_wait(seed: int) -> None:
    session = on("node01", "storage", seed)
    rpc = run(session, "lctl get_param osc.*OST0003*.rpc_stats")
    stats = run(session, "lctl get_param -n osc.*OST0003*.stats")
    if _cause(seed) == "storage-contention":
        assert "read RPCs in flight:  8\n" in rpc
        assert _mean_wait_us(stats) > 10_000
    else:
        assert "read RPCs in flight:  0\n" in rpc
        assert _mean_wait_us(stats) < 5_000


def test_the_healthy_twin_waits_a_millisecond_or_two() -> None:
    session = Session("storage", 1, faults=False)
    run(session, "ssh node01")
    assert _mean_wait_us(run(session, "lctl get_param -n osc.*OST0000*.stats")) < 5_000


def test_rpc_stats_keep_the_kernel_layout() -> None:
    out = run(on("node02", "storage", 1), "lctl get_param osc.*OST0001*.rpc_stats")
    lines = out.splitlines()
    assert re.fullmatch(r"osc\.lustre-OST0001-osc-ffff[0-9a-f]{12}\.rpc_stats=", lines[0])
    assert re.fullmatch(r"snapshot_time:            \d{10}\.\d{9} secs\.nsecs", lines[1])
    assert lines[2].startswith("start_time:               ") and lines[3].startswith("elapsed_time:             ")
    assert "\n\t\t\tread\t\t\twrite\npages per rpc         rpcs   % cum % |       rpcs   % cum %\n" in out
    assert re.search(r"^4:\t\t {0,9}\d+ 100 100   \| {10}0   0   0$", out, re.M), out


def test_the_device_names_agree_with_lfs_check() -> None:
    session = on("node01", "storage", 0)
    tags = set(re.findall(r"-osc-(ffff[0-9a-f]{12})", run(session, "lfs check osts")))
    assert tags == set(re.findall(r"-osc-(ffff[0-9a-f]{12})", run(session, "lctl get_param osc.*.max_rpcs_in_flight")))


def test_server_parameters_are_refused_on_a_client() -> None:
    out, status = on(None, "storage", 1).execute("lctl get_param obdfilter.*.job_stats")
    assert status == 2
    assert out == "error: get_param: param_path 'obdfilter/*/job_stats': No such file or directory\n"


def test_other_subcommands_and_options_say_so() -> None:
    session = on(None, "storage", 1)
    out, status = session.execute("lctl set_param osc.*.max_rpcs_in_flight=16")
    assert status == 1 and "get_param" in out
    out, status = session.execute("lctl get_param -x osc.*.stats")
    assert status == 22 and "invalid option" in out
    out, status = session.execute("lctl get_param -R osc")
    assert status == 1 and "-R" in out and "not available here" in out


def test_names_only_and_their_classification() -> None:
    session = on("node01", "storage", 1)
    names = run(session, "lctl get_param -N osc.*OST000[01]*.stats llite.*.stats").splitlines()
    assert [re.sub(r"ffff[0-9a-f]{12}", "TAG", n) for n in names] == [
        "osc.lustre-OST0000-osc-TAG.stats", "osc.lustre-OST0001-osc-TAG.stats", "llite.lustre-TAG.stats"]
    assert run(session, "lctl get_param -NF jobid_var") == "jobid_var=\n"


def _job_ids(session: Session) -> set[str]:
    return set(re.findall(r'^- job_id:          "(\d+)"$', run(session, "cat ~/storage-team/job_stats.txt"), re.M))


@pytest.mark.parametrize("seed", range(4))
def test_the_servers_job_statistics_name_the_tenant_only_when_it_loads_them(seed: int) -> None:
    session = on(None, "storage", seed)
    squeue = run(session, "squeue -h -o '%i %u'")
    ids = _job_ids(session)
    alice = {line.split()[0] for line in squeue.splitlines() if line.endswith(" alice")}
    if _cause(seed) == "storage-contention":
        tenant = ids - alice
        assert len(tenant) == 1 and tenant.pop() in squeue
    else:
        assert ids <= alice


def test_the_healthy_twin_report_holds_only_the_training_job() -> None:
    session = Session("storage", 1, faults=False)
    assert len(_job_ids(session)) == 1


def _mean(stats: str, counter: str) -> float:
    m = re.search(rf"^{counter}\s+(\d+) samples \[usec\] \d+ \d+ (\d+) \d+$", stats, re.M)
    assert m, stats
    return int(m.group(2)) / int(m.group(1))


def test_the_mount_reads_wait_on_saturated_servers_only() -> None:
    loaded = run(on("node03", "storage", 1), "lctl get_param -n llite.*.stats")
    healthy_session = Session("storage", 1, faults=False)
    run(healthy_session, "ssh node03")
    healthy = run(healthy_session, "lctl get_param -n llite.*.stats")
    assert _mean(loaded, "read") > 20 * _mean(healthy, "read")
    assert _mean(healthy, "read") < 2_000
