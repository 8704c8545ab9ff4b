"""A call's `context["home"]` that differs from the process's home (round 8b review, adversarially).

`kinds/path.py` `_with_raw` also reads a path under the call's home as the same path under the
policy's (process's) home, as a deny text: `Read(~/.ssh/**)` guards the call's `~/.ssh`. It maps only
the lexical path (`deny_texts[0]`): a path through a symlink to the call's home (which the path kind
resolves, and which the process's own home is guarded through) is not mapped, and neither is a home
given through a symlink and then named by its real path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy

POLICY = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Read(~/.ssh/**)"]
"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Path, Path]:
    root = tmp_path_factory.mktemp("ctxhome")
    own, other = root / "own", root / "other"
    for h in (own, other):
        (h / ".ssh").mkdir(parents=True)
        (h / ".ssh" / "id_rsa").write_text("KEY\n")
    (root / "ownlink").symlink_to(own)
    (root / "otherlink").symlink_to(other)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(own))
        engine = Engine(load_policy(text=POLICY), hooks=False)
    return engine, root, other


def decide(engine: Engine, tool: str, args: dict[str, str], home: str, own: Path) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(own))  # the process's home, as when the policy was compiled
        return str(engine.decide(tool, args, context={"cwd": "/tmp", "home": home}).decision)


def test_a_symlink_into_the_process_home_is_guarded(setup: tuple[Engine, Path, Path]) -> None:
    engine, root, _other = setup
    path = f"{root}/ownlink/.ssh/id_rsa"
    assert decide(engine, "Read", {"file_path": path}, str(root / "own"), root / "own") == "deny"


@pytest.mark.parametrize(("tool", "key"), [("Read", "file_path"), ("Bash", "command")])
def test_a_symlink_into_the_calls_home_is_guarded(
    setup: tuple[Engine, Path, Path], tool: str, key: str
) -> None:
    engine, root, other = setup
    path = f"{root}/otherlink/.ssh/id_rsa"
    assert (
        decide(engine, tool, {key: path if tool == "Read" else "cat " + path}, str(other), root / "own")
        == "deny"
    )


def test_the_real_path_of_a_symlinked_call_home_is_guarded(setup: tuple[Engine, Path, Path]) -> None:
    engine, root, other = setup
    assert (
        decide(engine, "Read", {"file_path": f"{other}/.ssh/id_rsa"}, str(root / "otherlink"), root / "own")
        == "deny"
    )


@pytest.mark.parametrize(
    "command", ["cat ~/.ssh/id_rsa", "cat $HOME/.ssh/id_rsa", "cat ~/.ss?/id_rsa", "cat ~/.ssh/*", "cat < ~/.ssh/id_rsa",
                "cd ~ && cat .ssh/id_rsa", "cd ~/.ssh && cat id_rsa", "tar -cf - ~/.ssh"],
)  # fmt: skip
@pytest.mark.parametrize("suffix", ["", "/", "/."])
def test_the_calls_home_is_guarded_in_shell_commands(
    setup: tuple[Engine, Path, Path], command: str, suffix: str
) -> None:
    engine, root, other = setup
    assert decide(engine, "Bash", {"command": command}, str(other) + suffix, root / "own") == "deny"
