"""The source map: a compiled policy carries its sources and where each rule, hook group and test was
written; warnings stay located `PolicyError`s; it all survives pickling (the hook cache, Dask) and
is unpickled only when asked for; the compiler, the syntax check and the linter walk documents alike."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest

from toolpolicy import load_policy
from toolpolicy.api import load_document
from toolpolicy.compiler import compile_checked
from toolpolicy.compiler.walk import RuleEntry, rule_entries
from toolpolicy.errors import PolicyError
from toolpolicy.lint import lint_policy
from toolpolicy.lint.context import LintContext
from toolpolicy.source import Location, Origin, Source, Span
from toolpolicy.testing import run_policy_tests

BASE = """\
version: 1
permissions:
  deny: ["probe:cmd=*sudo*"]
"""

POLICY = """\
version: 1
extends: [base.yaml]
permissions:
  ask: ["probe:cmd=git push*"]
  allow: ["probe:cmd=git status", "reader"]
rules:
  - id: two-matches
    decision: deny
    match: ["probe:cmd=rm *", "writer|editor"]
    when: 'has(args.cmd)'
hooks:
  pre_tool_use:
    - matcher: probe
      hooks: [{type: builtin, builtin: redact_secrets}]
tests:
  - {name: sudo is denied, call: {tool: probe, args: {cmd: sudo ls}}, expect: deny}
  - {name: wrong on purpose, call: {tool: reader}, expect: deny}
