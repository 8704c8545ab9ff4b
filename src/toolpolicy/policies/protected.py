"""Protected paths: files an agent must never edit without a person saying yes (data only).

Claude Code never auto-approves writes to its own configuration, the repository's git metadata and
the editor and tool configs that run code (`.git`, `.claude`, `.vscode`, `.idea`; permission modes,
"protected paths"): an agent that may write them can unhook the policy that restrains it, plant a
git hook, or add a task that runs on open. The importers turn every mode that auto-approves edits
(`acceptEdits`, `bypassPermissions`) into allow rules *plus* an ask rule on these paths, and
`policy check` warns when a native allow covers them (`lint_protected_allow`).

Patterns are Claude Code path specifiers (gitignore style, SPEC 3): bare and `x/**` names float to
any depth as ask rules, `~/` is the home directory.
"""

from __future__ import annotations

# Configuration that makes the agent (or its hooks) run differently.
AGENT_CONFIG = (
    ".claude/**",
    ".mcp.json",
    ".codex/**",
    ".gemini/**",
    ".cursor/**",
    "~/.claude/**",
    "~/.claude.json",
    "~/.codex/**",
    "~/.gemini/**",
)
# Repository metadata and tools that run code on their own (git hooks, editor tasks, installers).
CODE_RUNNING_CONFIG = (
    ".git/**",
    ".gitmodules",
    ".husky/**",
    ".vscode/**",
    ".idea/**",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    ".pre-commit-config.yaml",
    "~/.gitconfig",
    "~/.bashrc",
    "~/.bash_profile",
    "~/.profile",
    "~/.zshrc",
    "~/.zprofile",
    "~/.ssh/**",
)
PROTECTED_PATHS: tuple[str, ...] = AGENT_CONFIG + CODE_RUNNING_CONFIG

# Paths (relative to a project root, or `~/`) that `policy check` probes with a write: the
# registration of the hook that enforces a policy lives in these files.
HOOK_REGISTRATIONS: tuple[str, ...] = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".git/hooks/pre-commit",
    ".git/config",
    ".mcp.json",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".husky/pre-commit",
    ".npmrc",
)
