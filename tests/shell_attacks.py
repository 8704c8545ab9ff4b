"""What the adversarial shell tests (`tests/test_*_adversarial.py`) share: the policies they
attack, a workspace holding the files they aim at, engines compiled under its home, and the real
bash that shows what a command does before a decision about it is asserted.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from toolpolicy import Engine, load_policy

PACKS = """
version: 1
profile: claude-code
extends: ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]
default: ask
"""
YOLO = """
version: 1
profile: claude-code
default: ask
mode: yolo
"""
# an allow whose exclusion must hold on every bash reading, and a deny whose condition may hold on any
EXCLUDES = r"""
version: 1
profile: claude-code
default: ask
rules:
  - id: git-but-never-push
    decision: allow
    match: ["Bash(git *)", "Bash(ls *)"]
    when: '!args.command.matches(r"\bgit\s+push\b")'
  - id: no-force-push
    decision: deny
    match: ["Bash(git push *)"]
    when: 'args.command.matches(r"--force\b")'
"""


def workspace(root: Path) -> tuple[Path, Path]:
    """`(ws, home)` under `root`: a home with an SSH key, and a workspace with a protected
    `.claude/settings.json`, a `.env`, a README and a file named `evil` to copy over things."""
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    ws = root / "ws"
    (ws / ".claude").mkdir(parents=True)
    (ws / ".claude" / "settings.json").write_text("{}\n")
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "README.md").write_text("hi\n")
    (ws / "evil").write_text("EVIL\n")
    return ws, home


def engines(home: Path, **texts: str) -> dict[str, Engine]:
    """An engine per policy text, compiled with `HOME` set to `home`: a policy's `~` is the home
    it is compiled under, the same home the calls name."""
    import os

    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        return {name: Engine(load_policy(text=text), hooks=False) for name, text in texts.items()}
    finally:
        if saved is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = saved


def decide(engine: Engine, command: str, ws: Path | str = "/tmp", home: Path | None = None) -> str:
    """The decision on a `Bash` call of `command` run in `ws` (and `home`, when given)."""
    context = {"cwd": str(ws)} if home is None else {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def bash(script: str, ws: Path, home: Path) -> str:
    """What the real bash prints running `script` in `ws` with `home` as its home."""
    out = subprocess.run(
        ["bash", "-c", script], cwd=ws, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    return out.stdout


def fast_and_general(
    home: Path, texts: dict[str, str], commands: list[str], cwds: list[Path]
) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Each command decided in each cwd by an engine with the fast path and one without (the
    general flow), twice (the second from the fast path's memo of picks): (fast, general) answers
    as (policy, cwd, command, decision, rule) rows, equal when the two ways agree."""
    import itertools

    from toolpolicy.runtime.views import clear_memos

    fast, slow = engines(home, **texts), engines(home, **texts)
    for engine in slow.values():
        engine._fast = False
    got: list[tuple[str, ...]] = []
    want: list[tuple[str, ...]] = []
    for name, command, cwd in itertools.product(texts, commands, cwds):
        context = {"cwd": str(cwd), "home": str(home)}
        clear_memos()
        for _ in range(2):
            d = fast[name].decide("Bash", {"command": command}, context=context)
            got.append((name, str(cwd), command, str(d.decision), str(d.rule)))
            s = slow[name].decide("Bash", {"command": command}, context=context)
            want.append((name, str(cwd), command, str(s.decision), str(s.rule)))
    return got, want


def need(*programs: str, path: str = "/usr/bin:/bin") -> None:
    """Skip the test when one of `programs` is not on `path` (by default /usr/bin and /bin, where
    the tests' bash finds it); `.ci/run` installs every program these tests run, so in CI they run."""
    import shutil

    import pytest

    for program in programs:
        if shutil.which(program, path=path) is None:
            pytest.skip(f"{program} is not installed (.ci/run installs it)")
