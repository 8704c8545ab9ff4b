"""`policy hook PROTOCOL --policy P`: be an agent's hook command (Claude Code, docker-agent, Gemini CLI,
agent-code, Codex CLI, Cursor, Copilot CLI, Cline), reading its hook JSON on stdin and answering in its
exact contract.

This module is the click face of the command (help, choices, errors); the work is `hook_run.answer`.
The console script does not even import this module for a well-formed `policy hook` call:
`toolpolicy.cli.main` parses the options itself (`fast_argv.py`) and calls `hook_run.answer`
directly, so that the hook's cold start pays neither for click nor for anything else.
"""

from __future__ import annotations

import click

from .choices import FORMAT_CHOICES, MODE_CHOICES, PROTOCOL_CHOICES
from .hook_run import HookArgs, answer, read_input, run_hook

__all__ = ["hook_command", "read_input", "run_hook"]


@click.command("hook")
@click.argument("protocol", type=click.Choice(PROTOCOL_CHOICES))
@click.option(
    "--policy",
    "-p",
    "policy_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="the policy file (any format `load_policy` reads); use an absolute path",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policy's format (detected from the name and content by default)",
)
@click.option(
    "--mode",
    type=click.Choice(MODE_CHOICES),
    default=None,
    help="override the policy's mode; `auto` follows the agent's own mode when its input "
    "carries one (Claude Code's permission_mode)",
)
@click.option(
    "--exit-2",
    "exit_2",
    is_flag=True,
    help="answer a deny with exit 2 and the reason on stderr instead of a JSON answer",
)
@click.option(
    "--ask-allows",
    is_flag=True,
    help="agent-code, codex, cline, cursor (file reads, preToolUse): let an `ask` through to the agent's "
    "own permission check (default: veto)",
)
@click.option("--tool", default=None, help="agent-code: the tool name if $AGENT_CODE_HOOK_TOOL is not set")
@click.option("--no-hooks", is_flag=True, help="skip the policy's own hooks (rules, hints and default only)")
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="append each decision to this JSONL decision log",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="always compile the policy (default: reuse a compiled copy cached per user)",
)
@click.option(
    "--server", default=None, help="ask `policy serve` at this URL first; decide here if it cannot answer"
)
@click.option(
    "--server-token-file", type=click.Path(dir_okay=False), default=None, help="bearer token for --server"
)
@click.option(
    "--server-timeout", type=click.FloatRange(0.01), default=5.0, help="seconds to wait for --server"
)
def hook_command(
    protocol: str,
    policy_path: str,
    fmt: str | None,
    mode: str | None,
    exit_2: bool,
    ask_allows: bool,
    tool: str | None,
    no_hooks: bool,
    log_path: str | None,
    no_cache: bool,
    server: str | None,
    server_token_file: str | None,
    server_timeout: float,
) -> None:
    """Answer an agent's tool-call hook: PROTOCOL names the agent (one of the choices above).

    Reads the agent's hook JSON on stdin, decides the call against the policy and prints the
    agent's own answer (JSON and/or exit code). Fails closed: any error denies the call.
    """
    answer(
        protocol,
        HookArgs(
            policy_path,
            fmt,
            mode,
            exit_2,
            ask_allows,
            tool,
            no_hooks,
            log_path,
            no_cache,
            server,
            server_token_file,
            server_timeout,
        ),
    )
