"""Extra agent set-ups for the harness (`claude_client.py`, kept verbatim beside this file).

The harness runs one real agent CLI against a fake model that asks for one shell command. These
set-ups reuse it for what it does not lay out itself:

* `codex-rules`: Codex CLI with an execpolicy rules file (`$CODEX_HOME/rules/default.rules`) and
  no hook under test, to record what Codex's own engine does with a command;
* `gemini-policy`: Gemini CLI with a policy TOML passed as `--policy`, no hook under test;
* `codex-post`: Codex CLI with the hook under test registered on `PostToolUse` (trusted by hash);
* `claude-user-rules`: Claude Code with the permission rules in the user settings
  (`$CLAUDE_CONFIG_DIR/settings.json`) instead of the project's;
* `claude-installed`, `codex-installed`, `gemini-installed`: the agent as the harness lays it out
  (no hook under test), then `vendor/install.sh` runs in the project with the run's HOME (and
  CODEX_HOME / CLAUDE_CONFIG_DIR): a `policy install` registers the hook the way a user would.

The extra file goes in through the harness's `extra_files` (written into the run's temp dir as
`vendor/rules.rules` or `vendor/policy.toml`); `register(harness)` adds the set-ups to the
harness's agent table, after which `harness.run_scenario(agent="codex-rules", ...)` uses them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from types import ModuleType
from typing import Any

RULES_FILE = "vendor/rules.rules"
POLICY_FILE = "vendor/policy.toml"
INSTALL_SCRIPT = "vendor/install.sh"
INSTALL_TIMEOUT = 120


def _work(layout: Any) -> str:
    return os.path.dirname(layout.home)


def register(harness: ModuleType) -> ModuleType:
    """Add the set-ups to `harness.AGENTS` (idempotent); returns the harness."""

    def codex_rules_setup(run: Any) -> tuple[Any, list[str], dict[str, str]]:
        settings, args, env = harness._codex_setup(run)
        source = os.path.join(_work(run), RULES_FILE)
        if os.path.exists(source):
            rules_dir = os.path.join(run.home, ".codex", "rules")
            os.makedirs(rules_dir, exist_ok=True)
            shutil.copyfile(source, os.path.join(rules_dir, "default.rules"))
            os.chmod(os.path.join(rules_dir, "default.rules"), 0o644)
        return settings, args, env

    def gemini_policy_setup(run: Any) -> tuple[Any, list[str], dict[str, str]]:
        settings, args, env = harness._gemini_setup(run)
        source = os.path.join(_work(run), POLICY_FILE)
        if os.path.exists(source):
            os.chmod(source, 0o644)
            args = [*args, "--policy", source]
        return settings, args, env

    def codex_post_setup(run: Any) -> tuple[Any, list[str], dict[str, str]]:
        handler = dict(run.handler) if run.handler else None
        hooks: dict[str, list[dict[str, Any]]] = {}
        if run.capture_cmds:
            hooks["PreToolUse"] = [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": run.capture_cmds[0]}]}
            ]
        post = (
            [{"matcher": "Bash", "hooks": [{"type": "command", "command": run.capture_cmds[1]}]}]
            if run.capture_cmds
            else []
        )
        if handler:
            post.append({"matcher": "Bash", "hooks": [handler]})
        hooks["PostToolUse"] = post
        codex_home = os.path.join(run.home, ".codex")
        hooks_file = os.path.join(codex_home, "hooks.json")
        harness._write_json(hooks_file, {"hooks": hooks})
        trust = harness._codex_trust_state(os.path.realpath(hooks_file), hooks, None, "hash")
        config_text = harness._codex_config(run.server.base_url, trust)
        with open(os.path.join(codex_home, "config.toml"), "w") as fh:
            fh.write(config_text)
        args = [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--color",
            "never",
            "--sandbox",
            "danger-full-access",
        ]
        return (
            {"hooks.json": {"hooks": hooks}},
            [*args, harness.PROMPT],
            {
                "CODEX_HOME": codex_home,
                harness.CODEX_KEY_ENV: "test",
            },
        )

    def installed(base: str) -> Any:
        def setup(run: Any) -> tuple[Any, list[str], dict[str, str]]:
            settings, args, env = harness.AGENTS[base]["setup"](run)
            script = os.path.join(_work(run), INSTALL_SCRIPT)
            install_env = {
                **os.environ,
                "HOME": run.home,
                "CODEX_HOME": os.path.join(run.home, ".codex"),
                "CLAUDE_CONFIG_DIR": os.path.join(run.home, ".claude"),
            }
            done = subprocess.run(
                ["/bin/sh", script],
                cwd=run.proj,
                env=install_env,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"install failed ({done.returncode}): {done.stderr}")
            return settings, args, env

        return setup

    def claude_user_rules_setup(run: Any) -> tuple[Any, list[str], dict[str, str]]:
        settings, args, env = harness._claude_setup(run)
        project = os.path.join(run.proj, ".claude", "settings.json")
        perms = settings.pop("permissions", {})
        harness._write_json(project, settings)
        harness._write_json(os.path.join(run.home, ".claude", "settings.json"), {"permissions": perms})
        return {"project": settings, "user": {"permissions": perms}}, args, env

    agents = harness.AGENTS
    agents["claude-user-rules"] = dict(agents["claude"], setup=claude_user_rules_setup)
    for base in ("claude", "codex", "gemini"):
        agents[f"{base}-installed"] = dict(agents[base], setup=installed(base))
    agents["codex-rules"] = dict(agents["codex"], setup=codex_rules_setup)
    agents["codex-post"] = dict(agents["codex"], setup=codex_post_setup)
    agents["gemini-policy"] = dict(agents["gemini"], setup=gemini_policy_setup)
    return harness
