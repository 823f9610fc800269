"""Built-ins and identity commands, as a learner types them."""

import re

import pytest

from emulator.commands import basics
from emulator.commands import help as help_family
from emulator.commands.kit.command import Command, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.session import Session
from emulator.shell import builtins, table


@pytest.fixture
def s():
    return Session()


def test_help_lists_every_command_once_with_the_lab_line(s):
    out, status = s.execute("help")
    assert status == 0
    for command in table.commands().commands():
        assert f"  {command.name} " in out
    assert out.rstrip().endswith("'solutions' for reference procedures;\n"
                                 "'oncall start' starts an on-call shift of several incidents at once.")


def test_man_and_help_flag_come_from_the_same_spec(s):
    man, _ = s.execute("man hostname")
    flag, _ = s.execute("hostname --help")
    assert "NAME\n       hostname - show the name of the current host" in man
    assert "--fqdn" in man and "--fqdn" in flag
    assert s.execute("man nosuch") == ("No manual entry for nosuch\n", 16)


def test_identity(s):
    assert s.execute("whoami; hostname -f; uname -r -m") == (
        "alice\nlogin01.cluster.internal\n5.15.0-122-generic x86_64\n", 0)
    assert s.execute("uname -a")[0] == ("Linux login01 5.15.0-122-generic #132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024 "
                                        "x86_64 x86_64 x86_64 GNU/Linux\n")


def test_date_uses_the_simulated_clock(s):
    assert s.execute("date") == ("Wed Mar 11 09:00:02 UTC 2026\n", 0)
    assert s.execute("date -u +%F_%T") == ("2026-03-11_09:00:04\n", 0)
    assert s.execute("date -d '1 hour ago' +%H:%M") == ("08:00\n", 0)
    assert s.execute("date -d tomorrowish") == ("date: invalid date ‘tomorrowish’\n", 1)


def test_uptime_on_a_busy_compute_node(s):
    s.execute("ssh node01")
    out, _ = s.execute("uptime")
    assert out.startswith(" 09:00:0") and " up 12 days," in out and " 1 user,  load average: " in out


def test_cd_errors_read_like_bash(s):
    assert s.execute("cd /nope") == ("bash: cd: /nope: No such file or directory\n", 1)
    assert s.execute("cd /etc/hostname") == ("bash: cd: /etc/hostname: Not a directory\n", 1)
    assert s.execute("cd /tmp; cd -; pwd") == ("/home/alice\n/home/alice\n", 0)


def test_printf_reuses_the_format_and_reports_bad_numbers(s):
    assert s.execute("printf '%-4s|%3d\\n' a 1 b 22") == ("a   |  1\nb   | 22\n", 0)
    assert s.execute("printf '%d\\n' x") == ("bash: printf: x: invalid number\n0\n", 1)


def test_export_env_unset(s):
    assert s.execute("export A=1 2B=x") == ("bash: export: `2B=x': not a valid identifier\n", 1)
    assert s.execute("env | grep '^A='; unset A; env | grep -c '^A='") == ("A=1\n0\n", 1)


def test_history_numbers_lines(s):
    s.execute("echo one")
    assert s.execute("history") == ("    1  echo one\n    2  history\n", 0)


def test_which_and_type(s):
    assert s.execute("which nvidia-smi ibstat cd") == ("/usr/bin/nvidia-smi\n/usr/sbin/ibstat\n", 1)
    assert s.execute("type cd for ls nope") == (
        "cd is a shell builtin\nfor is a shell keyword\nls is /usr/bin/ls\nbash: type: nope: not found\n", 1)


def test_every_infiniband_diag_lives_in_sbin(s):
    tools = "ibstat ibstatus ibhosts ibswitches ibnetdiscover iblinkinfo ibqueryerrors perfquery"
    out, status = s.execute(f"which {tools}")
    assert status == 0 and out.split() == [f"/usr/sbin/{tool}" for tool in tools.split()]


