"""Tab completion: commands, options, sub-commands, paths, hosts, lab ids, wrapped commands."""

import pytest

from emulator.session import Session


@pytest.fixture
def s():
    return Session()


@pytest.mark.parametrize(("line", "start", "expected"), [
    ("hostn", 0, ["hostname"]),
    ("echo x | gre", 9, ["grep"]),
    ("ls /lus", 3, ["/lustre/"]),
    ("cat ~/.ba", 4, ["~/.bashrc"]),
    ("cd /l", 3, ["/lustre/"]),
    ("lab start fab", 10, ["fabric-triage"]),
    ("sudo hostn", 5, ["hostname"]),
    ("ssh node01 hostn", 11, ["hostname"]),
    ("watch -n 1 hostn", 11, ["hostname"]),
    ("man hostn", 4, ["hostname"]),
])
def test_single_matches(s, line, start, expected):
    result = s.complete(line)
    assert (result.start, result.matches) == (start, expected)
    assert result.common == expected[0] + ("" if expected[0].endswith("/") else " ")


def test_hosts_after_ssh_and_options_after_dash(s):
    result = s.complete("ssh node0")
    assert result.matches[:3] == ["node01", "node02", "node03"] and result.common == "node0"
    assert "--fqdn" in s.complete("hostname --").matches


def test_completion_follows_the_working_directory(s):
    s.execute("cd /lustre/jobs/llm-pretrain")
    assert s.complete("tail tr").matches == ["train.log"]


def test_quoted_paths_and_option_values(s):
    result = s.complete('cat "/etc/ho')
    assert (result.start, result.matches, result.common) == (4, ['"/etc/hostname', '"/etc/hosts'], '"/etc/host')
    result = s.complete("srun --nodelist=node0")
    assert result.start == len("srun --nodelist=") and result.matches[0] == "node01"


def test_raw_commands_complete_their_declared_flags(s):
    assert s.complete("echo -").matches == ["-E", "-e", "-n"]
    assert s.complete("timeout --k").matches == ["--kill-after"]
    assert s.complete("unalias -").matches == ["-a"]


def test_an_alias_completes_the_options_it_reads(s):
    assert s.complete("more --s").matches == ["--silent", "--squeeze"]
    assert s.complete("less --s").matches == ["--squeeze-blank-lines"]
