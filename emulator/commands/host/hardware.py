"""Hardware inventory of an Ubuntu 22.04 node: ``lspci``, ``numactl`` and ``lscpu``.

Devices, buses, NUMA placement and PCIe link state come from the node's GPUs,
NICs, PCIe switches and disks in the cluster model, so a GPU whose link
trained at Gen4 reads ``Speed 16GT/s (downgraded)`` here while
``nvidia-smi`` reports the same generation.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from emulator.cluster.model import Node
from emulator.cluster.pci import GEN_GTS, PCI_IDS, PciDev, pci_devices
from emulator.cluster.processes import memory
from emulator.commands.host import pcitree
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error

SECTION = "Host"


# -- lspci ---------------------------------------------------------------------------------


class Lspci(ParsedCommand):
    name = "lspci"
    reads_only = True
    summary = "list all PCI devices"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-s", metavar="[[[[<domain>]:]<bus>]:][<slot>][.[<func>]]",
                            help="show only devices in selected slots")
        parser.add_argument("-d", metavar="[<vendor>]:[<device>]", help="show only devices with specified ID's")
        parser.add_argument("-v", action="count", default=0, help="be verbose (-vv for very verbose)")
        parser.add_argument("-n", action="count", default=0, help="show numeric ID's (-nn for both)")
        parser.add_argument("-k", action="store_true", help="show kernel drivers handling each device")
        parser.add_argument("-D", action="store_true", help="always show domain numbers")
        parser.add_argument("-t", action="store_true", help="show bus tree")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\nUsage: lspci [<switches>]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        devs = pci_devices(ctx.host)
        if args.t:
            ctx.out(pcitree.render(devs, self._tree_label(args.n) if args.v else None))
            return 0
        if args.s:
            want = args.s.lower()
            if not all(c in "0123456789abcdef:." for c in want) or want.count(":") > 2:
                raise ctx.fail("lspci: -s: Invalid slot number", 1)
            devs = [d for d in devs if self._slot_match(d.bus, want)]
        if args.d:
            vendor, _, device = args.d.lower().partition(":")
            devs = [d for d in devs if (not vendor or PCI_IDS[d.kind][3] == vendor)
                    and (not device or PCI_IDS[d.kind][5] == device)]
        for i, d in enumerate(devs):
            if args.v and i:
                ctx.outln()
            cls, code, vname, vid, dname, did, rev = PCI_IDS[d.kind]
            bus = f"0000:{d.bus}" if args.D else d.bus
            revtxt = " (rev ff) (prog-if ff)" if d.lost else f" (rev {rev})" if rev else ""
            if args.n >= 2:
                line = f"{bus} {cls} [{code}]: {vname} {dname} [{vid}:{did}]{revtxt}"
            elif args.n == 1:
                line = f"{bus} {code}: {vid}:{did}{revtxt}"
            else:
                shown = dname if dname != "Device" else f"Device {did}"
                line = f"{bus} {cls}: {vname} {shown}{revtxt}"
            ctx.outln(line)
            if args.v:
                self._verbose(ctx, d, args.v)
            elif args.k and d.driver:
                ctx.outln(f"\tKernel driver in use: {d.driver}")
        if args.v and devs:
            ctx.outln()
        return 0

    @staticmethod
    def _tree_label(numeric: int) -> Callable[[PciDev], str]:
        """``-tv``: vendor and device names (``-tvn``: their IDs) after each endpoint."""
        def label(dev: PciDev) -> str:
            _, _, vname, vid, dname, did, _ = PCI_IDS[dev.kind]
            if numeric == 1:
                return f"{vid}:{did}"
            shown = dname if dname != "Device" else f"Device {did}"
            return f"{vname} {shown} [{vid}:{did}]" if numeric >= 2 else f"{vname} {shown}"
        return label

    @staticmethod
    def _slot_match(bus: str, want: str) -> bool:
        """lspci -s: ``[[[[<domain>]:]<bus>]:][<slot>][.[<func>]]``."""
        b, _, devfn = bus.partition(":")
        d, _, f = devfn.partition(".")
        wb, rest = ("", want)
        if ":" in want:
            wb, _, rest = want.rpartition(":")
            wb = wb.split(":")[-1]
        wd, _, wf = rest.partition(".")
        try:
            return ((not wb or int(wb, 16) == int(b, 16)) and (not wd or int(wd, 16) == int(d, 16))
                    and (not wf or int(wf, 16) == int(f, 16)))
        except ValueError:
            return False

    def _verbose(self, ctx: Context, d: PciDev, level: int) -> None:
        o = ctx.outln
        if d.lost:
            o("\t!!! Unknown header type 7f")
            o(f"\tKernel driver in use: {d.driver}")
            o("\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia")
            return
        sub = {"gpu": "NVIDIA Corporation Device 16c1", "ib": "Mellanox Technologies Device 0044",
               "eth": "Mellanox Technologies Device 0014", "nvme": "Samsung Electronics Co Ltd Device a812"}
        if d.kind in sub:
            o(f"\tSubsystem: {sub[d.kind]}")
        if d.kind == "switch":
            o("\tPhysical Slot: 0")
        o("\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+")
        o("\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-")
        o("\tLatency: 0")
        if d.secondary >= 0:
            o(f"\tBus: primary={d.bus[:2]}, secondary={d.secondary:02x}, subordinate={d.subordinate:02x}, "
              "sec-latency=0")
        o(f"\tNUMA node: {d.numa}")
        if level >= 2 and d.kind in ("gpu", "ib", "eth", "nvme", "switch", "e810", "rootport"):
            port = "Endpoint"
            if d.kind == "rootport":
                port = "Root Port (Slot+)"
            elif d.kind == "switch":
                upstream = {sw.bus[5:].lower() for sw in ctx.host.hw.pcie_switches}
                port = "Upstream Port" if d.bus in upstream else "Downstream Port"
            o(f"\tCapabilities: [60] Express (v2) {port}, MSI 00")
            o("\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us")
            o("\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-")
            o("\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-")
            o("\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes")
            o(f"\t\tLnkCap:\tPort #0, Speed {GEN_GTS[d.gen_max]}, Width x{d.width_max}, ASPM not supported")
            o("\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+")
            o("\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+")
            o("\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-")
            speed = GEN_GTS[d.gen] + (" (downgraded)" if d.gen < d.gen_max else "")
            width = f"x{d.width}" + (" (downgraded)" if d.width < d.width_max else "")
            o(f"\t\tLnkSta:\tSpeed {speed}, Width {width}")
            o("\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-")
        if d.driver:
            o(f"\tKernel driver in use: {d.driver}")
        modules = {"nvidia": "nvidiafb, nouveau, nvidia_drm, nvidia", "mlx5_core": "mlx5_core",
                   "nvme": "nvme", "pcieport": "", "ice": "ice", "ast": "ast"}.get(d.driver, "")
        if modules:
            o(f"\tKernel modules: {modules}")


# -- CPUs, NUMA, memory -----------------------------------------------------------------------------


def _cpu_list(node: Node, numa: int) -> list[int]:
    cpu = node.cpu
    cores = cpu.sockets * cpu.cores_per_socket
    lo = numa * cpu.cores_per_socket
    ids = list(range(lo, lo + cpu.cores_per_socket))
    if cpu.threads_per_core > 1:
        ids += [i + cores for i in ids]
    return ids


class Numactl(ParsedCommand):
    name = "numactl"
    summary = "show the NUMA hardware (-H), or run a command under a NUMA policy"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-H", "--hardware", action="store_true", help="show inventory of available nodes")
        parser.add_argument("-s", "--show", action="store_true", help="show NUMA policy settings of this process")
        parser.add_argument("-N", "--cpunodebind", metavar="NODES", help="run on the CPUs of these nodes")
        parser.add_argument("-m", "--membind", metavar="NODES", help="allocate memory only from these nodes")
        parser.add_argument("-C", "--physcpubind", metavar="CPUS", help="run on these CPUs")
        parser.add_argument("-i", "--interleave", metavar="NODES", help="interleave memory over these nodes")
        parser.add_argument("-p", "--preferred", metavar="NODE", help="prefer memory from this node")
        parser.add_argument("-l", "--localalloc", action="store_true", help="allocate on the local node")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="command to run with the policy")

    def usage_error(self, message: str) -> str:
        return "usage: numactl [--all | -a] [--interleave= | -i <nodes>] [--preferred= | -p <node>]\n" \
               "               [--physcpubind= | -C <cpus>] [--cpunodebind= | -N <nodes>]\n" \
               "               [--membind= | -m <nodes>] [--localalloc | -l] command args ...\n" \
               "       numactl [--show | -s]\n       numactl [--hardware | -H]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        node = ctx.host
        if args.show:
            cpus = " ".join(str(c) for c in range(node.cpu.count))
            ctx.out("policy: default\npreferred node: current\n"
                    f"physcpubind: {cpus} \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \n")
            return 0
        if args.command:
            return self._run(ctx, args)
        if not args.hardware:
            raise ctx.fail(self.usage_error(""), 1)
        mem = memory(ctx.cluster, node)
        numa = node.numa_nodes
        ctx.outln(f"available: {numa} nodes (0-{numa - 1})")
        for n in range(numa):
            size_mb = node.memory_kib // numa // 1024 - (1_300 if n == 0 else 0)
            free_mb = mem.free // numa // 1024 + (2_917 if n else -3_112)
            ctx.outln(f"node {n} cpus: " + " ".join(str(c) for c in _cpu_list(node, n)))
            ctx.outln(f"node {n} size: {size_mb} MB")
            ctx.outln(f"node {n} free: {max(0, free_mb)} MB")
        ctx.outln("node distances:")
        ctx.outln("node " + "".join(f"{n:>3} " for n in range(numa)))
        for a in range(numa):
            ctx.outln(f"{a:>3}: " + "".join(f"{10 if a == b else 21:>3} " for b in range(numa)))
        return 0

    def _run(self, ctx: Context, args: argparse.Namespace) -> int:
        """Run the command under the policy: the node lists must name existing nodes."""
        numa = ctx.host.numa_nodes
        for value in (args.cpunodebind, args.membind, args.interleave, args.preferred):
            if value is None or value == "all":
                continue
            nodes: set[int] = set()
            for part in value.split(","):
                lo, _, hi = part.partition("-")
                if not lo.isdecimal() or (hi and not hi.isdecimal()):
                    raise ctx.fail(f"numactl: Invalid nodes argument: {value}", 1)
                nodes.update(range(int(lo), int(hi or lo) + 1))
            if max(nodes) >= numa:
                raise ctx.fail(f"numactl: Invalid nodes argument: {value}", 1)
        command = [w for w in args.command if w != "--"]
        if not command:
            raise ctx.fail(self.usage_error(""), 1)
        result = ctx.run(command)
        if result.status == 127 and "command not found" in result.stderr:
            raise ctx.fail(f"numactl: execution of `{command[0]}': No such file or directory", 1)
        ctx.out(result.stdout)
        if result.stderr:
            ctx.err(result.stderr)
        return result.status


def _round1(value: float) -> str:
    """One decimal, halves rounded up (5.25 -> 5.3) as util-linux prints sizes."""
    return f"{math.floor(value * 10 + 0.5) / 10:.1f}"


class Lscpu(ParsedCommand):
    name = "lscpu"
    reads_only = True
    summary = "display information about the CPU architecture"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        node = ctx.host
        cpu = node.cpu
        platinum = "8480" in cpu.model
        cores = cpu.sockets * cpu.cores_per_socket
        rows: list[tuple[int, str, str]] = [
            (0, "Architecture", "x86_64"), (1, "CPU op-mode(s)", "32-bit, 64-bit"),
            (1, "Address sizes", "46 bits physical, 57 bits virtual"), (1, "Byte Order", "Little Endian"),
            (0, "CPU(s)", str(cpu.count)), (1, "On-line CPU(s) list", f"0-{cpu.count - 1}"),
            (0, "Vendor ID", "GenuineIntel"), (1, "Model name", cpu.model), (2, "CPU family", "6"),
            (2, "Model", "143"), (2, "Thread(s) per core", str(cpu.threads_per_core)),
            (2, "Core(s) per socket", str(cpu.cores_per_socket)), (2, "Socket(s)", str(cpu.sockets)),
            (2, "Stepping", "8"), (2, "CPU max MHz", f"{cpu.mhz_max:.4f}"), (2, "CPU min MHz", "800.0000"),
            (2, "BogoMIPS", "4000.00" if platinum else "4200.00"),
            (2, "Flags", "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx "
                         "fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs "
                         "bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 "
                         "monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic "
                         "movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch "
                         "cpuid_fault epb cat_l3 cat_l2 cdp_l3 invpcid_single intel_ppin cdp_l2 ssbd mba ibrs ibpb "
                         "stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 "
                         "hle avx2 smep bmi2 erms invpcid rtm cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma "
                         "clflushopt clwb intel_pt avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves "
                         "cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 "
                         "wbnoinvd dtherm ida arat pln pts hwp hwp_act_window hwp_epp hwp_pkg_req avx512vbmi umip "
                         "pku ospke waitpkg avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme "
                         "avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear "
                         "serialize tsxldtrk pconfig arch_lbr amx_bf16 avx512_fp16 amx_tile amx_int8 flush_l1d "
                         "arch_capabilities"),
            (0, "Virtualization features", ""), (1, "Virtualization", "VT-x"),
            (0, "Caches (sum of all)", ""),
            (1, "L1d", f"{_round1(cores * 48 / 1024)} MiB ({cores} instances)"),
            (1, "L1i", f"{_round1(cores * 32 / 1024)} MiB ({cores} instances)"),
            (1, "L2", f"{cores * 2} MiB ({cores} instances)"),
            (1, "L3", f"{105 * cpu.sockets if platinum else 60 * cpu.sockets} MiB ({cpu.sockets} instances)"),
            (0, "NUMA", ""), (1, "NUMA node(s)", str(node.numa_nodes)),
        ]
        rows += [(1, f"NUMA node{n} CPU(s)", cpu.cpus_of_numa(n)) for n in range(node.numa_nodes)]
        rows += [(0, "Vulnerabilities", "")]
        rows += [(1, name, value) for name, value in (
            ("Itlb multihit", "Not affected"), ("L1tf", "Not affected"), ("Mds", "Not affected"),
            ("Meltdown", "Not affected"), ("Mmio stale data", "Not affected"), ("Retbleed", "Not affected"),
            ("Spec store bypass", "Mitigation; Speculative Store Bypass disabled via prctl and seccomp"),
            ("Spectre v1", "Mitigation; usercopy/swapgs barriers and __user pointer sanitization"),
            ("Spectre v2", "Mitigation; Enhanced IBRS, IBPB conditional, RSB filling, PBRSB-eIBRS SW sequence"),
            ("Srbds", "Not affected"), ("Tsx async abort", "Not affected"))]
        width = max(2 * level + len(key) + 1 for level, key, _ in rows) + 1
        for level, key, value in rows:
            ctx.outln(f"{'  ' * level}{key}:".ljust(width) + value)
        return 0


def commands() -> list[Command]:
    return [Lspci(), Numactl(), Lscpu()]
