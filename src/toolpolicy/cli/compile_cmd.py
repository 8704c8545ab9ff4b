"""`policy compile` (dump the compiled rules and index, or write a pickle) and `policy bench`."""

from __future__ import annotations

import json
import pickle
import statistics
import time
from typing import TextIO

import click

from .common import FORMAT_CHOICES, load_or_exit


@click.command("compile")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(FORMAT_CHOICES), default=None)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="write the compiled policy as a pickle instead of dumping it",
)
def compile_command(path: str, fmt: str | None, output: str | None) -> None:
    """Compile a policy and print its rules and decision index (or pickle it with -o)."""
    from ..compiler.dump import dump_policy

    policy = load_or_exit(path, fmt)
    if output:
        with open(output, "wb") as fh:
            pickle.dump(policy, fh, protocol=pickle.HIGHEST_PROTOCOL)
        click.echo(f"wrote {output} ({policy.digest})")
        return
    click.echo(dump_policy(policy), nl=False)


@click.command("bench")
@click.option("--policy", "-p", "policy_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--calls", "calls_file", type=click.File("r"), required=True, help="a JSONL file of calls")
@click.option("--repeat", type=click.IntRange(min=1), default=200)
@click.option("--no-hooks", is_flag=True)
def bench_command(policy_path: str, calls_file: TextIO, repeat: int, no_hooks: bool) -> None:
    """Time decide() over a file of calls: median and worst microseconds, indexed vs reference."""
    from ..runtime.engine import Engine

    policy = load_or_exit(policy_path)
    calls = [json.loads(line) for line in calls_file if line.strip()]
    for label, reference in (("indexed", False), ("reference", True)):
        engine = Engine(policy, hooks=not no_hooks, reference=reference)
        times = []
        for call in calls:
            engine.decide(call["tool"], call.get("args"))
            for _ in range(repeat):
                start = time.perf_counter()
                engine.decide(call["tool"], call.get("args"))
                times.append((time.perf_counter() - start) * 1e6)
        click.echo(
            f"{label:9} calls={len(calls)} median={statistics.median(times):.1f}us "
            f"p99={sorted(times)[int(len(times) * 0.99) - 1]:.1f}us max={max(times):.1f}us"
        )
