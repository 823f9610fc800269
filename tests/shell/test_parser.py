"""Parsing: lists, pipelines, compound commands and bash's syntax error wording."""

import pytest

from emulator.shell.lexer import ShellSyntaxError
from emulator.shell.parser import For, If, Simple, parse


def test_and_or_chain_and_pipeline_shape():
    script = parse("a | b && c || d; e")
    assert len(script.items) == 2
    first = script.items[0]
    assert len(first.first.commands) == 2
    assert [op for op, _ in first.rest] == ["&&", "||"]


def test_assignment_prefix_is_not_a_word():
    (item,) = parse("X=1 Y=2 env").items
    cmd = item.first.commands[0]
    assert isinstance(cmd, Simple)
    assert [name for name, _ in cmd.assigns] == ["X", "Y"]
    assert [w.raw for w in cmd.words] == ["env"]


def test_for_and_if_parse():
    assert isinstance(parse("for h in a b; do echo $h; done").items[0].first.commands[0], For)
    assert isinstance(parse("if true; then echo y; else echo n; fi").items[0].first.commands[0], If)


@pytest.mark.parametrize(("line", "token"), [("| x", "|"), ("a ||", "end"), ("a ; ; b", ";"), ("echo )", ")"),
                                             ("a && && b", "&&")])
def test_syntax_errors_name_the_token(line, token):
    with pytest.raises(ShellSyntaxError) as caught:
        parse(line)
    assert token in caught.value.message


def test_unsupported_constructs_say_so():
    with pytest.raises(ShellSyntaxError, match="not supported"):
        parse("function f { :; }")


def test_here_document_bodies_are_read_with_the_line():
    (item,) = parse("cat <<EOF\na $X\nEOF").items
    (redirect,) = item.first.commands[0].redirects
    assert (redirect.op, redirect.body, redirect.expand, redirect.unterminated) == ("<<", "a $X\n", True, False)
