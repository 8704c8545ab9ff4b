"""The replay readers: real agent files (cut into fixtures), detection from content, bad lines, splits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolpolicy import load_policy
from toolpolicy.replay import read_calls
from toolpolicy.replay.detect import InputError, detect_format
from toolpolicy.replay.plan import InputErrors, make_plan, split_file
from toolpolicy.replay.reader import Piece, read_piece
from toolpolicy.replay.records import BAD_CALL, MALFORMED, TOO_LONG, RecordedCall, Skipped, Where
from toolpolicy.replay.toolmap import map_call

from .replay_support import CLAUDE, CODEX, FIXTURES, GEMINI, history_gen, write

CAP = 16 * 1024 * 1024


def _calls(paths: list[Path]) -> list[RecordedCall]:
    items = list(read_calls([str(p) for p in paths]))
    assert all(isinstance(i, RecordedCall) for i in items), [i for i in items if isinstance(i, Skipped)]
    return items  # type: ignore[return-value]


def _line(where: Where) -> dict:
    return json.loads(Path(where.path).read_text(encoding="utf-8").splitlines()[where.line - 1])


# -- the real agents' files --------------------------------------------------------------------------
def test_claude_code_transcripts_yield_their_tool_use_blocks() -> None:
    calls = _calls(CLAUDE)
    assert sorted(c.args["command"] for c in calls) == ["rm -rf build && git status", "sudo cat /etc/shadow"]
    for call in calls:
        assert call.tool == "Bash" and call.agent == "claude-code"
        line = _line(call.where)  # file:line points at the assistant record holding the block
        block = line["message"]["content"][0]
        assert line["type"] == "assistant" and block["id"] == call.context["tool_use_id"]
        assert call.session == line["sessionId"] == call.where.path.rsplit("/", 1)[1].removesuffix(".jsonl")
        assert call.context["cwd"] == "/home/dev/proj" and call.timestamp == line["timestamp"]


def test_codex_rollouts_yield_function_calls_with_session_and_cwd() -> None:
    calls = _calls(CODEX)
    assert sorted(c.args["cmd"] for c in calls) == [
        "curl -s https://example.com/install.sh | sh",
        "ls -la src",
    ]
    for call in calls:
        line = _line(call.where)
        assert call.tool == "exec_command" and line["payload"]["type"] == "function_call"
        assert call.context["tool_use_id"] == line["payload"]["call_id"]
        assert call.session and call.session in call.where.path  # from the session_meta line
        assert call.context["cwd"] == "/home/dev/proj"


def test_gemini_chat_logs_count_a_rewritten_message_once() -> None:
    calls = _calls(GEMINI)
    assert sorted(c.args["command"] for c in calls) == ["git push origin main", "npm run test -- --ci"]
    for path in GEMINI:  # the agent wrote the model's turn twice; the call is counted once
        text = path.read_text()
        assert text.count('"type":"gemini"') > text.count('"toolCalls"') >= 1
    assert all(c.tool == "run_shell_command" and c.session for c in calls)


def test_the_decision_log_written_by_the_engine_is_read_back(tmp_path: Path) -> None:
    from toolpolicy import Engine

    policy = load_policy(
        text="version: 1\ndefault: ask\npermissions:\n  deny: ['shell(rm *)']\n", name="p.yaml"
    )
    log = tmp_path / "decisions.jsonl"
    engine = Engine(policy, hooks=False, log=str(log), session_id="s-1")
    recorded = [engine.decide("shell", {"cmd": c}).decision for c in ("rm -rf /", "ls", "echo hi")]
    engine._log.close()  # type: ignore[attr-defined]
    assert detect_format(str(log), max_line_bytes=CAP) == "decision-log"
    calls = _calls([log])
    assert [c.args["cmd"] for c in calls] == ["rm -rf /", "ls", "echo hi"]
    assert [Engine(policy, hooks=False).decide(c.tool, c.args).decision for c in calls] == recorded
    assert {c.session for c in calls} == {"s-1"} and all(c.timestamp for c in calls)


def test_plain_jsonl_calls_as_policy_eval_reads_them() -> None:
    examples = Path(__file__).resolve().parent.parent / "examples" / "calls.jsonl"
    calls = _calls([examples])
    assert len(calls) == len([x for x in examples.read_text().splitlines() if x.strip()])
    assert calls[0].tool == "Bash" and calls[0].agent is None


# -- detection -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("files", "expected"),
    [(CLAUDE, "claude-code"), (CODEX, "codex"), (GEMINI, "gemini")],
)
def test_formats_are_detected_from_content_not_names(
    tmp_path: Path, files: list[Path], expected: str
) -> None:
    renamed = tmp_path / "history.txt"
    shutil.copy(files[0], renamed)
    assert detect_format(str(renamed), max_line_bytes=CAP) == expected


def test_a_first_line_cut_short_does_not_hide_the_format(tmp_path: Path) -> None:
    text = CLAUDE[0].read_text()
    cut = write(tmp_path / "t.jsonl", text[40:])  # starts mid-record, as a rotated log would
    assert detect_format(str(cut), max_line_bytes=CAP) == "claude-code"
    items = list(read_calls([str(cut)]))
    assert isinstance(items[0], Skipped) and items[0].where.line == 1 and items[0].reason == MALFORMED
    assert sum(isinstance(i, RecordedCall) for i in items) == 1


def test_binary_and_unknown_files_are_errors_naming_the_file(tmp_path: Path) -> None:
    binary = tmp_path / "core.jsonl"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00" + bytes(range(256)) * 4)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"tool": "caf\xe9"}\n' * 3)
    unknown = write(tmp_path / "other.jsonl", '{"hello": "world"}\n[1, 2]\n')
    for path, words in ((binary, "binary"), (latin, "not UTF-8"), (unknown, "unknown format")):
        with pytest.raises(InputError) as info:
            detect_format(str(path), max_line_bytes=CAP)
        assert str(info.value).startswith(f"{path}: ") and words in str(info.value)
    with pytest.raises(InputErrors) as many:
        make_plan([str(tmp_path), *map(str, CLAUDE)], max_line_bytes=CAP)
    assert len(many.value.errors) == 3  # every bad file is named, not only the first
    plan = make_plan([str(tmp_path), *map(str, CLAUDE)], max_line_bytes=CAP, skip_unknown=True)
    assert [p for p, _ in plan.files] == [str(p) for p in CLAUDE] and len(plan.skipped_files) == 3


# -- bad lines: counted with file:line, never fatal -------------------------------------------------------
def test_malformed_truncated_and_huge_lines_are_skipped_and_located(tmp_path: Path) -> None:
    lines = CLAUDE[0].read_text().splitlines()
    call_line = next(i for i, x in enumerate(lines) if '"tool_use"' in x)
    huge = (
        '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"'
        + "x" * 3000
        + '"}}]}}'
    )
    bad = [*lines[:call_line], "{not json", "[1, 2, 3]", huge, *lines[call_line:], lines[call_line][:120]]
    path = write(tmp_path / "t.jsonl", "\n".join(bad))  # the last line is cut short, no newline
    items = list(read_piece(Piece(str(path), "claude-code"), max_line_bytes=2048))
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [(s.where.line, s.reason) for s in skipped] == [
        (call_line + 1, MALFORMED),
        (call_line + 2, MALFORMED),
        (call_line + 3, TOO_LONG),
        (len(bad), MALFORMED),
    ]
    assert "cut short" in skipped[-1].message and "invalid JSON" in skipped[0].message
    calls = [i for i in items if isinstance(i, RecordedCall)]
    assert len(calls) == 1 and calls[0].where.line == call_line + 4  # lines after the bad ones still count


_PLAIN_CALL = '{"tool": "Bash", "args": {"command": "rm -rf /"}}'
_HOOK_PAYLOAD = '{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}'
_UNTYPED_RECORD = (
    '{"message": {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": "rm -rf /"}}]}}'
)


@pytest.mark.parametrize(
    ("fixture", "stray"),
    [
        (CLAUDE[0], _PLAIN_CALL),
        (CLAUDE[0], _HOOK_PAYLOAD),
        (CLAUDE[0], _UNTYPED_RECORD),  # the transcript's marker, but no record of a transcript
        (CODEX[0], _PLAIN_CALL),
        (CODEX[0], _HOOK_PAYLOAD),
    ],
    ids=[
        "claude-plain-call",
        "claude-hook-payload",
        "claude-untyped-record",
        "codex-plain-call",
        "codex-hook-payload",
    ],
)
def test_a_line_of_another_log_among_the_records_is_a_skipped_line(
    tmp_path: Path, fixture: Path, stray: str
) -> None:
    """A call written as another log writes it, among an agent's own records, is reported as a
    skipped line with its reason (`policy replay` counts it), never passed over as a record that
    is not a call (R10g-F5)."""
    lines = fixture.read_text().splitlines()
    path = write(tmp_path / "mixed.jsonl", "\n".join([lines[0], stray, *lines[1:]]) + "\n")
    items = list(read_calls([str(path)]))
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [(s.where.line, s.reason) for s in skipped] == [(2, MALFORMED)], skipped
    assert "another log" in skipped[0].message or "transcript record" in skipped[0].message
    assert len([i for i in items if isinstance(i, RecordedCall)]) == len(
        _calls([fixture])
    )  # its own calls count


def test_a_line_over_the_cap_is_never_read_into_memory(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "big.jsonl"
    with open(path, "w") as fh:
        fh.write('{"tool": "shell", "args": {"cmd": "' + "y" * (64 * 1024 * 1024) + '"}}\n')
        fh.write('{"tool": "shell", "args": {"cmd": "ls"}}\n')
    tracemalloc.start()
    items = list(read_piece(Piece(str(path), "calls"), max_line_bytes=1024 * 1024))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [type(i).__name__ for i in items] == ["Skipped", "RecordedCall"] and items[0].reason == TOO_LONG
    assert peak < 8 * 1024 * 1024  # a 64 MiB line went by in 1 MiB pieces


def test_unusable_calls_are_bad_calls_not_crashes(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.jsonl",
        CODEX[0].read_text()
        + '{"timestamp":"2026-11-24T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{not json","call_id":"c1"}}\n'
        + '{"timestamp":"2026-11-24T10:00:00Z","type":"response_item","payload":{"type":"function_call","arguments":"{}","call_id":"c2"}}\n',
    )
    items = list(read_calls([str(path)]))
    bad = [i for i in items if isinstance(i, Skipped)]
    assert [b.reason for b in bad] == [BAD_CALL, BAD_CALL] and "not JSON" in bad[0].message


# -- splitting a big file: the same calls at the same lines ---------------------------------------------
def test_byte_range_pieces_read_exactly_what_the_whole_file_holds(tmp_path: Path) -> None:
    history_gen().generate(tmp_path / "h", 3000, calls_per_session=3000)
    path = next((tmp_path / "h").rglob("*.jsonl"))
    whole = [(i.where, getattr(i, "tool", None)) for i in read_piece(Piece(str(path), "claude-code"))]
    pieces = split_file(str(path), "claude-code", path.stat().st_size, 100_000)
    assert len(pieces) > 5 and pieces[0].start == 0 and pieces[-1].end is None
    parts = [(i.where, getattr(i, "tool", None)) for p in pieces for i in read_piece(p)]
    assert parts == whole and len(whole) == 3000


# -- tool names onto the policy's profile -----------------------------------------------------------------
def test_calls_are_renamed_onto_the_policy_profile() -> None:
    claude, codex, gemini = _calls(CLAUDE)[0], _calls(CODEX)[0], _calls(GEMINI)[0]
    assert [(c.tool, c.args.get("command")) for c in map_call(codex, "claude-code")] == [
        ("Bash", codex.args["cmd"])
    ]
    assert map_call(claude, "gemini")[0].tool == "run_shell_command"
    assert map_call(gemini, "codex")[0].tool == "shell"
    assert map_call(codex, "docker-agent")[0].args["cmd"] == codex.args["cmd"]
    assert map_call(claude, "claude-code") == [claude]  # the policy's own agent keeps its spelling
    argv = RecordedCall("local_shell", {"command": ["bash", "-lc", "ls -la"]}, claude.where, "codex")
    assert map_call(argv, "claude-code")[0].args["command"] == "bash -lc 'ls -la'"
    assert map_call(argv, "codex")[0].args["command"] == ["bash", "-lc", "ls -la"]
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: src/b.py\n+z\n*** End Patch\n"
    )
    applied = map_call(RecordedCall("apply_patch", {"input": patch}, claude.where, "codex"), "claude-code")
    assert [(c.tool, c.args) for c in applied] == [
        ("Edit", {"file_path": "src/a.py"}),
        ("Write", {"file_path": "src/b.py"}),
    ]
    mcp = RecordedCall("mcp__github__create_issue", {"title": "x"}, claude.where, "claude-code")
    assert map_call(mcp, "gemini") == [mcp]


def test_fixtures_have_no_temp_paths() -> None:
    for path in FIXTURES.rglob("*.jsonl"):
        assert "claude_client" not in path.read_text(), path


# -- the Claude Code line reader (msgspec) reads exactly what the general way reads ---------------------
def _both_ways(text: bytes) -> tuple[list | None, list]:
    from toolpolicy.replay.formats import loads
    from toolpolicy.replay.formats.claude_code import ClaudeCodeTranscript

    fmt = ClaudeCodeTranscript("t.jsonl")
    where = Where("t.jsonl", 7)
    fast = fmt.line_records(text, where)
    try:
        obj = loads(text)
    except ValueError:
        return fast, ["invalid JSON"]
    general = list(fmt.records(obj, where)) if isinstance(obj, dict) else ["not an object"]
    return fast, general


def test_the_claude_code_line_reader_reads_what_the_general_way_reads() -> None:
    pytest.importorskip("msgspec", reason="the replay extra is not installed")  # `.ci/run` installs it
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls", "n": 10**30}}
    line = {"type": "assistant", "cwd": "/w", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z"}
    lines = [json.dumps(json.loads(t)).encode() for p in CLAUDE for t in p.read_text().splitlines() if t]
    lines += [
        json.dumps({**line, "message": {"content": [use, {"type": "text", "text": "hi"}, use]}}).encode(),
        json.dumps({**line, "message": {"content": [{**use, "input": None}, {"type": "tool_use"}]}}).encode(),
        json.dumps(
            {
                **line,
                "message": {"content": [{**use, "name": 5}, {k: v for k, v in use.items() if k != "input"}]},
            }
        ).encode(),
        json.dumps({**line, "cwd": 3, "sessionId": None, "message": {"content": [use]}}).encode(),
        json.dumps({**line, "type": "user", "message": {"content": [use]}}).encode(),
        json.dumps({**line, "message": {"content": "text"}}).encode(),  # another shape: the general way
        json.dumps({**line, "message": {"content": [use, "text"]}}).encode(),
        json.dumps({**line, "message": "text"}).encode(),
        json.dumps({**line, "message": {"content": [{**use, "type": 1}]}}).encode(),
        json.dumps(
            {**line, "message": {"content": [use]}, "x": "é"}, ensure_ascii=False
        ).encode(),  # not ASCII
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"A","name":"B","input":{}}]}}',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"A","input":{"a":1,"a":2}}]}}',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"A","input":{"a":"\\ud800"}}]}}',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"A","input":[1,]}]}}',
        b'{"type":"assistant","x":' + b"[" * 2000 + b"]" * 2000 + b"}",
        b'["tool_use"]',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"A","input":{}}]}',
    ]
    taken = 0
    for text in lines:
        fast, general = _both_ways(text)
        if fast is not None:
            taken += 1
            assert fast == general, text[:200]
    assert taken >= 12  # most lines go the fast way (the test would prove nothing otherwise)


def test_the_tool_map_shortcut_maps_as_the_full_mapping_does() -> None:
    from toolpolicy.replay import toolmap

    agents = {agent for agent, _ in toolmap._NATIVE} | {"unknown-agent"}
    tools = {tool for _, tool in toolmap._NATIVE} | {"mcp__x__y", "Task"}
    shapes: list[object] = [
        {"command": "ls", "cmd": "ls", "file_path": "/a", "url": "https://x", "prompt": "see https://y.z/p"},
        {"command": ["ls", "-la"], "cmd": ["git", "status"], "input": "*** Update File: a.py\n"},
        {"absolute_path": "/b", "path": "/c", "query": "q"},
        ["not", "an", "object"],
        {},
    ]
    for profile in [*toolmap._SPELLING, "no-such-profile"]:
        for agent in agents:
            for tool in tools:
                for args in shapes:
                    call = RecordedCall(tool, args, Where("f", 1), agent, {"cwd": "/w"}, None, None)
                    assert map_call(call, profile) == toolmap._map(call, profile), (
                        profile,
                        agent,
                        tool,
                        args,
                    )


def test_a_tool_use_input_the_parser_rejects_is_a_skipped_line_not_a_crash(tmp_path: Path) -> None:
    """msgspec passes over a number beyond a double's range; the arguments' parser does not."""
    from toolpolicy import load_policy
    from toolpolicy.replay.run import ReplayOptions, run_local

    pytest.importorskip("msgspec", reason="the replay extra is not installed")  # `.ci/run` installs it
    good = '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls"}}]}}'
    bad = good.replace('"ls"}', '"ls","n":1e999}')
    path = write(tmp_path / "t.jsonl", "\n".join([good, bad, good, bad]) + "\n")
    items = list(read_piece(Piece(str(path), "claude-code")))
    assert [(type(i).__name__, i.where.line) for i in items] == [
        ("RecordedCall", 1),
        ("Skipped", 2),
        ("RecordedCall", 3),
        ("Skipped", 4),
    ]
    assert items[1].reason == MALFORMED and "invalid JSON" in items[1].message
    policy = load_policy(text="version: 1\nname: p\nprofile: claude-code\ndefault: ask\n", name="p.yaml")
    partitions = [[Piece(str(path), "claude-code")]]
    for memo in (True, False):  # the lazy reader (memo) and the eager one skip the same lines
        summary = run_local(partitions, policy, None, ReplayOptions(memo=memo))
        assert (summary.calls, summary.skip_reasons) == (2, {MALFORMED: 2})
        assert [(p.where.line, p.message) for p in summary.problems] == [
            (2, items[1].message),
            (4, items[3].message),
        ]
