"""The shell-state builtins: cd, export, unset, set, alias, unalias, source, read, history, ssh and exit.

They change the interpreter's own state (the working directory, the
environment, the aliases, the current host), so they live beside it rather
than among the tool families."""

from __future__ import annotations

import re
import shlex

from emulator.cluster.ids import rng
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.shell.lexer import ShellSyntaxError
from emulator.shell.signals import ExitShell

SECTION = "Shell"


# -- shell state --------------------------------------------------------------------------
class Cd(RawCommand):
    name = "cd"
    builtin = True
    directory = None
    summary = "change the working directory"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = [w for w in ctx.argv[1:] if w != "--"]
        if len(words) > 1:
            raise ctx.fail("bash: cd: too many arguments", 1)
        target = words[0] if words else ctx.env.get("HOME", "/home/alice")
        shell = ctx.shell
        if target == "-":
            target = ctx.env.get("OLDPWD", "")
            if not target:
                raise ctx.fail("bash: cd: OLDPWD not set", 1)
            ctx.outln(target)
        fs = ctx.fs
        try:
            node_is_dir = fs.isdir(target)
            fs.lookup(target)
        except Exception as exc:  # FsError: missing or under a file
            raise ctx.fail(f"bash: cd: {target}: {getattr(exc, 'strerror', exc)}", 1) from None
        if not node_is_dir:
            raise ctx.fail(f"bash: cd: {target}: Not a directory", 1)
        shell.cwd = fs.abspath(target)
        return 0



class Export(RawCommand):
    name = "export"
    builtin = True
    directory = None
    summary = "set environment variables for later commands (export NAME=value)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = [w for w in ctx.argv[1:] if w not in ("--", "-p")]
        if not words:
            for name in sorted(ctx.shell.env):
                value = ctx.shell.env[name].replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                ctx.outln(f'declare -x {name}="{value}"')
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if not _NAME.match(name):
                ctx.err(f"bash: export: `{word}': not a valid identifier\n")
                status = 1
                continue
            ctx.shell.export(name, value if eq else None)
        return status



class Unset(RawCommand):
    name = "unset"
    builtin = True
    directory = None
    summary = "remove shell variables"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        status = 0
        for name in ctx.argv[1:]:
            if name in ("-v", "-f"):
                continue
            if not _NAME.match(name):
                ctx.err(f"bash: unset: `{name}': not a valid identifier\n")
                status = 1
            else:
                ctx.shell.unset(name)
        return status



class History(RawCommand):
    name = "history"
    builtin = True
    directory = None
    summary = "show the lines entered in this session (history N: the last N; -c clears)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        history = ctx.session.history
        if words[:1] == ["-c"]:
            history.clear()
            return 0
        count = len(history)
        if words:
            if not words[0].isdecimal():
                raise ctx.fail(f"bash: history: {words[0]}: numeric argument required", 1)
            count = int(words[0])
        first = ctx.session.history_base + len(history) - min(count, len(history)) + 1
        for number, line in enumerate(history[len(history) - min(count, len(history)):], start=first):
            ctx.outln(f"{number:5d}  {line}")
        return 0



class Read(RawCommand):
    name = "read"
    builtin = True
    directory = None
    summary = "read a line from standard input into variables (-r, -p PROMPT, -a ARRAY ignored)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        raw = False
        while words and words[0].startswith("-") and len(words[0]) > 1:
            flag = words.pop(0)
            if flag == "-r":
                raw = True
            elif flag in ("-p", "-t", "-d", "-n", "-u") and words:
                value = words.pop(0)
                if flag == "-p":
                    ctx.err(value)
            elif flag == "--":
                break
        for name in words:
            if not _NAME.match(name):
                raise ctx.fail(f"bash: read: `{name}': not a valid identifier", 1)
        line = self._next_line(ctx)
        if line is None:
            for name in words or ["REPLY"]:
                ctx.shell.set_var(name, "")
            return 1
        if not raw:
            line = re.sub(r"\\(.)", r"\1", line)
        names = words or ["REPLY"]
        if not words:
            ctx.shell.set_var("REPLY", line)
            return 0
        fields = line.split(None, len(names) - 1)
        for i, name in enumerate(names):
            ctx.shell.set_var(name, fields[i].strip() if i < len(fields) else "")
        return 0

    @staticmethod
    def _next_line(ctx: Context) -> str | None:
        inputs = ctx.shell.inputs
        if inputs and ctx.stdin is inputs[-1].rest:
            return inputs[-1].read_line()
        if not ctx.stdin:
            return None
        return ctx.stdin.split("\n", 1)[0]



# -- hosts ---------------------------------------------------------------------------------
class Ssh(RawCommand):
    name = "ssh"
    streams = True
    summary = "log in to another host, or run one command there (ssh node03 nvidia-smi)"
    section = SECTION
    usage_status = 255
    _WITH_VALUE = set("bcDEeFIiJLlmOopQRSWw")

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        i = 0
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            flag = words[i]
            if flag in ("-h", "--help"):
                ctx.err(_SSH_USAGE)
                return 255
            i += 2 if flag[-1] in self._WITH_VALUE and len(flag) == 2 else 1
        if i >= len(words):
            ctx.err(_SSH_USAGE)
            return 255
        target = words[i].split("@")[-1]
        remote = words[i + 1:]
        shell = ctx.shell
        node = ctx.cluster.node(target)
        if node is None:
            if ctx.cluster.bmc_host(target):
                raise ctx.fail(f"ssh: connect to host {target} port 22: Connection refused", 255)
            raise ctx.fail(f"ssh: Could not resolve hostname {target}: Name or service not known", 255)
        if not node.health.os_up:
            raise ctx.fail(f"ssh: connect to host {target} port 22: No route to host", 255)
        if not remote:
            r = rng(ctx.cluster.seed, node.name, "last-login")
            last = ctx.clock.at(-r.uniform(3_600.0, 86_400.0))
            src = ctx.host.mgmt_ipv4
            shell.push_host(node)
            ctx.outln(f"Last login: {last.strftime('%a %b %e %H:%M:%S %Y')} from {src}")
            return 0
        line = " ".join(remote)
        return (yield from shell.run_remote(line, node, ctx))



