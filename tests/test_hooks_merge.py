"""Merging verdicts (SPEC 5.4): truth tables over hand-built verdicts, in config order."""

from __future__ import annotations

import pytest

from toolpolicy.runtime.hooks.events import UnknownEventError
from toolpolicy.runtime.hooks.merge import apply_updated_input, merge
from toolpolicy.runtime.hooks.types import BuiltinHookSpec, CommandHookSpec, HookVerdict


def hook(name: str, on_error: str = "warn") -> CommandHookSpec:
    return CommandHookSpec(command=f"./{name}.sh", name=name, on_error=on_error)


def v(name: str = "h", **fields) -> HookVerdict:
    on_error = fields.pop("on_error", "warn")
    return HookVerdict(hook=hook(name, on_error), **fields)


def failed(name: str = "f", reason: str = "boom", on_error: str = "warn") -> HookVerdict:
    return v(
        name,
        failed=True,
        error=f'hook "{name}" exited with status 1: {reason}',
        reason=reason,
        on_error=on_error,
    )


# --- decisions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decisions", "want"),
    [
        ([], None),
        ([None], None),
        (["allow"], "allow"),
        ([None, "ask"], "ask"),
        (["allow", "ask"], "ask"),
        (["ask", "allow"], "ask"),
        (["allow", "ask", "deny"], "deny"),
        (["deny", "allow"], "deny"),
        (["allow", None, "allow"], "allow"),
    ],
)
def test_most_restrictive_decision(decisions, want) -> None:
    result = merge("pre_tool_use", [v(f"h{i}", decision=d, reason=f"r{i}") for i, d in enumerate(decisions)])
    assert result.decision == want
    assert result.blocked is (want == "deny")


@pytest.mark.parametrize("decision", ["allow", "ask", "deny"])
def test_ties_keep_the_earlier_reason(decision) -> None:
    result = merge(
        "pre_tool_use",
        [v("a", decision=decision, reason="first"), v("b", decision=decision, reason="second")],
    )
    assert (result.decision, result.reason) == (decision, "first")


def test_more_restrictive_later_verdict_brings_its_reason() -> None:
    result = merge("pre_tool_use", [v("a", decision="ask", reason="a"), v("b", decision="deny", reason="b")])
    assert (result.decision, result.reason) == ("deny", "b")


def test_block_is_a_deny_on_deciding_events_and_a_latch() -> None:
    result = merge(
        "pre_tool_use", [v("a", block=True, reason="stop it"), v("b", decision="allow", reason="ok")]
    )
    assert (result.decision, result.reason, result.blocked) == ("deny", "stop it", True)


def test_earlier_deny_reason_beats_a_later_block() -> None:
    result = merge(
        "pre_tool_use", [v("a", decision="deny", reason="rule"), v("b", block=True, reason="exit 2")]
    )
    assert result.reason == "rule" and result.blocked


def test_block_latch_on_a_blocking_event_keeps_the_first_reason() -> None:
    result = merge(
        "user_prompt_submit", [v("a"), v("b", block=True, reason="first"), v("c", block=True, reason="2")]
    )
    assert result.blocked and result.reason == "first" and result.decision is None


def test_continue_false_stops_and_blocks() -> None:
    result = merge("pre_tool_use", [v("a", stop=True, block=True, stop_reason="halt")])
    assert result.stop and result.stop_reason == "halt"
    assert (result.decision, result.reason, result.blocked) == ("deny", "halt", True)


def test_block_on_an_event_that_cannot_block_becomes_a_warning() -> None:
    result = merge("session_start", [v("a", block=True, reason="nope")])
    assert not result.blocked and result.decision is None
    assert "cannot block: nope" in result.system_message
    assert result.errors == [result.system_message]


def test_continue_false_on_an_observational_event_still_stops() -> None:
    result = merge("notification", [v("a", stop=True, block=True, stop_reason="quit")])
    assert result.stop and result.stop_reason == "quit" and not result.blocked


def test_tool_guard_never_allows() -> None:
    assert merge("tool_guard", [v("g", decision="allow")]).decision is None
    result = merge("tool_guard", [v("g1", decision="allow"), v("g2", decision="ask", reason="confirm")])
    assert (result.decision, result.reason) == ("ask", "confirm")
    assert any("can only deny or ask" in e for e in result.errors)


def test_decision_on_a_non_deciding_event_is_ignored() -> None:
    result = merge("turn_start", [v("a", decision="deny", reason="x")])
    assert result.decision is None and not result.blocked
    assert "does not decide" in result.errors[0]


# --- failures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["pre_tool_use", "tool_guard"])
@pytest.mark.parametrize("on_error", ["warn", "ignore", "block"])
def test_failure_on_fail_closed_events_denies_whatever_on_error_says(event, on_error) -> None:
    result = merge(event, [v("a", decision="allow", reason="fine"), failed("f", "disk full", on_error)])
    assert (result.decision, result.reason, result.blocked) == ("deny", "disk full", True)
    assert result.errors[-1] == f'{event} hook failed: hook "f" exited with status 1: disk full'


@pytest.mark.parametrize(
    ("on_error", "blocked", "message"),
    [("warn", False, True), ("ignore", False, False), ("block", True, False)],
)
def test_failure_elsewhere_follows_on_error(on_error, blocked, message) -> None:
    result = merge("post_tool_use", [failed("f", "lint crashed", on_error)])
    assert result.blocked is blocked and result.decision is None
    assert (result.system_message is not None) is message
    assert bool(result.errors) is (on_error != "ignore")
    if blocked:
        assert result.reason == "lint crashed"


