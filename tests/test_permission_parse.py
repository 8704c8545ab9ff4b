"""The regular-expression parser of permission expressions agrees with the Lark grammar.

`grammar/permission.py` parses well-formed expressions with one regex and leaves the rest to the
Lark parser of `permission.lark` (for its located errors). On generated expressions over the
characters that matter (`:`, `=`, `(`, `)`, `|`, blanks, word characters) both must give the
same tree, spans included, or both must refuse.
"""

from __future__ import annotations

import random

import pytest

from toolpolicy.grammar import ExprError
from toolpolicy.grammar.permission import _build, _parse_regular, _parse_tree, parse_permission

ALPHABET = [
    "a",
    "b",
    "Z",
    "_",
    "1",
    ":",
    "=",
    "(",
    ")",
    "|",
    " ",
    "\n",
    "*",
    "/",
    ".",
    "-",
    "é",
    ":x=",
    "(*)",
]


def _lark(text: str) -> object:
    try:
        return _build(_parse_tree(text), text)
    except ExprError:
        return None


def _spans(p: object) -> object:
    if p is None:
        return None
    return (
        p.tools,  # type: ignore[attr-defined]
        [t.span for t in p.tools],  # type: ignore[attr-defined]
        p.conditions,  # type: ignore[attr-defined]
        [(c.span, c.value_span) for c in p.conditions],  # type: ignore[attr-defined]
        p.call_spec,  # type: ignore[attr-defined]
        p.call_spec.span if p.call_spec else None,  # type: ignore[attr-defined]
        p.text,  # type: ignore[attr-defined]
    )


KNOWN = [
    "Bash",
    "Bash(npm run test:*)",
    "Read(./src/**)",
    "Agent(model:opus)",
    "shell:cmd=*sudo*",
    "mcp:github:*:repo=acme/*",
    "fetch:url=https://x/*",
    "a|b|c",
    "a|b(x)",
    "t:k=",
    "t:k=:j=v",
    "Bash(a)(b)",
    "Bash(x",
    "Bash)",
    "a||b",
    "|a",
    "a|",
    "a b",
    "Bash()",
    "x:y=1:z=(2)",
    "mcp__db__query(sql:*DROP*)",
]


@pytest.mark.parametrize("text", KNOWN)
def test_known_expressions(text: str) -> None:
    assert _spans(_parse_regular(text)) == _spans(_lark(text))


def test_generated_expressions() -> None:
    rng = random.Random(20261124)
    parsed = 0
    for _ in range(4000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))
        fast, slow = _parse_regular(text), _lark(text)
        assert _spans(fast) == _spans(slow), text
        parsed += fast is not None
    assert parsed > 300  # the generator reaches well-formed expressions, not only errors


def test_errors_still_come_from_the_grammar() -> None:
    with pytest.raises(ExprError, match="unclosed"):
        parse_permission("Bash(x")


def test_a_tool_glob_that_case_folding_empties_is_a_located_error() -> None:
    """`[L-[]` is a valid range, but a case-insensitive policy folds tool globs (`[l-[]`, empty):
    a located error, never the glob parser's exception (the atheris permission target found it)."""
    from toolpolicy import load_policy
    from toolpolicy.errors import PolicyError

    text = 'version: 1\nglob: {case: insensitive}\npermissions:\n  allow: ["Bas[L-[]"]\n'
    with pytest.raises(PolicyError) as caught:
        load_policy(text=text)
    assert ":4:12:" in str(caught.value) and "case-folded" in str(caught.value)
    load_policy(text=text.replace("insensitive", "sensitive"))  # the same glob, unfolded, is valid
