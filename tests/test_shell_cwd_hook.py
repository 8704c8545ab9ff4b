"""`cd` tracking end to end: the `policy hook claude-code` command (a real subprocess) denies an
append to `~/.bashrc` reached through `cd ~` (issue 12 item 1), in every spelling of the class."""

from __future__ import annotations

from pathlib import Path

import pytest

from hook_scripts import claude_bash_hook

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Edit(~/.bashrc)", "Edit(~/.ssh/**)"]
  allow: ["Bash(cd *)", "Bash(pushd *)", "Bash(echo *)", "Bash(tee *)", "Bash(bash *)", "Edit(./**)"]
"""


@pytest.mark.parametrize(
    "command",
    [
        "cd ~ && echo x >> .bashrc",
        "(cd ~ && echo x >> .bashrc)",
        "cd; echo x >> .bashrc",
        "pushd ~ && echo x >> .bashrc",
        "cd ~ && echo x | tee -a .bashrc",
        "bash -c 'cd ~ && echo x >> .bashrc'",
        "cd ~/.ssh && echo k >> authorized_keys",
    ],
)
def test_cd_then_write_is_denied_through_theclaude_bash_hook(tmp_path: Path, command: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    out = claude_bash_hook(policy, tmp_path, command)
    assert out["permissionDecision"] == "deny", out


def test_a_write_in_the_cwd_is_still_allowed(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    out = claude_bash_hook(policy, tmp_path, "echo x >> notes.txt")
    assert out["permissionDecision"] == "allow", out
