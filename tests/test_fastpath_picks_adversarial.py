"""Attacks on the fast path's picks kept per engine directories, plan and text
(`fastpath._remember`, `views.PICKS`): one call's answer must never stand in for another's.

Each case decides the same text through engines that share directories (and so one `Where`)
but differ in what decides it — the policy, the mode, the `commands:` knowledge, a `when`
reading the call's context, a symlink or file made between two calls, the tool name's
spelling, `read_only=`, threads, `clear_memos` — and compares every answer with a cold engine
that takes the general flow (`explain=True` turns the fast path off). They held in round 9.
"""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime import fastpath
from toolpolicy.runtime.views import PICKS, clear_memos

DENY_ENV = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Read(./.env)"]
"""
ALLOW_ALL = """
version: 1
profile: claude-code
default: allow
"""
KNOWS_MYTOOL = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Read(./.env)"]
commands:
  mytool:
    about: prints its operands (names, not files)
    operands: [data...]
"""
CONTEXT_WHEN = """
version: 1
profile: claude-code
default: ask
rules:
  - id: allow-in-trusted-sessions
    decision: allow
    match: ["Bash(make *)"]
    when: 'context.session == "trusted"'
"""


def _cold(text: str, ws: Path, tool: str, args: dict[str, str], **kw: object) -> str:
    engine = Engine(load_policy(text=text), hooks=False, cwd=str(ws), explain=True, **kw)  # type: ignore[arg-type]
    return str(engine.decide(tool, args).decision)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    clear_memos()
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "notes.txt").write_text("hi\n")
    return tmp_path


def test_engines_on_different_policies_in_one_directory_keep_their_own_picks(ws: Path) -> None:
    deny, allow = (Engine(load_policy(text=t), hooks=False, cwd=str(ws)) for t in (DENY_ENV, ALLOW_ALL))
    assert deny._where is allow._where  # the shared `Where` the picks are kept under
    for _ in range(3):
        for tool, args in (("Read", {"file_path": ".env"}), ("Bash", {"command": "cat .env"})):
            assert allow.decide(tool, args).decision == "allow"
            assert deny.decide(tool, args).decision == "deny"


def test_the_commands_knowledge_of_each_policy_decides_its_own_engines(ws: Path) -> None:
    knows = Engine(load_policy(text=KNOWS_MYTOOL), hooks=False, cwd=str(ws))
    plain = Engine(load_policy(text=DENY_ENV), hooks=False, cwd=str(ws))
    for _ in range(3):  # alternating on one text
        assert plain.decide("Bash", {"command": "mytool .env"}).decision == "deny"  # unknown: read
        assert knows.decide("Bash", {"command": "mytool .env"}).decision == "allow"  # data


@pytest.mark.parametrize("mode", ["default", "yolo", "non_interactive"])
def test_one_policy_in_three_modes_keeps_three_answers(ws: Path, mode: str) -> None:
    policy = load_policy(text="version: 1\nprofile: claude-code\ndefault: ask\n")
    others = {
        m: Engine(policy, mode=m, hooks=False, cwd=str(ws)) for m in ("default", "yolo", "non_interactive")
    }
    expected = {"default": "ask", "yolo": "allow", "non_interactive": "deny"}
    for _ in range(2):
        for m, engine in others.items():
            assert engine.decide("Bash", {"command": "make build"}).decision == expected[m]
    for tool, args in (("Read", {"file_path": "notes.txt"}), ("Edit", {"file_path": "notes.txt"})):
        cold = Engine(policy, mode=mode, hooks=False, cwd=str(ws), explain=True).decide(tool, args)
        assert others[mode].decide(tool, args).decision == cold.decision


def test_a_when_on_the_context_is_evaluated_on_every_call(ws: Path) -> None:
    engine = Engine(load_policy(text=CONTEXT_WHEN), hooks=False, cwd=str(ws))
    for _ in range(3):
        trusted = engine.decide("Bash", {"command": "make all"}, context={"session": "trusted"})
        other = engine.decide("Bash", {"command": "make all"}, context={"session": "other"})
        bare = engine.decide("Bash", {"command": "make all"})
        assert (trusted.decision, other.decision, bare.decision) == ("allow", "ask", "ask")


def test_a_symlink_or_directory_made_between_two_shell_calls_is_followed(ws: Path) -> None:
    engine = Engine(load_policy(text=DENY_ENV), hooks=False, cwd=str(ws))
    assert engine.decide("Bash", {"command": "cat link"}).decision == "allow"  # no such file yet
    (ws / "link").symlink_to(ws / ".env")
    assert engine.decide("Bash", {"command": "cat link"}).decision == "deny"
    (ws / "link").unlink()
    assert engine.decide("Read", {"file_path": "d/x"}).decision == "allow"
    (ws / "d").symlink_to(ws)
    assert engine.decide("Read", {"file_path": "d/.env"}).decision == "deny"
    assert engine.decide("Bash", {"command": "cat d/.env"}).decision == "deny"


