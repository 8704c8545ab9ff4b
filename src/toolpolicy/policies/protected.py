"""Protected paths: files an agent must never edit without a person saying yes (data only).

Claude Code never auto-approves writes to its own configuration, the repository's git metadata and
the editor and tool configs that run code (`.git`, `.claude`, `.vscode`, `.idea`; permission modes,
"protected paths"): an agent that may write them can unhook the policy that restrains it, plant a
git hook, or add a task that runs on open. Three places use this list: the engine keeps the ask of
a call that may write one of them in every mode (`runtime/protected.py`, where the data lives, since
the runtime cannot import this layer), the importers turn every setting that auto-approves (Claude
`acceptEdits`/`bypassPermissions`, Gemini `autoEdit`/`yolo` rules, Copilot `--allow-all-tools`,
Cline's auto-approve actions and YOLO, agent-code's `accept_edits`/`allow`) into allow rules *plus*
an ask rule on these paths (`formats/_auto_approve.py`), and `policy check` warns when a native
allow covers them (`lint_protected_allow`).

Patterns are Claude Code path specifiers (gitignore style, SPEC 3): bare and `x/**` names float to
any depth as ask rules, `~/` is the home directory.
"""

from __future__ import annotations

from ..runtime.protected import AGENT_CONFIG, CODE_RUNNING_CONFIG, PROTECTED_PATHS

# Paths (relative to a project root, or `~/`) that `policy check` probes with a write: the
# registration of the hook that enforces a policy lives in these files.
HOOK_REGISTRATIONS: tuple[str, ...] = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".github/hooks/policy.json",
    ".clinerules/hooks/PreToolUse",
    ".git/hooks/pre-commit",
    ".git/config",
    ".mcp.json",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".husky/pre-commit",
    ".npmrc",
)

__all__ = ["AGENT_CONFIG", "CODE_RUNNING_CONFIG", "HOOK_REGISTRATIONS", "PROTECTED_PATHS"]
