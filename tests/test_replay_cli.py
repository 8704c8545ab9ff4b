"""`policy replay`: the summary, --against (narrowing / widening by rule), formats, exit codes, progress."""

from __future__ import annotations

import json
import os
import pty
import random
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolpolicy import load_policy
from toolpolicy.replay.plan import make_plan
from toolpolicy.replay.render import to_json
from toolpolicy.replay.run import ReplayOptions, replay_partition
from toolpolicy.replay.summary import Summary

from .replay_support import (
    CLAUDE,
    CODEX,
    FIXTURES,
    GEMINI,
    OLD_POLICY,
    POLICY,
    history_gen,
    policy_cli,
    replay_json,
    write,
)


@pytest.fixture
def policies(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path / "policy.yaml", POLICY), write(tmp_path / "old.yaml", OLD_POLICY)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    history_gen().generate(root, 1200, calls_per_session=100)
    return root


def test_the_real_agents_files_are_decided_as_the_policy_says(policies: tuple[Path, Path]) -> None:
    policy, _ = policies
    data = replay_json("--policy", str(policy), str(FIXTURES))
    assert data["calls"] == 6 and data["skipped"] == 0
    assert data["files"] == {"claude-code": 2, "codex": 2, "gemini": 2}
    # rm -rf, sudo and curl|sh deny; git push asks; ls and npm run test allow
    assert data["decisions"] == {"allow": 2, "ask": 1, "deny": 3}
    assert {h["command"] for h in data["top_denied"]} == {"rm -rf", "sudo cat", "curl -s"}
    assert data["top_asked"][0]["example"]["text"] == "git push origin main"
    assert data["top_asked"][0]["example"]["where"].startswith(str(GEMINI[0].parent))
    assert "Read(~/.ssh/**)" in {r["expression"] for r in data["rules"] if r["id"] in data["rules_never_hit"]}
    never = next(r for r in data["rules"] if r["expression"] == "Read(~/.ssh/**)")
    assert never["location"] == f"{policy}:6:66" and never["hits"] == 0
    assert "changes" not in data


def test_against_an_old_policy_groups_changes_by_rule(policies: tuple[Path, Path]) -> None:
    policy, old = policies
    data = replay_json("--policy", str(policy), "--against", str(old), *map(str, CLAUDE + CODEX + GEMINI))
    changes = data["changes"]
    assert (changes["narrowing"], changes["widening"]) == (3, 2)
    groups = {
        (g["direction"], g["old"], g["new"], g["old_rule"], g["new_rule"]): g for g in changes["groups"]
    }
    assert set(groups) == {
        ("narrowing", "ask", "deny", "(default)", "permissions.deny[1]"),  # rm -rf build && git status
        ("narrowing", "allow", "ask", "permissions.allow[0]", "permissions.ask[0]"),  # git push
        ("narrowing", "ask", "deny", "(default)", "permissions.deny[2]"),  # curl | sh
        ("widening", "deny", "allow", "permissions.deny[1]", "permissions.allow[1]"),  # ls
        ("widening", "ask", "allow", "(default)", "permissions.allow[2]"),  # npm run test
    }
    ls = groups[("widening", "deny", "allow", "permissions.deny[1]", "permissions.allow[1]")]
    assert ls["count"] == 1 and ls["examples"][0]["text"] == "ls -la src"
    assert data["old_decisions"] == {"allow": 1, "ask": 3, "deny": 2}
    assert [g["direction"] for g in changes["groups"]][:2] == ["widening", "widening"]  # widening first


def test_fail_on_gates_ci_on_the_direction_of_change(policies: tuple[Path, Path], tmp_path: Path) -> None:
    policy, old = policies
    widening = policy_cli(
        "replay", "-p", str(policy), "--against", str(old), "--fail-on", "widening", str(FIXTURES)
    )
    assert widening.returncode == 1 and "2 widening" in widening.stderr
    same = policy_cli(
        "replay",
        "-p",
        str(policy),
        "--against",
        str(policy),
        "--fail-on",
        "widening",
        "--fail-on",
        "narrowing",
        str(FIXTURES),
    )
    assert same.returncode == 0, same.stderr
    usage = policy_cli("replay", "-p", str(policy), "--fail-on", "widening", str(FIXTURES))
    assert usage.returncode == 2 and "--fail-on needs --against" in usage.stderr


def test_text_summary_names_rules_heads_and_changes(policies: tuple[Path, Path]) -> None:
    policy, old = policies
    result = policy_cli("replay", "-p", str(policy), "--against", str(old), str(FIXTURES))
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert out.startswith("replayed 6 call(s) from 6 file(s) (2 claude-code, 2 codex, 2 gemini)")
    assert "decisions: allow 2 (33.3%), ask 1 (16.7%), deny 3 (50.0%)" in out
    assert f"permissions.deny[3]  `Read(~/.ssh/**)` (deny)  {policy}:6:66" in out  # never hit, located
    assert "changes against" in out and "3 narrowing, 2 widening" in out
    assert "widening: 1 call(s) deny -> allow by permissions.allow[1] (was permissions.deny[1])" in out