class Exit(RawCommand):
    name = "exit"
    builtin = True
    directory = None
    summary = "leave the current host (back to the previous one after ssh)"
    section = SECTION
    aliases = ("logout",)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        status = ctx.shell.last_status
        if words:
            if not words[0].lstrip("-").isdecimal():
                ctx.err(f"bash: exit: {words[0]}: numeric argument required\n")
                status = 2
            else:
                status = int(words[0]) & 0xFF
        if ctx.shell.subshells or ctx.shell.frames[-1].remote:
            raise ExitShell(status)
        host = ctx.host.name
        ctx.outln("logout")
        if ctx.shell.pop_host():
            ctx.outln(f"Connection to {host} closed.")
        return status



class Source(RawCommand):
    name = "source"
    builtin = True
    directory = None
    summary = "run the commands of a file in this shell (also: . FILE)"
    section = SECTION
    aliases = (".",)

    def execute(self, ctx: Context) -> Outcome:
        if len(ctx.argv) < 2:
            raise ctx.fail(f"bash: {ctx.argv[0]}: filename argument required\n"
                           f"{ctx.argv[0]}: usage: {ctx.argv[0]} filename [arguments]", 2)
        path = ctx.argv[1]
        try:
            text = ctx.fs.read(path)
        except Exception as exc:  # noqa: BLE001 - FsError: missing, a directory
            raise ctx.fail(f"bash: {path}: {getattr(exc, 'strerror', exc)}", 1) from None
        try:
            return (yield from ctx.shell.run_source(text, ctx))
        except ShellSyntaxError as exc:
            raise ctx.fail(f"bash: {path}: {exc.message}", 2) from None



class Set(RawCommand):
    name = "set"
    builtin = True
    directory = None
    summary = "list shell variables; options such as -e, -u, -x, -o pipefail are accepted and ignored"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if not words:
            variables = {**ctx.shell.env, **ctx.shell.vars}
            for name in sorted(variables):
                ctx.outln(f"{name}={shlex.quote(variables[name])}")
            return 0
        i = 0
        while i < len(words):
            word = words[i]
            if word in ("-o", "+o"):
                i += 1
                if i < len(words) and words[i] not in _SET_OPTIONS:
                    raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
            elif word[:1] in "-+" and len(word) > 1 and word != "--":
                for letter in word[1:]:
                    if letter == "o":
                        i += 1
                        if i < len(words) and words[i] not in _SET_OPTIONS:
                            raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
                    elif letter not in "abefhkmnptuvxBCHP":
                        raise ctx.fail(f"bash: set: {word[0]}{letter}: invalid option\n"
                                       "set: usage: set [-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]", 2)
            i += 1
        return 0



class Alias(RawCommand):
    name = "alias"
    builtin = True
    directory = None
    summary = "define or list aliases (alias ll='ls -alF')"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        aliases = ctx.shell.aliases
        words = [w for w in ctx.argv[1:] if w != "-p"]
        if not words:
            for name in sorted(aliases):
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if eq:
                if not name or any(c in name for c in " /$`=\"'"):
                    ctx.err(f"bash: alias: `{name}': invalid alias name\n")
                    status = 1
                else:
                    aliases[name] = value
            elif name in aliases:
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            else:
                ctx.err(f"bash: alias: {name}: not found\n")
                status = 1
        return status



class Unalias(RawCommand):
    name = "unalias"
    builtin = True
    directory = None
    summary = "remove aliases (-a: all)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        aliases = ctx.shell.aliases
        if ctx.argv[1:2] == ["-a"]:
            aliases.clear()
            return 0
        status = 0
        for name in ctx.argv[1:]:
            if aliases.pop(name, None) is None:
                ctx.err(f"bash: unalias: {name}: not found\n")
                status = 1
        return status


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")



_SSH_USAGE = ("usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface]\n"
              "           [-b bind_address] [-c cipher_spec] [-D [bind_address:]port]\n"
              "           [-E log_file] [-e escape_char] [-F configfile] [-I pkcs11]\n"
              "           [-i identity_file] [-J [user@]host[:port]] [-L address]\n"
              "           [-l login_name] [-m mac_spec] [-O ctl_cmd] [-o option] [-p port]\n"
              "           [-Q query_option] [-R address] [-S ctl_path] [-W host:port]\n"
              "           [-w local_tun[:remote_tun]] destination [command [argument ...]]\n")



_SET_OPTIONS = {"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand",
                "history", "ignoreeof", "interactive-comments", "keyword", "monitor", "noclobber", "noexec",
                "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix", "privileged",
                "verbose", "vi", "xtrace"}


def commands() -> list[Command]:
    """The state builtins, for the shell's command table."""
    return [Cd(), Export(), Unset(), History(), Read(), Ssh(), Exit(), Source(), Set(), Alias(), Unalias()]
