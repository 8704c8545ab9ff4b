"""Rule semantics of SPEC 4.1-4.3 on native policies, through the indexed and reference engines."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest

from toolpolicy import Engine, PolicyError, load_policy

ENGINES = ["indexed", "reference"]


def decide(
    policy_text: str,
    tool: str,
    args: Any = None,
    *,
    engine: str = "indexed",
    mode: str | None = None,
    **kw: Any,
):  # type: ignore[no-untyped-def]
    policy = load_policy(text=policy_text, name="policy.yaml")
    return Engine(policy, mode=mode, hooks=False, reference=engine == "reference").decide(tool, args, **kw)


CASES = [
    # (note, policy, tool, args, mode, want, want_rule)
    (
        "deny beats allow at the same priority",
        "version: 1\npermissions: {allow: [probe], deny: ['probe:v=x']}",
        "probe",
        {"v": "x"},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "ask beats allow",
        "version: 1\npermissions: {allow: [probe], ask: [probe]}",
        "probe",
        {},
        None,
        "ask",
        "permissions.ask[0]",
    ),
    (
        "higher priority allow beats a deny",
        "version: 1\nrules:\n- {decision: deny, match: probe}\n- {decision: allow, match: probe, priority: 5}",
        "probe",
        {},
        None,
        "allow",
        "rules[1]",
    ),
    (
        "only the highest priority counts, then the most restrictive",
        "version: 1\nrules:\n- {decision: allow, match: probe, priority: 5}\n- {decision: ask, match: probe, priority: 5}\n"
        "- {decision: deny, match: probe, priority: 1}",
        "probe",
        {},
        None,
        "ask",
        "rules[1]",
    ),
    (
        "the first deciding rule in file order is reported",
        "version: 1\nrules:\n- {id: b, decision: deny, match: 'probe:v=*'}\n- {id: a, decision: deny, match: probe}",
        "probe",
        {"v": "1"},
        None,
        "deny",
        "b",
    ),
    (
        "default when nothing matches",
        "version: 1\ndefault: deny\npermissions: {allow: [other]}",
        "probe",
        {},
        None,
        "deny",
        None,
    ),
    (
        "read-only hint allows",
        "version: 1\ntools: {peek: {read_only: true}}",
        "peek",
        {},
        None,
        "allow",
        None,
    ),
    (
        "a deny rule beats the read-only hint",
        "version: 1\ntools: {peek: {read_only: true}}\npermissions: {deny: [peek]}",
        "peek",
        {},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "when true matches",
        "version: 1\nrules:\n- {decision: deny, match: probe, when: 'args.n > 3'}",
        "probe",
        {"n": 5},
        None,
        "deny",
        "rules[0]",
    ),
    (
        "when false does not",
        "version: 1\nrules:\n- {decision: deny, match: probe, when: 'args.n > 3'}",
        "probe",
        {"n": 1},
        None,
        "ask",
        None,
    ),
    (
        "when error on a deny rule asks",
        "version: 1\ndefault: allow\n"
        "rules:\n- {decision: deny, match: probe, when: 'args.path.endsWith(\".env\")'}",
        "probe",
        {},
        None,
        "ask",
        "rules[0]",
    ),
    (
        "when error on an allow rule does not match",
        "version: 1\nrules:\n- {decision: allow, match: probe, when: 'args.n > 3'}",
        "probe",
        {"n": "x"},
        None,
        "ask",
        None,
    ),
    (
        "has() guards",
        "version: 1\ndefault: allow\n"
        "rules:\n- {decision: deny, match: probe, when: 'has(args.path) && args.path.endsWith(\".env\")'}",
        "probe",
        {},
        None,
        "allow",
        None,
    ),
    (
        "rule modes: not in this mode",
        "version: 1\nrules:\n- {decision: allow, match: probe, modes: [yolo]}",
        "probe",
        {},
        None,
        "ask",
        None,
    ),
    (
        "rule modes: in this mode",
        "version: 1\nrules:\n- {decision: deny, match: probe, modes: [non_interactive]}",
        "probe",
        {},
        "non_interactive",
        "deny",
        "rules[0]",
    ),
    ("yolo turns the default ask into allow", "version: 1", "probe", {}, "yolo", "allow", None),
    ("non_interactive turns ask into deny", "version: 1", "probe", {}, "non_interactive", "deny", None),
    (
        "args that are not an object match no condition",
        "version: 1\npermissions: {deny: ['probe:v=*']}",
        "probe",
        "not an object",
        None,
        "ask",
        None,
    ),
    (
        "null never matches even *",
        "version: 1\npermissions: {deny: ['probe:v=*']}",
        "probe",
        {"v": None},
        None,
        "ask",
        None,
    ),
    (
        "numbers match their JSON text",
        "version: 1\npermissions: {deny: ['probe:v=3.14']}",
        "probe",
        {"v": 3.14},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "booleans match true/false",
        "version: 1\npermissions: {deny: ['probe:v=true']}",
        "probe",
        {"v": True},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "objects match their compact JSON",
        "version: 1\npermissions: {deny: ['probe:v={\"a\":1}']}",
        "probe",
        {"v": {"a": 1}},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "tool alternation in match",
        "version: 1\nrules:\n- {decision: deny, match: 'a|b|c'}",
        "b",
        {},
        None,
        "deny",
        "rules[0]",
    ),
    (
        "a list of matches (any)",
        "version: 1\nrules:\n- {decision: deny, match: ['a', 'probe:v=x']}",
        "probe",
        {"v": "x"},
        None,
        "deny",
        "rules[0]",
    ),
    (
        "tool glob star matches every tool",
        "version: 1\npermissions: {deny: ['*']}",
        "anything",
        {},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "escaped star in a value is literal",
        "version: 1\npermissions: {allow: ['probe:v=a\\*']}",
        "probe",
        {"v": "ab"},
        None,
        "ask",
        None,
    ),
    (
        "case-insensitive tool names",
        "version: 1\nglob: {case: insensitive}\npermissions: {deny: [PROBE]}",
        "probe",
        {},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "claude Task is an alias of Agent",
        "version: 1\nprofile: claude-code\npermissions: {deny: ['Task(Explore)']}",
        "Agent",
        {"subagent_type": "Explore"},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "claude Tool(param:value)",
        "version: 1\nprofile: claude-code\npermissions: {deny: ['Agent(model:opus)']}",
        "Agent",
        {"model": "opus", "subagent_type": "x"},
        None,
        "deny",
        "permissions.deny[0]",
    ),
    (
        "call form on an unknown tool denies on any argument",
        "version: 1\npermissions: {deny: ['probe(*secret*)']}",
        "probe",
        {"a": "x", "b": "my secret"},
        None,
        "deny",
        "permissions.deny[0]",
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("note", "policy", "tool", "args", "mode", "want", "rule"), CASES, ids=[c[0] for c in CASES]
)
def test_rule_semantics(
    note: str, policy: str, tool: str, args: Any, mode: str | None, want: str, rule: str | None, engine: str
) -> None:
    d = decide(policy, tool, args, engine=engine, mode=mode)
    assert (d.decision, d.rule) == (want, rule), d


def test_when_error_is_in_diagnostics() -> None:
    d = decide(
        "version: 1\nrules:\n- {decision: deny, match: probe, when: 'args.path.endsWith(\"x\")'}", "probe", {}
    )
    assert d.decision == "ask"
    assert any("could not be evaluated" in x for x in d.diagnostics)


def test_decision_json_shape() -> None:
    d = decide("version: 1\npermissions: {deny: ['probe:v=x']}", "probe", {"v": "x"})
    assert d.to_json() == {
        "decision": "deny",
        "reason": "denied by rule `permissions.deny[0]` (`probe:v=x`)",
        "source": "rule",
        "rule": "permissions.deny[0]",
        "location": "policy.yaml:2:23",
        "updated_input": None,
        "diagnostics": [],
    }


def test_compiled_policy_is_picklable_and_immutable() -> None:
    policy = load_policy(
        text="version: 1\nrules:\n- {decision: deny, match: 'probe:v=x*', when: 'args.n > 1'}", name="p.yaml"
    )
    Engine(policy, hooks=False).decide("probe", {"v": "xy", "n": 2})  # builds the lazy index first
    clone = pickle.loads(pickle.dumps(policy))
    assert Engine(clone, hooks=False).decide("probe", {"v": "xy", "n": 2}).decision == "deny"
    assert Engine(clone, hooks=False).decide("probe", {"v": "xy", "n": 0}).decision == "ask"
    with pytest.raises(AttributeError):
        policy.default = "allow"  # type: ignore[misc]


def test_adecide_matches_decide() -> None:
    policy = load_policy(text="version: 1\npermissions: {deny: ['probe:v=x']}", name="p.yaml")
    engine = Engine(policy, hooks=False)
    d = asyncio.run(engine.adecide("probe", {"v": "x"}))
    assert d == engine.decide("probe", {"v": "x"})


async def test_decide_inside_running_loop() -> None:
    policy = load_policy(text="version: 1\npermissions: {deny: ['probe:v=x']}", name="p.yaml")
    assert Engine(policy, hooks=False).decide("probe", {"v": "x"}).decision == "deny"


@pytest.mark.parametrize(
    "args",
    [
        None,
        1,
        "s",
        [],
        {"v": [1, {"x": None}]},
        {"v": "\x00" * 10},
        {"": ""},
        {"v": float("nan")},
        {"v": 10**30},
    ],
)
def test_odd_arguments_always_decide(args: Any) -> None:
    d = decide("version: 1\npermissions: {deny: ['probe:v=*x*']}", "probe", args)
    assert d.decision in ("allow", "ask", "deny")


def test_engine_mode_overrides_policy_mode() -> None:
    assert decide("version: 1\nmode: yolo", "probe", {}, mode="non_interactive").decision == "deny"
    assert decide("version: 1\nmode: yolo", "probe", {}).decision == "allow"


def test_unknown_engine_mode_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        Engine(load_policy(text="version: 1", name="p.yaml"), mode="sideways")


@pytest.mark.parametrize(
    ("text", "code", "snippet"),
    [
        ("version: 1\npermissions: {deny: ['probe:v=x:v=y']}", "policy_parse_error", ":v=y"),
        ("version: 1\npermissions: {deny: ['probe:v=[a']}", "policy_parse_error", "["),
        ("version: 1\nrules:\n- {decision: deny, match: probe, when: 'argz.x'}", "policy_type_error", "argz"),
        ("version: 1\nhooks: {pre_tool_uze: []}", "policy_unknown_event", "pre_tool_uze"),
        (
            "version: 1\nhooks: {pre_tool_use: [{matcher: 'a(', hooks: [{type: command, command: x}]}]}",
            "policy_parse_error",
            "(",
        ),
        (
            "version: 1\nrules:\n- {id: a, decision: deny, match: x}\n- {id: a, decision: deny, match: y}",
            "policy_duplicate_id",
            "a",
        ),
        ("version: 2", "policy_schema_error", "2"),
        ("version: 1\nextends: [missing.yaml]", "policy_io_error", "missing.yaml"),
    ],
)
def test_policy_errors_are_located(text: str, code: str, snippet: str) -> None:
    with pytest.raises(PolicyError) as info:
        load_policy(text=text, name="policy.yaml")
    errs = info.value.errors
    assert errs[0].code == code, [str(e) for e in errs]
    assert errs[0].location is not None and errs[0].location.snippet.startswith(snippet), errs[0].render()


def test_all_errors_of_a_file_are_reported() -> None:
    text = "version: 1\npermissions:\n  deny: ['Bash(', 'a b']\nrules:\n- {decision: deny, match: x, when: '&&'}\n"
    with pytest.raises(PolicyError) as info:
        load_policy(text=text, name="policy.yaml")
    lines = [e.location.line for e in info.value.errors if e.location]
    assert lines == [3, 3, 5]


def test_extends_merges_lists_and_detects_cycles(tmp_path: Any) -> None:
    (tmp_path / "base.yaml").write_text("version: 1\ndefault: deny\npermissions: {deny: ['probe:v=x']}\n")
    (tmp_path / "child.yaml").write_text("version: 1\nextends: [base.yaml]\npermissions: {allow: [probe]}\n")
    policy = load_policy(tmp_path / "child.yaml")
    engine = Engine(policy, hooks=False)
    assert engine.decide("probe", {"v": "x"}).rule == "base.yaml#permissions.deny[0]"
    assert engine.decide("probe", {"v": "y"}).decision == "allow"
    assert engine.decide("other", {}).decision == "deny"  # default inherited
    (tmp_path / "a.yaml").write_text("version: 1\nextends: [b.yaml]\n")
    (tmp_path / "b.yaml").write_text("version: 1\nextends: [a.yaml]\n")
    with pytest.raises(PolicyError) as info:
        load_policy(tmp_path / "a.yaml")
    assert info.value.errors[0].code == "policy_extends_cycle"


def test_toml_policy_same_decisions(tmp_path: Any) -> None:
    (tmp_path / "p.toml").write_text(
        'version = 1\n[permissions]\ndeny = ["probe:v=x"]\n[[rules]]\ndecision = "allow"\nmatch = "probe"\n'
    )
    engine = Engine(load_policy(tmp_path / "p.toml"), hooks=False)
    assert engine.decide("probe", {"v": "x"}).decision == "deny"
    assert engine.decide("probe", {"v": "y"}).decision == "allow"


def test_toml_errors_name_the_line(tmp_path: Any) -> None:
    (tmp_path / "p.toml").write_text('version = 1\n[permissions]\ndeny = ["probe:v=x:v=y"]\n')
    with pytest.raises(PolicyError) as info:
        load_policy(tmp_path / "p.toml")
    err = info.value.errors[0]
    assert (err.location.line, err.location.snippet) == (3, ":v=y")


@pytest.mark.parametrize("engine", ENGINES)
def test_oversize_arguments_are_never_allowed_by_rules(engine: str) -> None:
    policy = load_policy(
        text="version: 1\npermissions:\n  allow: ['probe:v=*']\n  deny: ['probe:v=*evil*']\n", name="p.yaml"
    )
    eng = Engine(policy, hooks=False, reference=engine == "reference", max_args_chars=1000)
    assert eng.decide("probe", {"v": "x" * 999}).decision == "allow"
    big = eng.decide("probe", {"v": "x" * 1001})
    assert big.decision == "ask" and any("size cap" in d for d in big.diagnostics)
    assert eng.decide("probe", {"v": "x" * 2000 + "evil"}).decision == "deny"


# ---- edge cases found in review (each asserts the fail-closed behaviour), indexed and reference alike
BOTH_ENGINES = pytest.mark.parametrize("reference", [False, True], ids=["indexed", "reference"])


def _decide_text(policy: str, tool: Any, args: Any, *, reference: bool, **kw: Any) -> Any:
    compiled = load_policy(text=policy, name="policy.yaml")
    return Engine(compiled, hooks=False, reference=reference, **kw).decide(tool, args)


# -- 2. case-insensitive policies lose covers and tool aliases ------------------------------------
@BOTH_ENGINES
def test_insensitive_edit_deny_covers_write(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\npermissions:\n"
        '  allow: ["Write"]\n  deny: ["edit(//etc/**)"]\n'
    )
    d = _decide_text(policy, "Write", {"file_path": "/etc/passwd"}, reference=reference)
    assert d.decision == "deny"


@BOTH_ENGINES
def test_insensitive_read_deny_covers_edit(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\ndefault: allow\npermissions:\n"
        '  deny: ["read(//etc/**)"]\n'
    )
    d = _decide_text(policy, "Edit", {"file_path": "/etc/passwd"}, reference=reference)
    assert d.decision == "deny"


@BOTH_ENGINES
@pytest.mark.parametrize(
    ("rule", "tool"), [("task", "Task"), ("Agent", "TASK"), ("Task", "task"), ("task", "Agent")]
)
def test_insensitive_task_agent_alias(reference: bool, rule: str, tool: str) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\ndefault: allow\n"
        f'permissions:\n  deny: ["{rule}"]\n'
    )
    d = _decide_text(policy, tool, {"subagent_type": "x"}, reference=reference)
    assert d.decision == "deny"


# -- 4. the read-only hint allows a path tool whose path came under another name -------------------
@BOTH_ENGINES
def test_gemini_read_file_path_under_file_path_meets_the_deny(reference: bool) -> None:
    # gemini's read_file takes `file_path` (newer CLIs) or `absolute_path`; the profile knows both
    # names but only the primary is seen by path rules, and the read-only hint then allows.
    policy = 'version: 1\nprofile: gemini\npermissions:\n  deny: ["read_file(//etc/**)"]\n'
    d = _decide_text(policy, "read_file", {"file_path": "/etc/shadow"}, reference=reference)
    assert d.decision != "allow"


# -- 5. load_policy must raise only PolicyError ---------------------------------------------------
@pytest.mark.parametrize("text", ["[a, {b: c}]: 1", "version: 1\n[x, {a: b}]: 2\n"])
def test_yaml_unhashable_complex_key_is_a_policy_error(text: str) -> None:
    with pytest.raises(PolicyError):
        load_policy(text=text, name="policy.yaml")


# -- 6. error locations in case-insensitive policies ----------------------------------------------
def test_insensitive_tool_glob_error_points_at_the_range() -> None:
    # `İ` and `ß` grow under casefold(): the offset must be mapped back to the text as written.
    text = 'version: 1\nglob: {case: insensitive}\npermissions:\n  deny: ["ßß[z-a]*"]\n'
    with pytest.raises(PolicyError) as info:
        load_policy(text=text, name="policy.yaml")
    line = text.splitlines()[3]
    col = line.index("z") + 1
    assert f"policy.yaml:4:{col}:" in str(info.value) or f"policy.yaml:4:{col - 1}:" in str(info.value)


# -- 8. a call-form specifier on a glob tool part ignores the tool's kind --------------------------
@BOTH_ENGINES
@pytest.mark.parametrize(
    ("expr", "tool", "args"),
    [
        ("Rea?(//etc/**)", "Read", {"file_path": "/etc/passwd"}),
        ("*(//etc/**)", "Read", {"file_path": "/etc/passwd"}),
        ("Web*(domain:evil.com)", "WebFetch", {"url": "https://evil.com/x"}),
    ],
)
def test_glob_tool_call_form_uses_the_kind_of_the_matched_tool(
    reference: bool, expr: str, tool: str, args: dict[str, Any]
) -> None:
    # SPEC 2.1: the specifier is matched with the semantics of the tool's kind. Here the deny is
    # compiled as a plain glob, so `//etc/**` and `domain:` never match and the deny is silently dead.
    policy = f'version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["{expr}"]\n'
    d = _decide_text(policy, tool, args, reference=reference)
    assert d.decision == "deny"


# -- 1. a condition on an argument *alias* of a shell tool skips shell-unit matching ---------------
@BOTH_ENGINES
def test_alias_key_colon_allow_does_not_cover_chained_command(reference: bool) -> None:
    # docker-agent `shell` has primary `cmd` with alias `command`: the condition must be matched
    # per simple command, like `shell:cmd=git *`, never against the whole string.
    policy = 'version: 1\nprofile: docker-agent\npermissions:\n  allow: ["shell:command=git *"]\n'
    d = _decide_text(policy, "shell", {"cmd": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH_ENGINES
def test_alias_key_call_form_param_allow_does_not_cover_chained_command(reference: bool) -> None:
    policy = 'version: 1\nprofile: docker-agent\npermissions:\n  allow: ["shell(command:git *)"]\n'
    d = _decide_text(policy, "shell", {"cmd": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH_ENGINES
def test_codex_alias_key_allow_does_not_cover_chained_command(reference: bool) -> None:
    policy = 'version: 1\nprofile: codex\npermissions:\n  allow: ["shell:cmd=git *"]\n'
    d = _decide_text(policy, "shell", {"command": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH_ENGINES
def test_alias_key_deny_sees_every_simple_command(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: docker-agent\npermissions:\n"
        '  allow: ["shell:cmd=*"]\n  deny: ["shell:command=rm *"]\n'
    )
    d = _decide_text(policy, "shell", {"cmd": "ls; rm -rf /"}, reference=reference)
    assert d.decision == "deny"


@BOTH_ENGINES
def test_alias_and_canonical_with_different_values_is_not_allowed(reference: bool) -> None:
    # Which key the tool reads is unknown to the engine: an ambiguous call must fail closed.
    policy = (
        "version: 1\nprofile: docker-agent\npermissions:\n"
        '  allow: ["shell:cmd=ls"]\n  deny: ["shell:cmd=rm *"]\n'
    )
    d = _decide_text(policy, "shell", {"cmd": "ls", "command": "rm -rf /"}, reference=reference)
    assert d.decision != "allow"


# -- 3. only the first 16 redirection targets of a unit are checked --------------------------------
@BOTH_ENGINES
def test_seventeenth_redirection_target_is_checked(reference: bool) -> None:
    policy = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(echo *)", "Edit(//tmp/**)"]\n'
    cmd = "echo hi " + " ".join(f"> /tmp/a{i}" for i in range(16)) + " > /home/u/.bashrc"
    d = _decide_text(policy, "Bash", {"command": cmd}, reference=reference)
    assert d.decision != "allow"


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("hint", ["false", "yes", 1, [True], {"read_only": True}])
def test_only_a_true_read_only_hint_counts(reference: bool, hint: Any) -> None:
    """The agent's read-only hint loosens an MCP call (SPEC 4.2 step 4), so only `True` is one:
    a truthy string or number an embedder passes through unchecked is no hint, never an error."""
    policy = load_policy(text="version: 1\ndefault: ask\n", name="policy.yaml")
    engine = Engine(policy, hooks=False, reference=reference)
    assert engine.decide("mcp:srv:get", {}, read_only=True).decision == "allow"
    assert engine.decide("mcp:srv:get", {}, read_only=None).decision == "ask"
    got = engine.decide("mcp:srv:get", {}, read_only=hint)
    assert got.decision == "ask" and not got.diagnostics, got
    assert asyncio.run(engine.adecide("mcp:srv:get", {}, read_only=hint)).decision == "ask"


@pytest.mark.parametrize("tool", [None, 7, ["Bash"], {"name": "Bash"}, b"Bash"])
def test_a_tool_name_that_is_not_a_string_is_decided_not_raised(tool: Any) -> None:
    """A malformed call is decided (failing closed), whatever the build: a compiled `decide`
    checks its arguments' types at the call, so the public API takes `Any`."""
    policy = load_policy(text="version: 1\npermissions: {allow: [probe, Bash]}\n", name="policy.yaml")
    engine = Engine(policy, hooks=False)
    for d in (
        engine.decide(tool, {}),
        asyncio.run(engine.adecide(tool, {})),
        engine.decide(tool, {}, read_only=1),
    ):
        assert d.decision in ("ask", "deny") and not d.reason.startswith("internal error"), d
