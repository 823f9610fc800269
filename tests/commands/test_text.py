"""head, tail, wc, grep, sort, uniq, cut, tr, column, sed, seq, xargs, paste, basename, dirname."""

import pytest

from emulator.commands import text
from emulator.commands.kit.command import RawCommand
from emulator.session import Session

DATA = "printf 'b 2\\na 10\\nc 1\\nb 2\\n' > /tmp/t"


@pytest.fixture
def s():
    session = Session()
    session.execute(DATA)
    return session


def test_head_and_tail(s):
    assert s.execute("head -n 2 /tmp/t; tail -1 /tmp/t; tail -n +4 /tmp/t") == ("b 2\na 10\nb 2\nb 2\n", 0)
    assert s.execute("head /nope") == ("head: cannot open '/nope' for reading: No such file or directory\n", 1)


def test_tail_follow_prints_new_log_lines_then_stops_and_says_so(s):
    run = s.run("tail -f -n 1 /lustre/jobs/llm-pretrain/train.log")
    chunks = []
    while (chunk := run.step()) is not None:
        chunks.append(chunk)
    text = "".join(c.text() for c in chunks)
    assert run.status == 1 and len(chunks) > 3
    assert text.count(" step ") >= 2
    assert text.endswith("tail: stopped following after 12 looks (a limit of this simulated terminal)\n")


def test_wc_widths_follow_coreutils(s):
    assert s.execute("wc -l /tmp/t") == ("4 /tmp/t\n", 0)
    assert s.execute("wc /tmp/t") == (" 4  8 17 /tmp/t\n", 0)
    assert s.execute("cat /tmp/t | wc") == ("      4       8      17\n", 0)


def test_grep_options(s):
    assert s.execute("grep -n b /tmp/t") == ("1:b 2\n4:b 2\n", 0)
    assert s.execute("grep -c b /tmp/t /etc/hostname") == ("/tmp/t:2\n/etc/hostname:0\n", 0)
    assert s.execute("grep -vE '^(a|b)' /tmp/t") == ("c 1\n", 0)
    assert s.execute("grep -w 1 /tmp/t") == ("c 1\n", 0)
    assert s.execute("grep -o '[0-9]\\+' /tmp/t | head -2") == ("2\n10\n", 0)
    assert s.execute("grep -A1 a /tmp/t") == ("a 10\nc 1\n", 0)
    assert s.execute("grep zzz /tmp/t") == ("", 1)
    assert s.execute("grep x /nope") == ("grep: /nope: No such file or directory\n", 2)
    assert s.execute("grep -i B -m1 /tmp/t") == ("b 2\n", 0)


def test_grep_context_separators(s):
    s.execute("seq 1 10 > /tmp/n")
    assert s.execute("grep -C1 -e 2 -e 8 /tmp/n") == ("1\n2\n3\n--\n7\n8\n9\n", 0)


def test_sort_uniq(s):
    assert s.execute("sort /tmp/t | uniq -c") == ("      1 a 10\n      2 b 2\n      1 c 1\n", 0)
    assert s.execute("sort -k2 -n /tmp/t | head -1") == ("c 1\n", 0)
    assert s.execute("sort -k2,2nr -u /tmp/t") == ("a 10\nb 2\nc 1\n", 0)
    assert s.execute("printf '1G\\n10K\\n2M\\n' | sort -h") == ("10K\n2M\n1G\n", 0)


def test_cut_tr_column(s):
    assert s.execute("cut -d' ' -f2 /tmp/t | tr '\\n' ,") == ("2,10,1,2,", 0)
    assert s.execute("cut -f1 -d") == ("cut: option requires an argument -- 'd'\nTry 'cut --help' for more information.\n", 1)
    assert s.execute("echo hello | tr a-z A-Z") == ("HELLO\n", 0)
    assert s.execute("echo aaabbb | tr -s ab") == ("ab\n", 0)
    assert s.execute("echo 'a bb ccc' | column -t") == ("a  bb  ccc\n", 0)


def test_sed(s):
    assert s.execute("sed -n '2,3p' /tmp/t") == ("a 10\nc 1\n", 0)
    assert s.execute("sed 's/b/B/g;/^a/d' /tmp/t") == ("B 2\nc 1\nB 2\n", 0)
    assert s.execute("sed -E 's/([a-z]) ([0-9]+)/\\2:\\1/' /tmp/t | head -1") == ("2:b\n", 0)
    assert s.execute("sed 's/x/' /tmp/t") == ("sed: -e expression #1, char 4: unterminated `s' command\n", 1)


def test_seq_and_xargs(s):
    assert s.execute("seq 3 | xargs echo n") == ("n 1 2 3\n", 0)
    assert s.execute("printf 'node01\\nnode02\\n' | xargs -I{} ssh {} hostname") == ("node01\nnode02\n", 0)