"""


@pytest.fixture
def policy_dir(tmp_path: Path) -> Path:
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "policy.yaml").write_text(POLICY)
    return tmp_path


def _text_at(origin: Origin) -> str:
    return origin.source.text[origin.start : origin.end]


def test_every_rule_has_an_origin_at_its_expression(policy_dir: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    smap = policy.source_map
    assert [s.name for s in smap.sources] == [str(policy_dir / "base.yaml"), str(policy_dir / "policy.yaml")]
    assert policy.sources == tuple(s.name for s in smap.sources)
    assert len(smap) == len(policy.rules)
    seen = {}
    for rule in policy.rules:
        origin = smap.rule(rule.index)
        assert str(origin) == rule.location  # the text a Decision shows is the origin, rendered
        assert _text_at(origin) == rule.expression
        seen[rule.id] = origin.path
    assert seen["base.yaml#permissions.deny[0]"] == ("permissions", "deny", 0)
    assert seen["permissions.allow[1]"] == ("permissions", "allow", 1)
    paths = {smap.rule(r.index).path for r in policy.rules if r.id == "two-matches"}
    assert paths == {("rules", 0, "match", 0), ("rules", 0, "match", 1)}
    with pytest.raises(IndexError):
        smap.rule(len(policy.rules))


def test_hook_groups_and_tests_carry_their_origin(policy_dir: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    (group,) = policy.hooks["pre_tool_use"]
    assert group.origin is not None and group.origin.path == ("hooks", "pre_tool_use", 0)
    assert group.origin.source.name.endswith("policy.yaml") and group.origin.line == 13
    first, second = policy.tests
    assert first.origin is not None and first.origin.path == ("tests", 0)
    assert second.origin is not None and second.origin.line == 17 and str(second.origin) == second.location


def test_a_failed_test_is_located_without_reopening_the_file(policy_dir: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    (policy_dir / "policy.yaml").unlink()  # the origin holds the text: nothing is read again
    failed = [r for r in run_policy_tests(policy) if not r.passed]
    (err,) = [r.as_error() for r in failed]
    assert err.location is not None and str(err.location).endswith("policy.yaml:17:5")
    assert "wrong on purpose" in err.render() and "17 |" in err.render()


def test_a_policy_from_text_has_located_tests_too() -> None:
    policy = load_policy(text=POLICY.replace("extends: [base.yaml]\n", ""), name="<inline>.yaml")
    (err,) = [r.as_error() for r in run_policy_tests(policy) if r.case.name == "wrong on purpose"]
    assert str(err.location) == "<inline>.yaml:16:5"


def test_warnings_stay_located_policy_errors() -> None:
    text = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(timeout:*)"]\n'
    policy = load_policy(text=text, name="p.yaml")
    (warning,) = policy.warnings
    assert isinstance(warning, PolicyError) and warning.severity == "warning"
    assert warning.code == "policy_shell_param" and str(warning.location) == "p.yaml:4:17"
    again = pickle.loads(pickle.dumps(policy))
    (kept,) = again.warnings
    assert kept.code == warning.code and str(kept.location) == str(warning.location)
    assert kept.render() == warning.render()


def test_the_source_map_survives_pickling_and_loads_only_when_asked(policy_dir: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    again = pickle.loads(pickle.dumps(policy))
    assert isinstance(again._report, bytes)  # not unpickled yet: deciding never needs it
    assert again.rules == policy.rules
    assert isinstance(again._report, bytes)
    assert [o[1:] for o in again.source_map.rules()] == [o[1:] for o in policy.source_map.rules()]
    assert [s.text for s in again.source_map.sources] == [s.text for s in policy.source_map.sources]
    assert [t.origin for t in again.tests] != [] and again.tests[1].origin is not None
    assert str(again.tests[1].origin) == str(policy.tests[1].origin)
    twice = pickle.loads(pickle.dumps(again))  # a loaded policy pickles again (Dask re-ships it)
    assert str(twice.source_map.rule(0)) == str(policy.source_map.rule(0))


def test_origins_render_like_locations() -> None:
    source = Source("p.yaml", "a: 1\nb: [x, y]\n")
    origin = Origin(source, ("b", 1), 12, 13)
    assert origin.location == Location(source, Span(12, 13))
    assert str(origin) == "p.yaml:2:8" and origin.line == 2
    assert pickle.loads(pickle.dumps(source)).text == source.text


def test_the_walk_reads_rejected_documents_in_compile_order() -> None:
    data = {
        "permissions": {"allow": ["a"], "alow": ["typo"], "deny": ["d", 3]},
        "rules": [{"match": ["m0", "m1"], "when": "w"}, "junk", {"match": "m"}],
    }
    assert list(rule_entries(data)) == [
        RuleEntry(("permissions", "deny", 0), (("d", ("permissions", "deny", 0)),), None),
        RuleEntry(("permissions", "deny", 1), ((3, ("permissions", "deny", 1)),), None),
        RuleEntry(("permissions", "allow", 0), (("a", ("permissions", "allow", 0)),), None),
        RuleEntry(("permissions", "alow", 0), (("typo", ("permissions", "alow", 0)),), None),
        RuleEntry(
            ("rules", 0),
            (("m0", ("rules", 0, "match", 0)), ("m1", ("rules", 0, "match", 1))),
            ("w", ("rules", 0, "when")),
        ),
        RuleEntry(("rules", 2), (("m", ("rules", 2, "match")),), None),
    ]
    assert list(rule_entries(None)) == [] and list(rule_entries({"rules": "x"})) == []


def test_schema_errors_come_with_the_expressions_syntax_errors(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            version: 1
            permissions:
              alow: ["Bash(("]
            rules:
              - {decision: deny, match: "x", when: "args.a ==", bogus: 1}
            """
        )
    )
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    where = sorted((e.code, e.location.line) for e in info.value.errors if e.location is not None)
    codes = [c for c, _ in where]
    assert codes.count("policy_schema_error") == 2
    assert ("policy_parse_error", 3) in where and ("policy_parse_error", 5) in where


