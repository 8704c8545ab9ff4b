"""Distinct shell commands decided cold, beside tree-sitter's parse and our parse + walk of them.

    python bench/shell_cold.py [--rounds 5] [--before SRC]

Two command sets: the few hundred agent commands of `bench/agent_commands.py` (pipelines, chains,
`$()`, here-documents, `find -exec`, `bash -c`...) and the 2,900-odd labelled commands of
`tests/corpus/commands/`. Every command is a distinct text and the per-text view memos are emptied
before every round (`toolpolicy.runtime.views.clear_memos`), so each decision parses, walks and
matches its command from scratch against the `agent-permissions-v1` policy at R = 1,000
(about 400 shell rules). Printed per set, median of the rounds, CPU µs per command (this
process's CPU time, `time.process_time`: the machine is shared, and wall time there measures the
neighbours too):

* `parse`   — `tree_sitter.Parser.parse` alone (the C parser: the floor of any tree-sitter walk);
* `walk`    — `shell_parse.parse_script`: parse + our walk into simple commands;
* `view`    — the shell view built from scratch: walk + the analysis of each simple command
  (wrappers, command knowledge, files read and written, nested scripts);
* `decide`  — `Engine.decide` (the view, then the pattern sets, precedence and, for commands
  that touch files, the path rules);

and decide / walk, which the speed issue bounds by 2, and decisions/s (target: 40,000/s).

`--before SRC` first runs the same measurement in a child process on another tree's `src`
directory (say `git archive main src | tar -x -C /tmp/before`), so the two tables are taken minutes
apart at the same load; the load average is printed under each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "agent_permissions"), str(HERE.parent / "tests")]


def _corpus() -> list[str]:
    from command_corpus import load_corpus  # tests/command_corpus.py

    return list(dict.fromkeys(case.cmd for case in load_corpus()))


def _per_call_us(
    fn: Callable[[str], object], texts: Sequence[str], rounds: int, reset: Callable[[], None]
) -> float:
    samples = []
    for _ in range(rounds):
        reset()
        t = time.process_time()
        for text in texts:
            fn(text)
        samples.append((time.process_time() - t) / len(texts) * 1e6)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", metavar="SRC", help="also measure the toolpolicy package under SRC (first)")
    a = ap.parse_args()
    if a.before:
        import subprocess

        env = {**os.environ, "PYTHONPATH": str(Path(a.before).resolve())}
        print(f"before ({a.before}):")
        subprocess.run(
            [sys.executable, __file__, "--rounds", str(a.rounds)], env=env, check=True, timeout=600
        )
        print("\nafter (this tree):")

    import tempfile

    import workload  # type: ignore[import-not-found]
    from agent_commands import commands
    from compare import write_policy

    import toolpolicy as tp
    from toolpolicy.runtime.kinds import shell, shell_parse
    from toolpolicy.runtime.views import clear_memos

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "p1000.yaml"
        write_policy(workload.make_policy(1000), path)
        engine = tp.Engine(tp.load_policy(str(path)), hooks=False)
    parser = shell_parse.parser()
    sets = {"agent commands": commands(), "labelled corpus": _corpus()}
    table = engine.policy.commands
    digest = table.digest if table is not None else "bundled"
    shell.view("true", None, table)  # registers the policy's command knowledge under its digest
    print("| commands | n | parse µs | walk µs | view µs | decide µs | decide / walk | decisions/s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, texts in sets.items():
        encoded = {t: t.encode("utf-8", "surrogatepass") for t in texts}
        parse = _per_call_us(lambda t, e=encoded: parser.parse(e[t]), texts, a.rounds, lambda: None)
        walk = _per_call_us(_walk(shell_parse), texts, a.rounds, lambda: None)
        view = _per_call_us(lambda t: shell._view_uncached(t, digest), texts, a.rounds, lambda: None)
        decide = _per_call_us(lambda t: engine.decide("shell", {"cmd": t}), texts, a.rounds, clear_memos)
        print(
            f"| {name} | {len(texts):,} | {parse:.1f} | {walk:.1f} | {view:.1f} | {decide:.1f} | {decide / walk:.2f} "
            f"| {1e6 / decide:,.0f} |"
        )
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def _walk(shell_parse: object) -> Callable[[str], object]:
    parse_script = shell_parse.parse_script  # type: ignore[attr-defined]
    unparseable = shell_parse.Unparseable  # type: ignore[attr-defined]

    def walk(text: str) -> object:
        try:
            return parse_script(text)
        except unparseable:
            return None

    return walk


if __name__ == "__main__":
    main()
