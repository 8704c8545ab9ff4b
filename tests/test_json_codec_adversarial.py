"""The hook's JSON reader (`adapters/json_codec.py`) against `json.loads` on hostile payloads.

`tests/test_json_codec.py` checks a fixed list of texts; this file generates them: hook inputs
mutated with what an attacker controls in a payload (a key given twice, escapes of NUL and of
lone surrogates, numbers beyond the digit limit, nesting deeper than the recursion limit,
trailing text, a byte-order mark, another top-level type, raw control characters). Two
properties, each over a seeded, bounded set of examples:

* `loads_strict` / `loads` answer exactly as the `json.loads` calls they stand for (the same
  value, or the same exception type and message), on text and on bytes;
* the Claude Code hook (`adapters.handle`) never allows a payload that the standard library
  reads differently from a plain, well-formed call: under a policy whose default is `allow`
  and which denies `Bash(rm *)`, a payload `json.loads` rejects (or that is not an object, or
  repeats a key) is denied, and one whose command, as `json.loads` reads it, runs `rm` is never
  allowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from toolpolicy.adapters import HookOptions, handle, json_codec
from toolpolicy.cli.hook_run import engine_factory
from toolpolicy.runtime.strict_json import no_constants, no_duplicate_keys

POLICY = """\
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)", "Bash(*rm -rf*)"]
"""

# JSON string bodies (already escaped) an attacker may put anywhere a string goes
ESCAPES = [
    "ls",
    "rm -rf /",
    "\\u0000",
    "ls\\u0000rm -rf /",
    "\\ud800",
    "\\udfff\\ud800",
    "\\ud83d\\ude00",
    "\\u0072\\u006d -rf /",  # `rm -rf /` spelt with escapes
    "r\\u006d x",
    '\\"',
    "\\\\",
    "\\/",
    "\\n\\r\\t\\b\\f",
    "\\x41",  # not a JSON escape
    "\\u00",  # truncated escape
    "\u00e9",
    "\u2028\u2029",
    "\x00",  # a raw NUL inside a string: not allowed by strict JSON
    "\n",
    "\x7f",
]
NUMBERS = [
    "0",
    "-0",
    "1e400",
    "-1e-400",
    "1" * 5000,
    "01",
    "1.",
    ".5",
    "NaN",
    "Infinity",
    "-Infinity",
    "0x10",
]


@st.composite
def values(draw: st.DrawFn, depth: int = 0) -> str:
    """A JSON-ish value as text (mostly valid, sometimes not)."""
    choice = draw(st.integers(0, 6 if depth < 3 else 3))
    if choice == 0:
        return '"' + draw(st.sampled_from(ESCAPES)) + '"'
    if choice == 1:
        return draw(st.sampled_from(NUMBERS))
    if choice == 2:
        return draw(st.sampled_from(["true", "false", "null", "True", "nul", "undefined"]))
    if choice == 3:
        return "[" * (n := draw(st.sampled_from([1, 50, 5000]))) + "]" * n
    if choice == 4:
        items = draw(st.lists(values(depth + 1), max_size=3))
        return "[" + ",".join(items) + draw(st.sampled_from(["]", ",]", ""])) + ""
    pairs = draw(st.lists(st.tuples(st.sampled_from(ESCAPES[:6]), values(depth + 1)), max_size=3))
    return "{" + ",".join(f'"{k}":{v}' for k, v in pairs) + "}"


@st.composite
def payloads(draw: st.DrawFn) -> str:
    """A Claude Code PreToolUse input, mutated."""
    command = draw(st.sampled_from(ESCAPES))
    fields = [
        '"hook_event_name":"PreToolUse"',
        '"tool_name":"Bash"',
        f'"tool_input":{{"command":"{command}"}}',
        '"session_id":"s"',
    ]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 5))
        if kind == 0:  # a key given twice, at the top or inside tool_input
            fields.append(
                draw(
                    st.sampled_from(
                        [
                            '"tool_name":"Read"',
                            '"tool_input":{"command":"rm -rf /"}',
                            '"tool_input":{"command":"ls","command":"rm -rf /"}',
                            '"hook_event_name":"PostToolUse"',
                        ]
                    )
                )
            )
        elif kind == 1:
            fields.insert(draw(st.integers(0, len(fields))), f'"extra":{draw(values())}')
        elif kind == 2:
            fields[2] = f'"tool_input":{draw(values())}'
        elif kind == 3:
            fields[1] = f'"tool_name":{draw(values())}'
        elif kind == 4:
            fields[2] = '"tool_input":{"command":"ls","' + draw(st.sampled_from(ESCAPES)) + '":"rm -rf /"}'
        else:
            fields.reverse()
    text = "{" + ",".join(fields) + "}"
    wrap = draw(st.integers(0, 7))
    if wrap == 1:
        text += draw(st.sampled_from([" x", "{}", "]", "\x00", " \n", "\ufeff", "//", ",{}"]))
    elif wrap == 2:
        text = draw(st.sampled_from(["\ufeff", " \t\n\r", "\x00", "\u00a0", "\x0c"])) + text
    elif wrap == 3:
        text = "[" + text + "]"
    elif wrap == 4:
        text = draw(values())
    elif wrap == 5 and len(text) > 2:
        cut = draw(st.integers(1, len(text) - 1))
        text = text[:cut]
    return text


def _outcome(call: Any, *args: Any) -> tuple[str, str]:
    try:
        value = call(*args)
    except RecursionError:
        return ("error", "RecursionError")
    except Exception as exc:  # the type and the message must agree
        return ("error", f"{type(exc).__name__}: {exc}")
    return ("value", json.dumps(value, allow_nan=True, sort_keys=True))


def _strict(text: str) -> Any:
    return json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants)


SETTINGS = settings(
    max_examples=1500,
    deadline=None,
    derandomize=False,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@seed(20261124)
@SETTINGS
@given(payloads())
def test_the_scanner_reads_every_payload_as_json_loads_does(text: str) -> None:
    assert _outcome(json_codec.loads_strict, text) == _outcome(_strict, text)
    assert _outcome(json_codec.loads, text) == _outcome(json.loads, text)
    try:
        raw = text.encode("utf-8", "surrogatepass")
    except UnicodeEncodeError:
        return
    assert _outcome(json_codec.loads, raw) == _outcome(json.loads, raw)
    bom = b"\xef\xbb\xbf" + raw
    assert _outcome(json_codec.loads, bom) == _outcome(json.loads, bom)


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("codec") / "policy.yaml"
    path.write_text(POLICY)
    return engine_factory(str(path), None, hooks=True, log=None, cache=False)


def _answer(result: Any) -> str:
    """allow / ask / deny / none, as Claude Code reads the hook's answer."""
    if result.exit_code == 2:
        return "deny"
    assert result.exit_code == 0, result
    if not result.stdout.strip():
        return "none"
    out = json.loads(result.stdout)
    return str(out["hookSpecificOutput"]["permissionDecision"])


def _reads_as_a_plain_call(text: str) -> dict[str, Any] | None:
    """The payload as the standard library reads it, when it is one well-formed call."""
    try:
        text.encode("utf-8")
        data = _strict(text)
    except (ValueError, RecursionError, UnicodeEncodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tool_input"), dict):
        return None
    return data


@seed(20261125)
@SETTINGS
@given(payloads())
def test_the_hook_never_allows_a_payload_it_could_misread(factory: Any, text: str) -> None:
    answer = _answer(handle("claude-code", text, factory, options=HookOptions()))
    data = _reads_as_a_plain_call(text)
    if data is None:
        assert answer == "deny", (text[:300], answer)
        return
    if answer != "allow":
        return
    if data.get("tool_name") != "Bash":
        return  # another tool: the policy's default (allow) decides it
    command = data["tool_input"].get("command")
    if isinstance(command, str):
        assert not command.startswith("rm "), text[:300]
        assert "rm -rf" not in command, text[:300]
