"""The shell view never hides a command that real bash runs (differential, against bash itself).

Each snippet runs in `/bin/bash` with an empty PATH and a `command_not_found_handle` that logs
the argv of every command bash tries to run; the commands are named `zqN` so none exists. For
every logged command, the view of the same text must have a deny text naming it: a deny rule on
that command would fire. The snippets are the constructs where parsers and bash disagree
(continuations, nested backquotes, heredocs, `case`, arithmetic, redirections before words),
plus seeded random compositions of them.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from toolpolicy.runtime.kinds.shell import view

BASH = shutil.which("bash", path="/bin:/usr/bin")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs /bin/bash")

HANDLER = 'command_not_found_handle() { printf "RAN:%s\\n" "$*" >&2; return 127; }\n'

SNIPPETS = [
    "zq1 a b",
    "zq1 && zq2 || zq3; zq4 | zq5 |& zq6 & zq7",
    "zq\\\n1 -rf /x",  # a continuation inside the command word
    "zq1 \\\n  zq2",  # a continuation between words: zq2 is an argument
    "echo a # comment \\\nzq1 y",  # a comment does not continue
    "echo 'a\\\nb'; zq1",
    'echo "a\\\nb"; z\\\nq1',
    "echo `echo \\`zq1 x\\``",
    "echo `zq1`; echo $(zq2 $(zq3))",
    'echo "${x:-`zq1 y`}" "${x:-$(zq2)}"',
    "x=$(zq1 || zq2); echo $x",
    'eval "$(zq1 activate bash &)"',
    "case x in x) zq1;; *) zq2;; esac",
    "case $(zq1) in a|b) zq2 ;; esac",
    "cat <<EOF\n$(zq1) `zq2` ${y:-$(zq3)}\nEOF\n",
    "cat <<'EOF'\n$(zq9)\nEOF\nzq1",
    'cat << "EOF X"\n$(zq9)\nEOF X\nzq1',
    "cat <<-EOF\n\t$(zq1)\n\tEOF\n",
    "zq1 <<< $(zq2)",
    "zq1 < <(zq2) > >(zq3)",
    "> out zq1 arg",
    "zq1 > out arg; zq2 2>&1 arg2",
    "{ zq1; zq2; } > out",
    "(zq1; (zq2))",
    "f() { zq1; }; f",
    "if zq1; then zq2; elif zq3; then zq4; else zq5; fi",
    "while zq1; do zq2; break; done",
    "until zq1; do zq2; break; done",
    "for i in a; do zq1 $i; done",
    "for i in $(zq1); do :; done",
    "for ((i=$(zq1); i<1; i++)); do zq2; done",
    "(( $(zq1) + 1 )); echo $(( $(zq2) + 1 ))",
    "x='a[$(zq1)]'; echo $((x))",
    "a[$(zq1)]=1",
    "[[ -n $(zq1) ]] && zq2",
    "! zq1",
    "time zq1",
    "coproc zq1",
    "export X=$(zq1); zq2",
    "declare -a y=($(zq1))",
    "x=1 y=2 zq1",
    "echo {a,b}; zq1",
    "zq1 {a,b}",
    "echo $'zq\\x31'; $'zq1' x",
    "z'q'1; \"zq\"2",
    "\\zq1",
    "zq1;zq2",
    "zq1&&zq2",
    "echo a#b; zq1 #c",
    "echo hi\nzq1\n\nzq2",
    "zq1 $(zq2 `zq3`)",
    "echo $(echo $(echo $(zq1)))",
    'echo "$(cat <<EOF\n$(zq1)\nEOF\n)"',
    "zq1 | while read l; do zq2; done",
    "echo x | zq1 -n 1 zq2",
    "trap 'zq9' USR1; zq1",
    # code bash evaluates later in the same text (the round-11 review): quoted subscripts given to
    # a builtin or an arithmetic context, `${x@P}`, `PS4` under `set -x`, a `mapfile` callback
    "[ -v 'a[$(zq1)]' ]; [[ -v 'a[$(zq2)]' ]]; [[ 'a[$(zq3)]' -eq 1 ]]; (( 'a[$(zq4)]' ))",
    "printf -v 'a[$(zq1)]' x; declare 'b[$(zq2)]=1'",
    "x='$(zq1 y)'; echo ${x@P}",
    "export PS4='$(zq1)'; set -x; true",
    "printf 'a\\nb\\n' | mapfile -t -c 1 -C 'zq1' arr",
]

ATOMS = ["zq{n}", "zq{n} a", "zq{n} 'q x'", 'zq{n} "$(zq{m})"', "zq{n} $(zq{m} b)", "zq{n} `zq{m}`"]
FORMS = [
    "{a} && {b}",
    "{a} || {b}",
    "{a}; {b}",
    "{a} | {b}",
    "( {a} ); {b}",
    "{{ {a}; }}; {b}",
    "if {a}; then {b}; fi",
    "x=$({a}); {b}",
    "echo ${{v:-$({a})}}; {b}",
    "{a} > out; {b} < out",
    "case k in k) {a};; esac; {b}",
    "f() {{ {a}; }}; f; {b}",
    "{a} \\\n&& {b}",
    "for i in 1; do {a}; done; {b}",
    "echo $(( 1 + $({a}) )); {b}",
]


def _random_snippets(count: int, seed: int = 1234) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = 10 + 3 * i
        a = rng.choice(ATOMS).format(n=n, m=n + 1)
        b = rng.choice(ATOMS).format(n=n + 2, m=n + 2)
        text = rng.choice(FORMS).format(a=a, b=b)
        if rng.random() < 0.3:
            text = rng.choice(FORMS).format(a=text, b=rng.choice(ATOMS).format(n=n + 9, m=n + 9))
        out.append(text)
    return out


def _bash_runs(snippet: str, cwd: Path) -> list[str]:
    """The argv (joined by spaces) of every command bash tried to run for `snippet`."""
    assert BASH is not None
    proc = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", HANDLER + snippet],
        cwd=cwd,
        env={"PATH": "/nonexistent", "HOME": str(cwd)},
        capture_output=True,
        text=True,
        timeout=10,
    )
    return [line[4:] for line in proc.stderr.splitlines() if line.startswith("RAN:")]


def _deny_words(snippet: str) -> set[str]:
    v = view(snippet)
    texts = [t for u in v.units for t in u.deny_texts]
    return {w for t in texts for w in t.split()}


@pytest.mark.parametrize("snippet", SNIPPETS + _random_snippets(150))
def test_every_command_bash_runs_is_seen(snippet: str, tmp_path: Path) -> None:
    ran = _bash_runs(snippet, tmp_path)
    seen = _deny_words(snippet)
    missing = [argv for argv in ran if argv.split()[0] not in seen]
    assert not missing, f"bash ran {missing} but the view shows only {sorted(seen)}"


def test_the_differential_sees_commands_at_all(tmp_path: Path) -> None:
    # INVARIANT: the harness itself works (a broken handler would make every case pass)
    assert _bash_runs("zq1 a; zq2", tmp_path) == ["zq1 a", "zq2"]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_the_constructs_are_analysed_not_opaque(snippet: str) -> None:
    # what bashlex could not parse (`case`, `$(a || b)`, `<< "EOF X"`, arithmetic, arrays) now parses;
    # the differential above is then about the parser, not the crude fallback for opaque text
    assert view(snippet).diagnostics == ()
