"""The shell against real bash on this machine: same stdout, stderr and status.

Each case runs under ``bash -c`` in a directory holding the files a1, a2 and
b1, and in the emulator in /tmp holding the same files. bash -c names the
line in its messages (``bash: line 1: ...``) and repeats a line it cannot
parse; an interactive bash, which the terminal imitates, does neither, so
those parts are removed before comparing. Skipped where bash is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator.session import Session

CASES = [
    'echo "a  b" \'c $d\' $((3*4)) {1..3} x{a,b}y',
    'X=5; echo ${X:-d} ${Y:-d} ${#X} ${X:+set} ${Y:+set}',
    'for i in 1 2 3; do echo $i; done',
    'for i in 3 2 1; do if [ $i -gt 1 ]; then echo big $i; else echo small; fi; done',
    "printf '%s-%d\\n' a 1 b 2",
    "printf '%5.2f|%-4s|%x|%o|%e|%%\\n' 3.14159 ab 255 8 12345.678",
    "printf '%s\\n'",
    "printf 'no newline'",
    "printf '%d\\n' 12abc",
    'printf \'%q\\n\' "a b\'c"',
    'false; echo $?',
    'true && echo a || echo b',
    'false || echo b && echo c',
    '! false; echo $?',
    '(echo sub; exit 3); echo $?',
    'echo $((2**10)) $((7/2)) $((-7%3)) $(( (1+2)*3 )) $((10>3)) $((1&&0))',
    'echo $((1/0))',
    # 64-bit integers as bash keeps them: literals, operators and shifts wrap; BASE#N constants;
    # a variable's value is itself an expression.
    'echo $((99999999999999999999)) $((2**64)) $((3**100)) $((-(-9223372036854775807-1))) $((1<<65)) $((5>>64)) $((1<<-1))',
    'echo $((16#ff)) $((2#101)) $((36#Z)) $((64#@)) $((64#_)) $((10#09)) $((0x)) $((0x1F))',
    'echo $((0#1))',
    'echo $((65#1))',
    'echo $((16#))',
    'echo $((37#Z))',
    'echo $((08#7))',
    'echo $((12a))',
    'echo $((2**-1))',
    "x=16#1f; y='1+2'; echo $((x+1)) $((y*2)) $((unset_var+1))",
    "printf '%d|%d|%d|%u|%x|%o|%i\\n' 9223372036854775808 -99999999999999999999 010 -1 -1 -1 0x1F",
    "printf '%u|%x|%X\\n' 18446744073709551616 -9223372036854775809 255; echo $?",
    "printf '%d|' 09 019 0x 0x1g 12abc; echo $?",
    'echo \\$x \\\\ "\\"" \'it\'"\'"\'s\'',
    'a=1; a+=2; echo $a',
    'echo ${x:=5}; echo $x',
    'echo {a..e} {1..10..3} {05..10} {x,y}{1,2}',
    'echo {x{a,b}} {a,b {,}x {a} a}b{c,d} {{a,b}} x{,}y {a,{b,c}}',
    'X=abcabcXabc; echo ${X//a*c/-} ${X/b?/-} ${X//[ab]/} ${X/#a*b/-} ${X/%c*c/-} ${X//c*a/_} ${X// /-}',
    'echo {a,b',
    'echo a{}b',
    "echo -e 'a\\tb\\nc'",
    'echo -n x; echo y',
    "echo -e '\\x41\\0102\\c not shown'",
    'x="a b   c"; echo $x; echo "$x"',
    'set -- 2>/dev/null; echo done',
    'echo one; echo two >&2',
    'cat nofile 2>&1 | wc -l',
    'echo a1 && ls a* | sort',
    'echo a* b? [ab]1 z*',
    'echo "a*" \'b?\'',
    'echo $(echo inner $(echo nested))',
    'echo `echo back`',
    'n=0; while [ $n -lt 3 ]; do n=$((n+1)); echo $n; done',
    'n=0; until [ $n -ge 2 ]; do n=$((n+1)); done; echo $n',
    'echo x | while read l; do echo "got $l"; done',
    'printf \'a b\\nc d\\n\' | while read x y; do echo "$y$x"; done',
    '[ "abc" = "abc" ] && echo eq; [ -n "" ] || echo empty; [ 5 -le 5 ]; echo $?',
    'test -e a1 && echo e; test -d . && echo d; [ ! -f nope ] && echo nf',
    'echo ${#}; echo "$#"',
    'v=hello; echo ${#v} ${v:-x}',
    'echo "$((0x10)) $((010))"',
    'echo a;; echo b',
    'echo a |',
    'if true; then echo x',
    'for; do; done',
    'echo $((1 +))',
    'echo ${x',
    'cd /nonexistent',
    'nosuchcmd',
    './nosuch',
    'echo "unterminated',
    "echo 'unterminated",
    'echo ok # comment',
    'echo ok#notcomment',
    'echo a && (echo b; false) || echo c',
    '{ echo g1; echo g2; } | wc -l',
    'echo x >/dev/null; echo $?',
    'echo abc > out.txt; cat out.txt; echo def >> out.txt; cat out.txt; wc -l < out.txt',
    'type cd; type true; type nosuch',
    'export Z=1; env | grep ^Z=',
    'Z=2 env | grep ^Z=',
    'unset Z; echo "[$Z]"',
    'echo $(( 5 > 3 ? 10 : 20 ))',
    'read x <<< "here"',
    'case x in x) echo y;; esac',
    'f=/lustre/jobs/train.log; echo ${f%.log} ${f##*/} ${f#*/} ${f%%/*}x ${f/log/txt} ${f//l/L}',
    'f=/lustre/jobs/train.log; echo ${f:1:6} ${f: -3} ${f^^} ${f:3} ${#f}',
    'x=; echo ${x:-$((1+1))} ${y:-"a b"} ${x:+no} ${z=set}; echo $z',
    'v=abcabc; echo ${v/b/X} ${v//b/X} ${v/#a/S} ${v%c} ${v%%b*}',
    'for f in a1 a2 b1; do case $f in a*) echo A $f;; *) echo other $f;; esac; done',
    'grep -c 1 <<< "a1 b1"',
    'echo $((0x1F & 7)) $((1 << 3)) $((5 > 2 ? 1 : 0)) $(( ~5 ))',
    'cat <<EOF\nhome $((1+1)) $(echo sub)\nEOF',
    "cat <<'EOF'\nraw $HOME\nEOF",
    'cat <<-E\n\ttabbed\n\tE',
    'wc -l <<EOF\na\nb\nEOF',
    'i=0; while ((i < 3)); do ((i++)); echo $i; done; ((0)); echo $?',
    'i=0; echo $((i++)) $i $((++i)) $((i+=10)) $((x=3*2)) $x $((5--3))',
    'n=3; until (( n == 0 )); do echo $n; (( n-- )); done',
]
_LINE = re.compile(r"^bash: (-c: )?line \d+: ", re.MULTILINE)


def _interactive(stderr: str) -> str:
    """bash -c's stderr as an interactive bash would print it."""
    return "".join(line for line in _LINE.sub("bash: ", stderr).splitlines(keepends=True)
                   if not line.startswith("bash: `"))


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed here")
@pytest.mark.parametrize("line", CASES)
def test_same_output_as_bash(line: str, tmp_path: Path) -> None:
    for name in ("a1", "a2", "b1"):
        (tmp_path / name).touch()
    real = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path,
                          env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    session = Session()
    session.execute("cd /tmp; touch a1 a2 b1")
    run = session.run(line)
    out: list[str] = []
    err: list[str] = []
    while (chunk := run.step()) is not None:
        for stream, text in chunk.out:
            (out if stream == "out" else err).append(text)
    assert ("".join(out), "".join(err), run.status) == (real.stdout, _interactive(real.stderr), real.returncode)