def test_seq_reads_its_flags_as_gnu_seq_does(s):
    assert s.execute("seq -s, -w 8 10") == ("08,09,10\n", 0)
    assert s.execute("seq -ws: 3 && seq --sep=+ 3 && seq --e 2") == ("1:2:3\n1+2+3\n1\n2\n", 0)
    assert s.execute("seq -1 1 && seq -s -1 3") == ("-1\n0\n1\n1-12-13\n", 0)
    assert s.execute("seq 3 -w") == ("seq: invalid floating point argument: ‘-w’\nTry 'seq --help' for more information.\n", 1)
    assert s.execute("seq -x 3") == ("seq: invalid option -- 'x'\nTry 'seq --help' for more information.\n", 1)
    assert s.execute("seq --sep") == (
        "seq: option '--separator' requires an argument\nTry 'seq --help' for more information.\n", 1)
    assert s.execute("seq --equal-width=2 3") == (
        "seq: option '--equal-width' doesn't allow an argument\nTry 'seq --help' for more information.\n", 1)


def test_seq_format_takes_one_floating_point_directive(s):
    assert s.execute("seq -f node%02g 1 3") == ("node01\nnode02\nnode03\n", 0)
    assert s.execute("seq -f '%.1f%%' 0 0.5 1") == ("0.0%\n0.5%\n1.0%\n", 0)
    assert s.execute("seq -f %d 3") == ("seq: format ‘%d’ has unknown %d directive\n", 1)
    assert s.execute("seq -f x 3") == ("seq: format ‘x’ has no % directive\n", 1)
    assert s.execute("seq -f %g%g 3") == ("seq: format ‘%g%g’ has too many % directives\n", 1)
    assert s.execute("seq -f %5 3") == ("seq: format ‘%5’ ends in %\n", 1)
    assert s.execute("seq -w -f %g 3")[1] == 1


def test_basename_and_dirname(s):
    assert s.execute("basename /a/b/c.txt .txt; basename /; basename a/") == ("c\n/\na\n", 0)
    assert s.execute("basename -a x/y z/ && basename -s .log a/b.log c.log") == ("y\nz\nb\nc\n", 0)
    assert s.execute("basename -z a/b; dirname -z a/b c") == ("b\0a\0.\0", 0)
    assert s.execute("basename a b c") == ("basename: extra operand ‘c’\nTry 'basename --help' for more information.\n", 1)
    assert s.execute("basename") == ("basename: missing operand\nTry 'basename --help' for more information.\n", 1)
    assert s.execute("dirname /a/b/ a //a; dirname a/b -z") == ("/a\n.\n/\na\0", 0)
    assert s.execute("dirname -x") == ("dirname: invalid option -- 'x'\nTry 'dirname --help' for more information.\n", 1)


RAW = [c for c in text.commands() if isinstance(c, RawCommand)]


@pytest.mark.parametrize("command", RAW, ids=[c.name for c in RAW])
def test_raw_commands_show_their_declared_flags_in_help(s, command):
    """``--help`` prints the page rendered from the flag table, and the page names every flag completion offers."""
    out, status = s.execute(f"{command.name} --help")
    assert (out, status) == (command.help_text(), 0)
    assert command.option_strings() and all(option in out for option in command.option_strings())


def test_the_flag_tables_feed_completion(s):
    assert s.complete("seq --s").matches == ["--separator"]
    assert s.complete("basename -").matches == ["--help", "--multiple", "--suffix", "--zero", "-a", "-s", "-z"]


def test_paste_and_attached_option_values(s):
    assert s.execute("seq 3 | paste -sd,") == ("1,2,3\n", 0)
    assert s.execute("echo x=1 | cut -d= -f2") == ("1\n", 0)


@pytest.mark.parametrize(("line", "answer"), [
    ("echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab | grep -E '(a+)+$'", ("", 1)),
    ("echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab | sed -E 's/(a*)*$/x/'",
     ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabx\n", 0)),
    ("echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab | awk '/(a+)+$/'", ("", 0)),
    ("printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\\n' | grep -cE '(a|a)+$'", ("0\n", 1)),
])
def test_nested_and_overlapping_repetition_answer_as_grep_sed_and_awk_do(s, line, answer):
    """Valid ERE that makes a backtracking matcher take exponential time answers at once (a linear-time engine)."""
    assert s.execute(line) == answer


def test_repetition_that_is_not_nested_still_matches(s):
    assert s.execute("echo aab | grep -E '(ab|a)+b'") == ("aab\n", 0)
    assert s.execute("echo '((b' | grep -cE '[(]+b'") == ("1\n", 0)


def test_grep_reads_options_as_getopt_does(s):
    s.execute("printf 'a -pl b\\nc\\n' > f")
    assert s.execute("grep -- -pl f") == ("a -pl b\n", 0)
    assert s.execute("grep -e -pl f") == ("a -pl b\n", 0)
    assert s.execute("grep -n c f -- -pl") == ("grep: -pl: No such file or directory\nf:2:c\n", 2)
