"""The `policy` click group: subcommands imported lazily from `toolpolicy.cli.COMMANDS`."""

from __future__ import annotations

import importlib
from typing import Any

import click

from . import COMMANDS


class LazyGroup(click.Group):
    """A group that imports a subcommand's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        module = importlib.import_module(f"toolpolicy.cli.{where[0]}")
        command: Any = getattr(module, where[1])
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolpolicy", prog_name="policy")
def cli() -> None:
    """toolpolicy: decide allow, ask or deny for AI agents' tool calls."""
