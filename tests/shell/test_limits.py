"""The shell's limits, typed as a learner would: each one says so in one line, keeps what was produced, and fails
where bash's answer would differ (emulator/limits.py lists them)."""

import time

import pytest

from emulator import limits
from emulator.session import Session

NOTE = "(a limit of this simulated terminal)"


@pytest.fixture
def s():
    return Session()


def seconds(session: Session, line: str) -> float:
    """The best of three runs of ``line``, in seconds."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        session.execute(line)
        best = min(best, time.perf_counter() - started)
    return best


def assert_linear(session: Session, line: str, small: int) -> None:
    """``line`` with ``{n}`` four times larger takes well under the 16 times a quadratic cost would."""
    short, long = seconds(session, line.format(n=small)), seconds(session, line.format(n=4 * small))
    assert long < 8 * short + 0.05, f"{line}: {short:.3f}s at {small}, {long:.3f}s at {4 * small}"


# -- one input line ------------------------------------------------------------------------------
def test_a_line_past_the_line_limit_is_refused_before_it_is_read(s):
    line = "echo " + "a" * limits.LINE_LIMIT
    started = time.perf_counter()
    out, status = s.execute(line)
    assert time.perf_counter() - started < 0.5
    assert (out, status) == (f"bash: input line of {len(line)} characters is longer than 100000 {NOTE}\n", 1)
    assert s.history == [] and s.journal == []
    assert s.execute("echo " + "a" * (limits.LINE_LIMIT - 5)) == ("a" * (limits.LINE_LIMIT - 5) + "\n", 0)


def test_history_expansion_stops_at_the_line_limit(s):
    s.execute("echo " + "a" * 20_000)
    out, status = s.execute("!! !! !! !! !! !! !! !! !! !!")
    assert (out, status) == (f"bash: !!: expanded line longer than 100000 characters {NOTE}\n", 1)
    assert len(s.history) == 1 and len(s.journal) == 1


# -- nesting ---------------------------------------------------------------------------------------
def test_nesting_stops_at_64_levels_with_a_syntax_error(s):
    too_deep = (f"bash: syntax error: nesting deeper than 64 levels {NOTE}\n", 2)
    assert s.execute("( " * 64 + "echo deep" + " )" * 64) == ("deep\n", 0)
    assert s.execute("( " * 65 + "echo deep" + " )" * 65) == too_deep
    assert s.execute("{ " * 65 + "true;" + " }" * 65) == too_deep
    assert s.execute("if true; then " * 65 + "true" + "; fi" * 65) == too_deep
    assert s.execute("echo " + "$(echo " * 65 + ")" * 65)[0] == too_deep[0]
    assert s.execute("echo " + "${x:-" * 65 + "}" * 65)[0] == too_deep[0]
    assert s.execute("echo " + "{a," * 65 + "b" + "}" * 65) == (too_deep[0], 1)


def test_arithmetic_nesting_is_bash_s_recursion_error(s):
    assert s.execute("(( " + "(" * 63 + "1" + ")" * 63 + " )); echo $?") == ("0\n", 0)
    source = "(" * 65 + "1" + ")" * 65
    assert s.execute(f"(( {source} ))") == (
        f"bash: {source}: expression recursion level exceeded: more than 64 levels {NOTE}\n", 1)
    assert s.execute("echo $((" + "~" * 70 + "1))")[0].endswith(f"expression recursion level exceeded: "
                                                               f"more than 64 levels {NOTE}\n")


def test_substitutions_nested_past_16_levels_end_the_line(s):
    line = "echo " + "$(echo " * 17 + "x" + ")" * 17 + "; echo after"
    assert s.execute(line) == (f"bash: commands nested deeper than 16 levels {NOTE}\n", 1)


def test_deep_parentheses_before_a_long_word_lex_in_linear_time(s):
    assert_linear(s, "(" * 300 + "nvidia-smi {n}", 20_000)


def test_a_long_line_lexes_in_linear_time(s):
    assert_linear(s, 'echo "{n}" {n} | wc -c', 20_000)


# -- words and values ------------------------------------------------------------------------------
def test_a_huge_brace_range_is_refused_not_left_unexpanded(s):
    assert s.execute("echo {1..10000000} | wc -c") == (
        f"bash: {{1..10000000}}: brace expansion makes more than 10000 words {NOTE}\n", 1)
    assert s.execute("echo {1..100}{1..101} | wc -w")[1] == 1
    assert s.execute("echo {1..100}{1..100} | wc -w") == ("10000\n", 0)


def test_brace_expansion_reads_words_as_bash_does(s):
    assert s.execute("echo {x{a,b}} {a,b {,}x {a} a}b{c,d} {{a,b}} x{,}y {a,{b,c}}") == (
        "{xa} {xb} {a,b x x {a} a}bc a}bd {a} {b} xy xy a b c\n", 0)


def test_a_variable_doubling_stops_at_the_value_limit(s):
    out, status = s.execute("X=x; for i in $(seq 40); do X=$X$X; done")
    assert (out, status) == (f"bash: $X$X: expansion longer than 2000000 characters {NOTE}\n", 1)
    assert s.execute("echo ${#X}") == ("1048576\n", 0)


def test_appending_to_a_variable_stops_at_the_value_limit(s):
    s.execute("X=$(printf '%100000s' {1..20})")
    assert s.execute("X+=y") == (f"bash: X: value longer than 2000000 characters {NOTE}\n", 1)


def test_all_variables_together_stop_at_their_limit(s):
    s.execute("X=$(printf '%100000s' {1..19})")
    out, status = s.execute('for i in $(seq 20); do export "V$i=$X"; done')
    assert (out, status) == (f"bash: V10: variables longer than 20000000 characters in all {NOTE}\n", 1)


def test_a_loop_past_its_limit_says_so(s):
    assert s.execute("for i in $(seq 10001); do :; done; echo $?") == (
        f"bash: loop stopped after 10000 iterations {NOTE}\n1\n", 0)
    assert s.execute("while :; do :; done") == (f"bash: loop stopped after 10000 iterations {NOTE}\n", 1)


def test_arguments_past_linux_limits_fail_as_linux_fails_them(s):
    s.execute("W=$(printf '%100000s%31072s' x y)")
    assert s.execute('ls "$W"') == ("bash: /usr/bin/ls: Argument list too long\n", 126)
    assert s.execute('echo "$W" | wc -c') == ("131073\n", 0)
    s.execute("X=$(printf '%100000s' {1..10})")
    assert s.execute('echo "$X" "$X" "$X"') == (f"bash: echo: arguments longer than 2097152 characters in all {NOTE}\n", 1)


def test_patterns_on_long_values(s):
    s.execute("X=$(printf '%5000s' b)")
    assert s.execute("echo ${X//*a/Z}") == (
        f"bash: ${{X//*a/Z}}: pattern matching on more than 4096 characters {NOTE}\n", 1)
    assert s.execute("Y=${X// /-}; echo ${#Y} ${Y:4995}") == ("5000 ----b\n", 0)
    assert s.execute("Z=${X%b}; echo ${#Z} ${X#    }") == ("4999 b\n", 0)
    assert_linear(s, "X=$(printf '%{n}s' b); echo ${{X//[ab]/Z}} | wc -c", 1000)


def test_glob_replacement_takes_the_longest_match_at_each_place(s):
    s.execute("X=abcabcXabc")
    assert s.execute("echo ${X//a*c/-} ${X/b?/-} ${X//[ab]/} ${X/#a*b/-} ${X/%c*c/-} ${X//c*a/_}") == (
        "- a-abcXabc ccXc -c ab- ab_bc\n", 0)


# -- output ----------------------------------------------------------------------------------------
def test_seq_says_when_it_stops_and_keeps_what_it_printed(s):
    assert s.execute("seq 1 100000000 | wc -l") == (f"seq: output stopped after 100000 lines {NOTE}\n100000\n", 0)
    assert s.execute("seq 1 100000000 > /dev/null; echo $?") == (f"seq: output stopped after 100000 lines {NOTE}\n1\n", 0)


def test_a_command_past_the_output_limit_keeps_what_fits(s):
    assert s.execute("printf '%100000s' {1..30} | wc -c") == (
        f"printf: output stopped after 2000000 characters {NOTE}\n2000000\n", 0)


def test_a_full_pipe_says_so_once(s):
    assert s.execute("for i in 1 2 3; do printf '%100000s' {1..15}; done | wc -c") == (
        f"bash: pipe: output stopped after 2000000 characters {NOTE}\n2000000\n", 0)


def test_the_screen_stops_the_line_and_keeps_what_it_showed(s):
    out, status = s.execute("for i in 1 2 3; do printf '%100000s' {1..15}; done; echo never")
    message = f"bash: output stopped after 4000000 characters {NOTE}\n"
    assert status == 1 and out.endswith(" 10" + message) and len(out) == limits.SCREEN_LIMIT + len(message)


def test_printf_field_widths_are_refused_before_they_are_made(s):
    assert s.execute("printf '%999999999d' 1") == (f"bash: printf: field width 999999999 is more than 100000 {NOTE}\n", 1)
    assert s.execute("printf 'a\\n%.999999999f' 1") == (f"a\nbash: printf: precision 999999999 is more than 100000 {NOTE}\n", 1)
    assert s.execute("printf '%s %*d\\n' x 999999999 1") == (
        f"x bash: printf: field width 999999999 is more than 100000 {NOTE}\n", 1)
    assert s.execute("printf '%s\\n' $(seq 12000) | wc -l") == ("12000\n", 0)


def test_a_file_stops_at_the_file_limit_and_keeps_what_fits(s):
    out, status = s.execute("for i in 1 2 3; do printf '%100000s' {1..15} >> /tmp/big; done; wc -c < /tmp/big")
    assert status == 0
    assert out == (f"bash: /tmp/big: File too large: more than 4000000 characters {NOTE}\n4000000\n")


# -- completion and aliases ------------------------------------------------------------------------
def test_completion_lists_at_most_the_limit_and_counts_every_match(s):
    s.execute("mkdir /tmp/c; cd /tmp/c; touch ab{1..1001} ac")
    found = s.complete("ls a")
    assert found.common == "a" and len(found.matches) == limits.MATCH_LIMIT + 1
    assert found.matches[-1] == f"... and 2 more {NOTE}"
    assert s.complete("ls ab").common == "ab"


def test_an_alias_is_not_expanded_inside_itself_as_in_bash(s):
    assert s.execute("alias a=b; alias b=a; a") == ("bash: a: command not found\n", 127)
    assert s.execute("alias ls='ls -d'; ls /tmp") == ("/tmp\n", 0)