def test_the_linter_finds_rules_through_the_source_map(policy_dir: Path) -> None:
    loaded = load_document(policy_dir / "policy.yaml")
    policy, _warnings = compile_checked(loaded)
    ctx = LintContext(loaded, policy)
    two = [r for r in policy.rules if r.id == "two-matches"]
    src = ctx.rule_source(two[0])
    assert src is not None and src.path == ("rules", 0) and src.lp is loaded
    assert src.match_paths == (("rules", 0, "match", 0), ("rules", 0, "match", 1))
    for rule in two:
        found = ctx.rule_match_path(rule)
        assert found is not None and found[1] == policy.source_map.rule(rule.index).path
        loc = ctx.rule_location(rule)
        assert loc is not None and loc.snippet == rule.expression
    parent = ctx.rule_source(next(r for r in policy.rules if r.id.startswith("base.yaml#")))
    assert parent is not None and parent.lp is loaded.parents[0]
    assert isinstance(lint_policy(loaded, policy), list)


def test_imported_rules_are_located_in_the_file_they_came_from(tmp_path: Path) -> None:
    """A Codex layer's `config.toml` pulls in `rules/*.rules`: each rule points at its own file
    (the importer hands over `Location`s, not `file:line` text for the loader to parse back)."""
    from toolpolicy.policies.formats import import_document

    layer = tmp_path / ".codex"
    (layer / "rules").mkdir(parents=True)
    (layer / "config.toml").write_text('approval_policy = "on-request"\n')
    rules = layer / "rules" / "default.rules"
    rules.write_text('# rules\n\nprefix_rule(pattern=["rm", "-rf"], decision="forbidden")\n')
    config = layer / "config.toml"
    result = import_document(config.read_text(), format="codex", path=config)
    located = result.locations[("rules", 0)]
    assert located.source.name == str(rules) and located.line == 3
    assert result.origins["rules[0]"] == f"{rules}:3"  # the same place, as display text
    policy = load_policy(config)
    (rule,) = [r for r in policy.rules if r.id == "rules[0]"][:1]
    assert rule.location == f"{rules}:3:1"
    origin = policy.source_map.rule(rule.index)
    assert origin.source.name == str(rules) and origin.path[:2] == ("rules", 0)
    assert policy.sources == (str(config),)  # the documents; the rules file is a text beside them
    assert [s.name for s in policy.source_map.sources] == [str(config), str(rules)]


def test_the_report_survives_the_hook_cache(policy_dir: Path, tmp_path: Path) -> None:
    """The hook cache's restricted unpickler accepts the policy, and the report inside it loads
    through a restricted unpickler of its own when asked for."""
    from toolpolicy.adapters.cache import load_policy_cached

    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    path = str(policy_dir / "policy.yaml")
    fresh = load_policy_cached(path, env=env)
    cached = load_policy_cached(path, env=env)
    assert cached is not fresh and isinstance(cached._report, bytes)  # from the cache, not built yet
    assert str(cached.source_map.rule(0)) == str(fresh.source_map.rule(0))
    assert [str(t.origin) for t in cached.tests] == [str(t.origin) for t in fresh.tests]
    assert cached.sources == fresh.sources


class _Planted:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.target,))


def test_a_planted_report_runs_nothing(policy_dir: Path, tmp_path: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    state = policy.__getstate__()
    target = tmp_path / "pwned"
    state["report"] = pickle.dumps(((), (), _Planted(target)))
    planted = type(policy).__new__(type(policy))
    planted.__setstate__(state)
    with pytest.raises(pickle.UnpicklingError):
        planted.source_map  # noqa: B018 - the access is the test
    assert not target.exists()


def test_the_report_pickles_the_same_under_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask (through tblib) registers a reduction for every exception class, process-wide; the
    report's warnings must still pickle as themselves, or the worker could not read them."""
    import copyreg

    def elsewhere(exc: BaseException) -> tuple[object, tuple[str]]:
        return (str, (str(exc),))  # names a callable the report's unpickler refuses

    monkeypatch.setitem(copyreg.dispatch_table, PolicyError, elsewhere)
    text = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(timeout:*)"]\n'
    policy = load_policy(text=text, name="p.yaml")
    (kept,) = pickle.loads(pickle.dumps(policy)).warnings
    assert isinstance(kept, PolicyError) and kept.code == "policy_shell_param"
