"""The text utilities against the real ones on this machine (GNU coreutils, grep, sed; mawk), flags and errors included.

Each case runs in bash here and in the emulator over the same file; output
and exit status must match exactly. Cases whose tool is missing, or an awk
that is not mawk (Ubuntu's default), are skipped.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from emulator.session import Session

DATA = "node01 80 ok\nnode02 95 hot\nnode03 70 ok\n  node04   5  x\nnode05 1e3 big\n\nlast line\n"

CASES = [
    "awk '{print $1}' data.txt",
    "awk '$2 > 75' data.txt",
    "awk '{s += $2} END {print s, s/NR, NR}' data.txt",
    "awk -F' ' '{print NF}' data.txt",
    "awk '{print length($0)}' data.txt",
    'awk \'NR % 2 == 0 {print NR": "$0}\' data.txt',
    'awk \'{printf "%-8s|%6.2f|%d\\n", $1, $2, $2}\' data.txt',
    "awk '{$2 = $2 * 2; print}' data.txt",
    'awk \'BEGIN {OFS="-"} {$1=$1; print}\' data.txt',
    "awk '/ok/,/hot/' data.txt",
    "awk '{a[$3]++} END {n=0; for (k in a) n++; print n}' data.txt",
    "awk 'BEGIN {print 1/3, 2^10, 10%3, -7%3, int(-3.7), 1e6, 1e7, 123456789, 0.1+0.2}'",
    'awk \'BEGIN {x["a"]=1; delete x["a"]; print length(x)}\'',
    "awk '{print substr($0, 3, 4)}' data.txt",
    'awk \'{gsub(/o/, "0"); print}\' data.txt',
    'awk \'BEGIN {s = sprintf("%5s|%-5s|%05d|%x|%c", "ab", "cd", 42, 255, 65); print s}\'',
    "awk '{print $NF}' data.txt",
    "awk 'END {print $0}' data.txt",
    "awk '$2 ~ /^[0-9]+$/ {print $1}' data.txt",
    "awk -F'o' '{print $2}' data.txt",
    "awk '{print toupper(substr($1,1,1)) substr($1,2)}' data.txt",
    'awk \'BEGIN {n = split("a,b,,c", p, ","); print n, p[3] == "", p[4]}\'',
    'awk \'{ if ($2 == "80") print "eq"; else print "ne" }\' data.txt',
    "awk 'BEGIN { print length() }' data.txt",
    'awk \'{ sum[$3] += $2 } END { print sum["ok"] }\' data.txt',
    'awk \'BEGIN { x = "10"; y = 9; print (x > y), ("10" > "9") }\'',
    "awk '{ print ($2 > 10) }' data.txt",
    "sed 's/o/0/g' data.txt",
    "sed -n '/hot/,/big/p' data.txt",
    "sed '2,4d' data.txt",
    "sed -E 's/([a-z]+)([0-9]+)/\\2-\\1/' data.txt",
    "sed 's/ \\+/ /g' data.txt",
    "sed -n '$p' data.txt",
    "sed '1i header' data.txt",
    "sed '/ok/a after' data.txt",
    'sed = data.txt',
    "sed 's/[[:digit:]]\\{2\\}/NN/' data.txt",
    "sed -n 's/^\\(node\\)0\\([0-9]\\).*/\\2\\1/p' data.txt",
    "sed 's/x*/-/g' data.txt",
    "sed '3q' data.txt",
    'grep -n o data.txt',
    "grep -c '' data.txt",
    'grep -v -e ok -e hot data.txt',
    "grep -o '[0-9]*' data.txt",
    "grep -E '^(node0[1-3])' data.txt",
    "grep -w 'ok' data.txt",
    "grep -x 'last line' data.txt",
    "grep -i 'NODE0[45]' data.txt",
    'grep -B1 -A1 hot data.txt',
    'grep -m2 node data.txt',
    "grep '\\<no' data.txt",
    "grep 'o\\{2\\}' data.txt",
    'sort data.txt',
    'sort -k2 -n data.txt',
    'sort -k2,2n -r data.txt',
    'sort -u -k3,3 data.txt',
    "sort -t' ' -k3 data.txt",
    'sort -g -k2 data.txt',
    'sort -b -k1 data.txt',
    "cut -d' ' -f2,3 data.txt",
    'cut -c1-4 data.txt',
    "cut -d' ' -f2- data.txt",
    "cut -s -d'x' -f1 data.txt",
    'wc data.txt',
    'wc -l data.txt',
    'wc -w -c data.txt',
    'tr a-z A-Z < data.txt',
    "tr -d ' ' < data.txt",
    "tr -s ' ' < data.txt",
    "tr -c 'a-z\\n' '_' < data.txt",
    'uniq -c data.txt',
    'head -3 data.txt',
    'head -c 10 data.txt',
    'head -n -2 data.txt',
    'tail -2 data.txt',
    'tail -n +5 data.txt',
    'tail -c 8 data.txt',
    'column -t data.txt',
    'paste -sd: data.txt',
    'paste data.txt data.txt',
    'seq 2 3 11',
    'seq -w 9 11',
    'seq 1.5 0.5 3',
    'seq -s, -w 8 10',
    'seq -ws: 3',
    'seq --sep=+ 3',
    'seq -f node%02g 1 3',
    "seq -f '%.2f%%' 0 0.25 1",
    'seq -f %e 2',
    'seq -1 1',
    'seq -s -1 3',
    'seq -- -1 1',
    'seq 3 -w',
    'seq -x 3',
    'seq --sep',
    'seq --nosuch=3',
    'seq --equal-width=2 3',
    'seq -f %d 3',
    'seq -f x 3',
    'seq -f %g%g 3',
    'seq -f %5 3',
    'seq -w -f %g 3',
    'seq',
    'seq 1 2 3 4',
    'basename /a/b/c.txt .txt',
    'basename -a x/y z/',
    'basename -s .txt a/data.txt b.txt',
    'basename -z a/b',
    'basename a -a',
    'basename a b c',
    'basename -x',
    'basename',
    'dirname /a/b/ a //a',
    'dirname a/b -z',
    'dirname --zero=1 a',
    'dirname -- -z',
    'dirname',
    "awk -vn=3 -F: 'BEGIN {print n}'",
    "awk -v n=1 -v m=2 '{print n + m, $1}' data.txt",
    "awk -- 'NR == 1' data.txt",
    'awk -z',
    'awk -h',
    'awk -F',
    'awk -v',
    'awk -v x',
    "awk -v =1 'BEGIN {}'",
    'awk -f',
    'awk -f /nope',
    "printf '%s\\n' b a c | sort -r",
]


def _mawk() -> bool:
    if shutil.which("awk") is None:
        return False
    version = subprocess.run(["awk", "-W", "version"], capture_output=True, text=True)
    return version.stdout.startswith("mawk")


def _available(line: str) -> bool:
    tool = line.split()[0]
    if tool == "awk":
        return _mawk()
    return shutil.which(tool) is not None and shutil.which("bash") is not None


@pytest.mark.parametrize("line", CASES)
def test_same_output_as_the_real_tool(line: str, tmp_path: Path) -> None:
    if not _available(line):
        pytest.skip(f"{line.split()[0]} (or mawk) is not installed here")
    (tmp_path / "data.txt").write_text(DATA)
    real = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path,
                          env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    session = Session()
    session.execute("cd /tmp")
    session.shell.fs.write("/tmp/data.txt", DATA)
    assert session.execute(line) == (real.stdout + real.stderr, real.returncode)
