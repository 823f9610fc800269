"""The command-line entry point: -c runs one line; bad input gets a clear error."""

from emulator.__main__ import main


def test_dash_c_prints_output_and_returns_status(capsys):
    assert main(["-c", "hostname; cat /nope"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "login01\n"
    assert captured.err == "cat: /nope: No such file or directory\n"


def test_each_dash_c_runs_in_turn_in_one_session(capsys):
    assert main(["-c", "export X=kept; echo one", "-c", "echo $X; false"]) == 1
    assert capsys.readouterr().out == "one\nkept\n"


def test_seed_and_lab_are_accepted(capsys):
    assert main(["--lab", "sandbox", "--seed", "3", "-c", "echo ok"]) == 0
    assert capsys.readouterr().out == "ok\n"


def test_unknown_lab_is_a_clear_error(capsys):
    assert main(["--lab", "nope", "-c", "true"]) == 2
    assert "unknown lab 'nope'" in capsys.readouterr().err


def test_negative_seed_is_refused(capsys):
    assert main(["--seed", "-1", "-c", "true"]) == 2
    assert "--seed" in capsys.readouterr().err


def test_interactive_shell_reads_lines_until_exit(monkeypatch, capsys):
    lines = iter(["ssh node01", "hostname", "exit", "exit 4", "never run"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(lines))
    assert main([]) == 4
    out = capsys.readouterr().out
    assert "node01\n" in out and out.endswith("logout\n")


def test_interactive_shell_continues_open_lines(monkeypatch, capsys):
    lines = iter(["for i in 1 2", "do echo n$i", "done", "exit"])
    prompts = []

    def fake_input(prompt):
        prompts.append(prompt)
        return next(lines)

    monkeypatch.setattr("builtins.input", fake_input)
    assert main([]) == 0
    assert prompts[1:3] == ["> ", "> "]
    assert "n1\nn2\n" in capsys.readouterr().out
