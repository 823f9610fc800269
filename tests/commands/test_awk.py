"""awk: the documented subset behaves as POSIX awk does."""

import pytest

from emulator.session import Session


@pytest.fixture
def s():
    session = Session()
    session.execute("printf 'node01 80 ok\\nnode02 95 hot\\nnode03 70 ok\\n' > /tmp/t")
    return session


@pytest.mark.parametrize(("program", "expected"), [
    ("'{print $1}'", "node01\nnode02\nnode03\n"),
    ("'$2 > 75 {print $1, $3}'", "node01 ok\nnode02 hot\n"),
    ("'/hot/'", "node02 95 hot\n"),
    ("'{s += $2} END {print s, s/NR}'", "245 81.6667\n"),
    ("'NR==2 {print NF, $NF}'", "3 hot\n"),
    ("'{printf \"%-8s|%5.1f\\n\", $1, $2}'", "node01  | 80.0\nnode02  | 95.0\nnode03  | 70.0\n"),
    ("'{n[$3]++} END {for (k in n) print k, n[k]}'", "ok 2\nhot 1\n"),
    ("'BEGIN {x = \"a\"; x = x \"b\"; print x, length(x), toupper(x)}'", "ab 2 AB\n"),
    ("'{sub(/node/, \"n\"); print}' /tmp/t | head -1", "n01 80 ok\n"),
    ("'$3 ~ /^o/ && $2 >= 80'", "node01 80 ok\n"),
    ("-v limit=90 '$2 > limit {print $1}'", "node02\n"),
    ("'{$2 = $2 * 2; print}' OFS=, /tmp/t | tail -1", "node03,140,ok\n"),
    ("'NR==1, NR==2 {print $1}'", "node01\nnode02\n"),
    ("'{print substr($1, 5), index($1, \"0\")}' /tmp/t | head -1", "01 5\n"),
    ("'BEGIN {n = split(\"a:b:c\", p, \":\"); print n, p[3]}'", "3 c\n"),
    ("'{if ($2 > 90) print \"HOT\"; else print \"fine\"}' /tmp/t | sort | uniq -c", "      1 HOT\n      2 fine\n"),
])
def test_programs(s, program, expected):
    line = f"awk {program}" if "/tmp/t" in program else f"awk {program} /tmp/t"
    if program.endswith("'") is False and "|" in program:
        line = f"awk {program}"
    assert s.execute(line) == (expected, 0)


def test_field_separator_flag(s):
    assert s.execute("awk -F= '/^NAME=/ {print $2}' /etc/os-release") == ('"Ubuntu"\n', 0)


def test_syntax_and_runtime_errors_follow_mawk(s):
    assert s.execute("awk '{print $1' /tmp/t") == ("awk: line 2: missing } near end of file\n", 2)
    assert s.execute("awk '{print $1 +}' /tmp/t") == ("awk: line 1: syntax error at or near }\n", 2)
    assert s.execute("awk 'BEGIN {printf \"%s %s\\n\", \"a\"}'") == (
        'awk: run time error: not enough arguments passed to printf("%s %s\n")\n\tFILENAME="" FNR=0 NR=0\n', 2)
    assert s.execute("awk 'BEGIN {while (1) x++}'")[1] == 2


def test_division_by_zero_is_ieee_as_in_mawk(s):
    assert s.execute("awk 'BEGIN {print 1/0, -1/0, 0/0, 5%0, log(0), sqrt(-1)}'") == (
        "inf -inf -nan -nan -inf -nan\n", 0)


def test_missing_file(s):
    assert s.execute("awk '{print}' /nope") == ("awk: cannot open /nope (No such file or directory)\n", 2)


def test_flags_are_read_as_mawk_reads_them(s):
    assert s.execute("awk -z") == ("awk: not an option: -z\n", 2)
    assert s.execute("awk -h") == ("awk: not an option: -h\n", 2)
    assert s.execute("awk -F") == ("awk: option -F lacks argument\n", 2)
    assert s.execute("awk -v x") == ("awk: improper assignment: -v x\n", 2)
    assert s.execute("awk -vn=2 -F: '{print n, $1}' /etc/hostname") == ("2 login01\n", 0)
    assert s.execute("awk -W xyz 'BEGIN {print 1}'") == ("awk: vacuous option: -W xyz\n1\n", 0)


def test_several_program_files_are_read_in_turn(s):
    s.execute("echo 'BEGIN {printf \"a\"}' > /tmp/p1; echo 'BEGIN {print \"b\"}' > /tmp/p2")
    assert s.execute("awk -f /tmp/p1 -f /tmp/p2") == ("ab\n", 0)


@pytest.mark.parametrize("line", ["awk --help", "awk -W help", "awk -Wusage", "awk -W v"])
def test_help_is_the_page_rendered_from_the_flag_table(s, line):
    out, status = s.execute(line)
    assert status == 0 and out.startswith("Usage: awk [-F FS]")
    assert all(option in out for option in ("-F FS", "-v VAR=VALUE", "-f PROGFILE", "-W OPTION", "--help"))
