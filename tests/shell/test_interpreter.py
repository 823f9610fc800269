"""The shell as a learner types: expansion, pipes, redirections, status, errors."""

import pytest

from emulator.session import Session


@pytest.fixture
def s():
    return Session()


def test_unknown_command_is_127_in_bash_words(s):
    assert s.execute("frobnicate --now") == ("bash: frobnicate: command not found\n", 127)


def test_syntax_error_is_status_2(s):
    assert s.execute("echo a | | b") == ("bash: syntax error near unexpected token `|'\n", 2)


def test_status_variable_and_and_or(s):
    assert s.execute("false; echo $?") == ("1\n", 0)
    assert s.execute("false && echo no || echo yes") == ("yes\n", 0)


def test_quoting_and_field_splitting(s):
    s.execute('X="a   b"')
    assert s.execute('echo $X; echo "$X"') == ("a b\na   b\n", 0)


def test_assignment_prefix_applies_to_one_command(s):
    assert s.execute("FOO=bar env | grep FOO; echo [$FOO]") == ("FOO=bar\n[]\n", 0)


def test_export_persists(s):
    s.execute("export FOO=1")
    assert s.execute("env | grep ^FOO") == ("FOO=1\n", 0)


def test_redirections_write_append_and_read(s):
    s.execute("echo one > /tmp/f; echo two >> /tmp/f")
    assert s.execute("cat < /tmp/f") == ("one\ntwo\n", 0)


def test_stderr_redirections(s):
    assert s.execute("cat /nope 2>/dev/null; echo $?") == ("1\n", 0)
    assert s.execute("cat /nope 2>&1 | wc -l") == ("1\n", 0)


def test_redirect_into_a_root_directory_is_refused(s):
    assert s.execute("echo x > /etc/passwd2") == ("bash: /etc/passwd2: Permission denied\n", 1)


def test_glob_expands_against_the_vfs(s):
    s.execute("touch /tmp/a1 /tmp/a2 /tmp/b1")
    assert s.execute("echo /tmp/a*") == ("/tmp/a1 /tmp/a2\n", 0)
    assert s.execute("echo /tmp/z*") == ("/tmp/z*\n", 0)
    assert s.execute("echo '/tmp/a*'") == ("/tmp/a*\n", 0)


def test_brace_expansion_and_for_loop(s):
    assert s.execute("for n in node0{1..3}; do echo $n; done") == ("node01\nnode02\nnode03\n", 0)


def test_command_substitution_and_arithmetic(s):
    assert s.execute("echo $(hostname)-$((6*7))") == ("login01-42\n", 0)


def test_while_loop_is_bounded(s):
    out, status = s.execute("while true; do :; done")
    assert status != 0 and "bash:" in out


def test_subshell_does_not_leak_cd(s):
    assert s.execute("(cd /tmp); pwd") == ("/home/alice\n", 0)


def test_pipeline_status_is_the_last_stage(s):
    assert s.execute("false | true; echo $?") == ("0\n", 0)


def test_every_line_costs_simulated_time(s):
    first = s.execute("date +%s")[0]
    second = s.execute("date +%s")[0]
    assert int(second) - int(first) == 2


def test_nested_loops_stop_at_the_command_limit(s):
    out, status = s.execute("for i in {1..1000}; do for j in {1..1000}; do :; done; done")
    assert status == 1 and out == "bash: stopped after running 50000 commands in one line (a limit of this simulated terminal)\n"


def test_while_read_consumes_its_input_line_by_line(s):
    assert s.execute("printf 'a 1\\nb 2 3\\n' | while read k v; do echo \"$k=$v\"; done") == ("a=1\nb=2 3\n", 0)
    assert s.execute("while read line; do echo \"> $line\"; done < /etc/hostname") == ("> login01\n", 0)


def test_read_at_end_of_input_fails():
    session = Session()
    assert session.execute("read x < /dev/null; echo $?") == ("1\n", 0)


def test_expansion_errors_end_the_whole_line_as_in_interactive_bash(s):
    assert s.execute("echo ${UNSET:?must be set}; echo after") == ("bash: UNSET: must be set\n", 1)
    assert s.execute("for i in 1 2; do echo $((1/0)); echo in; done; echo after") == (
        'bash: 1/0: division by 0 (error token is "0")\n', 1)


def test_exit_inside_a_command_substitution_ends_only_the_substitution(s):
    assert s.execute('echo "[$(echo a; exit 3; echo b)]"; hostname') == ("[a]\nlogin01\n", 0)


def test_a_streaming_command_piped_into_line_filters_streams(s):
    run = s.run("tail -f -n 1 /lustre/jobs/llm-pretrain/train.log | grep --line-buffered step | cut -d'|' -f1")
    texts = []
    while (chunk := run.step()) is not None:
        texts.append(chunk.text())
    shown = [t for t in texts[:-1] if t]
    assert len(shown) >= 3  # new lines arrive chunk by chunk, not all at the end
    assert all(t.endswith(" \n") and "| loss" not in t for t in shown)


def test_pipelines_needing_the_whole_input_still_wait_for_it(s):
    assert s.execute("watch -n 1 --count 3 hostname | grep -c Every") == ("3\n", 0)
