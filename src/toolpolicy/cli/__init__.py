"""The `policy` command line: a click group whose subcommands live one per module."""

from __future__ import annotations

import sys

import click

from .exit_codes import ExitCode


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolpolicy", prog_name="policy")
def cli() -> None:
    """toolpolicy: decide allow, ask or deny for AI agents' tool calls."""


def _register() -> None:
    from .check_cmd import check_command
    from .eval_cmd import eval_command
    from .schema_cmd import schema_command

    for cmd in (eval_command, check_command, schema_command):
        cli.add_command(cmd)
    for module, name in (
        ("hook_cmd", "hook_command"),
        ("test_cmd", "test_command"),
        ("fmt_cmd", "fmt_command"),
        ("diff_cmd", "diff_command"),
        ("import_cmd", "import_command"),
        ("compile_cmd", "compile_command"),
        ("compile_cmd", "bench_command"),
    ):
        try:
            mod = __import__(f"{__name__}.{module}", fromlist=[name])
        except ImportError:
            continue
        cli.add_command(getattr(mod, name))


_register()


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