def test_on_error_block_on_an_event_that_cannot_block_only_warns() -> None:
    result = merge("session_end", [failed("f", "x", "block")])
    assert not result.blocked and "hook failed" in result.system_message


def test_failure_on_permission_request_with_block_denies() -> None:
    result = merge("permission_request", [v("a", decision="allow"), failed("f", "x", "block")])
    assert result.decision == "deny" and result.blocked


def test_failure_on_permission_request_with_warn_keeps_the_allow() -> None:
    result = merge("permission_request", [v("a", decision="allow", reason="ok"), failed("f", "x", "warn")])
    assert (result.decision, result.reason, result.blocked) == ("allow", "ok", False)


# --- rewrites ---------------------------------------------------------------------------------


def test_apply_updated_input_is_a_shallow_merge() -> None:
    original = {"cmd": "ls", "timeout": 5, "opts": {"a": 1}}
    assert apply_updated_input(original, {"cmd": "ls -la", "opts": {"b": 2}}) == {
        "cmd": "ls -la",
        "timeout": 5,
        "opts": {"b": 2},
    }
    assert apply_updated_input(original, {}) == original
    assert original == {"cmd": "ls", "timeout": 5, "opts": {"a": 1}}  # not mutated
    assert apply_updated_input(None, {"x": 1}) == {"x": 1}


def test_first_writer_wins_and_the_input_is_complete() -> None:
    original = {"cmd": "cat .env", "description": "show", "timeout": 5}
    verdicts = [
        v("redact", updated_input={"cmd": "cat [REDACTED]"}),
        v("undo", updated_input={"cmd": "cat .env", "timeout": 60}),
    ]
    result = merge("pre_tool_use", verdicts, original_input=original)
    assert result.updated_input == {"cmd": "cat [REDACTED]", "description": "show", "timeout": 60}


def test_a_full_input_echo_does_not_claim_unchanged_keys() -> None:
    original = {"cmd": "ls", "path": "/a"}
    verdicts = [
        v("claude_style", updated_input={"cmd": "ls", "path": "/b"}),  # the whole input, path changed
        v("second", updated_input={"cmd": "ls -l", "path": "/c"}),
    ]
    result = merge("pre_tool_use", verdicts, original_input=original)
    assert result.updated_input == {"cmd": "ls -l", "path": "/b"}


def test_empty_patch_still_yields_the_complete_input() -> None:
    result = merge("pre_tool_use", [v("a", updated_input={})], original_input={"cmd": "ls"})
    assert result.updated_input == {"cmd": "ls"}


def test_no_rewrite_leaves_updated_input_none() -> None:
    assert (
        merge("pre_tool_use", [v("a", decision="allow")], original_input={"cmd": "ls"}).updated_input is None
    )


def test_rewrite_not_allowed_by_the_event_is_ignored_with_a_warning() -> None:
    result = merge(
        "tool_guard", [v("g", updated_input={"cmd": "x"}, summary="s")], original_input={"cmd": "y"}
    )
    assert result.updated_input is None and result.summary is None
    assert len(result.errors) == 2 and "cannot rewrite" in result.errors[0]


def test_tool_response_first_writer_wins_even_an_empty_string() -> None:
    verdicts = [
        v("a"),
        v("b", updated_tool_response="", has_updated_tool_response=True),
        v("c", updated_tool_response="later", has_updated_tool_response=True),
    ]
    result = merge("tool_response_transform", verdicts)
    assert result.has_updated_tool_response and result.updated_tool_response == ""


def test_summary_messages_and_response_content_first_writer() -> None:
    assert (
        merge("before_compaction", [v("a", summary=""), v("b", summary="B"), v("c", summary="C")]).summary
        == "B"
    )
    msgs = merge(
        "before_llm_call", [v("a", updated_messages=[{"role": "user"}]), v("b", updated_messages=[])]
    )
    assert msgs.updated_messages == [{"role": "user"}]
    emit = merge("before_response_emit", [v("a", response_content="clean"), v("b", response_content="raw")])
    assert emit.response_content == "clean"


# --- texts and lists --------------------------------------------------------------------------


def test_context_and_messages_are_joined_in_config_order() -> None:
    verdicts = [
        v("a", additional_context="one", system_message="m1"),
        v("b"),
        v("c", additional_context="two", system_message="m2"),
    ]
    result = merge("session_start", verdicts)
    assert result.additional_context == "one\ntwo"
    assert result.system_message == "m1\nm2"


def test_allowed_tools_are_intersected() -> None:
    verdicts = [
        v("a", allowed_tools=("read", "grep", "shell")),
        v("b"),
        v("c", allowed_tools=("shell", "read")),
    ]
    assert merge("session_start", verdicts).allowed_tools == ("read", "shell")
    assert merge("session_start", [v("a")]).allowed_tools is None


def test_result_keeps_verdicts_in_the_given_order_and_serialises() -> None:
    verdicts = [v("a", decision="ask"), HookVerdict(hook=BuiltinHookSpec(builtin="add_date"))]
    result = merge("pre_tool_use", verdicts, original_input={"cmd": "ls"})
    assert result.verdicts == verdicts
    data = result.to_json()
    assert data["decision"] == "ask" and [h["hook"] for h in data["hooks"]] == ["a", "builtin:add_date"]


def test_unknown_event_is_a_clear_error() -> None:
    with pytest.raises(UnknownEventError, match="did you mean `pre_tool_use`"):
        merge("pre_tool_us", [])
