"""Property-based fuzzing (issue 8): random policies, calls, expressions, hook outputs and model replies.

Properties:

* loading never raises anything but `PolicyError` (generated documents, mutated YAML/TOML text);
  expression parsers raise only `ExprError`;
* `decide()` always returns a `Decision` (allow/ask/deny), never via the internal-error path;
* the compiled evaluator equals the reference interpreter: same decision and same rule;
* monotonicity: adding a deny rule never makes a decision more permissive (deny > ask > allow);
* the same mapping written as YAML and as TOML decides the same;
* hook outputs and model replies are parsed without raising anything unexpected.

Hypothesis runs derandomized with a bounded number of examples, so the directory runs in well
under a minute on two cores and a failure reproduces on every run.
"""

from __future__ import annotations

import contextlib
import functools
import string
from typing import Any

import pytest
import tomli_w
import yaml
from fuzz_strategies import (
    CALL_ARGS,
    CALL_TOOLS,
    DECISIONS,
    HOSTILE_TEXT,
    Cond,
    Expr,
    Frag,
    PolicySpec,
    RuleSpec,
    policy_and_calls,
    policy_specs,
    rule_specs,
)
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from toolpolicy import Decision, Engine, PolicyError, load_policy
from toolpolicy.grammar import ExprError
from toolpolicy.runtime.hooks.output import parse_command_output
from toolpolicy.runtime.hooks.types import CommandHookSpec
from toolpolicy.runtime.kinds import shell

WEIGHT = {"allow": 1, "ask": 2, "deny": 3}
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
SMALL = settings(FUZZ, max_examples=60)
KEY = settings(FUZZ, max_examples=200)  # the differential and monotonicity properties


def _load(doc: dict[str, Any], syntax: str = "yaml") -> Any:
    text = (
        tomli_w.dumps(doc) if syntax == "toml" else yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    )
    return load_policy(text=text, name=f"policy.{syntax}", base_dir="/srv/project")


def _try_load(spec: PolicySpec) -> Any:
    try:
        return _load(spec.document())
    except PolicyError:
        return None


def _decide(
    policy: Any, tool: Any, args: Any, *, reference: bool = False, mode: str | None = None
) -> Decision:
    engine = Engine(policy, mode=mode, hooks=False, reference=reference)
    d = engine.decide(tool, args, context={"cwd": "/srv/project", "home": "/home/u"})
    assert isinstance(d, Decision) and d.decision in DECISIONS, d
    assert not d.reason.startswith("internal error"), d
    return d


# --------------------------------------------------------------------------- loading


@FUZZ
@given(policy_specs())
def test_generated_policies_load_or_raise_policy_error(spec: PolicySpec) -> None:
    try:
        policy = _load(spec.document())
    except PolicyError:
        return
    assert policy.rules, "a policy with rules compiled to none"


_HOSTILE_CHARS = st.sampled_from(
    [*list("[]{}:,'\"#&*!|>-?%@`\\\n\t "), "\x00", "\u2028", "\ufeff", "é", "=", "\r"]
)


@st.composite
def _mutated(draw: st.DrawFn, text: str) -> str:
    chars = list(text)
    for _ in range(draw(st.integers(1, 6))):
        if not chars:
            break
        i = draw(st.integers(0, len(chars) - 1))
        op = draw(st.sampled_from(["insert", "delete", "replace", "dup"]))
        if op == "insert":
            chars.insert(i, draw(_HOSTILE_CHARS))
        elif op == "delete":
            del chars[i : i + draw(st.integers(1, 8))]
        elif op == "replace":
            chars[i] = draw(_HOSTILE_CHARS)
        else:
            chars[i:i] = chars[i : i + draw(st.integers(1, 20))]
    return "".join(chars)


@st.composite
def _mutated_policy_text(draw: st.DrawFn) -> tuple[str, str]:
    spec = draw(policy_specs(max_rules=3))
    syntax = draw(st.sampled_from(["yaml", "toml"]))
    doc = spec.document()
    text = (
        tomli_w.dumps(doc) if syntax == "toml" else yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    )
    return syntax, draw(_mutated(text))