def test_ssh_switches_host_and_exit_returns(s):
    out, status = s.execute("ssh node03")
    assert status == 0 and out.startswith("Last login: ")
    assert s.execute("hostname") == ("node03\n", 0)
    assert s.execute("exit") == ("logout\nConnection to node03 closed.\n", 0)
    assert s.execute("exit") == ("logout\n", 0)
    assert s.prompt == "alice@login01:~$ "


def test_ssh_runs_one_line_remotely(s):
    assert s.execute("ssh node02 'hostname; pwd' | tr a-z A-Z") == ("NODE02\n/HOME/ALICE\n", 0)
    assert s.prompt == "alice@login01:~$ "


def test_ssh_errors(s):
    assert s.execute("ssh foo") == ("ssh: Could not resolve hostname foo: Name or service not known\n", 255)
    s.cluster.nodes["node07"].health.os_up = False
    assert s.execute("ssh node07 uptime") == ("ssh: connect to host node07 port 22: No route to host\n", 255)


def test_clear_emits_the_ansi_sequence(s):
    assert s.execute("clear") == ("\x1b[H\x1b[2J", 0)


def test_sleep_validates_its_operand(s):
    assert s.execute("sleep") == ("sleep: missing operand\nTry 'sleep --help' for more information.\n", 1)
    assert s.execute("sleep 1x") == ("sleep: invalid time interval ‘1x’\nTry 'sleep --help' for more information.\n", 1)


def test_watch_prints_the_header_each_refresh(s):
    out, status = s.execute("watch -n 5 --count 2 hostname")
    screens = out.split("\x1b[H\x1b[2J")[1:]
    assert status == 0 and len(screens) == 2
    assert screens[0].startswith("Every 5.0s: hostname")
    assert screens[0].rstrip().endswith("login01")
    assert "login01: Wed Mar 11 09:00:02 2026" in screens[0]
    assert "login01: Wed Mar 11 09:00:07 2026" in screens[1]


def test_true_false_nproc(s):
    assert s.execute("true && false || nproc") == ("128\n", 0)


def test_aliases_from_bashrc_and_user_defined(s):
    assert s.execute("type ll") == ("ll is aliased to `ls -alF'\n", 0)
    s.execute("alias hi='echo hello'")
    assert s.execute("hi there") == ("hello there\n", 0)


def test_sudo_runs_the_command(s):
    assert s.execute("sudo -E hostname") == ("login01\n", 0)
    assert s.execute("sudo nosuch") == ("sudo: nosuch: command not found\n", 1)


def test_timeout_stops_a_streaming_command_with_124(s):
    out, status = s.execute("timeout 5 watch -n 2 hostname")
    assert status == 124 and out.count("Every 2.0s") == 3


def test_time_reports_simulated_duration(s):
    assert s.execute("time sleep 3") == ("\nreal\t0m3.000s\nuser\t0m0.000s\nsys\t0m0.000s\n", 0)


def test_test_and_brackets(s):
    assert s.execute("[ -f /etc/hosts ] && test -d /tmp && [[ -n x ]] && echo yes") == ("yes\n", 0)
    assert s.execute("[ 3 -gt 10 ]; echo $?") == ("1\n", 0)
    assert s.execute("[ 1 -lt x ]") == ("bash: [: x: integer expression expected\n", 2)
    assert s.execute("[ -f /etc/hosts") == ("bash: [: missing `]'\n", 2)


def test_ping_answers_from_an_up_host_and_not_from_a_down_one(s):
    out, status = s.execute("ping -c 3 node03")
    assert status == 0 and out.startswith("PING node03 (10.10.0.13) 56(84) bytes of data.\n")
    assert out.count("64 bytes from node03.cluster.internal (10.10.0.13): icmp_seq=") == 3
    assert "3 packets transmitted, 3 received, 0% packet loss, time 2003ms" in out
    s.cluster.nodes["node07"].health.os_up = False
    out, status = s.execute("ping -c 2 node07")
    assert status == 1 and "From 10.10.0.2 icmp_seq=2 Destination Host Unreachable" in out
    assert "2 packets transmitted, 0 received, +2 errors, 100% packet loss" in out
    assert s.execute("ping -c 1 -q node07-bmc")[1] == 0
    assert s.execute("ping nowhere") == ("ping: nowhere: Name or service not known\n", 2)


