"""Score the four bundled packs on the command corpus and time decide() with and without them.

    python bench/pack_scores.py            # the acceptance table, then timings
    python bench/pack_scores.py --rounds 5

The table is issue 14's targets with `destructive + read-only + secrets + network` and
`default: ask` (tests/pack_scoring.py). The timing decides every corpus command (about 2,900
distinct calls) through the four packs and, as the baseline in the same run, through a policy of
one allow rule; CPU time per call, best of `--rounds`. Stops by itself.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from command_corpus import load_corpus  # noqa: E402
from pack_scoring import decide_all, decision_matrix, packs_policy, score, table  # noqa: E402
from toolpolicy import Engine, load_policy  # noqa: E402


def _per_call_us(policy: object, commands: list[str], rounds: int) -> float:
    engine = Engine(policy, hooks=False)  # type: ignore[arg-type]
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for cmd in commands:
            engine.decide("Bash", {"command": cmd})
        best = min(best, time.process_time() - start)
    return best / len(commands) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    entries = load_corpus()
    policy = packs_policy()
    results = decide_all(policy, entries)
    scores = score(results)
    print(decision_matrix(results))
    print()
    print(table(scores))
    commands = [e.cmd for e in entries]
    baseline = load_policy(
        text='version: 1\nprofile: claude-code\npermissions: {allow: ["Bash(ls *)"]}\n', format="toolpolicy"
    )
    base = _per_call_us(baseline, commands, args.rounds)
    packs = _per_call_us(policy, commands, args.rounds)
    print()
    print(f"decide() over {len(commands)} distinct commands, CPU per call (best of {args.rounds}):")
    print(f"  one-rule policy (baseline) {base:8.1f} us")
    print(f"  four packs                 {packs:8.1f} us   ({packs / base:.2f}x)")
    return 0 if all(s.met for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
