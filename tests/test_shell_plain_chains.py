"""Chains of plain commands (`a && b | c; d`) split without tree-sitter give exactly the walk's commands.

`parse_script` reads a text made only of plain commands joined by `&&`, `||`, `|` and `;` without
tree-sitter (`shell_parse._plain_chain`). For every such text here — the labelled corpus, the
benchmark's agent commands and a seeded generator of awkward tokens joined by operators (empty
parts, doubled operators, `;;`, reserved words, assignments, quotes holding operators) — the result
must equal the tree-sitter walk's, field by field, and what the chain path declines still parses
the general way.
"""

from __future__ import annotations

import random

import pytest

from command_corpus import load_corpus
from test_shell_plain import TOKENS, _walk, commands  # commands: bench/agent_commands.py
from toolpolicy.runtime.kinds.shell import view as shell_view
from toolpolicy.runtime.kinds.shell_parse import Unparseable, _plain_chain, parse_script

OPERATORS = ["&&", "||", "|", ";", " && ", " || ", " | ", "; ", " ;", ";;", "&&&", "|||", " & ", "|&", "&"]
MORE_TOKENS = [*TOKENS, "'a && b'", '"x | y"', "';'", "true", "false", "wc -l", "then", "esac", "{", "}"]
COMMON = ["git status", "ls -la src", "npm test", "wc -l", "grep -n x f.py", "echo 'a; b'", "cat README.md"]


def _texts() -> list[str]:
    rng = random.Random(12)
    generated = []
    for _ in range(8000):
        parts = [
            rng.choice(COMMON) + " " + " ".join(rng.choice(MORE_TOKENS) for _ in range(rng.randint(0, 2)))
            if rng.random() < 0.6
            else " ".join(rng.choice(MORE_TOKENS) for _ in range(rng.randint(0, 4)))
            for _ in range(rng.randint(2, 4))
        ]
        text = parts[0]
        for part in parts[1:]:
            text += rng.choice(OPERATORS) + part
        generated.append(text + rng.choice(["", " ", ";", " &&"]))
    corpus = [entry.cmd for entry in load_corpus()]
    return list(dict.fromkeys([*corpus, *commands(), *generated]))


def test_plain_chains_parse_as_the_tree_sitter_walk_does() -> None:
    taken = 0
    for text in _texts():
        chain = _plain_chain(text)
        if chain is None:
            continue
        taken += 1
        assert chain == _walk(text), text
    assert taken > 600  # the path is taken by many of these texts, so the check means something


@pytest.mark.parametrize(
    "text",
    [
        "ls",
        "a;",
        "a; ",
        "a && && b",
        "a;;b",
        "a & b",
        "a |& b",
        "x=1 && y",
        "time a | b",
        "a && $(b)",
        "a | b > f",
    ],
)
def test_chains_the_plain_path_declines_still_parse(text: str) -> None:
    assert _plain_chain(text) is None
    try:
        assert parse_script(text) == _walk(text)
    except Unparseable:
        assert isinstance(_walk(text), str)


def test_a_chain_is_split_into_its_commands() -> None:
    got = parse_script("git add . && git commit -m 'a && b' | tee log; ls")
    assert [c.raw for c in got] == ["git add .", "git commit -m 'a && b'", "tee log", "ls"]
    assert [w.value for w in got[1].words] == ["git", "commit", "-m", "a && b"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("text", ["a " + "|" * 80 + "$", "a " + "|" * 80 + "&", "a" + " || b" * 500 + " (("])
def test_a_run_of_operators_is_read_in_linear_time(text: str) -> None:
    # `|||...` splits into `||` and `|` exponentially many ways; a backtracking search of them would
    # not finish (fib(80) steps): the chain pattern is possessive, so this declines at once
    assert _plain_chain(text) is None
    assert shell_view(text).units[0].opaque
