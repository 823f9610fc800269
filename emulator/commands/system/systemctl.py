"""``systemctl`` (systemd 249): status, is-active/is-failed/is-enabled, is-system-running, list-units.

Units come from ``node.hw.services``; changing one needs root, which the
learner does not have.
"""

from __future__ import annotations

from emulator.cluster.boots import boot_offset
from emulator.cluster.hardware import Service
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.cluster.services import EXEC
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.commands.system.journal import find_unit, journal_entries, relative
from emulator.commands.system.options import gnu_getopt


class Systemctl(RawCommand):
    name = "systemctl"
    summary = "Query the systemd system and service manager"
    section = "System"
    notes = "Sub-commands: status, is-active, is-failed, is-enabled, list-units [--failed]. Changing units needs root."

    flags = (
        Flag("-h", "--help", "", "show this help"),
        Flag("", "--failed", "", "list only failed units"),
        Flag("", "--no-pager", "", "do not pipe output into a pager"),
        Flag("-l", "--full", "", "do not ellipsize unit names"),
        Flag("-n", "--lines", "N", "journal lines to show with status (default 10)"),
        Flag("", "--state", "STATE", "list only units in this state (failed)"),
        Flag("-t", "--type", "TYPE", "list only units of this type"),
        Flag("", "--all", "", "show all units"),
        Flag("", "--quiet", "", "suppress output"),
    )
    words = ("status", "is-active", "is-failed", "is-enabled", "is-system-running", "list-units", "start", "stop",
             "restart", "reload", "enable", "disable")
    synopsis = "[OPTIONS...] COMMAND [UNIT...]"

    def execute(self, ctx: Context) -> Outcome:
        opts, rest = gnu_getopt(ctx, ctx.argv[1:], self.flags)
        flags = {k for k, _ in opts}
        if flags & {"-h", "--help"}:
            ctx.out(self.help_text())
            return 0
        lines = 10
        for key, value in opts:
            if key in ("-n", "--lines"):
                if not value.isdecimal():
                    raise ctx.fail(f"Failed to parse lines '{value}'\n", 1)
                lines = int(value)
        verb = rest[0] if rest else "list-units"
        units = rest[1:]
        node = ctx.host
        if verb == "list-units":
            return self._list_units(ctx, node, "--failed" in flags or ("--state", "failed") in opts)
        if verb == "status":
            if not units:
                return self._system_status(ctx, node)
            return self._status(ctx, node, units, lines)
        if verb == "is-system-running":
            failed = any(s.sub_state == "failed" for s in node.hw.services.values())
            ctx.outln("degraded" if failed else "running")
            return 1 if failed else 0
        if verb in ("is-active", "is-failed", "is-enabled"):
            if not units:
                raise ctx.fail("Too few arguments.\n", 1)
            return self._is(ctx, node, verb, units)
        if verb in ("start", "stop", "restart", "reload", "enable", "disable"):
            unit = (units or [""])[0]
            unit = unit if unit.endswith(".service") else f"{unit}.service"
            raise ctx.fail(f"Failed to {verb} {unit}: Interactive authentication required.\n"
                           f"See system logs and 'systemctl status {unit}' for details.\n", 1)
        raise ctx.fail(f"Unknown command verb {verb}.\n", 1)

    def _system_status(self, ctx: Context, node: Node) -> int:
        """``systemctl status`` with no unit: the host's overall state."""
        failed = sum(1 for s in node.hw.services.values() if s.sub_state == "failed")
        boot = boot_offset(node)
        since = ctx.clock.at(boot)
        active = sorted((s for s in node.hw.services.values() if s.active), key=lambda s: s.name)
        units = "".join(f"             {'└' if i == len(active) - 1 else '├'}─{s.name}.service\n"
                        for i, s in enumerate(active))
        ctx.out(f"● {node.name}\n"
                f"    State: {'degraded' if failed else 'running'}\n"
                f"     Jobs: 0 queued\n"
                f"   Failed: {failed} units\n"
                f"    Since: {since:%a %Y-%m-%d %H:%M:%S} UTC; {relative(ctx.clock.elapsed - boot)}\n"
                f"   CGroup: /\n"
                f"           ├─user.slice\n"
                f"           ├─init.scope\n"
                f"           │ └─1 /sbin/init\n"
                f"           └─system.slice\n" + units)
        return 0

    def _status(self, ctx: Context, node: Node, units: list[str], lines: int) -> int:
        status = 0
        blocks: list[str] = []
        for name in units:
            unit = name[:-len(".service")] if name.endswith(".service") else name
            service = find_unit(node, unit)
            if service is None:
                ctx.err(f"Unit {unit}.service could not be found.\n")
                status = 4
                continue
            blocks.append(self._status_block(ctx, node, unit, service, lines))
            if not service.active and status == 0:
                status = 3
        ctx.out("\n".join(blocks))
        return status

    def _status_block(self, ctx: Context, node: Node, unit: str, service: Service, lines: int) -> str:
        binary, cmdline, path, kind = EXEC.get(service.name, (service.name, f"/usr/sbin/{service.name}",
                                                              f"/lib/systemd/system/{service.name}.service", "simple"))
        since = ctx.clock.at(service.since_s)
        stamp = f"{since:%a %Y-%m-%d %H:%M:%S} UTC; {relative(ctx.clock.elapsed - service.since_s)}"
        r = rng(ctx.cluster.seed, node.name, "unit", service.name)
        sym = "●" if service.active else ("×" if service.sub_state == "failed" else "○")
        out = [f"{sym} {service.name}.service - {service.description}",
               f"     Loaded: loaded ({path}; enabled; vendor preset: enabled)"]
        if service.active:
            out.append(f"     Active: active ({service.sub_state}) since {stamp}")
            if kind == "forking":
                out.append(f"    Process: {service.main_pid - 2} ExecStart={cmdline.split()[0]} "
                           f"{' '.join(cmdline.split()[1:])} (code=exited, status=0/SUCCESS)")
            out.append(f"   Main PID: {service.main_pid} ({binary[:15]})")
            out.append(f"      Tasks: {r.randint(3, 24)} (limit: 629145)")
            out.append(f"     Memory: {r.uniform(4.0, 48.0):.1f}M")
            cpu_s = r.uniform(20.0, 900.0)
            out.append(f"        CPU: {int(cpu_s // 60)}min {cpu_s % 60:.3f}s")
            out.append(f"     CGroup: /system.slice/{service.name}.service")
            out.append(f"             └─{service.main_pid} {cmdline}")
        else:
            state = "failed" if service.sub_state == "failed" else "inactive"
            result = f" (Result: {service.result})" if state == "failed" else ""
            out.append(f"     Active: {state}{result} since {stamp}")
            code = f"status={service.exit_status}/FAILURE" if service.exit_status else "status=0/SUCCESS"
            out.append(f"    Process: {service.main_pid} ExecStart={cmdline} (code=exited, {code})")
            out.append(f"        CPU: {r.randint(8, 40)}ms")
        entries = journal_entries(ctx, node, unit, service)[-lines:] if lines else []
        if entries:
            out.append("")
            out += [line for _, line in entries]
        return "\n".join(out) + "\n"

    def _is(self, ctx: Context, node: Node, verb: str, units: list[str]) -> int:
        status = 0
        for name in units:
            service = find_unit(node, name)
            if verb == "is-enabled":
                if service is None:
                    unit = name if name.endswith(".service") else f"{name}.service"
                    ctx.err(f"Failed to get unit file state for {unit}: No such file or directory\n")
                    status = 1
                else:
                    ctx.outln("enabled")
                continue
            state = "inactive" if service is None else ("active" if service.active else service.sub_state)
            state = state if state in ("active", "failed") else "inactive"
            ctx.outln(state)
            good = state == "active" if verb == "is-active" else state == "failed"
            if not good:
                status = 3 if verb == "is-active" else 1
        return status

    def _list_units(self, ctx: Context, node: Node, failed_only: bool) -> int:
        rows: list[tuple[str, str, str, str, str, bool]] = []
        for service in sorted(node.hw.services.values(), key=lambda s: s.name):
            if failed_only and service.sub_state != "failed":
                continue
            active = "active" if service.active else ("failed" if service.sub_state == "failed" else "inactive")
            rows.append((f"{service.name}.service", "loaded", active, service.sub_state, service.description,
                         service.sub_state == "failed"))
        if not rows:
            ctx.out("  UNIT LOAD ACTIVE SUB DESCRIPTION\n0 loaded units listed.\n")
            return 0
        w = [max(len(h), *(len(str(r[i])) for r in rows)) for i, h in enumerate(("UNIT", "LOAD", "ACTIVE", "SUB"))]
        ctx.outln(f"  {'UNIT':<{w[0]}} {'LOAD':<{w[1]}} {'ACTIVE':<{w[2]}} {'SUB':<{w[3]}} DESCRIPTION")
        for unit, load, active, sub, desc, bad in rows:
            ctx.outln(f"{'●' if bad else ' '} {unit:<{w[0]}} {load:<{w[1]}} {active:<{w[2]}} {sub:<{w[3]}} {desc}")
        ctx.out("\nLOAD   = Reflects whether the unit definition was properly loaded.\n"
                "ACTIVE = The high-level unit activation state, i.e. generalization of SUB.\n"
                "SUB    = The low-level unit activation state, values depend on unit type.\n"
                f"{len(rows)} loaded units listed.\n")
        return 0