def test_tool_name_spellings_and_read_only_do_not_share_an_answer(ws: Path) -> None:
    engine = Engine(load_policy(text=DENY_ENV), hooks=False, cwd=str(ws))
    for tool in ("Read", "read", "READ", "Read", "mcp__fs__read"):
        for ro in (None, True, False):
            got = engine.decide(tool, {"file_path": ".env"}, read_only=ro).decision
            assert got == _cold(DENY_ENV, ws, tool, {"file_path": ".env"})


def test_random_interleavings_agree_with_a_cold_engine(ws: Path) -> None:
    """Four policies sharing the directories, a text pool, symlinks made and removed at random,
    `clear_memos` now and then: every fast answer equals the general flow's."""
    texts = {"D": DENY_ENV, "A": ALLOW_ALL, "K": KNOWS_MYTOOL, "W": CONTEXT_WHEN}
    hot = {n: Engine(load_policy(text=t), hooks=False, cwd=str(ws)) for n, t in texts.items()}
    calls = [
        ("Bash", {"command": c}) for c in ("cat link", "mytool .env", "cat .env", "make x", "cat notes.txt")
    ] + [("Read", {"file_path": p}) for p in ("link", ".env", "notes.txt", "link/x")]
    rnd = random.Random(9)
    for step in range(120):
        link = ws / "link"
        if link.is_symlink():
            link.unlink()
        target = rnd.choice([None, ws / ".env", ws / "notes.txt", ws])
        if target is not None:
            link.symlink_to(target)
        if step % 37 == 36:
            clear_memos()
        name = rnd.choice(list(texts))
        tool, args = rnd.choice(calls)
        assert hot[name].decide(tool, args).decision == _cold(texts[name], ws, tool, args), (
            name,
            tool,
            args,
            target,
        )


def test_threads_deciding_one_text_under_two_policies_never_swap_answers(ws: Path) -> None:
    deny, allow = (Engine(load_policy(text=t), hooks=False, cwd=str(ws)) for t in (DENY_ENV, ALLOW_ALL))
    wrong: list[tuple[str, str]] = []

    def run(engine: Engine, expected: str) -> None:
        for n in range(300):
            text = f"cat .env ; echo {n % 7}" if n % 2 else "cat .env"
            got = engine.decide("Bash", {"command": text}).decision
            if got != expected:
                wrong.append((text, str(got)))
            if n % 50 == 49:
                clear_memos()

    threads = [threading.Thread(target=run, args=(e, x)) for e, x in ((deny, "deny"), (allow, "allow"))] * 1
    threads += [
        threading.Thread(target=run, args=(deny, "deny")),
        threading.Thread(target=run, args=(allow, "allow")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not wrong


def test_the_bound_on_picks_starts_over_without_mixing_answers(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fastpath, "_PICKS_KEPT", 8)
    monkeypatch.setattr(fastpath, "_KEPT", [0])
    deny, allow = (Engine(load_policy(text=t), hooks=False, cwd=str(ws)) for t in (DENY_ENV, ALLOW_ALL))
    for n in range(40):
        assert allow.decide("Read", {"file_path": f"f{n}"}).decision == "allow"
        assert deny.decide("Read", {"file_path": ".env"}).decision == "deny"
        assert allow.decide("Read", {"file_path": ".env"}).decision == "allow"
    assert sum(len(m) for picks in PICKS.values() for m in picks.values()) <= 8


def test_a_policy_reloaded_from_a_changed_file_is_not_answered_by_the_old_picks(ws: Path) -> None:
    path = ws / "policy.yaml"
    path.write_text(ALLOW_ALL)
    first = Engine(load_policy(str(path)), hooks=False, cwd=str(ws))
    assert first.decide("Read", {"file_path": ".env"}).decision == "allow"
    path.write_text(DENY_ENV)
    second = Engine(load_policy(str(path)), hooks=False, cwd=str(ws))
    assert second._where is first._where
    assert second.decide("Read", {"file_path": ".env"}).decision == "deny"
    assert first.decide("Read", {"file_path": ".env"}).decision == "allow"


def test_a_home_change_between_engines_is_its_own_directories(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine made under another `$HOME` has another `Where`: `~` picks are not shared."""
    for name in ("h1", "h2"):
        (ws / name / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(ws / "h1"))
    one = Engine(
        load_policy(
            text=ALLOW_ALL.replace(
                "default: allow", 'default: allow\npermissions:\n  deny: ["Read(~/.ssh/**)"]'
            )
        ),
        hooks=False,
        cwd=str(ws),
    )
    assert one.decide("Read", {"file_path": "~/.ssh/id_rsa"}).decision == "deny"
    monkeypatch.setenv("HOME", str(ws / "h2"))
    two = Engine(load_policy(text=ALLOW_ALL), hooks=False, cwd=str(ws))
    assert two._where is not one._where
    assert two.decide("Read", {"file_path": "~/.ssh/id_rsa"}).decision == "allow"
    assert one.decide("Read", {"file_path": "~/.ssh/id_rsa"}).decision == "deny"
    assert os.environ["HOME"] == str(ws / "h2")