@FUZZ
@given(_mutated_policy_text())
def test_mutated_policy_text_raises_only_policy_error(case: tuple[str, str]) -> None:
    syntax, text = case
    with contextlib.suppress(PolicyError):
        load_policy(text=text, name=f"policy.{syntax}", base_dir="/srv/project")


_PERMISSION_TOKENS = st.sampled_from(
    [
        "Bash",
        "Read",
        "mcp",
        ":",
        "=",
        "*",
        "?",
        "(",
        ")",
        "|",
        "\\",
        "a",
        "b",
        " ",
        "domain:",
        "cmd",
        "path",
        "[",
        "]",
        "^",
        "-",
        "/",
        "//",
        "~",
        ".",
        '"',
        "'",
        "\x00",
        "é",
        "__",
        ",",
        "**",
    ]
)
_WHEN_TOKENS = st.sampled_from(
    [
        "args",
        "tool",
        "context",
        ".",
        "v",
        "[",
        "]",
        "(",
        ")",
        '"',
        "'",
        "\\",
        "&&",
        "||",
        "!",
        "==",
        "!=",
        "<",
        ">=",
        "in",
        "has",
        "size",
        "matches",
        "glob",
        "lower",
        "startsWith",
        " ",
        "1",
        "1.5",
        "-",
        "true",
        "null",
        ",",
        "x",
        '"(a+)+$"',
        "\\u00e9",
        "\\x",
        "0x1F",
        "1e999",
        "\x00",
    ]
)


@FUZZ
@given(st.one_of(st.lists(_PERMISSION_TOKENS, max_size=14).map("".join), st.text(max_size=30)))
def test_permission_expressions_raise_only_expr_error(text: str) -> None:
    from toolpolicy.grammar.permission import parse_permission

    try:
        parse_permission(text)
    except ExprError as exc:
        assert 0 <= exc.start <= exc.end <= len(text) + 1, (
            exc.start,
            exc.end,
            text,
        )  # end of input: one past


@FUZZ
@given(st.one_of(st.lists(_WHEN_TOKENS, max_size=14).map("".join), st.text(max_size=30)))
def test_when_expressions_raise_only_expr_error(text: str) -> None:
    from toolpolicy.compiler.when import compile_when_text

    try:
        fn = compile_when_text(text)
    except ExprError:
        return
    assert fn is not None


# --------------------------------------------------------------------------- deciding


@KEY
@given(policy_and_calls())
def test_compiled_evaluator_equals_reference_interpreter(case: tuple[PolicySpec, list[Any]]) -> None:
    spec, calls = case
    policy = _try_load(spec)
    assume(policy is not None)
    for tool, args in calls:
        for mode in (None, "default"):
            fast = _decide(policy, tool, args, mode=mode)
            slow = _decide(policy, tool, args, reference=True, mode=mode)
            assert (fast.decision, fast.rule) == (slow.decision, slow.rule), (tool, args, fast, slow)


@st.composite
def _policy_calls_and_deny(draw: st.DrawFn) -> tuple[PolicySpec, list[Any], RuleSpec]:
    spec, calls = draw(policy_and_calls())
    return spec, calls, draw(rule_specs(decision="deny"))


_PROBE = Frag("probe", ("probe",))
_FAILING_DENY = RuleSpec("deny", (Expr(_PROBE, ()),), long_form=True, priority=1, when="args.missing.x == 1")
_MONOTONE_EXAMPLES = (
    # a higher-priority deny whose `when` fails counts as ask and hides a plain deny
    (
        PolicySpec([RuleSpec("deny", (Expr(_PROBE, (Cond("v", (Frag("x", ("x",)),)),)),))]),
        [("probe", {"v": "x"})],
        _FAILING_DENY,
    ),
    # ... and in a `default: deny` policy it turns the default deny into ask
    (
        PolicySpec([RuleSpec("allow", (Expr(Frag("other", ("other",)), ()),))], default="deny"),
        [("probe", {})],
        _FAILING_DENY,
    ),
)