def test_env_sets_variables_for_the_command_it_runs(s):
    assert s.execute("env FOO=1 printenv FOO") == ("1\n", 0)


# -- declared flags -----------------------------------------------------------------------
#: A line each raw command must run cleanly, ``{}`` standing for one flag (and its value).
FLAG_LINES = {
    "export": "export {} X=1", "unset": "unset {} X", "history": "history {}", "read": "read {} x <<< hi",
    "ssh": "ssh {} node01 hostname", "set": "set {}", "alias": "alias {}", "unalias": "unalias {}",
    "echo": "echo {} hi", "env": "env {} true", "sudo": "sudo {} true", "timeout": "timeout {} 5 true",
    "sleep": "sleep {}", "test": "test {}", "type": "type {} ls",
}
#: A minimal valid value per kind of flag value; any other value is ignored by its command, so ``x`` does.
FLAG_VALUES = {"option-name": "pipefail", "SIGNAL": "TERM", "DURATION": "1s", "port": "22", "login_name": "alice",
               "user": "root", "FILE": "/etc/hosts", "STRING": "x", "TIMEOUT": "5", "NCHARS": "2", "FD": "0"}
#: Commands whose status is their answer: a flag is accepted when it is not an error (status 2).
ANSWERS = {"test"}
#: What a rejected flag prints.
REJECTIONS = ("invalid option", "unrecognized option", "usage:", "not a valid identifier", "operator expected",
              "numeric argument required", "command not found", "Could not resolve")


def declared(commands: list[Command]) -> list[tuple[str, Flag]]:
    """(command name, flag) for every flag the raw commands among ``commands`` declare."""
    return [(c.name, flag) for c in commands if isinstance(c, RawCommand) for flag in c.flags]


def accepts(name: str, flag: Flag) -> None:
    """Each spelling of ``flag``, typed with a valid value where it takes one, runs without a usage error."""
    for spelling in flag.strings():
        word = f"{spelling} {FLAG_VALUES.get(flag.value, 'x')}" if flag.value else spelling
        line = FLAG_LINES[name].format(word)
        out, status = Session().execute(line)
        assert not any(r in out for r in REJECTIONS), f"{line!r}: {out}"
        assert (status != 2 and not out) if name in ANSWERS else status == 0, f"{line!r}: {status} {out}"


@pytest.mark.parametrize(("name", "flag"), declared(builtins.commands()), ids=lambda v: getattr(v, "short", v))
def test_every_flag_a_shell_builtin_declares_is_accepted(name, flag):
    accepts(name, flag)


@pytest.mark.parametrize(("name", "flag"), declared(basics.commands()), ids=lambda v: getattr(v, "short", v))
def test_every_flag_an_everyday_command_declares_is_accepted(name, flag):
    accepts(name, flag)


@pytest.mark.parametrize(("name", "flag"), declared(help_family.commands()), ids=lambda v: getattr(v, "short", v))
def test_every_flag_a_help_command_declares_is_accepted(name, flag):
    accepts(name, flag)


def test_ssh_usage_lists_exactly_the_declared_flags(s):
    usage, status = s.execute("ssh -h")
    assert status == 255
    letters = re.search(r"\[-(\w+)\]", usage)
    assert letters is not None
    listed = {f"-{letter}" for letter in letters.group(1)} | set(re.findall(r"\[(-\w) ", usage))
    ssh = table.commands().lookup("ssh")
    assert isinstance(ssh, RawCommand)
    assert listed == {flag.short for flag in ssh.flags}
    for flag in ssh.flags:
        assert f"[{flag.short} {flag.value}]" in usage if flag.value else flag.short[1] in letters.group(1)


def test_set_reports_its_usage_from_the_declared_letters(s):
    assert s.execute("set -Q") == ("bash: set: -Q: invalid option\n"
                                   "set: usage: set [-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]\n", 2)
