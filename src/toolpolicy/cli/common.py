"""Helpers shared by the subcommands: loading a policy for the CLI and turning errors into exits."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import PolicyError
from .choices import FORMAT_CHOICES as FORMAT_CHOICES
from .exit_codes import ExitCode
from .output import render_error, use_colour


def load_or_exit(path: str, fmt: str | None = None) -> Any:
    from ..api import load_policy

    try:
        return load_policy(path, format=fmt)
    except PolicyError as exc:
        print_errors(exc.errors)
        raise SystemExit(ExitCode.FINDINGS) from None


def print_errors(errors: Any, stream: Any = None) -> None:
    stream = stream or sys.stderr
    colour = use_colour(stream)
    for err in errors:
        click.echo(render_error(err, colour=colour), file=stream)