def test_jsonl_streams_one_record_per_call_then_the_summary(
    policies: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, old = policies
    bad = write(tmp_path / "bad.jsonl", CLAUDE[0].read_text() + "{oops\n")
    result = policy_cli(
        "replay", "-p", str(policy), "--against", str(old), "--format", "jsonl", str(bad), str(CODEX[0])
    )
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["type"] for r in records] == ["call", "skipped", "call", "summary"]
    assert records[0]["decision"] == "deny" and records[0]["change"] is None  # sudo: denied by both
    assert records[0]["old"]["rule"] == "permissions.deny[0]"
    assert records[2]["decision"] == "allow" and records[2]["change"] == "widening"  # ls
    assert (
        records[1]["where"].endswith(f"bad.jsonl:{len(CLAUDE[0].read_text().splitlines()) + 1}")
        and records[1]["reason"] == "malformed"
    )
    assert records[-1]["calls"] == 2 and records[-1]["skipped"] == 1


def test_bad_lines_are_counted_and_never_change_the_exit_status(
    policies: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, _ = policies
    text = CLAUDE[1].read_text()
    bad = write(
        tmp_path / "t.jsonl",
        "\x1b[0m garbage\n"
        + text
        + '{"type":"assistant","message":{"content":[{"type":"tool_use"}]}}\n'
        + text.splitlines()[13][:150],
    )
    data = replay_json("-p", str(policy), str(bad))
    assert data["calls"] == 1 and data["skipped"] == 3
    assert data["skip_reasons"] == {"bad_call": 1, "malformed": 2}
    assert [s["where"].rsplit(":", 1)[1] for s in data["skipped_lines"]] == [
        "1",
        str(len(text.splitlines()) + 2),
        str(len(text.splitlines()) + 3),
    ]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.jsonl", "no such file or directory"),
        (lambda d: _binary(d / "x.jsonl"), "a binary file"),
        (lambda d: write(d / "y.jsonl", '{"what": 1}\n'), "unknown format"),
    ],
)
def test_unreadable_inputs_are_one_line_errors_exit_2(
    policies: tuple[Path, Path], tmp_path: Path, make, message: str
) -> None:
    policy, _ = policies
    path = make(tmp_path)
    result = policy_cli("replay", "-p", str(policy), str(path), str(CLAUDE[0]))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"policy replay: error: {path}: ") and message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_policy_that_does_not_load_is_exit_2_with_located_errors(tmp_path: Path) -> None:
    bad = write(tmp_path / "p.yaml", "version: 1\npermissions:\n  deny: ['Bash(']\n")
    result = policy_cli("replay", "-p", str(bad), str(FIXTURES))
    assert result.returncode == 2 and f"{bad}:3:" in result.stderr and "does not load" in result.stderr


def _binary(path: Path) -> Path:
    path.write_bytes(b"\x00\x01\x02" * 100)
    return path


def test_hooks_are_off_unless_asked(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    policy = write(
        tmp_path / "p.yaml",
        "version: 1\nprofile: claude-code\ndefault: allow\nhooks:\n  pre_tool_use:\n    - matcher: Bash\n      hooks:\n"
        f"        - {{type: command, command: 'touch {marker}; echo blocked >&2; exit 2'}}\n",
    )
    off = replay_json("-p", str(policy), str(CLAUDE[0]))
    assert off["decisions"]["allow"] == 1 and not marker.exists()
    on = replay_json("-p", str(policy), "--hooks", str(CLAUDE[0]))
    assert on["decisions"]["deny"] == 1 and marker.exists()


# -- merging partial summaries is exact in any order ----------------------------------------------------
def test_partition_summaries_merge_to_the_same_result_in_any_order(history: Path, tmp_path: Path) -> None:
    policy, old = load_policy(text=POLICY, name="p.yaml"), load_policy(text=OLD_POLICY, name="o.yaml")
    plan = make_plan([str(history)], max_line_bytes=1 << 24, partition_bytes=200_000)
    assert len(plan.partitions) > 4
    options = ReplayOptions(examples=2)
    parts = [replay_partition(p, policy, old, options).summary for p in plan.partitions]
    whole = replay_partition([piece for p in plan.partitions for piece in p], policy, old, options).summary

    def render(s: Summary) -> str:
        return json.dumps(
            to_json(s, policy, policy_path="p.yaml", old=old, old_path="o.yaml"), sort_keys=True
        )

    expected = render(whole)
    for seed in range(3):
        shuffled = parts[:]
        random.Random(seed).shuffle(shuffled)
        merged = Summary(examples=2)
        for s in shuffled:
            merged.merge(s)
        assert render(merged) == expected
    data = json.loads(expected)
    assert data["calls"] == 1200 and data["changes"]["narrowing"] > 0 and data["changes"]["widening"] > 0
    assert len(data["timeline"]) > 20  # calls spread over 30 days, bucketed by hour


# -- the progress bar: on stderr, only on a terminal -----------------------------------------------------
def test_progress_bar_only_when_stderr_is_a_terminal(
    policies: tuple[Path, Path], history: Path, tmp_path: Path
) -> None:
    policy, _ = policies
    piped = policy_cli("replay", "-p", str(policy), "--format", "json", str(history))
    assert piped.returncode == 0 and piped.stderr == ""
    master, slave = pty.openpty()
    out_path = tmp_path / "out.json"
    out_file = open(out_path, "w")  # noqa: SIM115 - closed below; a file, so a big summary cannot block the child
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolpolicy",
            "replay",
            "-p",
            str(policy),
            "--format",
            "json",
            "--partition-size",
            "1",
            str(history),
        ],
        stdout=out_file,
        stderr=slave,
        env={**os.environ, "COLUMNS": "100"},
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    out_file.close()
    os.close(master)
    assert proc.returncode == 0
    assert json.loads(out_path.read_text())["calls"] == 1200  # stdout is still clean JSON
    assert b"replay" in seen and (b"MB" in seen or b"kB" in seen)  # the bar was drawn on the terminal
