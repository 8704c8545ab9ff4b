"""Writers whose destination is a whole tree, or a directory the sources go into by name (F17).

`cp -r evil/. .`, `rsync -a evil/ ~/`, `git checkout REV -- .claude/settings.json`, `git
restore .`, `ditto`, `mv`, `git worktree add`, and `cp evil/.bashrc ~` (a non-recursive copy
*into* the home directory) write paths a deny rule or a protected path guards. `yolo` must ask for
each, a policy that allows the program and denies the path must deny it, and the near misses
(copies into `build/`, `.` by name, a remote `host:path`) stay what they were. The command knowledge
says it (`tree`, `into`, `writes_tree` in `policies/commands.yaml`; docs/command-knowledge.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.kinds import shell

_PROGRAMS = ["cp", "mv", "rsync", "git", "ditto", "install", "ln"]
DENY = f"""
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Edit(.claude/**)", "Edit(~/.ssh/**)", "Edit(~/.bashrc)"]
  allow: {[f"Bash({p} *)" for p in _PROGRAMS]!r}
"""
YOLO = "version: 1\nprofile: claude-code\ndefault: ask\nmode: yolo\n"
SECRETS = 'version: 1\nprofile: claude-code\ndefault: ask\nextends: ["pack:secrets"]\n' + (
    f"permissions:\n  allow: {[f'Bash({p} *)' for p in _PROGRAMS]!r}\n"
)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    for d in (".git/hooks", ".claude", "evil/.claude", "src", "build/out"):
        (root / d).mkdir(parents=True)
    (root / "evil" / ".claude" / "settings.json").write_text("{}\n")
    return root


@pytest.fixture(scope="module")
def home() -> Path:
    return Path.home()  # the home the rules' `~` was compiled with (only spelled, never written)


def _decide(policy: str, command: str, ws: Path, home: Path) -> str:
    engine = Engine(load_policy(text=policy), hooks=False)
    d = engine.decide("Bash", {"command": command}, context={"cwd": str(ws), "home": str(home)})
    return str(d.decision)


# each writes a protected path (yolo asks) and a path the DENY policy denies
REPROS = [
    "cp -r evil/. .", "cp -R evil/. ./", "cp -a evil/. ~/", "cp -rT evil .", "cp -r -t . evil/.",
    "cp --recursive --target-directory=. evil/.", "cp -r evil/.* ~", 'cp -r "$D/." .',
    "rsync -a evil/ ./", "rsync -a evil/ ~/", "rsync -av --delete evil/ .",
    "git checkout HEAD~1 -- .claude/settings.json", "git checkout HEAD~1 -- .", "git checkout HEAD~1 .",
    "git checkout -- .claude", "git restore --source=HEAD~1 .", "git restore -s HEAD~1 -- .claude",
    "git -C . checkout evil -- .", "git worktree add .claude", "ditto evil .", "ditto evil ~",
    "mv evil/.claude .", "mv evil/.ssh ~", "cp evil/.bashrc ~", "cp evil/.bashrc ~/", "mv evil/.bashrc ~",
    "install evil/.bashrc ~", "cp -t ~ evil/.bashrc", "ln -s evil/.bashrc ~",
]  # fmt: skip


@pytest.mark.parametrize("command", REPROS)
def test_yolo_asks_for_a_tree_write_over_a_protected_path(ws: Path, home: Path, command: str) -> None:
    assert _decide(YOLO, command, ws, home) == "ask"


@pytest.mark.parametrize("command", REPROS)
def test_a_deny_rule_under_the_destination_denies(ws: Path, home: Path, command: str) -> None:
    want = {"cp -t ~ evil/.bashrc", "ln -s evil/.bashrc ~"}  # option / link writes: ask before the tree
    assert _decide(DENY, command, ws, home) in (("ask", "deny") if command in want else ("deny",))


NEAR_MISSES = [
    "cp -r src/ build/out/", "cp -r src build/out", "cp -r src .", "cp -r src/ .", "cp x .", "cp a b",
    "cp README.md ~", "cp -r src ~", "mv a.py b.py", "mv x ..", "mv dir/ build/out/", "rsync -a src/ build/out/",
    "rsync -a evil/ host:dir/", "rsync -a evil/ user@host:~/", "git checkout main", "git checkout -b feat",
    "git checkout -- src/a.py", "git restore src/a.py", "git worktree add ../wt", "git clone . here",
    "ditto src build/out", "cp -r src/* build/", 'cp -r "$SRC" build',
]  # fmt: skip


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(ws: Path, home: Path, command: str) -> None:
    assert _decide(YOLO, command, ws, home) == "allow"
    assert _decide(DENY, command, ws, home) == "allow"


@pytest.mark.parametrize("command", ["cp -r src/ build/out/", "rsync -a src/ build/out/", "mv dir build"])
def test_a_rule_floating_to_any_depth_does_not_lie_under_every_directory(
    ws: Path, home: Path, command: str
) -> None:
    # the secrets pack denies writes of `*.pem`, `.env`, `**/id_rsa` at any depth: a copy into
    # build/ may make one, but no rule names build/ (the glob check weighs DEST's own spelling)
    assert _decide(SECRETS, command, ws, home) == "allow"


def test_a_copy_into_the_root_meets_every_rule(ws: Path, home: Path) -> None:
    assert _decide(SECRETS, "rsync -a evil/ /", ws, home) == "deny"  # `//etc/shadow`, `**/id_rsa`...


def test_the_views_name_the_destination_and_its_tree() -> None:
    assert shell.view("rsync -a evil/ ./").units[0].writes == ("\x05./", "\x05\x00./\x06")
    assert shell.view("cp a b DIR").units[0].writes == ("\x05DIR", "\x05DIR/a", "\x05DIR/b")
    writes = shell.view("cp -r evil/. ~").units[0].writes
    assert "\x05\x00\x02/./\x06" in writes  # `~/.`: the whole home
    assert shell.view("rsync -a x/ host:d/").units[0].writes == ("\x05host:d/",)  # remote: no tree


def test_explain_names_the_tree_write(ws: Path, home: Path) -> None:
    engine = Engine(load_policy(text=DENY), hooks=False)
    d = engine.decide("Bash", {"command": "rsync -a evil/ ./"}, context={"cwd": str(ws), "home": str(home)})
    assert d.decision == "deny"
    assert any("with everything under it" in m for m in d.diagnostics)


def test_a_policy_can_declare_a_tree_writer(ws: Path, home: Path) -> None:
    policy = YOLO + (
        "commands:\n  sync-tool:\n    options:\n      --into: {value: tree}\n"
        "      -r: {writes_tree: true}\n    operands: [read..., into]\n"
    )
    assert _decide(policy, "sync-tool --into . x", ws, home) == "ask"
    assert _decide(policy, "sync-tool -r evil/. .", ws, home) == "ask"
    assert _decide(policy, "sync-tool x build", ws, home) == "allow"


def test_the_format_rejects_an_unknown_role() -> None:
    from toolpolicy.errors import PolicyError

    with pytest.raises(PolicyError):
        load_policy(text=YOLO + "commands:\n  t:\n    operands: [trees...]\n")


def test_an_unknown_destination_asks_rather_than_denies(ws: Path, home: Path) -> None:
    # `$(...)` may name `.` or a branch: it may lie over a denied path, it is not known to
    assert _decide(DENY, "git checkout $(git rev-parse HEAD~1)", ws, home) == "ask"
    assert _decide(DENY, 'rsync -a evil/ "$DEST"', ws, home) == "ask"


def test_git_restore_of_the_index_only_is_no_tree_write(ws: Path, home: Path) -> None:
    # git-restore(1): `--staged` alone restores the index; the files stay as they are
    assert "\x05\x00./\x06" not in shell.view("git restore --staged .").units[0].writes
    assert _decide(DENY, "git restore --staged .", ws, home) == "allow"
    assert _decide(DENY, "git restore --worktree .", ws, home) == "deny"
