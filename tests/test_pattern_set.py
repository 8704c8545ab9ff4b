"""`runtime/pattern_set.py`: one set match equals full-matching every pattern against every text
of its side, whether a pattern sits in the anchored set or in a floating (substring) set."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolpolicy.runtime.kinds import shell
from toolpolicy.runtime.kinds.glob import to_regex
from toolpolicy.runtime.pattern_set import ALLOW, DENY, PatternSet, floating_middle, joined

# globs over a small alphabet, so that patterns and texts meet often; the marker letters A and D
# (and a, d under case folding) are in it on purpose: a floating pattern must never match them
_GLOB_CHARS = st.sampled_from([*"aAdD x-.", "*", "*", "?", "[ad]", "[!x]"])
_TEXT = st.text(alphabet="aAdD x-.\n", max_size=12)


def _glob() -> st.SearchStrategy[str]:
    return st.lists(_GLOB_CHARS, min_size=1, max_size=6).map("".join)


def _expected(patterns: list[tuple[str, str]], allow: list[str], deny: list[str]) -> set[int]:
    hits = set()
    for i, (side, regex) in enumerate(patterns):
        texts = allow if side == ALLOW else deny
        if any(re.fullmatch(regex, t) for t in texts):
            hits.add(i)
    return hits


@settings(max_examples=400, deadline=None)
@given(
    globs=st.lists(
        st.tuples(st.sampled_from([ALLOW, DENY]), _glob(), st.booleans()), min_size=1, max_size=12
    ),
    allow=st.lists(_TEXT, max_size=3),
    deny=st.lists(_TEXT, max_size=4),
)
def test_set_match_is_full_match_per_side(
    globs: list[tuple[str, str, bool]], allow: list[str], deny: list[str]
) -> None:
    patterns = [(side, to_regex(g, fold=fold)) for side, g, fold in globs]
    for floating_from in (1, 8):  # floating patterns split off, and all in one set
        pset = PatternSet(patterns, floating_from=floating_from, split_product=0)
        assert set(pset.match(allow, deny)) == _expected(patterns, allow, deny)
        assert set(pset.match(allow, deny, joined(allow, deny))) == _expected(patterns, allow, deny)


def test_floating_patterns_leave_the_anchored_set() -> None:
    patterns = [(DENY, to_regex("*secret*")), (DENY, to_regex("* *paste.ee*")), (ALLOW, to_regex("git *"))]
    pset = PatternSet(patterns, floating_from=1, split_product=0)
    assert {side for side, _ in pset._float.values()} == {DENY}  # both floating, neither anchored
    assert set(pset.match(["git status"], ["git status", "cat secret.txt"])) == {0, 2}
    assert set(pset.match(["git x"], ["curl https://paste.ee/x"])) == {1, 2}
    assert set(pset.match(["secret"], ["git x"])) == set()  # an allow text never meets a deny pattern


@pytest.mark.parametrize(
    ("regex", "split"),
    [
        ("(?s).*abc.*", True),
        ("(?is).*\\x20.*paste\\.ee.*", True),
        ("(?s).*", False),  # matches the empty text
        ("(?s).*.*", False),
        ("(?s).*a|b.*", False),  # top-level alternation
        ("(?s).*a*b.*", False),  # first atom optional
        ("(?s).*[ab].*", False),  # first atom a class
        ("(?s).*a$.*", False),
        ("(?s).*a\\z.*", False),
        ("(?s).*a\\.*", False),  # the last dot is a literal
        ("(?s)git .*", False),
        ("(?i).*abc.*", False),  # no `s`: `.` stops at newlines
    ],
)
def test_floating_middle(regex: str, split: bool) -> None:
    assert (floating_middle(regex) is not None) is split


def test_a_few_floating_patterns_stay_in_one_set() -> None:
    pset = PatternSet([(DENY, to_regex("*secret*")), (ALLOW, to_regex("git *"))])
    assert not pset._float
    assert set(pset.match(["git x"], ["cat secret"])) == {0, 1}


def test_shell_specifiers_with_many_floating_rules_agree() -> None:
    """Thousands of rules with substring patterns, as packs and token denies give: the set match
    equals the per-text full match on real shell views."""
    specs = (
        [f"* *tok_{i:04d}*" for i in range(300)]
        + [f"tool_{i} *" for i in range(300)]
        + ["git push *", "rm -rf *"]
    )
    patterns = [(DENY if n % 3 else ALLOW, shell.compile_spec(s).regex) for n, s in enumerate(specs)]
    pset = PatternSet(patterns, split_product=0)
    assert pset._float
    assert not PatternSet(patterns)._float  # 300 x 302: one set while its DFA fits
    for command in [
        "echo tok_0042 && tool_7 run",
        "git push origin main",
        "ls tok_0299x",
        "tool_12 x; rm -rf /",
    ]:
        view = shell.view(command)
        for unit in view.units:
            deny = list(unit.deny_texts + view.whole)
            assert set(pset.match(unit.allow_texts, deny)) == _expected(
                patterns, list(unit.allow_texts), deny
            )
