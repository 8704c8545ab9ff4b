"""The embedded local model: Gemma 3 270M (GGUF from a PyPI package) through llama-cpp-python.

Real inference, so these tests are marked slow but run in the default suite. The model is loaded
once per module; each judgment is bounded (max_tokens 64, greedy). The model is tiny: the tests
assert the protocol (a valid verdict or a failure, a reply that parses under the JSON grammar),
never what it decides.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from openai_server import OpenAIServer
from toolpolicy.grammar.template_parse import parse_template
from toolpolicy.runtime.hooks.dispatch import HookRunner
from toolpolicy.runtime.hooks.model import KNOWN_SCHEMAS, SYSTEM_PROMPT_JSON, run_model
from toolpolicy.runtime.hooks.providers import local_provider
from toolpolicy.runtime.hooks.providers.local_provider import (
    EMBEDDED_FILE,
    EMBEDDED_NAME,
    LoadedModel,
    embedded_model_path,
    generate,
    load_model,
    local_schema,
    messages_for,
)
from toolpolicy.runtime.hooks.types import HookGroup, ModelHookSpec

pytestmark = pytest.mark.slow

CALL = {
    "session_id": "s1",
    "cwd": "/work",
    "hook_event_name": "pre_tool_use",
    "tool_name": "shell",
    "tool_input": {"cmd": "rm -rf /"},
}
PROMPT = "Should an AI agent be allowed to run this shell command? {{ .ToolInput | toJSON }}"
DECISIONS = {"allow", "ask", "deny"}


@pytest.fixture(scope="module")
def gemma() -> LoadedModel:
    return load_model(EMBEDDED_NAME)


def local_hook(
    schema: str | None = "pre_tool_use_decision",
    *,
    timeout: float = 60.0,
    model: str = f"local/{EMBEDDED_NAME}",
    **options: object,
) -> ModelHookSpec:
    opts = {"max_tokens": 64, **options}
    return ModelHookSpec(
        model=model,
        prompt=PROMPT,
        template=parse_template(PROMPT),
        schema=schema,
        timeout=timeout,
        options=tuple(opts.items()),
    )


def test_embedded_model_is_assembled_atomically_and_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = embedded_model_path(tmp_path)
    assert path == tmp_path / EMBEDDED_FILE
    stamp = path.with_name(path.name + ".verified").read_text().split()
    assert stamp[1] == str(path.stat().st_size)
    assert sorted(p.name for p in tmp_path.iterdir()) == [EMBEDDED_FILE, EMBEDDED_FILE + ".verified"]
    hashed: list[Path] = []
    real_sha256 = local_provider._sha256
    monkeypatch.setattr(local_provider, "_sha256", lambda p: hashed.append(p) or real_sha256(p))
    assert embedded_model_path(tmp_path) == path  # the stamp spares the re-hash
    assert hashed == []
    with path.open("r+b") as fh:  # a damaged file is detected and rebuilt
        fh.seek(1000)
        fh.write(b"\0\0\0\0")
    assert embedded_model_path(tmp_path) == path
    assert len(hashed) >= 1  # the changed file was hashed again (its stamp no longer matched)
    assert path.with_name(path.name + ".verified").read_text().split()[0] == stamp[0]


def test_local_judge_through_the_dispatcher(gemma: LoadedModel) -> None:
    runner = HookRunner(session_id="s1", cwd="/work")
    result = runner.run_sync("pre_tool_use", [HookGroup(None, (local_hook(),))], CALL)
    [verdict] = result.verdicts
    if verdict.failed:  # a failed judge denies on a fail-closed event
        assert result.decision == "deny"
    else:
        assert verdict.decision in DECISIONS
        assert verdict.reason
        assert verdict.system_message == f"🤖 model judge: {verdict.decision} — {verdict.reason}"
        assert result.decision == verdict.decision


def test_json_grammar_reply_parses(gemma: LoadedModel) -> None:
    schema = local_schema(KNOWN_SCHEMAS["pre_tool_use_decision"], 120)  # type: ignore[arg-type]
    reply = generate(
        gemma,
        messages_for(gemma, SYSTEM_PROMPT_JSON, 'Tool call: {"cmd":"ls -la"}'),
        schema=schema,
        max_tokens=64,
    )
    obj = json.loads(reply)
    assert set(obj) == {"decision", "reason"}
    assert obj["decision"] in DECISIONS
    assert isinstance(obj["reason"], str) and len(obj["reason"]) <= 120


def test_free_form_local_reply_is_context_or_nothing(gemma: LoadedModel) -> None:
    verdict = asyncio.run(run_model(local_hook(None, max_tokens=24), "pre_tool_use", dict(CALL)))
    assert not verdict.failed
    assert verdict.decision is None
    assert (
        verdict.additional_context is None or verdict.additional_context.strip() == verdict.additional_context
    )


def test_a_gguf_path_loads_and_shares_the_cached_model(gemma: LoadedModel) -> None:
    assert load_model(str(gemma.path), chat_format="gemma") is gemma
    assert load_model(EMBEDDED_NAME) is gemma


def test_timeout_fails_and_cancels_the_generation(gemma: LoadedModel) -> None:
    started = time.monotonic()
    verdict = asyncio.run(run_model(local_hook(timeout=0.05, max_tokens=512), "pre_tool_use", dict(CALL)))
    assert verdict.failed and "0.05s" in (verdict.error or "")
    # the abandoned generation stops at its next token, so the model is free again at once
    with gemma.lock:
        assert time.monotonic() - started < 5


def test_openai_sdk_against_a_server_backed_by_the_real_model(gemma: LoadedModel) -> None:
    with OpenAIServer(model=gemma) as server:
        spec = ModelHookSpec(
            model="openai/gemma-3-270m",
            prompt=PROMPT,
            template=parse_template(PROMPT),
            schema="pre_tool_use_decision",
            timeout=60,
            options=(
                ("base_url", server.base_url),
                ("api_key", "local"),
                ("max_retries", 0),
                ("max_tokens", 64),
            ),
        )
        verdict = asyncio.run(run_model(spec, "pre_tool_use", dict(CALL)))
        [request] = server.requests
    assert request["body"]["response_format"]["json_schema"]["strict"] is True
    assert verdict.failed or verdict.decision in DECISIONS
    if verdict.failed:
        assert verdict.error and verdict.error.startswith("model judge failed")