@KEY
@given(_policy_calls_and_deny())
@example(_MONOTONE_EXAMPLES[0])
@example(_MONOTONE_EXAMPLES[1])
def test_adding_a_deny_rule_never_loosens_a_decision(case: tuple[PolicySpec, list[Any], RuleSpec]) -> None:
    spec, calls, deny = case
    before = _try_load(spec)
    assume(before is not None)
    after = _try_load(PolicySpec([*spec.rules, deny], spec.default, spec.mode, spec.fold, spec.tools))
    assume(after is not None)
    for tool, args in calls:
        old, new = _decide(before, tool, args), _decide(after, tool, args)
        assert WEIGHT[new.decision] >= WEIGHT[old.decision], (tool, args, old, new)


@FUZZ
@given(policy_and_calls())
def test_yaml_and_toml_of_the_same_mapping_decide_the_same(case: tuple[PolicySpec, list[Any]]) -> None:
    spec, calls = case
    doc = spec.document()
    try:
        from_yaml = _load(doc, "yaml")
    except PolicyError:
        with pytest.raises(PolicyError):
            _load(doc, "toml")
        return
    from_toml = _load(doc, "toml")
    for tool, args in calls:
        a, b = _decide(from_yaml, tool, args), _decide(from_toml, tool, args)
        assert (a.decision, a.rule) == (b.decision, b.rule), (tool, args, a, b)


_RICH_POLICY = """\
version: 1
profile: claude-code
tools:
  shell: {kind: shell, arg: cmd, aliases: {command: cmd}}
  read_file: {kind: path, arg: path, read_only: true}
  fetch: {kind: url, arg: url}
permissions:
  deny: ["Bash(rm *)", "Bash(*sudo*)", "Read(//etc/**)", "WebFetch(domain:evil.com)", "shell:cmd=*curl*",
         "read_file:path=*.env", "fetch:url=*evil*", "probe:v=*secret*", "probe(*token*)"]
  ask: ["Bash(git push *)", "mcp__*"]
  allow: ["Bash(ls *)", "Bash(git status)", "Read(./src/**)", "Edit(./src/**)", "WebFetch(domain:example.com)",
          "shell:cmd=npm test*", "probe:w=ok"]
rules:
  - {decision: deny, match: probe, when: 'has(args.v) && args.v.contains("x")', priority: 1}
  - {decision: allow, match: probe, when: 'size(args) < 3'}
"""


@functools.cache
def _rich() -> Any:
    return load_policy(text=_RICH_POLICY, name="rich.yaml", base_dir="/srv/project")


@SMALL
@given(CALL_TOOLS, CALL_ARGS)
def test_any_call_gets_a_decision_from_both_evaluators(tool: Any, args: Any) -> None:
    fast = _decide(_rich(), tool, args)
    slow = _decide(_rich(), tool, args, reference=True)
    assert (fast.decision, fast.rule) == (slow.decision, slow.rule), (fast, slow)


_SURROGATE_TEXT = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3)


@settings(SMALL, max_examples=30)
@given(
    st.sampled_from(["Bash", "probe", "Read", "WebFetch", "shell"]),
    st.sampled_from(["command", "v", "file_path", "url", "cmd"]),
    _SURROGATE_TEXT,
    st.sampled_from(["rm ", "x", "/etc/", "https://evil.com/", ""]),
)
def test_lone_surrogates_never_reach_the_internal_error_path(
    tool: str, key: str, junk: str, prefix: str
) -> None:
    """JSON can carry lone surrogates (`"\\ud800"`); see tests/security/unicode_case.yaml."""
    fast = _decide(_rich(), tool, {key: prefix + junk})
    slow = _decide(_rich(), tool, {key: prefix + junk}, reference=True)
    assert (fast.decision, fast.rule) == (slow.decision, slow.rule)


# --------------------------------------------------------------------------- shell, hooks, models

_SHELL_TOKENS = st.sampled_from(
    [
        "ls",
        "rm",
        "-rf",
        "/",
        " ",
        " ",
        ";",
        "&&",
        "||",
        "|",
        "&",
        "\n",
        "$(",
        ")",
        "`",
        "'",
        '"',
        "\\",
        "bash",
        "-c",
        "sudo",
        "env",
        "X=1",
        "PATH=/x",
        "<<EOF\n",
        "\nEOF\n",
        ">",
        ">>",
        "2>&1",
        "{",
        "}",
        "(",
        "#",
        "$'\\x72m'",
        "find",
        "-exec",
        "{}",
        "\\;",
        "xargs",
        "time",
        "[[",
        "]]",
        "$((1+2))",
        "${x:-",
        "*",
        "?",
        "~",
        "<(",
        "eval",
        "case",
        "in",
        "esac",
        "function",
        "if",
        "then",
        "fi",
        "\x00",
        "\r",
        "é",
    ]
)


