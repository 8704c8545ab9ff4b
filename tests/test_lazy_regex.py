"""`vocabulary.lazy_regex`: a module-level pattern compiled on first use behaves as `re.compile`'s."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from toolpolicy.vocabulary.lazy_regex import LazyPattern, lazy_compile


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    source, flags = r"(?P<word>[a-z]+)=(\d+)", re.I
    lazy, real = lazy_compile(source, flags), re.compile(source, flags)
    assert isinstance(lazy, LazyPattern) and "_source" in vars(lazy) and "search" not in vars(lazy)
    text = "A=1 bb=22 ccc=x"
    assert lazy.search(text).group("word") == real.search(text).group("word")  # type: ignore[union-attr]
    assert "search" in vars(lazy)  # compiled once, its methods copied onto the instance
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("-", text) == real.sub("-", text) and lazy.split(text) == real.split(text)
    assert lazy.findall(text) == real.findall(text) and lazy.subn("", text) == real.subn("", text)
    assert lazy.match("a=1") and lazy.fullmatch("a=1") and not lazy.fullmatch("a=1 ")
    assert (lazy.pattern, lazy.flags, lazy.groups, dict(lazy.groupindex)) == (
        real.pattern,
        real.flags,
        real.groups,
        dict(real.groupindex),
    )


def test_a_bad_pattern_fails_at_first_use_and_protocol_probes_do_not_compile() -> None:
    bad = lazy_compile("(")
    assert not hasattr(bad, "__deepcopy__") and "search" not in vars(bad)
    with pytest.raises(re.error):
        bad.search("x")


def test_hook_path_modules_compile_no_regex_they_do_not_use() -> None:
    """Importing the runtime for a hook compiles only the patterns json and the kinds use on every call."""
    probe = (
        "import re, sys\n"
        "import toolpolicy.runtime.engine, toolpolicy.adapters.claude_code, toolpolicy.runtime.kinds.shell\n"
        "mine = [k for k in re._cache if isinstance(k[1], str) and '\\ud800' in k[1]]\n"
        "print(len(mine))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert (
        done.stdout.strip() == "0"
    )  # the surrogate class (views, shell) is compiled only for non-ASCII text
