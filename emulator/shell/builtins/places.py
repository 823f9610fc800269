"""Where the shell stands: ``cd`` (the working directory), ``ssh`` (another host, or one line run there) and ``exit``."""

from __future__ import annotations

from emulator.cluster.ids import rng
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.shell.signals import ExitShell

SECTION = "Shell"


class Cd(RawCommand):
    name = "cd"
    builtin = True
    directory = None
    summary = "change the working directory"
    section = SECTION
    synopsis = "[DIR | -]"
    description = "DIR defaults to $HOME; - goes back to the previous directory ($OLDPWD) and prints it."

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


class Ssh(RawCommand):
    name = "ssh"
    streams = True
    summary = "log in to another host, or run one command there (ssh node03 nvidia-smi)"
    section = SECTION
    usage_status = 255
    synopsis = "[OPTION]... destination [command [argument ...]]"
    notes = "Every option is accepted and changes nothing here; -h prints the usage."
    flags = (
        Flag("-4", "", "", "use IPv4 addresses only"),
        Flag("-6", "", "", "use IPv6 addresses only"),
        Flag("-A", "", "", "forward the authentication agent"),
        Flag("-a", "", "", "do not forward the authentication agent"),
        Flag("-B", "", "bind_interface", "bind to this interface's address before connecting"),
        Flag("-b", "", "bind_address", "source address on the local machine"),
        Flag("-C", "", "", "compress all data"),
        Flag("-c", "", "cipher_spec", "ciphers for the session, in order of preference"),
        Flag("-D", "", "[bind_address:]port", "dynamic (SOCKS) port forwarding"),
        Flag("-E", "", "log_file", "append debug logs to log_file"),
        Flag("-e", "", "escape_char", "escape character (default ~)"),
        Flag("-F", "", "configfile", "an alternative per-user configuration file"),
        Flag("-f", "", "", "go to the background just before the command runs"),
        Flag("-G", "", "", "print the configuration after evaluating Host and Match blocks"),
        Flag("-g", "", "", "let remote hosts connect to local forwarded ports"),
        Flag("-I", "", "pkcs11", "PKCS#11 shared library for the user's token"),
        Flag("-i", "", "identity_file", "file to read the private key from"),
        Flag("-J", "", "[user@]host[:port]", "connect through a jump host"),
        Flag("-K", "", "", "enable GSSAPI authentication and credential forwarding"),
        Flag("-k", "", "", "disable GSSAPI credential forwarding"),
        Flag("-L", "", "address", "local port forwarding"),
        Flag("-l", "", "login_name", "user to log in as"),
        Flag("-M", "", "", "master mode for connection sharing"),
        Flag("-m", "", "mac_spec", "MAC algorithms, in order of preference"),
        Flag("-N", "", "", "do not run a remote command"),
        Flag("-n", "", "", "read stdin from /dev/null"),
        Flag("-O", "", "ctl_cmd", "control a connection-sharing master"),
        Flag("-o", "", "option", "an option in the configuration file's format"),
        Flag("-p", "", "port", "port to connect to on the remote host"),
        Flag("-Q", "", "query_option", "list the algorithms of a kind"),
        Flag("-q", "", "", "quiet mode"),
        Flag("-R", "", "address", "remote port forwarding"),
        Flag("-S", "", "ctl_path", "control socket for connection sharing"),
        Flag("-s", "", "", "run a subsystem on the remote host"),
        Flag("-T", "", "", "no pseudo-terminal"),
        Flag("-t", "", "", "force a pseudo-terminal"),
        Flag("-V", "", "", "print the version"),
        Flag("-v", "", "", "verbose mode"),
        Flag("-W", "", "host:port", "forward stdin and stdout to host:port"),
        Flag("-w", "", "local_tun[:remote_tun]", "tunnel device forwarding"),
        Flag("-X", "", "", "enable X11 forwarding"),
        Flag("-x", "", "", "disable X11 forwarding"),
        Flag("-Y", "", "", "enable trusted X11 forwarding"),
        Flag("-y", "", "", "log through syslog"),
    )
    #: The options whose value is the next word, from the table above.
    _WITH_VALUE = frozenset(flag.short for flag in flags if flag.value)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        i = 0
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            flag = words[i]
            if flag in ("-h", "--help"):
                ctx.err(_SSH_USAGE)
                return 255
            i += 2 if flag in self._WITH_VALUE else 1
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
    synopsis = "[N]"
    description = "N is the status to leave with (default: the last command's)."

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


_SSH_USAGE = ("usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface]\n"
              "           [-b bind_address] [-c cipher_spec] [-D [bind_address:]port]\n"
              "           [-E log_file] [-e escape_char] [-F configfile] [-I pkcs11]\n"
              "           [-i identity_file] [-J [user@]host[:port]] [-L address]\n"
              "           [-l login_name] [-m mac_spec] [-O ctl_cmd] [-o option] [-p port]\n"
              "           [-Q query_option] [-R address] [-S ctl_path] [-W host:port]\n"
              "           [-w local_tun[:remote_tun]] destination [command [argument ...]]\n")
