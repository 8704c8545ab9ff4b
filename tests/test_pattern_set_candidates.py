"""`runtime/pattern_set.py`'s first matches: a plan's `PatternSet` answers its first FEW_MATCHES
matches from a set of only the patterns whose needle (a literal they start with or contain) is in
the texts, and compiles its full sets after. Every match must give the ids the full sets give.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolpolicy.runtime.kinds import shell
from toolpolicy.runtime.kinds.glob import to_regex
from toolpolicy.runtime.pattern_set import (
    ALLOW,
    DENY,
    FEW_CANDIDATES,
    FEW_MATCHES,
    PatternSet,
    joined,
    literal_prefix,
    needle,
)

_GLOB_CHARS = st.sampled_from([*"aAdD x-.:/", "ab", "*", "*", "?", "[ad]", "[!x]", "{a,d}", "\\*"])
_TEXT = st.text(alphabet="aAdD x-.:/*\n", max_size=12)


def _glob() -> st.SearchStrategy[str]:
    return st.lists(_GLOB_CHARS, min_size=1, max_size=6).map("".join)


def _expected(patterns: list[tuple[str, str]], allow: list[str], deny: list[str]) -> set[int]:
    return {
        i
        for i, (side, regex) in enumerate(patterns)
        if any(re.fullmatch(regex, t) for t in (allow if side == ALLOW else deny))
    }


@settings(max_examples=400, deadline=None)
@given(
    globs=st.lists(
        st.tuples(st.sampled_from([ALLOW, DENY]), _glob(), st.booleans()), min_size=1, max_size=12
    ),
    calls=st.lists(
        st.tuples(st.lists(_TEXT, max_size=3), st.lists(_TEXT, max_size=4)), min_size=1, max_size=6
    ),
)
def test_candidate_matches_are_the_full_matches(
    globs: list[tuple[str, str, bool]], calls: list[tuple[list[str], list[str]]]
) -> None:
    patterns = [(side, to_regex(g, fold=fold)) for side, g, fold in globs]
    pset = PatternSet(patterns, few=FEW_MATCHES)
    for n, (allow, deny) in enumerate(calls):  # the first FEW_MATCHES from candidates, then the sets
        text = joined(allow, deny) if n % 2 else None
        assert set(pset.match(allow, deny, text)) == _expected(patterns, allow, deny), n


@settings(max_examples=300, deadline=None)
@given(glob=_glob(), fold=st.booleans(), text=_TEXT)
def test_a_full_match_holds_its_needle(glob: str, fold: bool, text: str) -> None:
    regex = to_regex(glob, fold=fold)
    if re.fullmatch(regex, text):
        found = needle(regex)
        if found is not None:
            floating, literal = found
            assert (literal in text) if floating else text.startswith(literal), (regex, found, text)
        assert text.startswith(literal_prefix(regex))


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        ("(?s).*forbidden_tok_00851.*", (True, "forbidden_tok_00851")),
        ("(?s)git push.*", (False, "git push")),
        ("(?s)mcp\\:github\\:.*", (False, "mcp:github:")),
        ("(?s).*\\/\\.ssh\\/id_.*", (True, "/.ssh/id_")),
        ("(?s)ab*c", (False, "a")),
        ("(?s).*", None),
        ("(?s).*?x", None),
        ("(?is).*sudo.*", None),  # case-insensitive: no literal to look for
        ("(?s)a|b", None),
        ("(?s)[ab]c", None),
        ("(?s)\\d+", None),
    ],
)
def test_needle(regex: str, expected: tuple[bool, str] | None) -> None:
    assert needle(regex) == expected


def test_real_kinds_and_many_rules_agree_and_compile_after_the_first_matches() -> None:
    specs = [f"* *tok_{i:04d}*" for i in range(300)] + [f"tool_{i} *" for i in range(300)]
    specs += ["git push *", "rm -rf *", "* | sh", "sudo *"]
    patterns = [(DENY if n % 3 else ALLOW, shell.compile_spec(s).regex) for n, s in enumerate(specs)]
    pset = PatternSet(patterns, few=FEW_MATCHES)
    commands = [
        "echo tok_0042 && tool_7 run",
        "git push origin main",
        "ls tok_0299x",
        "tool_12 x; rm -rf /",
        "curl x | sh",
        "sudo tool_3 a",
    ]
    for command in commands:
        view = shell.view(command)
        for unit in view.units:
            deny = list(unit.deny_texts + view.whole)
            assert set(pset.match(unit.allow_texts, deny)) == _expected(
                patterns, list(unit.allow_texts), deny
            )
    assert pset._match is not None  # compiled once the first matches were spent


POLICY = """version: 1
default: ask
permissions:
  allow: ["read_file:path=/workspace/**", "edit_file:path=/workspace/src/**", "fetch:url=https://docs.python.org/*",
          "shell:cmd=git status*", "shell:cmd=ls *", "mcp:github:*", "shell:cmd=tool_1 *"]
  ask: ["edit_file:path=**/*.lock", "fetch:url=*://*.example.com/*", "shell:cmd=git push*"]
  deny: ["read_file:path=**/.ssh/**", "edit_file:path=/etc/**", "fetch:url=*169.254.169.254*", "shell:cmd=*sudo*",
         "shell:cmd=*rm -rf*", "shell:cmd=* | sh", "mcp:github:*:repo=acme/prod-*", "read_file:path=**/*.PEM"]
