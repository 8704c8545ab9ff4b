"""The fast path's picks kept per engine directories, plan and text (`fastpath._remember`).

A repeated text is picked by one dictionary lookup (`views.PICKS`) instead of the lexical
path's cache, the view and its memo. What it may never do: answer a call in other directories
than the ones it was picked in, outlive `clear_memos`, grow without bound, or stand in for the
per-call symlink probe.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime import fastpath
from toolpolicy.runtime.views import PICKS, clear_memos


def _policy(tmp_path: Path, deny: str) -> Engine:
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "version: 1\nprofile: claude-code\ndefault: allow\n"
        f'permissions:\n  deny: ["Read(/{deny})", "Edit(/{deny})"]\n'
    )
    return load_policy(str(policy))


def test_a_repeated_text_is_picked_from_the_memo(tmp_path: Path) -> None:
    clear_memos()
    engine = Engine(_policy(tmp_path, str(tmp_path / "a" / "secret")), hooks=False, cwd=str(tmp_path / "a"))
    assert engine.decide("Read", {"file_path": "secret"}).decision == "deny"
    assert any("secret" in memo for picks in PICKS.values() for memo in picks.values())
    assert engine.decide("Read", {"file_path": "secret"}).decision == "deny"
    assert engine.decide("Read", {"file_path": "other"}).decision == "allow"


def test_a_call_in_other_directories_is_not_answered_from_the_memo(tmp_path: Path) -> None:
    engine = Engine(_policy(tmp_path, str(tmp_path / "b" / "secret")), hooks=False, cwd=str(tmp_path / "a"))
    for _ in range(3):  # alternating: neither answer may stand in for the other
        assert engine.decide("Read", {"file_path": "secret"}).decision == "allow"
        in_b = engine.decide("Read", {"file_path": "secret"}, context={"cwd": str(tmp_path / "b")})
        assert in_b.decision == "deny"


def test_engines_in_the_same_directories_share_one_where(tmp_path: Path) -> None:
    policy = _policy(tmp_path, str(tmp_path / "secret"))
    one, two = (Engine(policy, hooks=False, cwd=str(tmp_path)) for _ in range(2))
    other = Engine(policy, hooks=False, cwd=str(tmp_path / "a"))
    assert one._where is two._where
    assert other._where is not one._where


def test_clear_memos_empties_the_picks(tmp_path: Path) -> None:
    engine = Engine(_policy(tmp_path, str(tmp_path / "secret")), hooks=False, cwd=str(tmp_path))
    engine.decide("Read", {"file_path": "notes.txt"})
    assert PICKS
    clear_memos()
    assert not PICKS


def test_the_picks_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_memos()
    monkeypatch.setattr(fastpath, "_PICKS_KEPT", 10)
    monkeypatch.setattr(fastpath, "_KEPT", [0])
    engine = Engine(_policy(tmp_path, str(tmp_path / "secret")), hooks=False, cwd=str(tmp_path))
    for n in range(25):
        engine.decide("Read", {"file_path": f"file{n}.txt"})
        assert sum(len(memo) for picks in PICKS.values() for memo in picks.values()) <= 10
    assert engine.decide("Read", {"file_path": "secret"}).decision == "deny"


def test_a_long_text_is_not_kept(tmp_path: Path) -> None:
    clear_memos()
    engine = Engine(_policy(tmp_path, str(tmp_path / "secret")), hooks=False, cwd=str(tmp_path))
    long = "d/" * 1100 + "x.txt"
    engine.decide("Read", {"file_path": long})
    assert not any(long in memo for picks in PICKS.values() for memo in picks.values())


def test_a_symlink_made_after_the_pick_is_still_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x")
    engine = Engine(_policy(tmp_path, str(secret)), hooks=False, cwd=str(tmp_path))
    assert engine.decide("Read", {"file_path": "link"}).decision == "allow"  # picked: no such file yet
    (tmp_path / "link").symlink_to(secret)
    assert engine.decide("Read", {"file_path": "link"}).decision == "deny"


def test_a_relative_working_directory_follows_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine made with a relative `cwd` resolves it against the process's directory at each
    call: neither the lexical memo nor the picks may keep the first directory's answer."""
    for side in ("a", "b"):
        (tmp_path / side / "proj").mkdir(parents=True)
    engine = Engine(_policy(tmp_path, str(tmp_path / "b" / "proj" / "secret")), hooks=False, cwd="proj")
    monkeypatch.chdir(tmp_path / "a")
    assert engine.decide("Read", {"file_path": "secret"}).decision == "allow"
    monkeypatch.chdir(tmp_path / "b")
    assert os.getcwd() == str(tmp_path / "b")
    assert engine.decide("Read", {"file_path": "secret"}).decision == "deny"
