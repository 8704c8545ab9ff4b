"""`policy install AGENT --policy P [--project DIR | --user | --managed] [--dry-run]` and
`policy doctor AGENT [scope]`: register `policy hook` in an agent's own settings, and check it.

Both are thin: the work is in `toolpolicy.install` (one installer module per agent). `install`
refuses a policy that does not compile (the hook would then block every call), merges with the
settings that are there, backs the old file up and is idempotent; `--dry-run` prints the diff.
`doctor` exits 1 when a check fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .exit_codes import ExitCode

AGENTS = ["claude-code", "codex", "gemini"]


def _scope(project: str | None, user: bool, managed: bool, file: str | None) -> Any:
    from ..install import Scope

    if sum((project is not None, user, managed)) > 1:
        raise click.UsageError("choose one of --project DIR, --user and --managed")
    if user:
        kind = "user"
    elif managed:
        kind = "managed"
    else:
        kind = "project"
    directory = Path(project or ".").absolute() if kind == "project" else None
    return Scope(kind, directory, Path(file).absolute() if file else None)


def _scope_options(command: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--project",
                "project",
                type=click.Path(file_okay=False),
                default=None,
                help="the project's settings (default: the current directory)",
            ),
            click.option("--user", is_flag=True, help="the agent's per-user settings"),
            click.option(
                "--managed",
                is_flag=True,
                help="admin-managed settings (Codex requirements.toml, Claude Code managed-settings.json)",
            ),
            click.option(
                "--file",
                "file",
                type=click.Path(dir_okay=False),
                default=None,
                help="use this settings file instead of the scope's usual one",
            ),
        ]
    ):
        command = option(command)
    return command


@click.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option(
    "--policy",
    "-p",
    "policy_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="the policy the hook enforces (made absolute)",
)
@_scope_options
@click.option(
    "--event",
    "events",
    multiple=True,
    help="register on this hook event (repeatable; default: PreToolUse, or BeforeTool for Gemini CLI)",
)
@click.option(
    "--http",
    "http_url",
    is_flag=False,
    flag_value="http://127.0.0.1:8181/v1/hooks/{protocol}",
    default=None,
    help="Claude Code: an http hook posting to `policy serve` (default URL http://127.0.0.1:8181/v1/hooks/claude-code)",
)
@click.option("--mode", "mode", default=None, help="pass `--mode MODE` to `policy hook`")
@click.option("--dry-run", is_flag=True, help="print what would change; write nothing")
def install_command(
    agent: str,
    policy_path: str,
    project: str | None,
    user: bool,
    managed: bool,
    file: str | None,
    events: tuple[str, ...],
    http_url: str | None,
    mode: str | None,
    dry_run: bool,
) -> None:
    """Register `policy hook` for AGENT (claude-code, codex, gemini) in its own settings file."""
    from ..errors import PolicyError
    from ..install import InstallError, apply, plan_install
    from .common import load_or_exit, print_errors

    scope = _scope(project, user, managed, file)
    policy = Path(policy_path).absolute()
    try:
        load_or_exit(str(policy))
    except PolicyError as exc:  # pragma: no cover - load_or_exit exits itself
        print_errors(exc.errors)
        raise SystemExit(ExitCode.FINDINGS) from None
    try:
        changes = plan_install(
            agent, scope, policy, events=events, http_url=http_url, hook_args=("--mode", mode) if mode else ()
        )
        for change in changes:
            if dry_run:
                click.echo(change.diff() if change.changed else f"# {change.path}: unchanged", nl=False)
                if not change.changed:
                    click.echo()
                continue
            backup = apply(change)
            if not change.changed:
                click.echo(f"unchanged {change.path} ({change.why}: already there)")
            else:
                saved = f" (backup: {backup})" if backup else ""
                click.echo(f"wrote {change.path}: {change.why}{saved}")
        for note in dict.fromkeys(n for c in changes for n in c.notes):
            click.echo(f"note: {note}", err=True)
    except InstallError as exc:
        click.echo(f"policy install: {exc}", err=True)
        raise SystemExit(ExitCode.FINDINGS) from None
    except OSError as exc:
        click.echo(f"policy install: {exc}", err=True)
        raise SystemExit(ExitCode.FINDINGS) from None
    if not dry_run:
        flag = {"user": " --user", "managed": " --managed", "project": ""}[scope.kind]
        where = f" --project {scope.directory}" if scope.kind == "project" else ""
        where += f" --file {scope.file}" if scope.file else ""
        click.echo(f"check it: policy doctor {agent}{flag}{where}", err=True)


@click.command("doctor")
@click.argument("agent", type=click.Choice(AGENTS))
@_scope_options
@click.option("--probe", default=None, help="the shell command sent as the probe call (default: an echo)")
def doctor_command(
    agent: str, project: str | None, user: bool, managed: bool, file: str | None, probe: str | None
) -> None:
    """Check that AGENT's `policy hook` registration works end to end; exit 1 if a check fails."""
    from ..install.doctor import PROBE_COMMAND, run_doctor

    scope = _scope(project, user, managed, file)
    findings = run_doctor(agent, scope, probe=probe or PROBE_COMMAND)
    labels = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
    for finding in findings:
        click.echo(f"{labels.get(finding.level, finding.level)} {finding.message}")
    failed = sum(f.level == "fail" for f in findings)
    click.echo(f"{len(findings)} check(s): {failed} failed", err=True)
    raise SystemExit(ExitCode.FINDINGS if failed else ExitCode.OK)
