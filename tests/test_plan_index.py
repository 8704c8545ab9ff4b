"""The tool level of the index (`runtime/plan.py` `Index`): which tool globs match a tool name.

A process that looks up a few names (a hook looks up one) matches each against a small RE2 set of
the globs whose literal prefix the name starts with; later lookups use the set of all globs. Both
must give exactly the globs the full set gives, for every name; the literal prefixes are derived
once and kept in the compiled-policy cache.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import re2

from toolpolicy import load_policy
from toolpolicy.adapters.cache import load_policy_cached
from toolpolicy.runtime import plan as plan_mod
from toolpolicy.runtime.plan import FEW_LOOKUPS, build_index, literal_prefix

GLOBS = [
    "read_*",
    "mcp:srv*:get",
    "mcp:{alpha,beta}:list*",
    "mcp:gh:create_?ssue",
    "mcp:a.b:*",
    "mcp:x[yz]:*",
    "*_file",
    "mcp:*:delete*",
    "mcp:srv1:*",
    "mcp:srv1:**",
    "mcp:Srv2:get",
    "web_*_fetch",
    "tool\\*star*",
    "*",
]
NAMES = [
    "read_file",
    "read_",
    "read",
    "mcp:srv:get",
    "mcp:srv1:get",
    "mcp:srv1:anything",
    "mcp:srv1:",
    "mcp:srv2:get",
    "mcp:Srv2:get",
    "mcp:alpha:list_all",
    "mcp:beta:list",
    "mcp:gamma:list",
    "mcp:gh:create_issue",
    "mcp:gh:create_Xssue",
    "mcp:a.b:x",
    "mcp:axb:x",
    "mcp:xy:1",
    "mcp:xq:1",
    "mcp:any:delete_repo",
    "edit_file",
    "web_x_fetch",
    "tool*star",
    "toolXstar",
    "",
    "m",
    "mcp",
    "mcp:",
    "é:mcp",
]


@pytest.fixture
def policy_path(tmp_path: Path) -> Path:
    lines = ["version: 1", "default: ask", "permissions:", "  allow:"]
    lines += [f"    - {g!r}" for g in GLOBS]
    path = tmp_path / "policy.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _full_set(regexes: list[str]) -> re2.Set:
    full = re2.Set.FullMatchSet()
    for regex in regexes:
        full.Add(regex)
    full.Compile()
    return full


def test_every_full_match_starts_with_the_literal_prefix(policy_path: Path) -> None:
    policy = load_policy(str(policy_path))
    regexes = [g for rule in policy.rules for g in rule.tool_globs]
    assert len(regexes) >= 10
    for regex in regexes:
        prefix = literal_prefix(regex)
        for name in NAMES:
            if re2.fullmatch(regex, name):
                assert name.startswith(prefix), (regex, prefix, name)


@pytest.mark.parametrize(
    ("regex", "prefix"),
    [
        ("(?s)mcp\\:github\\:.*", "mcp:github:"),
        ("(?s)ab*", "a"),
        ("(?s)ab?c", "a"),
        ("(?s)ab{0,2}", "a"),
        ("(?s)ab+", "ab"),
        ("(?is)mcp\\:x.*", ""),  # case-insensitive: no prefix
        ("(?s)a|b.*", ""),  # an alternation: no prefix
        ("(?s)\\x41b", ""),  # an escape that is not a plain literal
        ("(?s)a\\db", "a"),
        ("(?s)a\\\\b", "a\\b"),  # an escaped backslash is a literal backslash
        ("(?s)a\\.b\\.c.d", "a.b.c"),  # escaped dots are literal, the plain one ends it
        ("(?s)[ab]c", ""),
        ("(?:x)y", ""),
        ("plain", "plain"),
    ],
)
def test_literal_prefix_of_compiler_regexes(regex: str, prefix: str) -> None:
    assert literal_prefix(regex) == prefix


def test_matching_globs_gives_what_the_full_set_gives_before_and_after_it_is_compiled(
    policy_path: Path,
) -> None:
    policy = load_policy(str(policy_path))
    index = build_index(policy)
    full = _full_set(index.glob_regexes)
    for name in NAMES * 2:  # the first FEW_LOOKUPS use the small sets, the rest the full set
        assert sorted(index.matching_globs(name)) == sorted(full.Match(name) or ()), name
    assert index.globs is not None and index.lookups == FEW_LOOKUPS


def test_a_name_with_many_candidates_uses_the_full_set(tmp_path: Path) -> None:
    lines = ["version: 1", "default: ask", "permissions:", "  allow:"]
    lines += [f"    - 'mcp:s{i}*'" for i in range(plan_mod.FEW_CANDIDATES + 5)]
    path = tmp_path / "many.yaml"
    path.write_text("\n".join(lines) + "\n")
    index = build_index(load_policy(str(path)))
    full = _full_set(index.glob_regexes)
    name = "mcp:s1" + "1" * 30  # starts with every `mcp:s1...` prefix and with `mcp:s` ones
    assert sorted(index.matching_globs(name)) == sorted(full.Match(name) or ())
    assert index.matching_globs("mcp:s3") == [3]


def test_the_prefixes_are_kept_in_the_cache_and_a_bad_list_is_derived_again(
    policy_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLPOLICY_CACHE_DIR", str(tmp_path / "cache"))
    load_policy_cached(str(policy_path))  # compiles and writes the entry
    cached = load_policy_cached(str(policy_path))  # read back from the entry
    expected = [literal_prefix(g) for rule in cached.rules for g in rule.tool_globs]
    assert cached._lazy.get("tool_glob_prefixes") == expected  # unpickled, not derived here

    calls: list[str] = []
    monkeypatch.setattr(plan_mod, "literal_prefix", lambda regex: calls.append(regex) or "")
    index = build_index(cached)
    index.matching_globs("read_file")
    assert calls == []  # the hook derives nothing

    broken = pickle.loads(pickle.dumps(cached))
    broken._lazy["tool_glob_prefixes"] = ["x"]  # the wrong length: ignored, derived again
    monkeypatch.setattr(plan_mod, "literal_prefix", literal_prefix)
    index = build_index(broken)
    full = _full_set(index.glob_regexes)
    for name in NAMES[:FEW_LOOKUPS]:
        assert sorted(index.matching_globs(name)) == sorted(full.Match(name) or ()), name


def test_a_plan_for_another_spelling_shares_everything_but_the_name(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "version: 1\nprofile: claude-code\ndefault: ask\nrules:\n"
        "  - {decision: deny, match: 'Agent'}\n  - {decision: allow, match: 'Bash(git status)'}\n"
    )
    policy = load_policy(str(path))
    first = plan_mod.plan_for(policy, "Agent", "default")
    other = plan_mod.plan_for(policy, "Task", "default")  # the profile's alias of Agent
    assert (first.raw, other.raw) == ("Agent", "Task")
    assert other is not first and other.tool == first.tool
    assert set(plan_mod._SHARED) | {"raw"} == _slots_of_toolplan()  # no attribute left behind
    for slot in plan_mod._SHARED:
        assert getattr(other, slot) == getattr(first, slot), slot
    assert other.token is first.token and other.keys is first.keys  # one memo of picks, one set of keys


def _slots_of_toolplan() -> set[str]:
    """`ToolPlan.__slots__` as the source writes it (a class compiled by mypyc keeps none)."""
    import ast

    tree = ast.parse(Path(str(plan_mod.__file__)).with_name("plan.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ToolPlan")
    slots = next(
        n for n in cls.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__slots__"
    )
    return set(ast.literal_eval(slots.value))
