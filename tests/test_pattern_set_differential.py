"""`PatternSet` (runtime/pattern_set.py) against a plain loop of RE2 full matches, one text at a time.

The set joins a value's texts into one NUL-separated string, rewrites every pattern so that it
cannot cross a NUL, splits `*M*` patterns off as floating substrings whose hits are confirmed on
their own side, answers a plan's first few matches from a set of only the patterns whose literal
needle occurs in the texts, and falls back to one text at a time when a text or a pattern holds a
NUL. Each of those must give exactly the ids a reader gets by full-matching every pattern against
every text of its own side (`re2.compile(regex).fullmatch(text)`), which is what this file checks
on random patterns in the compiler's own dialect (plain globs and the shell, path, URL and generic
specifiers, case-sensitive and folded, `*` at both ends, empty and punctuation-only middles) and
random texts (NUL, the kinds' marker characters, newlines, tabs, CR, non-ASCII, case-folding pairs,
astral characters, texts longer than the few-match bound), with both sides overlapping or not.

Four sets per pattern list: as built by the plans (`few=FEW_MATCHES`, the split thresholds as
shipped), the floating split forced (`floating_from=1, split_product=1`), and each of them without
the few-match phase. Every set answers the same texts in the same order, so the few-match phase,
the switch to the full set and the confirmations are all crossed.
"""

from __future__ import annotations

import random

import re2
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from toolpolicy.runtime.kinds import glob
from toolpolicy.runtime.pattern_set import ALLOW, DENY, FEW_MATCHES, FEW_TEXT_BYTES, PatternSet
from toolpolicy.runtime.views import KINDS

GLOB_ATOMS = ["a", "b", "rm", " ", "/", ".", "-", "é", "\n", "*", "?", "[ab]", "[^a]", "[!b]", "\\*", "\\\\", "x",
              "ß", "日", "**", "~", ":", "@", "%", "{", "}", "(", ")", "|", "+", "$", "^"]  # fmt: skip
TEXT_ATOMS = ["a", "b", "rm", " ", "/", ".", "-", "é", "\n", "x", "ß", "SS", "日", "\\", "*", "A", "\x01", "\x02",
              "ab", "\u212a", "k", "K", "\r", "\t", "\U0001f600", "D", "~", ":", "|", "(", "ẞ", "ſ"]  # fmt: skip


def _glob(r: random.Random) -> str:
    g = "".join(r.choice(GLOB_ATOMS) for _ in range(r.randint(0, 5)))
    shape = r.random()
    if shape < 0.4:
        g = "*" + g + "*"
    elif shape < 0.5:
        g = "*" + g
    elif shape < 0.6:
        g = g + "*"
    return g


def _pattern(r: random.Random) -> str | None:
    g = _glob(r)
    fold = r.random() < 0.2
    try:
        if r.random() < 0.4:
            return glob.to_regex(g, fold=fold)
        kind = r.choice(["shell", "path", "url", "generic"])
        return KINDS[kind].compile_spec(g, fold=fold, policy_dir="/p", for_allow=r.random() < 0.5).regex
    except Exception:  # a glob the kind refuses: not a pattern any policy compiles
        return None


def _text(r: random.Random, nul: bool) -> str:
    atoms = TEXT_ATOMS + (["\x00"] if nul else [])
    text = "".join(r.choice(atoms) for _ in range(r.randint(0, 8)))
    if r.random() < 0.03:
        text = text + "a" * (FEW_TEXT_BYTES + 1) + text  # past the few-match bound
    return text


def _expected(patterns: list[tuple[str, str]], allow: list[str], deny: list[str]) -> list[int]:
    hits = []
    for i, (side, regex) in enumerate(patterns):
        compiled = re2.compile(regex)
        if any(compiled.fullmatch(t) for t in (allow if side == ALLOW else deny)):
            hits.append(i)
    return hits


def _check(r: random.Random) -> None:
    patterns: list[tuple[str, str]] = []
    while len(patterns) < r.randint(1, 16):
        regex = _pattern(r)
        if regex is not None:
            patterns.append((r.choice([ALLOW, DENY]), regex))
    sets = {
        "as planned": PatternSet(patterns, few=FEW_MATCHES),
        "floating": PatternSet(patterns, floating_from=1, split_product=1, few=FEW_MATCHES),
        "full": PatternSet(patterns),
        "floating, full": PatternSet(patterns, floating_from=1, split_product=1),
    }
    nul = r.random() < 0.15
    for _ in range(FEW_MATCHES + 4):
        allow = [_text(r, nul) for _ in range(r.randint(0, 3))]
        if r.random() < 0.7:  # the usual shape: the deny texts are the allow texts and more readings
            deny = allow + [_text(r, nul) for _ in range(r.randint(0, 2))]
        else:
            deny = [_text(r, nul) for _ in range(r.randint(0, 3))]
        want = _expected(patterns, allow, deny)
        for name, pset in sets.items():
            got = sorted(pset.match(allow, deny))
            assert got == want, (name, patterns, allow, deny)


@seed(7101)
@settings(max_examples=2000, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_pattern_sets_match_as_one_full_match_per_text(n: int) -> None:
    _check(random.Random(n))


def test_a_floating_middle_never_reaches_across_texts_or_onto_a_marker() -> None:
    """`[^\\0]M` in the joined string: `M` inside one text only, never the side marker."""
    patterns = [(DENY, "(?s).*ab.*"), (ALLOW, "(?s).*Aab.*"), (DENY, "(?s).*bDa.*"), (ALLOW, "(?s)x")]
    pset = PatternSet(patterns, floating_from=1, split_product=1)
    assert pset.floating, "the `*M*` patterns are split off"
    assert sorted(pset.match(["a"], ["b"])) == []  # "a" and "b" in two texts: no "ab"
    assert (
        sorted(pset.match(["ab"], [])) == []
    )  # "ab" on the allow side only; `Aab` is not the marker and a text
    assert sorted(pset.match(["Aab"], [])) == [1]
    assert sorted(pset.match([], ["ab"])) == [0]
    assert sorted(pset.match(["ab"], ["ab"])) == [0]
    assert sorted(pset.match(["x"], ["ab"])) == [0, 3]
    assert sorted(pset.match(["b"], ["a"])) == []  # the joined `\0Ab\0Da\0` never gives `bDa`
    assert sorted(pset.match([], ["b", "a"])) == []
    assert sorted(pset.match([], ["xbDay"])) == [2]
