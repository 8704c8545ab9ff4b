"""The `policy` command line: a click group whose subcommands live one per module.

Subcommands are imported only when invoked (`policy hook` runs once per tool call, so it must
not pay for importing `check`, `fmt` or `diff`).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from .exit_codes import ExitCode

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check_cmd", "check_command"),
    "eval": ("eval_cmd", "eval_command"),
    "test": ("test_cmd", "test_command"),
    "fmt": ("fmt_cmd", "fmt_command"),
    "diff": ("diff_cmd", "diff_command"),
    "import": ("import_cmd", "import_command"),
    "hook": ("hook_cmd", "hook_command"),
    "serve": ("serve_cmd", "serve_command"),
    "schema": ("schema_cmd", "schema_command"),
    "compile": ("compile_cmd", "compile_command"),
    "bench": ("compile_cmd", "bench_command"),
    "install": ("install_cmd", "install_command"),
    "doctor": ("install_cmd", "doctor_command"),
    "mcp-proxy": ("mcp_proxy_cmd", "mcp_proxy_command"),
    "replay": ("replay_cmd", "replay_command"),
    "report": ("report_cmd", "report_command"),
    "packs": ("packs_cmd", "packs_command"),
    "explain-pack": ("packs_cmd", "explain_pack_command"),
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        module = importlib.import_module(f"{__name__}.{where[0]}")
        command: Any = getattr(module, where[1])
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolpolicy", prog_name="policy")
def cli() -> None:
    """toolpolicy: decide allow, ask or deny for AI agents' tool calls."""


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `policy` console script; never shows a traceback."""
    try:
        cli.main(args=argv, prog_name="policy", standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # an internal error: one line, exit 123
        click.echo(f"policy: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(ExitCode.INTERNAL)
