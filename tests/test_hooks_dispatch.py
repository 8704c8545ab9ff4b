"""The dispatcher: event catalogue, matcher selection, de-duplication, concurrency with merging in
config order, the handler registry seam, and the synchronous wrapper. Real processes throughout."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolpolicy.runtime.hooks import dispatch
from toolpolicy.runtime.hooks.dispatch import HookRunner, matcher_matches, register_handler
from toolpolicy.runtime.hooks.events import (
    EVENTS,
    REWRITES,
    UnknownEventError,
    get_contract,
    normalize_payload,
    validate_payload,
)
from toolpolicy.runtime.hooks.types import (
    BuiltinHookSpec,
    CommandHookSpec,
    HookGroup,
    HookVerdict,
    ModelHookSpec,
)

SPEC_EVENTS = [
    "tool_guard",
    "pre_tool_use",
    "permission_request",
    "post_tool_use",
    "tool_response_transform",
    "session_start",
    "session_end",
    "user_prompt_submit",
    "turn_start",
    "turn_end",
    "before_llm_call",
    "after_llm_call",
    "before_response_emit",
    "pre_compact",
    "before_compaction",
    "after_compaction",
    "subagent_stop",
    "on_user_input",
    "stop",
    "notification",
    "on_error",
    "on_max_iterations",
    "on_agent_switch",
    "on_session_resume",
    "on_tool_approval_decision",
]


def shell_payload(tmp_path: Path, tool: str = "shell", **tool_input) -> dict:
    return {"tool_name": tool, "tool_input": tool_input or {"cmd": "ls"}, "cwd": str(tmp_path)}


def timed(tmp_path: Path, name: str, seconds: float, output: dict | None = None) -> CommandHookSpec:
    """A hook that records when it started and ended, sleeps, then prints `output`."""
    out = json.dumps(output or {})
    cmd = f"date +%s.%N > {tmp_path}/{name}.start; sleep {seconds}; date +%s.%N > {tmp_path}/{name}.end; echo '{out}'"
    return CommandHookSpec(command=cmd, name=name)


def interval(tmp_path: Path, name: str) -> tuple[float, float]:
    return float((tmp_path / f"{name}.start").read_text()), float((tmp_path / f"{name}.end").read_text())


@dataclass(frozen=True, slots=True)
class OtherSpec:
    """A hook type nobody registered (as a future `type: http` would be)."""

    url: str
    name: str | None = None
    timeout: float = 5.0
    on_error: str = "warn"
    location: str | None = None
    type: str = "http"


# --- the event catalogue ----------------------------------------------------------------------


def test_catalogue_has_every_spec_event_and_sane_contracts() -> None:
    assert sorted(EVENTS) == sorted(SPEC_EVENTS)
    assert {e for e, c in EVENTS.items() if c.fail_closed} == {"tool_guard", "pre_tool_use"}
    assert {e for e, c in EVENTS.items() if c.decides} == {"tool_guard", "pre_tool_use", "permission_request"}
    for contract in EVENTS.values():
        assert contract.rewrites <= REWRITES
        assert not contract.fail_closed or contract.can_block
        assert set(contract.required_fields) <= set(contract.payload_fields)
    assert get_contract("pre_tool_use").rewrites == {"tool_input"}
    assert not get_contract("session_start").can_block and get_contract("session_start").takes_context
    with pytest.raises(UnknownEventError, match="did you mean `session_start`"):
        get_contract("sesion_start")


def test_normalize_and_validate_payload() -> None:
    raw = {"tool_name": "shell", "session_id": "mine", "hook_event_name": "lies", "extra": 1}
    out = normalize_payload("pre_tool_use", raw, session_id="default", cwd="/w")
    assert list(out)[:3] == ["session_id", "cwd", "hook_event_name"]
    assert out == {
        "session_id": "mine",
        "cwd": "/w",
        "hook_event_name": "pre_tool_use",
        "tool_name": "shell",
        "extra": 1,
        "tool_input": {},
    }
    assert validate_payload("pre_tool_use", out) == []
    assert normalize_payload("stop", None, session_id="s", cwd="/w") == {
        "session_id": "s",
        "cwd": "/w",
        "hook_event_name": "stop",
    }
    with pytest.raises(TypeError):
        normalize_payload("stop", ["x"], session_id="s", cwd="/w")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("event", "payload", "fragment"),
    [
        (
            "pre_tool_use",
            {"session_id": "s", "cwd": "/", "hook_event_name": "pre_tool_use"},
            "missing `tool_name`",
        ),
        (
            "pre_tool_use",
            {
                "session_id": "s",
                "cwd": "/",
                "hook_event_name": "pre_tool_use",
                "tool_name": "x",
                "tool_input": "rm",
            },
            "`tool_input` must be an object, not a string",
        ),
        ("stop", {"session_id": "s", "cwd": "/", "hook_event_name": "turn_end"}, "but the event is `stop`"),
        ("stop", {"session_id": 1, "cwd": "/", "hook_event_name": "stop"}, "`session_id` must be a string"),
        (
            "on_max_iterations",
            {"session_id": "s", "cwd": "/", "hook_event_name": "on_max_iterations", "iteration": True},
            "must be an integer, not a boolean",
        ),
        ("stop", "text", "must be a JSON object"),
        ("nope", {}, "unknown hook event `nope`"),
    ],
)
def test_validate_payload_problems(event, payload, fragment) -> None:
    problems = validate_payload(event, payload)
    assert any(fragment in p for p in problems), problems


# --- matchers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "tool", "want"),
    [
        (None, "anything", True),
        ("", "anything", True),
        ("*", "anything", True),
        ("shell|edit_file", "shell", True),
        ("shell|edit_file", "edit_file", True),
        ("shell|edit_file", "shell2", False),
        ("shell|edit_file", "my_shell", False),
        ("mcp:.*", "mcp:github:create_issue", True),
        ("mcp:.*", "xmcp:github", False),
        ("Shell", "shell", False),  # case-sensitive
        ("read_*", "read___", True),  # a regex, not a glob
        ("read_*", "read_file", False),
        ("(?!danger).*", "safe_tool", True),  # RE2 cannot: the `regex` fallback runs it
        ("(?!danger).*", "danger", False),
    ],
)
def test_matcher_is_an_anchored_regex(matcher, tool, want) -> None:
    assert matcher_matches(matcher, tool) is want


async def test_groups_are_selected_by_matcher_on_tool_events(tmp_path: Path) -> None:
    groups = [
        HookGroup("edit_file", (CommandHookSpec(command="echo edit", name="edit"),)),
        HookGroup("shell|mcp:.*", (CommandHookSpec(command="echo shell", name="shell"),)),
        HookGroup(None, (CommandHookSpec(command="echo all", name="all"),)),
    ]
    runner = HookRunner(cwd=str(tmp_path))
    result = await runner.run("pre_tool_use", groups, shell_payload(tmp_path))
    assert [v.hook.name for v in result.verdicts] == ["shell", "all"]
    # Non-tool events ignore matchers: every group applies.
    start = await runner.run("session_start", groups, {})
    assert start.additional_context == "edit\nshell\nall"


async def test_explicit_tool_name_wins_over_the_payload(tmp_path: Path) -> None:
    groups = [HookGroup("edit_file", (CommandHookSpec(command="true", name="edit"),))]
    result = await HookRunner().run("pre_tool_use", groups, shell_payload(tmp_path), tool_name="edit_file")
    assert [v.hook.name for v in result.verdicts] == ["edit"]


@pytest.mark.parametrize(("event", "deny"), [("pre_tool_use", True), ("post_tool_use", False)])
async def test_an_invalid_matcher_fails_closed(tmp_path: Path, event: str, deny: bool) -> None:
    groups = [HookGroup("shell(", (CommandHookSpec(command=f"touch {tmp_path}/ran"),))]
    result = await HookRunner().run(event, groups, shell_payload(tmp_path))
    assert not (tmp_path / "ran").exists()
    assert "invalid matcher `shell(`" in result.errors[0]
    assert (result.decision == "deny") is deny
    assert result.blocked is deny


async def test_identical_hooks_run_once(tmp_path: Path) -> None:
    cmd = f"echo x >> {tmp_path}/count"
    groups = [
        HookGroup("shell", (CommandHookSpec(command=cmd, location="a.yaml:3:7"),)),
        HookGroup(
            ".*", (CommandHookSpec(command=cmd, location="b.yaml:9:7"), CommandHookSpec(command="true"))
        ),
    ]
    result = await HookRunner().run("pre_tool_use", groups, shell_payload(tmp_path))
    assert (tmp_path / "count").read_text() == "x\n"
    assert [v.hook.location for v in result.verdicts] == ["a.yaml:3:7", None]


# --- concurrency and config order -------------------------------------------------------------


async def test_hooks_run_concurrently(tmp_path: Path) -> None:
    hooks = tuple(timed(tmp_path, f"h{i}", 0.4) for i in range(3))
    result = await HookRunner().run("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert not result.errors
    spans = [interval(tmp_path, f"h{i}") for i in range(3)]
    assert max(s for s, _ in spans) < min(e for _, e in spans), "the three hooks never overlapped"
    assert all(v.duration_ms >= 400 for v in result.verdicts)


async def test_max_processes_bounds_concurrency(tmp_path: Path) -> None:
    hooks = tuple(timed(tmp_path, f"h{i}", 0.1) for i in range(3))
    await HookRunner(max_processes=1).run("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    spans = sorted(interval(tmp_path, f"h{i}") for i in range(3))
    assert all(prev_end <= start for (_, prev_end), (start, _) in itertools.pairwise(spans))


async def test_first_writer_in_config_order_wins_even_when_it_finishes_last(tmp_path: Path) -> None:
    slow = timed(
        tmp_path,
        "slow",
        0.4,
        {
            "hookSpecificOutput": {
                "permissionDecision": "deny",
                "permissionDecisionReason": "slow says no",
                "updatedInput": {"cmd": "echo slow"},
            }
        },
    )
    fast = timed(
        tmp_path,
        "fast",
        0,
        {
            "hookSpecificOutput": {
                "permissionDecision": "deny",
                "permissionDecisionReason": "fast says no",
                "updatedInput": {"cmd": "echo fast", "n": 2},
            }
        },
    )
    payload = shell_payload(tmp_path, cmd="rm -rf /", description="cleanup")
    result = await HookRunner().run("pre_tool_use", [HookGroup(None, (slow, fast))], payload)
    assert interval(tmp_path, "fast")[1] < interval(tmp_path, "slow")[1]  # finish order was reversed
    assert [v.hook.name for v in result.verdicts] == ["slow", "fast"]
    assert (result.decision, result.reason) == ("deny", "slow says no")
    assert result.updated_input == {"cmd": "echo slow", "description": "cleanup", "n": 2}


# --- the handler registry ---------------------------------------------------------------------


async def test_registered_handlers_run_beside_commands(tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []

    async def builtin(spec, event, payload):
        seen.append((spec.builtin, payload["tool_input"]["cmd"]))
        return HookVerdict(hook=spec, additional_context=f"builtin {spec.builtin}")

    runner = HookRunner()
    runner.register("builtin", builtin)
    hooks = (
        BuiltinHookSpec(builtin="add_date"),
        CommandHookSpec(command='echo \'{"systemMessage": "cmd"}\''),
    )
    result = await runner.run("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert seen == [("add_date", "ls")]
    assert result.additional_context == "builtin add_date" and result.system_message == "cmd"


async def test_default_registry_is_the_seam_for_other_modules(tmp_path: Path, monkeypatch) -> None:
    async def model(spec, event, payload):
        return HookVerdict(hook=spec, decision="ask", reason="model is unsure")

    monkeypatch.setitem(dispatch._DEFAULT_HANDLERS, "model", None)  # restored after the test
    register_handler("model", model)
    hooks = (ModelHookSpec(model="local/test", prompt="judge {{ .ToolName }}"),)
    result = await HookRunner().run("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert (result.decision, result.reason) == ("ask", "model is unsure")


@pytest.mark.parametrize(("event", "deny"), [("pre_tool_use", True), ("post_tool_use", False)])
async def test_unknown_or_unregistered_hook_type_is_a_failure(
    tmp_path: Path, monkeypatch, event, deny
) -> None:
    monkeypatch.delitem(dispatch._DEFAULT_HANDLERS, "builtin", raising=False)
    hooks = (OtherSpec(url="http://x"), BuiltinHookSpec(builtin="redact_secrets"))
    result = await HookRunner().run(event, [HookGroup(None, hooks)], shell_payload(tmp_path))  # type: ignore[arg-type]
    assert [v.failed for v in result.verdicts] == [True, True]
    assert result.verdicts[0].error == 'hook "http hook": no handler for hook type `http`'
    assert (result.decision == "deny") is deny


async def test_handler_misbehaviour_becomes_a_failed_verdict(tmp_path: Path) -> None:
    async def broken(spec, event, payload):
        if spec.builtin == "raise":
            raise RuntimeError("kaput")
        if spec.builtin == "hang":
            await asyncio.sleep(30)
        if spec.builtin == "none":
            return None
        return "not a verdict"

    runner = HookRunner()
    runner.register("builtin", broken)
    hooks = tuple(BuiltinHookSpec(builtin=n, timeout=0.2) for n in ("raise", "hang", "none", "junk"))
    started = time.monotonic()
    result = await runner.run("post_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert time.monotonic() - started < 2
    errors = [v.error for v in result.verdicts]
    assert "raised RuntimeError: kaput" in errors[0]
    assert errors[1] == 'hook "builtin:hang" timed out after 0.2s'
    assert errors[2] is None and not result.verdicts[2].failed
    assert "returned str, not a verdict" in errors[3]
    assert result.system_message.count("post_tool_use hook failed") == 3


async def test_each_hook_gets_its_own_payload_copy(tmp_path: Path) -> None:
    async def mutate(spec, event, payload):
        payload["tool_input"]["cmd"] = "mutated"
        await asyncio.sleep(0.05)
        return None

    runner = HookRunner()
    runner.register("builtin", mutate)
    hooks = (BuiltinHookSpec(builtin="m"), CommandHookSpec(command="sleep 0.1; cat > stdin.json"))
    payload = shell_payload(tmp_path)
    await runner.run("pre_tool_use", [HookGroup(None, hooks)], payload)
    assert json.loads((tmp_path / "stdin.json").read_text())["tool_input"] == {"cmd": "ls"}
    assert payload["tool_input"] == {"cmd": "ls"}


async def test_payload_problems_are_reported_not_fatal(tmp_path: Path) -> None:
    payload = {"tool_name": "shell", "tool_input": "ls", "cwd": str(tmp_path)}
    result = await HookRunner().run("pre_tool_use", [], payload)
    assert result.decision is None and any("`tool_input` must be an object" in e for e in result.errors)


# --- run_sync ---------------------------------------------------------------------------------


def test_run_sync_outside_a_loop(tmp_path: Path) -> None:
    hooks = (CommandHookSpec(command="echo 'nope' >&2; exit 2"),)
    result = HookRunner().run_sync("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert (result.decision, result.reason) == ("deny", "nope")


async def test_run_sync_inside_a_running_loop(tmp_path: Path) -> None:
    runner = HookRunner(max_processes=2)
    hooks = (timed(tmp_path, "a", 0.05, {"hookSpecificOutput": {"permissionDecision": "ask"}}),)
    result = runner.run_sync("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert result.decision == "ask"
    # The runner still works asynchronously on this loop afterwards (semaphores are per loop).
    again = await runner.run("pre_tool_use", [HookGroup(None, hooks)], shell_payload(tmp_path))
    assert again.decision == "ask"
