"""`policy report --policy P [--replay PATH...] [--against OLD] [--tests] -o report.html`.

Place in the pipeline: the command over `toolpolicy.report` (the page) with `replay` (the same run
as `policy replay`, every engine option included) and `cli.test_cmd` (inline tests and the
`*_test.yaml|toml` files beside the policy that name it). Writes one self-contained HTML file.

Exit: 0 written (also when tests fail or rules are never hit: the report shows it); 2 usage error,
a policy that does not load, an unreadable input, or the report extra missing; 123 internal error.
"""

from __future__ import annotations

import os
from typing import Any

import click

from .common import FORMAT_CHOICES
from .exit_codes import ExitCode
from .replay_cmd import ReplayRun, check_engine_options, load_policy_or_exit, replay_options


def policy_tests_json(policy_path: str, fmt: str | None) -> dict[str, Any]:
    """The policy's tests (inline, and test files beside it that name it) as `policy test --format json`."""
    from .test_cmd import run_tests
    from .test_files import is_test_file, load_test_file
    from .test_report import to_json

    paths = [policy_path]
    here = os.path.dirname(os.path.abspath(policy_path))
    for name in sorted(os.listdir(here)):
        path = os.path.join(here, name)
        if is_test_file(path):
            suite = load_test_file(path)
            if (
                suite is not None
                and suite.policy_path
                and os.path.realpath(suite.policy_path) == os.path.realpath(policy_path)
            ):
                paths.append(path)
    return to_json(run_tests(paths, fmt=fmt, coverage=True), True)


@click.command("report")
@click.option(
    "--policy", "-p", "policy_path", required=True, type=click.Path(dir_okay=False), help="the policy"
)
@click.option(
    "--replay",
    "replay_paths",
    multiple=True,
    type=click.Path(),
    help="recorded history to replay (repeatable; files or directories)",
)
@click.option(
    "--against",
    "old_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="an older policy: show every replayed call whose decision changes",
)
@click.option(
    "--tests", "with_tests", is_flag=True, help="run the policy's tests and show results and coverage"
)
@click.option(
    "--policy-format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policies' format (detected from the name and content by default)",
)
@click.option(
    "--output", "-o", "output", required=True, type=click.Path(dir_okay=False), help="the HTML file to write"
)
@click.option(
    "--top", type=click.IntRange(1, 200), default=15, show_default=True, help="entries of each top list"
)
@replay_options
def report_command(
    policy_path: str,
    replay_paths: tuple[str, ...],
    old_path: str | None,
    with_tests: bool,
    fmt: str | None,
    output: str,
    top: int,
    **opts: Any,
) -> None:
    """Write one self-contained HTML report: rule coverage, decisions over time, top denied and
    asked calls, changes against an older policy, tests, and the annotated policy source."""
    try:
        from ..report.build import build_report
        from ..report.model import ReportInput
    except ImportError as exc:  # pragma: no cover - the report extra is missing
        raise click.UsageError(
            f"policy report needs the report extra: pip install 'toolpolicy[report]' ({exc})"
        ) from None
    if old_path and not replay_paths:
        raise click.UsageError("--against needs --replay PATH (it compares decisions of replayed calls)")
    check_engine_options(opts)
    policy = load_policy_or_exit(policy_path, fmt)
    old = load_policy_or_exit(old_path, fmt, "old policy") if old_path else None
    replay = None
    if replay_paths:
        from ..replay.render import to_json

        run = ReplayRun(**opts)
        summary = run.run(list(replay_paths), policy, old)
        replay = to_json(
            summary,
            policy,
            policy_path=policy_path,
            old=old,
            old_path=old_path,
            top=top,
            skipped_files=[str(err) for err in run.plan.skipped_files],
        )
    tests = policy_tests_json(policy_path, fmt) if with_tests else None
    page = build_report(
        ReportInput(policy=policy, policy_path=policy_path, replay=replay, old_path=old_path, tests=tests)
    )
    try:
        tmp = f"{output}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.replace(tmp, output)
    except OSError as exc:
        click.echo(f"policy report: cannot write {output}: {exc.strerror or exc}", err=True)
        raise SystemExit(ExitCode.USAGE) from None
    click.echo(f"policy report: wrote {output} ({len(page.encode()) // 1024} KiB)", err=True)
