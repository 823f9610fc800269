"""Static facts about the hardware and software generation the model declares.

One place for names, limits, speeds and versions, so every tool prints the
same ones. Sources for the numbers are in the handbook's references and in
the project's notes on facts (``nvidia-smi`` on H100 SXM: 81559 MiB, 700 W,
1980/2619 MHz max clocks; 18 NVLink4 links at 26.562 GB/s; ConnectX-7 MT4129
NDR 400 Gb/s).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuModel:
    name: str = "NVIDIA H100 80GB HBM3"
    product_brand: str = "NVIDIA"
    architecture: str = "Hopper"
    device_id: str = "0x233010DE"
    dcgm_device_id: str = "2330"
    subsystem_id: str = "0x16C110DE"
    memory_mib: int = 81559
    reserved_mib: int = 551
    bar1_mib: int = 131072
    power_limit_w: float = 700.0
    power_min_w: float = 200.0
    idle_power_w: float = 70.0
    max_sm_mhz: int = 1980
    max_mem_mhz: int = 2619
    idle_sm_mhz: int = 345
    max_video_mhz: int = 1545
    nvlinks: int = 18
    nvlink_gbps: float = 26.562
    nvswitches: int = 4
    vbios: str = "96.00.99.00.01"
    board_part: str = "692-2G520-0200-000"
    inforom_img: str = "G520.0200.00.05"
    #: nvidia-smi -q reports temperature limits as T.Limit margins on Hopper.
    slowdown_tlimit_c: int = -2
    shutdown_tlimit_c: int = -8
    #: Absolute temperature where thermal slowdown begins (what the margin is relative to).
    tlimit_c: int = 87
    bf16_dense_tflops: float = 989.0


@dataclass(frozen=True)
class NicModel:
    ca_type: str = "MT4129"
    description: str = "ConnectX-7"
    firmware: str = "28.39.1002"
    psid: str = "MT_0000000838"
    part: str = "MCX75310AAS-NEAT"
    rate_gbps: int = 400
    speed_name: str = "NDR"
    lanes: int = 4


@dataclass(frozen=True)
class StorageNicModel:
    ca_type: str = "MT4129"
    description: str = "ConnectX-7"
    firmware: str = "28.39.1002"
    rate_gbps: int = 200
    link_layer: str = "Ethernet"


@dataclass(frozen=True)
class Versions:
    """Software versions printed where the real tools print them."""

    os_name: str = "Ubuntu 22.04.5 LTS"
    kernel: str = "5.15.0-122-generic"
    kernel_build: str = "#132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024"
    driver: str = "550.90.07"
    cuda: str = "12.4"
    nccl: str = "2.21.5"
    nccl_cuda: str = "12.4"
    ofed: str = "MLNX_OFED_LINUX-23.10-1.1.9.0"
    slurm: str = "23.11.10"
    dcgm: str = "3.3.9"
    fabricmanager: str = "550.90.07"
    torch: str = "2.4.1+cu124"
    python: str = "3.10.12"
    bmc_firmware: str = "1.12.3"
    nccl_tests: str = "2.13.11"


H100 = GpuModel()
CX7 = NicModel()
CX7_STORAGE = StorageNicModel()
VERSIONS = Versions()

#: DGX/HGX H100 PCI bus numbers of the eight GPUs and their rail NICs (the
#: NIC sits behind the same PCIe switch as its GPU).
GPU_BUSES = (0x1B, 0x43, 0x52, 0x61, 0x9D, 0xC3, 0xD1, 0xDF)
RAIL_NIC_BUSES = (0x18, 0x40, 0x4F, 0x5E, 0x9A, 0xC0, 0xCE, 0xDC)
PCIE_SWITCH_BUSES = (0x15, 0x3D, 0x4C, 0x5B, 0x97, 0xBD, 0xCB, 0xD9)
#: Storage/in-band NICs, one per socket.
STORAGE_NIC_BUSES = (0x29, 0xAA)
#: NVMe drives in drive order (nvme0n1...): the two boot drives, then the /raid data drives.
NVME_BUSES = (0x01, 0x02, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0xE1, 0xE2)
#: The first bus number of socket 1's root complexes: buses below it hang off socket 0 (NUMA node 0).
SOCKET1_FIRST_BUS = 0x80


def numa_of_bus(bus: int) -> int:
    """The NUMA node of a two-socket host a PCI bus number belongs to."""
    return 0 if bus < SOCKET1_FIRST_BUS else 1
