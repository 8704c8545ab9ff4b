"""`policy fmt [--check] [--diff] [--to yaml|toml|json] [-o OUT] PATH...`: canonical policy files.

Place in the pipeline: the command over `policies.fmt.format_text`. Files are rewritten in place
when their canonical text differs; `--check` only reports them (exit 1 when any would change, for
CI); `--diff` prints a unified diff instead. A conversion (`--to` another syntax) never replaces
the input: it goes to `-o OUT` or to stdout. TOML comments cannot survive tomli-w, so a TOML file
with comments is not rewritten unless `--drop-comments` says so. Directories are searched for
native policies (files with a top-level `version`; `*_test` files and other YAML are skipped).
Exit: 0 done (or nothing to change), 1 a file would change (`--check`) or could not be
formatted, 2 usage error.
"""

from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field

import click

from ..errors import PolicyError
from ..vocabulary import ErrorCode
from .common import print_errors
from .exit_codes import ExitCode

SUFFIX = {"yaml": ".yaml", "toml": ".toml", "json": ".json"}


@dataclass
class FmtRun:
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)  # written to stdout: nothing to summarise


def policy_files(paths: list[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                path = os.path.normpath(os.path.join(root, f))
                if f.lower().endswith((".yaml", ".yml", ".toml")) and _is_native(path):
                    out.append(path)
    return out


def _is_native(path: str) -> bool:
    from ..policies.loader import read_source, syntax_of
    from ..policies.located import load_text
    from .test_files import is_test_file

    if is_test_file(path):
        return False
    try:
        data = load_text(read_source(path), syntax_of(path)).data
    except PolicyError:
        return True  # let the formatter report why it cannot read it
    return isinstance(data, dict) and "version" in data


def format_one(path: str, to: str | None) -> tuple[str, str]:
    """(original text, canonical text) of one native policy; raises PolicyError."""
    from ..api import detect_format
    from ..policies.fmt import format_text
    from ..policies.loader import read_source

    source = read_source(path)
    fmt = detect_format(source)
    if fmt != "toolpolicy":
        raise PolicyError(
            f"`{path}` is a `{fmt}` config, not a native policy",
            code=ErrorCode.USAGE_ERROR,
            file=path,
            help=f"convert it first: `policy import {fmt} {path}`",
        )
    return source.text, format_text(source, to=to)


@click.command("fmt")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--check", is_flag=True, help="change nothing; exit 1 if a file is not formatted")
@click.option("--diff", "show_diff", is_flag=True, help="print a unified diff instead of rewriting")
@click.option(
    "--to",
    "to",
    type=click.Choice(["yaml", "toml", "json"]),
    default=None,
    help="write in this syntax (a conversion goes to -o or stdout, never over the input)",
)
@click.option("-o", "--output", default=None, help="write to this file (`-` for stdout); one PATH only")
@click.option(
    "--drop-comments", is_flag=True, help="allow rewriting a TOML file whose comments would be lost"
)
def fmt_command(
    paths: tuple[str, ...],
    check: bool,
    show_diff: bool,
    to: str | None,
    output: str | None,
    drop_comments: bool,
) -> None:
    """Format policy files canonically (key order, defaults omitted, comments kept in YAML)."""
    files = policy_files(list(paths))
    if output is not None and len(files) != 1:
        raise click.UsageError("-o/--output needs exactly one policy file")
    run = FmtRun()
    for path in files:
        _format_file(run, path, to, output, check=check, show_diff=show_diff, drop_comments=drop_comments)
    _summary(run, check or show_diff)
    failed = run.failed or (check and run.changed)
    raise SystemExit(ExitCode.FINDINGS if failed else ExitCode.OK)


def _format_file(
    run: FmtRun,
    path: str,
    to: str | None,
    output: str | None,
    *,
    check: bool,
    show_diff: bool,
    drop_comments: bool,
) -> None:
    from ..policies.fmt import toml_comments
    from ..policies.loader import syntax_of

    try:
        old, new = format_one(path, to)
    except PolicyError as exc:
        print_errors(exc.errors)
        run.failed.append(path)
        return
    converting = to is not None and to != syntax_of(path)
    target = output or ("-" if converting else path)
    if check or show_diff:
        if show_diff and old != new:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True),
                    new.splitlines(True),
                    path,
                    path if not converting else _renamed(path, to),
                )
            )
        (run.changed if old != new else run.unchanged).append(path)
        return
    if target == "-":
        sys.stdout.write(new)
        run.printed.append(path)
        return
    if target == path and old == new:
        run.unchanged.append(path)
        return
    if target == path and syntax_of(path) == "toml" and toml_comments(old) and not drop_comments:
        click.echo(
            f"policy fmt: `{path}` has comments that TOML formatting would drop; not rewritten "
            "(pass --drop-comments to rewrite it anyway)",
            err=True,
        )
        run.failed.append(path)
        return
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(new)
    run.changed.append(path if target == path else f"{path} -> {target}")


def _renamed(path: str, to: str | None) -> str:
    return os.path.splitext(path)[0] + SUFFIX.get(to or "", "")


def _summary(run: FmtRun, dry: bool) -> None:
    if run.printed and not (run.changed or run.unchanged or run.failed):
        return
    verb = "would reformat" if dry else "reformatted"
    for path in run.changed:
        click.echo(f"{verb} {path}", err=True)
    parts = [f"{len(run.changed)} file(s) {verb}", f"{len(run.unchanged)} unchanged"]
    if run.failed:
        parts.append(f"{len(run.failed)} failed")
    click.echo(", ".join(parts), err=True)
