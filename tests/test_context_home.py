"""A call whose `context["home"]` is not the home the policy's `~` rules were compiled with.

`~` in a policy is compiled with the process's `$HOME`; a call may say whose home its `~` means
(`policy serve` deciding for several users, an agent running as another user). A deny or ask
rule on `~/...` must then guard that home too: the path is also read under the policy's home
(`kinds/path.py` `_with_raw`), as a deny text only, so an allow written with `~` never extends to
another user's files.
"""

from __future__ import annotations

import os

import pytest

from toolpolicy import Engine, load_policy

POLICY = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Read(~/.ssh/**)", "Edit(~/.bashrc)"]
  ask: ["Read(~/notes/**)"]
"""
ALICE = "/home/alice-for-test"


@pytest.fixture(scope="module")
def engine() -> Engine:
    assert os.path.expanduser("~") != ALICE
    return Engine(load_policy(text=POLICY), hooks=False)


def _decide(engine: Engine, tool: str, args: dict[str, str], home: str = ALICE) -> str:
    return str(engine.decide(tool, args, context={"cwd": "/tmp", "home": home}).decision)


@pytest.mark.parametrize(
    ("tool", "args", "want"),
    [
        ("Read", {"file_path": "~/.ssh/id_rsa"}, "deny"),
        ("Read", {"file_path": f"{ALICE}/.ssh/id_rsa"}, "deny"),
        ("Read", {"file_path": f"{ALICE}/x/../.ssh/config"}, "deny"),
        ("Edit", {"file_path": "~/.bashrc", "old_string": "a", "new_string": "b"}, "deny"),
        ("Read", {"file_path": "~/notes/todo.md"}, "ask"),
        ("Bash", {"command": "cat ~/.ssh/id_rsa"}, "deny"),
        ("Bash", {"command": "cd ~ && cat .ssh/id_rsa"}, "deny"),
        ("Bash", {"command": "echo x >> ~/.bashrc"}, "deny"),
    ],
)
def test_the_policys_home_rules_guard_the_calls_home(
    engine: Engine, tool: str, args: dict[str, str], want: str
) -> None:
    assert _decide(engine, tool, args) == want


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Read", {"file_path": "~/project/main.py"}),
        ("Read", {"file_path": f"{ALICE}.ssh/id_rsa"}),  # a sibling directory, not the home
        ("Read", {"file_path": "/srv/.ssh/id_rsa"}),
        ("Bash", {"command": "cat ~/project/main.py"}),
    ],
)
def test_other_paths_are_unchanged(engine: Engine, tool: str, args: dict[str, str]) -> None:
    assert _decide(engine, tool, args) == "allow"


def test_the_process_home_is_still_guarded_for_a_call_with_another_home(engine: Engine) -> None:
    own = os.path.expanduser("~")
    assert _decide(engine, "Read", {"file_path": f"{own}/.ssh/id_rsa"}) == "deny"
    assert _decide(engine, "Read", {"file_path": "~/.ssh/id_rsa"}, home=own) == "deny"


def test_an_allow_written_with_a_tilde_does_not_extend_to_another_home() -> None:
    text = 'version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  allow: ["Edit(~/project/**)"]\n'
    engine = Engine(load_policy(text=text), hooks=False)
    edit = {"file_path": "~/project/main.py", "old_string": "a", "new_string": "b"}
    assert _decide(engine, "Edit", edit, home=os.path.expanduser("~")) == "allow"
    assert _decide(engine, "Edit", edit) == "ask"
