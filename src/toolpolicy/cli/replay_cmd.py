"""`policy replay --policy P [--against OLD] PATH...`: what a policy does to recorded history.

Place in the pipeline: the command over `toolpolicy.replay` (plan -> engine -> summary ->
render). Reads Claude Code transcripts, Codex CLI rollouts, Gemini CLI chat logs, decision logs and
JSONL calls (directories are searched for `*.jsonl`), decides every call with hooks off (`--hooks`
runs them), and prints a summary; with `--against OLD` also every change of decision, narrowing
or widening, grouped by rule. `--engine dask` spreads the work over a Dask cluster.

Exit: 0 done; 1 `--fail-on` found a change of that direction; 2 usage error, a policy that does
not load, an input that cannot be read (binary, unknown format, missing) or a distributed run that
could not complete; 123 internal error. A malformed or over-long *line* is never fatal: it is
counted, shown with its `file:line`, and the exit status does not change.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import click

from ..errors import PolicyError
from .common import FORMAT_CHOICES, print_errors
from .exit_codes import ExitCode

MIB = 1024 * 1024


def load_policy_or_exit(path: str, fmt: str | None, what: str = "policy") -> Any:
    """A compiled policy, or the located errors on stderr and exit 2."""
    from ..api import load_policy

    try:
        return load_policy(path, format=fmt)
    except PolicyError as exc:
        print_errors(exc.errors)
        click.echo(f"policy replay: the {what} {path} does not load", err=True)
        raise SystemExit(ExitCode.USAGE) from None
    except OSError as exc:
        click.echo(f"policy replay: cannot read the {what} {path}: {exc.strerror or exc}", err=True)
        raise SystemExit(ExitCode.USAGE) from None


def replay_options(func: Any) -> Any:
    """The options `policy replay` and `policy report` share (input, engine, deciding)."""
    options = [
        click.option(
            "--mode",
            type=click.Choice(["default", "yolo", "non_interactive"]),
            default=None,
            help="decide in this mode (default: the policy's)",
        ),
        click.option(
            "--hooks",
            is_flag=True,
            help="run the policy's hooks (off by default: rules, hints and default only)",
        ),
        click.option("--cwd", default=None, help="the working directory of calls whose record names none"),
        click.option(
            "--engine",
            type=click.Choice(["local", "dask"]),
            default="local",
            show_default=True,
            help="decide in this process, or on Dask distributed",
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="an existing Dask scheduler (tcp://HOST:8786); without it --engine dask starts a local cluster",
        ),
        click.option(
            "--workers",
            type=click.IntRange(1, 256),
            default=2,
            show_default=True,
            help="worker processes of the local Dask cluster",
        ),
        click.option(
            "--connect-timeout",
            type=click.FloatRange(0.5, 600),
            default=10.0,
            show_default=True,
            help="seconds to wait for the Dask scheduler and its workers",
        ),
        click.option(
            "--partition-size",
            type=click.IntRange(1, 4096),
            default=None,
            metavar="MIB",
            help="MiB of input per partition (default: split the input over the workers, at most 32)",
        ),
        click.option(
            "--max-line-bytes",
            type=click.IntRange(1024, 1024 * MIB),
            default=16 * MIB,
            show_default=True,
            help="a recorded line longer than this is skipped and counted",
        ),
        click.option(
            "--memo/--no-memo",
            default=True,
            show_default=True,
            help="answer a repeated call from a memo of its decision (only where that is exact: "
            "no `when` rule, no hook runs; same result either way)",
        ),
        click.option(
            "--skip-unknown",
            is_flag=True,
            help="skip (and list) files of an unknown format instead of failing",
        ),
        click.option(
            "--progress/--no-progress",
            "progress",
            default=None,
            help="a progress bar on stderr (default: only when stderr is a terminal)",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


class ReplayRun:
    """One replay, from the CLI's options to a summary (shared by `replay` and `report`)."""

    def __init__(self, **opts: Any) -> None:
        self.opts = opts

    def run(self, paths: list[str], policy: Any, old: Any, *, emit: Any = None, examples: int = 3) -> Any:
        from ..replay.dask_engine import DaskRunError, run_dask
        from ..replay.detect import InputError
        from ..replay.plan import DEFAULT_PARTITION_BYTES, InputErrors, make_plan
        from ..replay.progress import Progress
        from ..replay.run import ReplayOptions, run_local

        o = self.opts
        options = ReplayOptions(
            mode=o["mode"],
            hooks=o["hooks"],
            cwd=o["cwd"],
            max_line_bytes=o["max_line_bytes"],
            examples=examples,
            memo=o["memo"],
        )
        try:
            plan = make_plan(
                paths,
                max_line_bytes=options.max_line_bytes,
                partition_bytes=self._partition_bytes(paths, DEFAULT_PARTITION_BYTES),
                skip_unknown=o["skip_unknown"],
            )
        except InputErrors as exc:
            for err in exc.errors:
                click.echo(f"policy replay: error: {err}", err=True)
            if any("unknown format" in str(e) for e in exc.errors):
                click.echo(
                    "policy replay: hint: name only recorded history, or pass --skip-unknown", err=True
                )
            raise SystemExit(ExitCode.USAGE) from None
        self.plan = plan
        for err in plan.skipped_files:
            click.echo(f"policy replay: warning: skipped {err}", err=True)
        with Progress(plan.total_bytes, enabled=o["progress"]) as bar:
            try:
                if o["engine"] == "dask":
                    return run_dask(
                        plan.partitions,
                        policy,
                        old,
                        options,
                        scheduler=o["scheduler"],
                        workers=o["workers"],
                        connect_timeout=o["connect_timeout"],
                        emit=emit,
                        progress=bar.advance,
                    )
                return run_local(plan.partitions, policy, old, options, emit=emit, progress=bar.advance)
            except (DaskRunError, InputError) as exc:
                bar.close()
                click.echo(f"policy replay: error: {exc}", err=True)
                raise SystemExit(ExitCode.USAGE) from None

    def _partition_bytes(self, paths: list[str], default: int) -> int:
        o = self.opts
        if o["partition_size"]:
            return int(o["partition_size"]) * MIB
        if o["engine"] != "dask":
            return 8 * MIB  # pieces are only the progress bar's steps
        import os

        from ..replay.plan import discover

        try:
            total = sum(os.path.getsize(p) for p in discover(paths) if os.path.isfile(p))
        except Exception:
            return default
        # several partitions per worker, so that a slow one does not hold the others up
        return max(256 * 1024, min(default, total // (o["workers"] * 4) + 1))


def check_engine_options(opts: dict[str, Any]) -> None:
    if opts["scheduler"] and opts["engine"] != "dask":
        raise click.UsageError("--scheduler needs --engine dask")


@click.command("replay")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--policy",
    "-p",
    "policy_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="the policy to replay",
)
@click.option(
    "--against",
    "old_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="an older policy: report every call whose decision changes",
)
@click.option(
    "--policy-format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policies' format (detected from the name and content by default)",
)
@click.option(
    "--format",
    "out_format",
    type=click.Choice(["text", "json", "jsonl", "html"]),
    default="text",
    show_default=True,
)
@click.option(
    "--output",
    "-o",
    "output",
    default=None,
    type=click.Path(dir_okay=False),
    help="write here instead of stdout",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(["widening", "narrowing"]),
    help="exit 1 when a call's decision changes in this direction (needs --against)",
)
@click.option(
    "--top", type=click.IntRange(1, 1000), default=10, show_default=True, help="entries of each top list"
)
@click.option(
    "--examples",
    type=click.IntRange(1, 100),
    default=3,
    show_default=True,
    help="example calls per change group",
)
@replay_options
def replay_command(
    paths: tuple[str, ...],
    policy_path: str,
    old_path: str | None,
    fmt: str | None,
    out_format: str,
    output: str | None,
    fail_on: tuple[str, ...],
    top: int,
    examples: int,
    **opts: Any,
) -> None:
    """Decide every recorded call of PATH... (transcripts, rollouts, chat logs, decision logs, JSONL)."""
    if fail_on and old_path is None:
        raise click.UsageError("--fail-on needs --against OLD (it compares two policies)")
    check_engine_options(opts)
    policy = load_policy_or_exit(policy_path, fmt)
    old = load_policy_or_exit(old_path, fmt, "old policy") if old_path else None
    out, close = _open_output(output)
    try:
        emit = (
            (lambda rec: out.write(json.dumps(rec, ensure_ascii=False) + "\n"))
            if out_format == "jsonl"
            else None
        )
        run = ReplayRun(**opts)
        summary = run.run(list(paths), policy, old, emit=emit, examples=examples)
        from ..replay.render import render_text, to_json

        data = to_json(
            summary,
            policy,
            policy_path=policy_path,
            old=old,
            old_path=old_path,
            top=top,
            skipped_files=[str(e) for e in run.plan.skipped_files],
        )
        if out_format == "json":
            out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        elif out_format == "jsonl":
            out.write(json.dumps({"type": "summary", **data}, ensure_ascii=False) + "\n")
        elif out_format == "html":
            from ..report.build import ReportInput, build_report

            out.write(
                build_report(
                    ReportInput(policy=policy, policy_path=policy_path, replay=data, old_path=old_path)
                )
            )
        else:
            render_text(data, out, top=top)
    finally:
        close()
    changes = data.get("changes", {})
    if any(changes.get(direction) for direction in fail_on):
        found = ", ".join(f"{changes[d]} {d}" for d in fail_on if changes.get(d))
        click.echo(f"policy replay: --fail-on: {found} change(s) against {old_path}", err=True)
        raise SystemExit(ExitCode.FINDINGS)


def _open_output(output: str | None) -> tuple[TextIO, Any]:
    if output is None or output == "-":
        return sys.stdout, lambda: sys.stdout.flush()
    try:
        fh = open(output, "w", encoding="utf-8")  # noqa: SIM115 - closed by the returned callback
    except OSError as exc:
        click.echo(f"policy replay: cannot write {output}: {exc.strerror or exc}", err=True)
        raise SystemExit(ExitCode.USAGE) from None
    return fh, fh.close