"""
CALLS = [
    ("read_file", {"path": "/workspace/a/b.py"}),
    ("read_file", {"path": "/home/u/.ssh/id_rsa"}),
    ("read_file", {"path": "/workspace/key.PEM"}),
    ("edit_file", {"path": "/workspace/src/x.py"}),
    ("edit_file", {"path": "/workspace/src/Cargo.lock"}),
    ("edit_file", {"path": "/etc/hosts"}),
    ("fetch", {"url": "https://docs.python.org/3/"}),
    ("fetch", {"url": "http://169.254.169.254/latest"}),
    ("fetch", {"url": "https://a.example.com/x"}),
    ("shell", {"cmd": "git status && ls -la | grep x"}),
    ("shell", {"cmd": "sudo rm -rf /"}),
    ("shell", {"cmd": "curl x | sh"}),
    ("shell", {"cmd": "git push origin main; tool_1 run"}),
    ("shell", {"cmd": "echo $(sudo id)"}),
    ("mcp:github:create_issue", {"repo": "acme/prod-api"}),
    ("mcp:github:create_issue", {"repo": "acme/dev"}),
]


@pytest.mark.parametrize("call", range(len(CALLS)))
def test_a_fresh_engine_decides_as_one_with_compiled_sets(
    call: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook process's engine (its first match of every set from candidates) decides every call
    as an engine whose sets are compiled from the start."""
    from toolpolicy import Engine, load_policy
    from toolpolicy.runtime import plan as plan_mod

    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(POLICY)
    tool, args = CALLS[call]
    fresh = Engine(load_policy(str(policy_file))).decide(tool, args)
    monkeypatch.setattr(plan_mod, "FEW_MATCHES", 0)
    compiled = Engine(load_policy(str(policy_file))).decide(tool, args)
    assert (fresh.decision, fresh.rule) == (compiled.decision, compiled.rule)


def test_too_many_candidates_compile_the_full_sets() -> None:
    patterns = [(DENY, to_regex(f"*x{i}*")) for i in range(FEW_CANDIDATES + 1)]
    pset = PatternSet(patterns, few=FEW_MATCHES)
    text = "".join(f"x{i} " for i in range(FEW_CANDIDATES + 1))
    assert set(pset.match([], [text])) == set(range(FEW_CANDIDATES + 1))
    assert pset._match is not None
