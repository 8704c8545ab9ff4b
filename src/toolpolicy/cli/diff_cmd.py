"""`policy diff OLD NEW`: per tool, whether NEW is more or less permissive than OLD, with example calls.

Place in the pipeline: the command over `analysis.diff.diff_policies`. Text lists the tools whose
decisions change, each with concrete calls and both decisions (and the mode they were decided in,
when it is not the policies' own), then the changes outside the rules (hooks, command knowledge);
JSON gives everything (`--all` adds the unchanged tools to the text too). Exit: 0 (also when
policies differ), 1 with `--exit-code` when NEW may be more permissive: for some call, for a tool
it cannot compare, or through a change outside the rules that may loosen (see `analysis.diff`);
2 usage error or a policy that does not load.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import click

from ..errors import PolicyError
from .common import FORMAT_CHOICES, print_errors
from .exit_codes import ExitCode


def _load(path: str, fmt: str | None) -> Any:
    from ..api import load_policy

    try:
        return load_policy(path, format=fmt)
    except PolicyError as exc:
        print_errors(exc.errors)
        raise SystemExit(ExitCode.USAGE) from None


@click.command("diff")
@click.argument("old", type=click.Path(exists=True, dir_okay=False))
@click.argument("new", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--policy-format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policies' format (detected from the name and content by default)",
)
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--all", "show_all", is_flag=True, help="also list the tools whose decisions do not change")
@click.option(
    "--examples", type=click.IntRange(1, 50), default=3, help="example calls per tool and direction"
)
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="exit 1 when NEW may be more permissive somewhere (incomparable tools and hook or "
    "command-knowledge changes included)",
)
def diff_command(
    old: str, new: str, fmt: str | None, out_format: str, show_all: bool, examples: int, exit_code: bool
) -> None:
    """Compare two policies tool by tool: more permissive, less permissive, equivalent or incomparable."""
    from ..analysis.diff import diff_policies

    result = diff_policies(_load(old, fmt), _load(new, fmt), max_examples=examples)
    if out_format == "json":
        sys.stdout.write(json.dumps(to_json(result, old, new), indent=2, ensure_ascii=False) + "\n")
    else:
        render_text(result, sys.stdout, show_all=show_all)
    raise SystemExit(ExitCode.FINDINGS if exit_code and result.more_permissive() else ExitCode.OK)


def render_text(result: Any, out: TextIO, *, show_all: bool) -> None:
    for key, (a, b) in result.settings.items():
        out.write(f"{key}: {a} -> {b}\n")
    for change in result.changes:
        out.write(change.describe() + "\n")
    for note in result.notes:
        out.write(f"note: {note}\n")
    for td in result.tools:
        if td.change == "equivalent" and not show_all:
            continue
        change = td.change if td.exact or td.change != "equivalent" else "no difference found"
        out.write(f"{td.tool.describe()}: {change}" + ("" if td.exact else " (approximate)") + "\n")
        for ex in td.examples:
            call = json.dumps(ex.call(), ensure_ascii=False)
            mode = "" if ex.mode == result.modes[0] else f" [mode {ex.mode}]"
            out.write(f"  {call}: {_side(ex.old)} -> {_side(ex.new)}{mode}\n")
        for note in td.notes:
            if not note.startswith("approximate") or td.change != "equivalent" or show_all:
                out.write(f"  note: {note}\n")
    out.write(_summary(result) + "\n")


def _side(decision: Any) -> str:
    return decision.decision + (f" ({decision.rule})" if decision.rule else f" ({decision.source})")


def _summary(result: Any) -> str:
    counts: dict[str, int] = {}
    for td in result.tools:
        counts[td.change] = counts.get(td.change, 0) + 1
    changed = len(result.changed())
    parts = [
        f"{counts.get(k, 0)} {k}"
        for k in ("more permissive", "less permissive", "incomparable")
        if counts.get(k)
    ]
    text = f"{changed} of {len(result.tools)} tool(s) changed" + (": " + ", ".join(parts) if parts else "")
    approx = sum(1 for td in result.tools if not td.exact)
    text += f"; {approx} compared approximately" if approx else ""
    loosening = sum(1 for c in result.changes if c.loosens)
    text += f"; {loosening} change(s) outside the rules that may loosen" if loosening else ""
    return text + f" (modes compared: {', '.join(result.modes)})"


def to_json(result: Any, old: str, new: str) -> dict[str, Any]:
    return {
        "old": old,
        "new": new,
        "more_permissive": result.more_permissive(),
        "settings": {k: {"old": a, "new": b} for k, (a, b) in result.settings.items()},
        "modes": list(result.modes),
        "changes": [{"what": c.what, "detail": c.detail, "loosens": c.loosens} for c in result.changes],
        "notes": result.notes,
        "tools": [
            {
                "tool": td.tool.name,
                "named": td.tool.named,
                "globs": list(td.tool.globs),
                "description": td.tool.describe(),
                "change": td.change,
                "exact": td.exact,
                "examples": [
                    {
                        "call": ex.call(),
                        "mode": ex.mode,
                        "old": _decision_json(ex.old),
                        "new": _decision_json(ex.new),
                    }
                    for ex in td.examples
                ],
                "notes": td.notes,
            }
            for td in result.tools
        ],
    }


def _decision_json(d: Any) -> dict[str, Any]:
    return {"decision": d.decision, "source": d.source, "rule": d.rule, "reason": d.reason}
