"""`policy replay` on hostile logs: lines crafted to crash it, or to hide a denied call from its
summary (a real `policy replay` subprocess on files in a temporary directory)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

POLICY = """version: 1
profile: claude-code
default: allow
rules:
  - {id: no-rm, decision: deny, match: ["Bash(rm *)"]}
"""
RM = {"tool": "Bash", "args": {"command": "rm -rf /"}}


def _replay(tmp_path: Path, text: str) -> dict[str, object]:
    (tmp_path / "p.yaml").write_text(POLICY)
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "policy"), "replay", "-p", str(tmp_path / "p.yaml"), "--format", "json", str(log)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)


def _text(out: dict[str, object]) -> str:
    return json.dumps(out)


@pytest.mark.parametrize(
    "junk",
    ['{"tool": 5, "args": []}', '{"tool":"Bash","args":{"command":["rm","-rf","/"]}}', "[1,2]", "NaN",
     '{"tool":"Bash","args":{"command":"rm x\\ud800"}}', "[" * 100000, '{"tool":"Bash","args":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
     "\ufeff" + json.dumps(RM)],
)  # fmt: skip
def test_junk_lines_are_skipped_and_the_denied_call_still_counts(tmp_path: Path, junk: str) -> None:
    out = _replay(tmp_path, junk + "\n" + json.dumps(RM) + "\n")
    decisions = out["decisions"]
    assert isinstance(decisions, dict) and decisions["deny"] >= 1 and decisions["allow"] == 0


def test_a_call_after_a_transcript_record_is_not_silently_dropped(tmp_path: Path) -> None:
    """R10g-F5 (fixed): a plain call line in a file detected as a Claude transcript is a skipped
    line with its reason, not one of the transcript's records that are not calls."""
    header = {"type": "user", "message": {"role": "user", "content": "hi"}, "cwd": "/tmp", "sessionId": "s"}
    out = _replay(tmp_path, json.dumps(header) + "\n" + json.dumps(RM) + "\n")
    decisions = out["decisions"]
    assert isinstance(decisions, dict) and (decisions["deny"] == 1 or out["skipped"] == 1), out
    assert "another log" in json.dumps(out)


def test_a_call_giving_a_key_twice_is_not_replayed_as_an_allow(tmp_path: Path) -> None:
    out = _replay(tmp_path, '{"tool":"Bash","args":{"command":"rm -rf /"},"tool":"Read"}\n')
    decisions = out["decisions"]
    assert isinstance(decisions, dict) and decisions["allow"] == 0
