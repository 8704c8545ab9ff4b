"""The one glob module: parsed once into elements; `to_regex` and `match` agree; `display`, `escape`
and `unescape` are the way back to glob text; every user of plain globs goes through it."""

from __future__ import annotations

from pathlib import Path

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from toolpolicy.runtime.kinds import glob
from toolpolicy.runtime.kinds.glob import ANY, STAR, GlobClass, GlobError

ALPHABET = "ab/.*?[]^-\\ Kk\u017f\n"
SRC = Path(__file__).resolve().parents[1] / "src" / "toolpolicy"


def _valid(text: str) -> bool:
    try:
        glob.parse(text)
    except GlobError:
        return False
    return True


globs = st.text(ALPHABET, max_size=10).filter(_valid)


def test_a_glob_is_parsed_once() -> None:
    first = glob.parse("src/*.py")
    assert glob.parse("src/*.py") is first  # memoised, and immutable: safe to share
    assert first == ("s", "r", "c", "/", STAR, ".", "p", "y")
    assert glob.parse("a**?[^x-z]") == ("a", STAR, ANY, GlobClass(True, (("x", "z"),)))


@pytest.mark.parametrize(
    ("text", "offset"),
    [("ab\\", 2), ("[abc", 0), ("x[z-a]", 2)],
    ids=["trailing escape", "unclosed", "range"],
)
def test_malformed_globs_say_where(text: str, offset: int) -> None:
    with pytest.raises(GlobError) as info:
        glob.parse(text)
    assert info.value.offset == offset
    assert glob.has_wildcard(text)  # a malformed glob never counts as a literal


@settings(max_examples=300, deadline=None)
@given(globs, st.text(ALPHABET, max_size=8), st.booleans())
def test_match_and_to_regex_agree(pattern: str, text: str, fold: bool) -> None:
    regex = re2.compile(glob.to_regex(pattern, fold=fold))
    assert glob.match(pattern, text, fold=fold) == (regex.fullmatch(text) is not None)


@settings(max_examples=300, deadline=None)
@given(globs)
def test_display_is_the_way_back_to_glob_text(pattern: str) -> None:
    elems = glob.parse(pattern)
    assert glob.parse(glob.display(elems)) == elems


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=12))
def test_escape_matches_the_text_and_nothing_else(text: str) -> None:
    pattern = glob.escape(text)
    assert not glob.has_wildcard(pattern)
    assert glob.unescape(pattern) == text
    assert glob.match(pattern, text)
    assert glob.match(pattern, text + "x") is False


def test_unescape_refuses_wildcards() -> None:
    assert glob.unescape(r"mcp\_\*") == "mcp_*"
    with pytest.raises(GlobError):
        glob.unescape("mcp_*")


def test_literal_prefix_stops_at_the_first_wildcard() -> None:
    assert glob.literal_prefix(r"git\*x*y") == "git*x"


def test_nothing_else_escapes_plain_globs() -> None:
    """Plain-glob escaping written out by hand anywhere but the glob module would be a second home.
    (The shell kind's bash globs also escape `{}`: another language.)"""
    hand_written = ('c in "*?[]\\\\"', r"[*?\[\]\\]")
    found = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p.name != "glob.py" and any(h in p.read_text(encoding="utf-8") for h in hand_written)
    ]
    assert found == []
