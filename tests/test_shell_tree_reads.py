"""Shell commands that read a directory with everything under it (`grep -r`, `rg`, `cp -r`,
`tar -c`, `zip -r`, `rsync`): the command knowledge's `reads_tree` makes each such operand a tree
read, which a deny or ask rule of the read tool on a path at or under it meets, as it meets the
Grep tool's search of that directory (R9-F1). Only anchored rules count (`/`, `~`): a cwd-relative
rule covers the paths it names, not a search of the project that holds them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shell_attacks import PACKS, decide, engines, workspace

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(grep *)", "Bash(rg *)", "Bash(cp *)", "Bash(tar *)", "Bash(zip *)", "Bash(rsync *)"]
  deny: ["Read(./.env)", "Read(~/.ssh/**)"]
"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:  # type: ignore[type-arg]
    ws, home = workspace(tmp_path_factory.mktemp("tree-reads"))
    return ws, home, engines(home, user=USER, packs=PACKS)


@pytest.mark.parametrize(
    "command",
    [
        "grep -r KEY ~",
        "rg KEY ~/.",
        "grep -r x /",
        "tar -czf h.tgz ~",
        "zip -r h.zip ~",
        "rsync -a ~/ /tmp/b/",
        "cp -a ~/. /tmp/b",
    ],
)
def test_a_tree_read_holding_a_denied_path_is_denied(setup: tuple, command: str) -> None:  # type: ignore[type-arg]
    ws, home, engine = setup
    assert decide(engine["user"], command, ws, home) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "grep -r TODO .",
        "grep -rn TODO src/",
        "rg TODO",
        "rg -n foo src",
        "cp -r src/ dst/",
    ],
)
def test_a_search_of_the_project_stays_allowed(setup: tuple, command: str) -> None:  # type: ignore[type-arg]
    """`Read(./.env)` names a file of the project; searching the project is not reading it by name."""
    ws, home, engine = setup
    assert decide(engine["user"], command, ws, home) == "allow"


def test_an_unknown_directory_searched_recursively_asks(setup: tuple) -> None:  # type: ignore[type-arg]
    ws, home, engine = setup
    assert decide(engine["user"], 'grep -r x "$DIR"', ws, home) == "ask"


def test_the_knowledge_marks_the_operands_as_trees(setup: tuple) -> None:  # type: ignore[type-arg]
    from toolpolicy.runtime.kinds import shell

    table = setup[2]["user"].policy.commands
    assert any(t.endswith("\x06") for t in shell.view("grep -r x d", None, table).units[0].reads)
    assert not any(t.endswith("\x06") for t in shell.view("grep x d", None, table).units[0].reads)
    assert any(t.endswith("\x06") for t in shell.view("rg x", None, table).units[0].reads)  # the cwd


@pytest.mark.parametrize(
    "command",
    [
        "grep -r TODO .",
        "rg K",
        "grep -r KEY ~",
        "rg KEY ..",
        "shopt -s dotglob; grep -r x .",
        "GLOBIGNORE=x grep -r x src",
        'grep -r x "$D"',
        "cp -r src/ dst/",
        "grep -r x /etc",
    ],
)
@pytest.mark.parametrize("name", ["user", "packs"])
def test_the_fast_path_decides_a_tree_read_as_the_general_flow(setup: tuple, name: str, command: str) -> None:  # type: ignore[type-arg]
    """A tree read that meets no rule is decided on the fast path (`fastpath._tree_read_meets_nothing`);
    the decision, reason and rule are the general flow's."""
    from toolpolicy import Engine

    ws, home, engine = setup
    slow = Engine(engine[name].policy, hooks=False)
    slow._fast = False
    context = {"cwd": str(ws), "home": str(home)}
    fast = engine[name].decide("Bash", {"command": command}, context=context)
    general = slow.decide("Bash", {"command": command}, context=context)
    assert fast.to_json() == general.to_json()
