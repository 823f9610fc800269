"""Host files render from the model: they agree with the cluster's state and follow it."""

import pytest

from emulator.cluster.scheduler import compress_hostlist
from emulator.session import Session


@pytest.fixture
def s():
    return Session()


def test_slurm_conf_names_the_model_nodes_and_partitions(s):
    out, _ = s.execute("grep -E '^(NodeName|PartitionName)' /etc/slurm/slurm.conf")
    names = compress_hostlist([n.name for n in s.cluster.compute_nodes])
    assert out.startswith(f"NodeName={names} CPUs=224 ")
    for partition in s.cluster.slurm.partitions:
        assert f"PartitionName={partition.name} Nodes={compress_hostlist(partition.nodes)}" in out


def test_sysfs_follows_the_nic_state(s):
    nic = s.cluster.nodes["node02"].nic("mlx5_3")
    nic.rate_gbps = 200
    nic.counter_rates["SymbolErrorCounter"] = 10.0
    out, _ = s.execute("ssh node02 cat /sys/class/infiniband/mlx5_3/ports/1/rate")
    assert out == "200 Gb/sec (4X HDR)\n"
    first = int(s.execute("ssh node02 cat /sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error")[0])
    later = int(s.execute("ssh node02 cat /sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error")[0])
    assert later - first == 20  # 10 per second over one 2 s command line


def test_kern_log_carries_the_model_kernel_events(s):
    node = s.cluster.nodes["node01"]
    out, _ = s.execute("ssh node01 grep NVRM /var/log/kern.log")
    assert out.count("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07") == 1
    assert out.startswith("Feb 26 ") and " node01 kernel: [" in out
    assert len(node.hw.kernel_log) > 5


def test_proc_files_per_host(s):
    assert s.execute("grep -c ^processor /proc/cpuinfo; ssh node01 grep -c ^processor /proc/cpuinfo") == ("128\n224\n", 0)
    assert s.execute("cat /proc/driver/nvidia/version") == (
        "cat: /proc/driver/nvidia/version: No such file or directory\n", 1)
    load = float(s.execute("ssh node01 \"cut -d' ' -f1 /proc/loadavg\"")[0])
    assert load > 60  # eight ranks and their loader workers


def test_job_files_in_the_shared_job_directory(s):
    assert s.execute("ls /lustre/jobs/llm-pretrain") == ("slurm-48213.out  train.log\n", 0)
    assert "#SBATCH" in s.execute("ssh node03 cat ~/jobs/pretrain.sbatch")[0]


def test_sysfs_pcie_link_follows_a_downgraded_gpu_as_nvidia_smi_does():
    """The seed-1 variant of the gpu-data-path lab trains one GPU's link at Gen4."""
    from emulator.session import Session

    session = Session(lab="gpu-data-path", seed=1)
    truth = session.cluster.truth()
    assert truth["cause"] == "pcie-downgrade"
    bus = truth["bus_id"][4:].lower()
    out, status = session.execute(f"ssh {truth['node']} cat /sys/bus/pci/devices/{bus}/current_link_speed "
                                  f"/sys/bus/pci/devices/{bus}/max_link_speed")
    assert (out, status) == (f"{'16.0' if truth['gen'] == '4' else '8.0'} GT/s PCIe\n32.0 GT/s PCIe\n", 0)
    query, _ = session.execute(f"ssh {truth['node']} nvidia-smi -i {truth['gpu']} "
                               "--query-gpu=pcie.link.gen.current --format=csv,noheader")
    assert query.strip() == truth["gen"]
