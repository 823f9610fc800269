"""``rdma`` (iproute2's RDMA tool): ``rdma link`` and ``rdma dev`` for the current host's RDMA ports.

Its options are declared in :data:`DISPLAY_FLAGS` and :data:`HELP_FLAGS`; the
parser reads the same tables, so ``--help``, ``man`` and completion cannot
drift from what it accepts. The display options are accepted anywhere on the
line and change nothing: the emulated output is the plain one.
"""

from __future__ import annotations

from emulator.cluster import links
from emulator.commands.fabric.devices import colon_guid, devices, is_up
from emulator.commands.fabric.iproute2 import spellings
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

#: Options that shape the output of the real tool; accepted anywhere on the line.
DISPLAY_FLAGS = (
    Flag("-d", "-details", "", "accepted; the output shows no further details"),
    Flag("-p", "-pretty", "", "accepted; the output is the plain text form"),
)
#: Options that print the usage (so does the word ``help`` in the object's place).
HELP_FLAGS = (Flag("-h", "--help", "", "print the usage and exit"),)
#: iproute2's own usage text, as ``rdma help`` prints it.
USAGE = ("Usage: rdma [ OPTIONS ] OBJECT { COMMAND | help }\n"
         "       rdma [ -f[orce] ] -b[atch] filename\n"
         "where  OBJECT := { dev | link | resource | system | statistic | help }\n"
         "       OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty]}\n")


class Rdma(RawCommand):
    name = "rdma"
    summary = "RDMA tool (iproute2): show RDMA devices and links"
    section = "Fabric"
    description = ("rdma link [show [DEV[/PORT]]] lists each RDMA port's state, physical state and netdev (and LID\n"
                   "on InfiniBand); rdma dev [show [DEV]] lists the devices with firmware and GUIDs.")
    flags = (*DISPLAY_FLAGS, *HELP_FLAGS)
    words = ("dev", "link", "help")
    synopsis = "[-d] [-p] {link | dev} [show [DEV[/PORT]]]"

    def execute(self, ctx: Context) -> Outcome:
        words = [w for w in ctx.argv[1:] if w not in spellings(DISPLAY_FLAGS)]
        if words and (words[0] in spellings(HELP_FLAGS) or words[0] == "help"):
            ctx.out(USAGE)
            return 0
        if not words:
            raise ctx.fail(USAGE.splitlines()[0], 1)
        obj, rest = words[0], words[1:]
        if rest and rest[0] in ("show", "list", "sh", "s"):
            rest = rest[1:]
        want = rest[0] if rest else ""
        if "link".startswith(obj):
            shown = 0
            for nic in devices(ctx):
                if want and want not in (nic.name, f"{nic.name}/1"):
                    continue
                shown += 1
                state = "ACTIVE" if is_up(nic) else nic.state.upper()
                phys = {"LinkUp": "LINK_UP", "Disabled": "DISABLED", "Polling": "POLLING"}.get(nic.phys_state,
                                                                                            nic.phys_state.upper())
                ib = ""
                if nic.link_layer == "InfiniBand":
                    ib = f"subnet_prefix fe80:0000:0000:0000 lid {links.port_lid(nic)} sm_lid {links.port_sm_lid(nic)} lmc 0 "
                ctx.outln(f"link {nic.name}/1 {ib}state {state} physical_state {phys} netdev {nic.netdev}")
            if want and not shown:
                raise ctx.fail("Wrong device name", 1)
            return 0
        if "dev".startswith(obj):
            for i, nic in enumerate(devices(ctx)):
                if want and want != nic.name:
                    continue
                g = colon_guid(nic.node_guid)
                ctx.outln(f"{i}: {nic.name}: node_type ca fw {nic.firmware} node_guid {g} sys_image_guid {g}")
            return 0
        raise ctx.fail(f'Object "{obj}" is unknown, try "rdma help".', 1)


def commands() -> list[Command]:
    return [Rdma()]
