"""The `policy` command line: a click group whose subcommands live one per module.

Subcommands are imported only when invoked, and a well-formed `policy hook ...` (run once per tool
call) does not import click at all: `main` parses its options with `fast_argv.parse_hook` and goes
straight to `hook_run.answer`; everything else (and any `hook` command line the fast parser does not
take) is click's, in `app.py`.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

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


def __getattr__(name: str) -> Any:  # `from toolpolicy.cli import cli` still works, lazily
    if name in ("cli", "LazyGroup"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `policy` console script; never shows a traceback."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        import gc

        gc.disable()  # one short-lived process per tool call: collecting costs more than it frees
        from ..runtime.compiled_build import prefer_sources

        prefer_sources()  # one decision per process: the sources import faster than the compiled build
        from .fast_argv import parse_hook

        parsed = parse_hook(args)
        if parsed is not None:
            from .hook_run import answer, exit_process

            try:
                answer(*parsed)  # raises SystemExit with the protocol's exit code
            except SystemExit as done:
                if argv is None:  # the process is ours (console script, `python -m`): end it now
                    exit_process(done.code)
                raise
    try:
        from .app import cli

        cli.main(args=args, prog_name="policy", standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # an internal error: one line, exit 123
        from .exit_codes import ExitCode

        print(f"policy: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(ExitCode.INTERNAL)
