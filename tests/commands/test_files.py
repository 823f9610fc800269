"""ls, cat, less, more, tee, touch, mkdir, rm, cp, mv, find, du and the editors over the virtual filesystem."""

import pytest

from emulator.commands import files
from emulator.commands.kit.command import RawCommand
from emulator.session import Session


@pytest.fixture
def s():
    return Session()


def test_ls_long_listing(s):
    s.execute("printf 'abc\\n' > /tmp/f; mkdir /tmp/d")
    assert s.execute("ls -l /tmp") == ("total 8\n"
                                       "drwxr-xr-x 2 alice alice 4096 Mar 11 09:00 d\n"
                                       "-rw-r--r-- 1 alice alice    4 Mar 11 09:00 f\n", 0)


def test_ls_columns_on_a_terminal_and_lines_in_a_pipe(s):
    assert s.execute("ls /etc") == ("hostname  hosts  ipmi  lsb-release  os-release  slurm  timezone\n", 0)
    assert s.execute("ls /etc | head -2") == ("hostname\nhosts\n", 0)


def test_ls_hidden_files_and_errors(s):
    assert s.execute("ls -A ~") == (".bashrc  .profile  jobs  storage-team\n", 0)
    assert s.execute("ls /nope") == ("ls: cannot access '/nope': No such file or directory\n", 2)
    assert s.execute("ls -z") == ("ls: invalid option -- 'z'\nTry 'ls --help' for more information.\n", 2)


def test_cat_numbering_and_errors(s):
    assert s.execute("cat -n /etc/hostname") == ("     1\tlogin01\n", 0)
    assert s.execute("cat /tmp") == ("cat: /tmp: Is a directory\n", 1)
    assert s.execute("echo piped | cat") == ("piped\n", 0)


def test_tee_touch_mkdir_rm(s):
    assert s.execute("echo x | tee /tmp/a /tmp/b") == ("x\n", 0)
    assert s.execute("cat /tmp/b") == ("x\n", 0)
    assert s.execute("touch /etc/x") == ("touch: cannot touch '/etc/x': Permission denied\n", 1)
    assert s.execute("mkdir /tmp/a") == ("mkdir: cannot create directory '/tmp/a': File exists\n", 1)
    assert s.execute("mkdir -p /tmp/p/q && ls /tmp/p") == ("q\n", 0)
    assert s.execute("rm /tmp/a; ls /tmp/a") == ("ls: cannot access '/tmp/a': No such file or directory\n", 2)
    assert s.execute("rm /etc/hostname") == ("rm: cannot remove '/etc/hostname': Permission denied\n", 1)


def test_less_prints_whole_files(s):
    assert s.execute("less /etc/hostname") == ("login01\n", 0)
    assert s.execute("more /nope") == ("/nope: No such file or directory\n", 1)


def test_less_accepts_its_options_and_reports_unknown_ones(s):
    assert s.execute("less -NS --pattern=login -p login +G /etc/hostname") == ("login01\n", 0)
    assert s.execute("less -Z /etc/hostname") == ('There is no -Z option ("less --help" for help)\nlogin01\n', 0)
    assert s.execute("less --nosuch /etc/hostname") == ('There is no nosuch option ("less --help" for help)\nlogin01\n', 0)
    assert s.execute("less -p") == ("Value is required after -p (--pattern)\n", 0)
    assert s.execute("less /etc/hostname -N") == ("login01\n-N: No such file or directory\n", 1)


def test_less_run_as_more_reads_util_linux_options(s):
    assert s.execute("more -d -10 +2 -n 3 /etc/hostname") == ("login01\n", 0)
    assert s.execute("more -z /etc/hostname") == ("more: invalid option -- 'z'\nTry 'more --help' for more information.\n", 1)
    out, status = s.execute("more --help")
    assert status == 0 and out.startswith("Usage: more [OPTION]...") and "-n, --lines=NUMBER" in out


def test_cp_mv_and_their_errors(s):
    s.execute("echo a > /tmp/a")
    assert s.execute("cp /tmp/a /tmp/b && mv /tmp/b ~/ && cat ~/b") == ("a\n", 0)
    assert s.execute("cp /nope /tmp") == ("cp: cannot stat '/nope': No such file or directory\n", 1)
    assert s.execute("cp /tmp/a /etc/") == ("cp: cannot create regular file '/etc/a': Permission denied\n", 1)


def test_find_by_name_type_and_depth(s):
    assert s.execute("find /lustre -name '*.log'") == ("/lustre/jobs/llm-pretrain/train.log\n", 0)
    assert s.execute("find ~ -maxdepth 1 -type f") == ("/home/alice/.bashrc\n/home/alice/.profile\n", 0)
    assert s.execute("find /nope") == ("find: ‘/nope’: No such file or directory\n", 1)


def test_find_prints_with_null_characters_and_refuses_what_it_lacks(s):
    assert s.execute("find ~ -maxdepth 1 -name '.b*' -print0") == ("/home/alice/.bashrc\0", 0)
    assert s.execute("find ~ -maxdepth 1 -name '.b*' -print -print0") == ("/home/alice/.bashrc\n/home/alice/.bashrc\0", 0)
    assert s.execute("find ~ -o -name x") == ("find: unknown predicate `-o'\n", 1)
    assert s.execute("find ~ -name") == ("find: missing argument to `-name'\n", 1)


def test_du_sums_the_checkpoint_shards(s):
    out, status = s.execute("du -sh /lustre/ckpt/llama-8b")
    size = s.execute("du -s /lustre/ckpt/llama-8b")[0].split()[0]
    assert status == 0 and out.endswith("\t/lustre/ckpt/llama-8b\n") and out[-1] != "K"
    assert int(size) > 200 * 1024 ** 2  # three full checkpoints of an 8B model: hundreds of GiB
    assert s.execute("du /nope") == ("du: cannot access '/nope': No such file or directory\n", 1)


def test_editors_explain_themselves(s):
    out, status = s.execute("vim ~/jobs/pretrain.sbatch")
    assert status == 1 and out.startswith("vim: interactive editors are not available in this terminal")


def test_editors_print_their_help(s):
    out, status = s.execute("vim --help")
    assert status == 0 and out.startswith("Usage: vim [FILE]...") and "tee or sed -i" in out


RAW = [c for c in files.commands() if isinstance(c, RawCommand)]


@pytest.mark.parametrize("command", RAW, ids=[c.name for c in RAW])
def test_raw_commands_show_their_declared_flags_in_help(s, command):
    """``--help`` prints the page rendered from the flag table, and the page names every flag completion offers."""
    out, status = s.execute(f"{command.name} --help")
    assert (out, status) == (command.help_text(), 0)
    assert command.option_strings() and all(option in out for option in command.option_strings())
