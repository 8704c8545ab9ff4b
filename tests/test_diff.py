"""Glob-language analysis (toolpolicy.analysis) and `policy diff`.

The analyser is tested against brute force (every short string) and against the engine: a
change it reports must be a real call decided differently, and swapping OLD and NEW must swap
the direction (cedar-spec#852: analysis tools need tests of their own).
"""

from __future__ import annotations

import itertools
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from toolpolicy import Engine, load_policy
from toolpolicy.analysis.diff import diff_policies
from toolpolicy.analysis.glob_lang import (
    Glob,
    Undecided,
    difference_witness,
    explore,
    included,
    intersection_witness,
)
from toolpolicy.cli import cli

# ---- glob languages against brute force ---------------------------------------------------------------

ALPHABET = "abc"
STRINGS = ["".join(p) for n in range(6) for p in itertools.product(ALPHABET, repeat=n)]
glob_texts = st.lists(st.sampled_from(["a", "b", "*", "?", "[ab]", "[^a]", "c"]), min_size=0, max_size=5).map(
    "".join
)


@settings(max_examples=150, deadline=None)
@given(st.lists(glob_texts, min_size=1, max_size=3))
def test_signatures_are_exact(texts: list[str]) -> None:
    globs = [Glob(t) for t in texts]
    exp = explore(globs)
    for sig, word in exp.witnesses.items():
        assert {i for i, g in enumerate(globs) if g.matches(word)} == set(sig)
    for s in STRINGS:
        assert frozenset(i for i, g in enumerate(globs) if g.matches(s)) in exp.witnesses


@settings(max_examples=150, deadline=None)
@given(glob_texts, glob_texts)
def test_inclusion_and_intersection(a: str, b: str) -> None:
    ga, gb = Glob(a), Glob(b)
    witness = difference_witness(ga, [gb])
    if witness is not None:
        assert ga.matches(witness) and not gb.matches(witness)
    else:
        assert not any(ga.matches(s) and not gb.matches(s) for s in STRINGS)
    common = intersection_witness(ga, gb)
    if common is not None:
        assert ga.matches(common) and gb.matches(common)
    else:
        assert not any(ga.matches(s) and gb.matches(s) for s in STRINGS)


@pytest.mark.parametrize(
    ("inner", "outer", "expected"),
    [
        ("git push *", ["git *"], True),
        ("git *", ["git push *"], False),
        ("a*", ["a", "a?*"], True),
        ("a*c", ["a*b*c"], False),
        ("a*b*c", ["a*c"], True),
        ("[a-c]x", ["ax", "bx", "cx"], True),
        ("[a-d]x", ["ax", "bx", "cx"], False),
        ("*", ["[^x]*", "x*"], False),  # not the empty string
        ("*", ["[^x]*", "x*", ""], True),
    ],
)
def test_included(inner: str, outer: list[str], expected: bool) -> None:
    assert included(Glob(inner), [Glob(o) for o in outer]) is expected


def test_case_folding() -> None:
    assert included(Glob("GIT *", fold=True), [Glob("git *", fold=True)])
    assert not included(Glob("GIT *"), [Glob("git *")])
    assert included(Glob("K", fold=True), [Glob("[k]", fold=True)])  # the Kelvin sign folds too
    assert Glob("k", fold=True).matches("\u212a") is included(Glob("\u212a"), [Glob("k", fold=True)])


def test_bounds_raise_undecided() -> None:
    with pytest.raises(Undecided):
        explore([Glob("*a*b*c*d*"), Glob("*b*a*d*c*"), Glob("*c*d*a*b*")], max_states=10)


def test_witnesses_are_readable() -> None:
    assert difference_witness(Glob("git *"), [Glob("git push *")]) == "git "
    assert intersection_witness(Glob("git *"), Glob("*;*")) == "git ;"


# ---- policy diff -----------------------------------------------------------------------------------------


def policies(tmp_path: Path, old: str, new: str) -> tuple[Any, Any]:
    (tmp_path / "old.yaml").write_text(textwrap.dedent(old))
    (tmp_path / "new.yaml").write_text(textwrap.dedent(new))
    return load_policy(tmp_path / "old.yaml"), load_policy(tmp_path / "new.yaml")


def by_tool(result: Any) -> dict[str, Any]:
    return {td.tool.name: td for td in result.tools}


BASE = """\
    version: 1
    permissions:
      deny: ["probe:cmd=*sudo*"]
      ask: ["probe:cmd=git push*"]
      allow: ["probe:cmd=git *"]
"""

TABLE = [
    ("identical", BASE, BASE, "equivalent"),
    (
        "an allow added",
        BASE,
        BASE.replace('["probe:cmd=git *"]', '["probe:cmd=git *", "probe:cmd=ls"]'),
        "more permissive",
    ),
    (
        "a deny added",
        BASE,
        BASE.replace('["probe:cmd=*sudo*"]', '["probe:cmd=*sudo*", "probe:cmd=git rm*"]'),
        "less permissive",
    ),
    (
        "ask removed, deny widened",
        BASE,
        BASE.replace('ask: ["probe:cmd=git push*"]', "ask: []").replace(
            '"probe:cmd=*sudo*"', '"probe:cmd=*su*"'
        ),
        "incomparable",
    ),
    (
        "rewritten but equivalent",
        BASE,
        BASE.replace('"probe:cmd=git *"', '"probe:cmd=git *", "probe:cmd=git [a-z]*"'),
        "equivalent",
    ),
    (
        "priority flips a decision",
        BASE,
        BASE + '    rules:\n      - {decision: allow, match: "probe:cmd=git push --dry-run", priority: 1}\n',
        "more permissive",
    ),
    (
        "a second argument",
        BASE,
        BASE.replace('["probe:cmd=git *"]', '["probe:cmd=git *", "probe:cmd=ls:dir=/tmp"]'),
        "more permissive",
    ),
]


