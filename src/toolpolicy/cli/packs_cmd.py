"""`policy packs [NAME]` (alias `policy explain-pack NAME`): list the bundled packs or show one.

Sits on top of `policies.packs` (the registry) and the compiler: a pack is loaded and compiled
like any policy, so the rule counts and tests shown are the real ones. `--test` runs the pack's
own `tests:`; `--path` prints its file (for `policy check "$(policy packs NAME --path)"`).
"""

from __future__ import annotations

import sys

import click

from ..errors import PolicyError, did_you_mean
from ..policies.packs import PREFIX, known_packs, pack_path
from .exit_codes import ExitCode


def _rules_of(name: str) -> list[tuple[str, str, str]]:
    """(id, decision, reason) of each rule of the pack, in file order."""
    from ..policies.loader import load_native, read_source

    path = pack_path(name)
    assert path is not None
    doc = load_native(read_source(path)).document
    return [
        (r.id or f"rules[{i}]", r.decision, " ".join((r.reason or "").split()))
        for i, r in enumerate(doc.rules)
    ]


@click.command("packs")
@click.argument("name", required=False)
@click.option("--path", "show_path", is_flag=True, help="print the pack's file path only")
@click.option("--test", "run_tests", is_flag=True, help="run the pack's own tests")
def packs_command(name: str | None, show_path: bool, run_tests: bool) -> None:
    """List the bundled policy packs (use them with `extends: ["pack:NAME"]`), or show one."""
    try:
        if name is None:
            for info in known_packs():
                click.echo(f"{PREFIX}{info.name:<12} {len(_rules_of(info.name)):>3} rules  {info.summary}")
            return
        name = name.removeprefix(PREFIX)
        path = pack_path(name)
        if path is None:
            names = [p.name for p in known_packs()]
            hint = did_you_mean(name, names)
            click.echo(
                f"policy packs: unknown pack `{name}`{' (' + hint + ')' if hint else ''}; "
                f"the packs are {', '.join(names)}",
                err=True,
            )
            sys.exit(ExitCode.USAGE)
        if show_path:
            click.echo(str(path))
            return
        if run_tests:
            _run_tests(name, str(path))
            return
        info = next(p for p in known_packs() if p.name == name)
        rules = _rules_of(name)
        click.echo(f"{PREFIX}{name}: {info.summary}")
        click.echo(f"file: {path}")
        click.echo(f"{len(rules)} rules:")
        for rule_id, decision, reason in rules:
            click.echo(f"  {decision:<5} {rule_id}: {reason}")
    except PolicyError as exc:
        click.echo(f"policy packs: {exc}", err=True)
        sys.exit(ExitCode.USAGE)


def _run_tests(name: str, path: str) -> None:
    from ..api import load_policy
    from ..testing import run_policy_tests

    results = run_policy_tests(load_policy(path))
    failed = [r for r in results if not r.passed]
    for r in failed:
        click.echo(str(r.as_error()), err=True)
    click.echo(f"{PREFIX}{name}: {len(results) - len(failed)}/{len(results)} test(s) passed")
    if failed:
        sys.exit(ExitCode.FINDINGS)


explain_pack_command = click.Command(
    "explain-pack",
    callback=packs_command.callback,
    params=packs_command.params,
    help="Show one bundled pack: what it covers and each rule with its reason (same as `policy packs NAME`).",
)