@FUZZ
@given(st.one_of(st.lists(_SHELL_TOKENS, max_size=25).map("".join), HOSTILE_TEXT))
def test_shell_view_never_raises_and_always_has_a_unit(text: str) -> None:
    view = shell.view(text)
    assert view.units
    if "rm" not in text:
        return
    # whatever the parser made of it, a deny on rm must still be able to see an `rm` text
    assert any("rm" in t for u in view.units for t in u.deny_texts), view


@FUZZ
@given(st.text(string.printable + "é\x00", max_size=20), st.booleans())
def test_shell_specifiers_compile_to_valid_regexes(spec: str, fold: bool) -> None:
    import re2

    pattern = shell.compile_spec(spec, fold=fold)
    re2.compile(pattern.regex)


_OUTPUT_KEYS = st.sampled_from(
    [
        "decision",
        "reason",
        "continue",
        "stopReason",
        "systemMessage",
        "hookSpecificOutput",
        "hook_specific_output",
        "permissionDecision",
        "updatedInput",
        "suppressOutput",
    ]
)
_OUTPUT_VALUES = st.one_of(
    st.sampled_from(["allow", "ask", "deny", "block", "approve", "ALLOW", "", None, True, 1, [], {}]),
    st.dictionaries(
        st.sampled_from(
            [
                "permissionDecision",
                "permission_decision",
                "updatedInput",
                "updated_input",
                "additionalContext",
                "decision",
                "behavior",
            ]
        ),
        st.sampled_from(["allow", "deny", "ask", "maybe", None, 3, {"cmd": "x"}, [], "x"]),
        max_size=3,
    ),
)


@st.composite
def _hook_stdout(draw: st.DrawFn) -> str:
    import json

    kind = draw(st.sampled_from(["json", "json+trailer", "text", "empty"]))
    if kind in ("json", "json+trailer"):
        obj = draw(st.dictionaries(_OUTPUT_KEYS, _OUTPUT_VALUES, max_size=4))
        text = json.dumps(obj)
        return text + (draw(st.sampled_from(["\n{}", " junk", "\n\n"])) if kind == "json+trailer" else "")
    return "" if kind == "empty" else draw(HOSTILE_TEXT)


@FUZZ
@given(
    st.sampled_from(["pre_tool_use", "tool_guard", "post_tool_use", "session_start", "user_prompt_submit"]),
    st.integers(-20, 300),
    _hook_stdout(),
    HOSTILE_TEXT,
)
def test_hook_output_parser_never_raises(event: str, code: int, stdout: str, stderr: str) -> None:
    verdict = parse_command_output(CommandHookSpec(command="hook.sh"), event, code, stdout, stderr)
    if code == 2:
        assert verdict.block
    elif code != 0:
        assert verdict.failed and verdict.decision is None
    if verdict.decision == "allow":
        assert code == 0 and not verdict.failed and not verdict.block


_REPLY_TOKENS = st.sampled_from(
    [
        '{"decision":"allow"}',
        '{"decision":"deny","reason":"x"}',
        "{",
        "}",
        '"decision"',
        ":",
        '"allow"',
        '"ALLOW"',
        "```json\n",
        "\n```",
        "Sure! ",
        "аllow",
        ",",
        '"reason":',
        '""',
        "null",
        "[",
        "]",
        "NaN",
        "\\",
        "\x00",
    ]
)


@FUZZ
@given(st.one_of(st.lists(_REPLY_TOKENS, max_size=10).map("".join), HOSTILE_TEXT))
def test_model_reply_parser_raises_only_model_hook_error(reply: str) -> None:
    from toolpolicy.runtime.hooks import model

    try:
        decision, reason = model.parse_decision(reply)
    except model.ModelHookError:
        return
    assert decision in DECISIONS and reason
