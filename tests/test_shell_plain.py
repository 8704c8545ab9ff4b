"""The plain-command path of `shell_parse.parse_script` gives exactly what the tree-sitter walk gives.

`parse_script` reads a text made only of plain words, quoted strings that expand nothing and
spaces without tree-sitter (`_plain_command`). For every such text here — the labelled corpus,
the benchmark's agent commands and a seeded generator of awkward tokens (reserved words,
assignments, quotes, options, numbers) — the result must equal the walk's, field by field, and
texts the plain path declines must still parse the general way.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from command_corpus import load_corpus
from toolpolicy.runtime.kinds import shell_parse
from toolpolicy.runtime.kinds.shell_parse import Unparseable, _plain_command, parse_script

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from agent_commands import commands  # noqa: E402

TOKENS = [
    "git",
    "status",
    "ls",
    "-la",
    "--all",
    "--x=y",
    "-n",
    "5",
    "0",
    "a+=b",
    "FOO=1",
    "_X=",
    "1a=b",
    'x="a b"',
    "'it''s'",
    '"a b"',
    "'a|b;c'",
    '"(x)"',
    "'$(rm x)'",
    '"é"',
    "if",
    "then",
    "time",
    "in",
    "do",
    "done",
    "function",
    "coproc",
    "case",
    "select",
    "%",
    "^x",
    "=x",
    ":",
    "-",
    "--",
    "a.b/c",
    "@x",
    "x,y",
    "+1",
    "a,b",
    "a:",
    "::",
    ":x",
    "-a:b",
    "a.b:c",
    "':'",
    '"a:b"',
    "A='q'",
    "++",
    "..",
    "ab@",
    "%a",
    "a%x",
    "a@b",
    "x^y",
    "+%Y",
    "@",
    "%",
    "^",
    "%done",
    "a%",
    "x@",
    "a:b",
    "x,y=z",
    "-x=1",
    "--=",
    "==",
    '""',
    "''",
    "'\n'",
    '"a\nb"',
    "src/",
    "./run.sh",
    "/bin/ls",
    "rm",
    "sudo",
    "bash",
    "-c",
    "echo",
]


def _walk(text: str) -> list[shell_parse.Command] | str:
    try:
        tree = shell_parse._parse(text)
    except Unparseable as exc:
        return f"unparseable: {exc}"
    walker = shell_parse._Walker(text, tree)
    walker.statements(tree.root_node, 0, shell_parse._NO_REDIRS, 0)
    return walker.out


def _texts() -> list[str]:
    rng = random.Random(11)
    generated = [
        (" " * rng.randint(0, 2)).join(rng.choice(TOKENS) for _ in range(rng.randint(1, 6)))
        + " " * rng.randint(0, 1)
        for _ in range(6000)
    ]
    corpus = [entry.cmd for entry in load_corpus()]
    return list(dict.fromkeys([*corpus, *commands(), *generated]))


def test_plain_commands_parse_as_the_tree_sitter_walk_does() -> None:
    taken = 0
    for text in _texts():
        plain = _plain_command(text)
        if plain is None:
            continue
        taken += 1
        assert plain == _walk(text), text
    assert taken > 2000  # the path is taken by most of these texts, so the check means something


@pytest.mark.parametrize(
    "text",
    [
        "x=1",
        "x=1 y=2",
        "time ls",
        "if true",
        "ls; rm x",
        "ls | wc",
        "echo $HOME",
        "ls *.py",
        "a\\\nb",
        "",
        "  ",
    ],
)
def test_texts_the_plain_path_declines_still_parse(text: str) -> None:
    assert _plain_command(text) is None
    if "\\\n" in text:  # parse_script joins line continuations first (see shell_parse)
        assert [c.words for c in parse_script(text)] == [
            c.words for c in parse_script(text.replace("\\\n", ""))
        ]
        return
    try:
        assert parse_script(text) == _walk(text)
    except Unparseable:
        assert isinstance(_walk(text), str)
