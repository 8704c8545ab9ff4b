"""The one check of a hook matcher: a regex that Python's `re` reads and linear-time RE2 accepts.

Place in the pipeline: the compiler checks the matchers of native hook groups with it
(`compiler/passes.py`), the importers the matchers of foreign hooks (`formats/_common.py`); each
words the problem its own way (a located compile error, an import warning).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class MatcherProblem(NamedTuple):
    """Why a matcher cannot be used: `linear` is False when it is not a regex at all (`message` is
    `re`'s, at `offset`), True when it is one that needs backtracking (backreferences, lookaround)."""

    linear: bool
    message: str
    offset: int


def matcher_problem(pattern: str) -> MatcherProblem | None:
    """None when `pattern` is a regex both engines accept."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return MatcherProblem(False, exc.msg, exc.pos or 0)
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        return None
    try:
        re2.compile(pattern)
    except re2.error:
        return MatcherProblem(True, "backreferences or lookaround", 0)
    return None
