"""Lexing: quoting, escapes, operators and redirections keep bash's meaning."""

import pytest

from emulator.shell.lexer import Lit, Op, ShellSyntaxError, Sub, Var, Word, tokenize


def words(line):
    return [t for t in tokenize(line) if isinstance(t, Word)]


def test_single_quotes_keep_everything_literal():
    (word,) = words("'$HOME | x'")
    assert word.parts == [Lit("$HOME | x", True)]


def test_double_quotes_expand_variables_but_not_operators():
    (word,) = words('"a $B|c"')
    assert word.parts == [Lit("a ", True), Var("B", True), Lit("|c", True)]


def test_fd_prefix_belongs_to_the_redirection():
    tokens = tokenize("cmd 2>/dev/null 2>&1")
    ops = [t for t in tokens if isinstance(t, Op)]
    assert [(o.kind, o.fd) for o in ops] == [(">", 2), (">&", 2)]


def test_comment_ends_the_line():
    assert [w.raw for w in words("echo a # b c")] == ["echo", "a"]


def test_command_substitution_is_one_part():
    (_, word) = words("echo $(hostname -s)")
    assert word.parts == [Sub("hostname -s", False)]


@pytest.mark.parametrize("line", ['echo "abc', "echo 'abc", "echo $(date", "echo ${X"])
def test_unterminated_quotes_are_syntax_errors(line):
    with pytest.raises(ShellSyntaxError, match="unexpected EOF"):
        tokenize(line)
