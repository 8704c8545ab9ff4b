"""`policy hook PROTOCOL --policy P`: be an agent's hook command (Claude Code, docker-agent, Gemini CLI,
agent-code, Codex CLI, Cursor, Copilot CLI, Cline), reading its hook JSON on stdin and answering in its
exact contract.

This module is the click face of the command (help, choices, errors); the work is `hook_run.answer`.
The console script does not even import this module for a well-formed `policy hook` call:
`toolpolicy.cli.main` parses the options itself (`fast_argv.py`) and calls `hook_run.answer`
directly, so that the hook's cold start pays neither for click nor for anything else.

An option error (a directory as `--policy` or `--log`, a bad `--mode`, an unknown or missing
option, an extra argument) is answered, once the PROTOCOL on the command line is a known one,
with that protocol's own fail-closed answer (`adapters.fail_closed`: docker-agent, Cursor,
Copilot and Cline read a JSON deny, not click's exit 2), the reason carrying click's message. An
unknown or missing PROTOCOL stays click's usage error (exit 2): there is no format to deny in.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from .choices import FORMAT_CHOICES, MODE_CHOICES, PROTOCOL_CHOICES
from .hook_run import HookArgs, answer, read_input, run_hook, write_result

__all__ = ["HookOptionError", "hook_command", "read_input", "run_hook"]


class HookOptionError(click.UsageError):
    """An option error of `policy hook PROTOCOL`: shown as the protocol's fail-closed answer
    (stdout, stderr) and exiting with its exit code, instead of click's usage text."""

    def __init__(self, protocol: str, error: click.UsageError) -> None:
        from .. import adapters

        message = " ".join(error.format_message().split()).rstrip(".")
        super().__init__(message, error.ctx)
        self.protocol = protocol
        reason = f"toolpolicy: bad `policy hook` option: {message}; the call is denied (fail-closed)"
        self.result = adapters.fail_closed(protocol, reason)
        self.exit_code = self.result.exit_code  # type: ignore[misc]  # a ClassVar in click, per error here

    def show(self, file: object = None) -> None:
        _drain_stdin()  # the agent is writing its hook input: let it finish before we answer
        write_result(self.result)


class HookCommand(click.Command):
    """`policy hook`'s command: a usage error with a known PROTOCOL becomes `HookOptionError`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            protocol = None if ctx.resilient_parsing else protocol_in(self, given)
            if protocol is None or isinstance(error, HookOptionError):
                raise
            raise HookOptionError(protocol, error) from None


def protocol_in(command: click.Command, args: Sequence[str]) -> str | None:
    """The PROTOCOL argument of `args` (the first positional, as click reads it) when it is a
    known protocol, else None."""
    valued = {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag
        for name in (*param.opts, *param.secondary_opts)
    }
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional += args[i:]
            break
        if arg.startswith("-") and arg != "-":
            i += arg in valued  # `--opt V`, `-p V`; `--opt=V` and `-pV` carry their value
            continue
        positional.append(arg)
    return positional[0] if positional and positional[0] in PROTOCOL_CHOICES else None


def _drain_stdin() -> None:
    """Read (and drop) the hook input, bounded, unless stdin is a terminal (a person typing)."""
    stdin = sys.stdin
    try:
        if stdin is None or stdin.isatty():
            return
        stream = getattr(stdin, "buffer", None)
        if stream is not None:
            read_input(stream)
    except (OSError, ValueError):
        return


@click.command("hook", cls=HookCommand)
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