@pytest.mark.parametrize(("old", "new", "change"), [pytest.param(o, n, c, id=i) for i, o, n, c in TABLE])
def test_diff_table(tmp_path: Path, old: str, new: str, change: str) -> None:
    p_old, p_new = policies(tmp_path, old, new)
    td = by_tool(diff_policies(p_old, p_new))["probe"]
    assert td.change == change and td.exact, td
    for ex in td.examples:  # every example is a real call, decided as reported
        assert Engine(p_old, hooks=False).decide("probe", ex.args).decision == ex.old.decision
        assert Engine(p_new, hooks=False).decide("probe", ex.args).decision == ex.new.decision
    if change != "equivalent":
        assert td.examples
    flipped = {"more permissive": "less permissive", "less permissive": "more permissive"}.get(change, change)
    assert by_tool(diff_policies(p_new, p_old))["probe"].change == flipped


def test_example_is_the_concrete_difference(tmp_path: Path) -> None:
    p_old, p_new = policies(
        tmp_path, BASE, BASE.replace('"probe:cmd=git *"', '"probe:cmd=git *", "probe:cmd=ls"')
    )
    (ex,) = by_tool(diff_policies(p_old, p_new))["probe"].examples
    assert ex.args == {"cmd": "ls"} and (ex.old.decision, ex.new.decision) == ("ask", "allow")


def test_unnamed_tools_by_glob(tmp_path: Path) -> None:
    p_old, p_new = policies(
        tmp_path,
        """\
        version: 1
        permissions: {allow: ["mcp__gh__*"]}
    """,
        """\
        version: 1
        permissions: {allow: ["mcp__gh__*"], deny: ["mcp__gh__delete*"]}
    """,
    )
    result = diff_policies(p_old, p_new)
    (changed,) = result.changed()
    assert not changed.tool.named and changed.tool.globs == ("mcp__gh__*", "mcp__gh__delete*")
    assert changed.change == "less permissive" and changed.examples[0].tool.startswith("mcp__gh__delete")


def test_default_change_reaches_every_tool(tmp_path: Path) -> None:
    p_old, p_new = policies(tmp_path, "version: 1\n", "version: 1\ndefault: allow\n")
    result = diff_policies(p_old, p_new)
    assert result.settings == {"default": ("ask", "allow")}
    other = next(td for td in result.tools if not td.tool.named and not td.tool.globs)
    assert other.change == "more permissive" and other.exact
    # read-only, but a call without its path is not allowed by the hint: it meets the default
    reader = by_tool(result)["read_file"]
    assert reader.change == "more permissive"


def test_kind_semantics_are_approximate_but_verified(tmp_path: Path) -> None:
    p_old, p_new = policies(
        tmp_path,
        """\
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(git *)"]}
    """,
        """\
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(git *)"], deny: ["Bash(git push *)"]}
    """,
    )
    td = by_tool(diff_policies(p_old, p_new))["Bash"]
    assert not td.exact and td.change == "less permissive"
    assert any("approximate" in n for n in td.notes)
    ex = td.examples[0]
    assert Engine(p_new, hooks=False).decide("Bash", ex.args).decision == "deny"


def test_when_is_approximate(tmp_path: Path) -> None:
    rule = "    rules:\n      - {decision: deny, match: probe, when: 'has(args.cmd) && args.cmd.contains(\"f\")'}\n"
    p_old, p_new = policies(tmp_path, BASE, BASE + rule)
    td = by_tool(diff_policies(p_old, p_new))["probe"]
    assert not td.exact


def _diff_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(cli, ["diff", "old.yaml", "new.yaml", *args], catch_exceptions=False)


def test_cli_text_json_and_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policies(tmp_path, BASE, BASE.replace('"probe:cmd=git *"', '"probe:cmd=git *", "probe:cmd=ls"'))
    text = _diff_cli(tmp_path, monkeypatch)
    assert text.exit_code == 0
    assert (
        '`probe`: more permissive\n  {"tool": "probe", "args": {"cmd": "ls"}}: ask (default) -> allow '
        "(permissions.allow[1])" in text.stdout
    )
    assert "1 of " in text.stdout and "changed: 1 more permissive" in text.stdout
    data = json.loads(_diff_cli(tmp_path, monkeypatch, "--format", "json").stdout)
    assert data["more_permissive"] is True
    probe = next(t for t in data["tools"] if t["tool"] == "probe")
    assert probe["examples"][0]["call"] == {"tool": "probe", "args": {"cmd": "ls"}}
    assert probe["examples"][0]["new"]["rule"] == "permissions.allow[1]"
    assert _diff_cli(tmp_path, monkeypatch, "--exit-code").exit_code == 1


def test_cli_less_permissive_exits_zero_with_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policies(tmp_path, BASE, BASE.replace('allow: ["probe:cmd=git *"]', "allow: []"))
    assert _diff_cli(tmp_path, monkeypatch, "--exit-code").exit_code == 0


def test_cli_broken_policy_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "old.yaml").write_text(textwrap.dedent(BASE))
    (tmp_path / "new.yaml").write_text("version: 2\n")
    result = _diff_cli(tmp_path, monkeypatch)
    assert result.exit_code == 2 and "policy_schema_error" in result.stderr
