"""Score the bundled packs against the labelled command corpus (issue 14's acceptance numbers).

The policy under test is the one a user writes to adopt the packs: the four packs together with
`default: ask` (profile `claude-code`, every command sent as `Bash {command}`). Each corpus entry
is decided once and counted against the four targets:

* destructive decided deny or ask >= 98 %, deny alone >= 90 %;
* safe (labels `safe` + `read-only`: must not be blocked) decided deny <= 3 %;
* must-confirm (labels `confirm` + `destructive`: never auto-approved) decided allow <= 0.5 %;
* read-only decided allow >= 70 %.

Used by `tests/test_pack_scores.py` (asserts the targets) and `bench/pack_scores.py` (prints the
table and times decide() with and without the packs). `python tests/pack_scoring.py` prints the
table and, with `-v`, every miss. Nothing under `src/` imports this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from command_corpus import Entry, Label, load_corpus
from toolpolicy import Engine, load_policy
from toolpolicy.runtime.compiled import CompiledPolicy

PACKS = ("destructive", "read-only", "secrets", "network")


class Target(NamedTuple):
    """One acceptance number: the share of `labels` decided in `decisions`, bounded by `bound`."""

    name: str
    labels: frozenset[Label]
    decisions: frozenset[str]
    bound: float
    at_least: bool  # True: share >= bound; False: share <= bound


TARGETS = (
    Target(
        "destructive decided deny or ask",
        frozenset({Label.DESTRUCTIVE}),
        frozenset({"deny", "ask"}),
        0.98,
        True,
    ),
    Target("destructive decided deny", frozenset({Label.DESTRUCTIVE}), frozenset({"deny"}), 0.90, True),
    Target("safe decided deny", frozenset({Label.SAFE, Label.READ_ONLY}), frozenset({"deny"}), 0.03, False),
    Target(
        "must-confirm decided allow",
        frozenset({Label.CONFIRM, Label.DESTRUCTIVE}),
        frozenset({"allow"}),
        0.005,
        False,
    ),
    Target("read-only decided allow", frozenset({Label.READ_ONLY}), frozenset({"allow"}), 0.70, True),
)


class Scored(NamedTuple):
    entry: Entry
    decision: str
    rule: str | None


class Score(NamedTuple):
    target: Target
    hits: int
    total: int
    misses: list[Scored]  # entries on the wrong side of the target

    @property
    def share(self) -> float:
        return self.hits / self.total if self.total else 0.0

    @property
    def met(self) -> bool:
        return self.share >= self.target.bound if self.target.at_least else self.share <= self.target.bound


def packs_policy(packs: Sequence[str] = PACKS) -> CompiledPolicy:
    """The packs together with `default: ask`, as a user adopts them."""
    text = (
        "version: 1\nprofile: claude-code\ndefault: ask\nextends: ["
        + ", ".join(f'"pack:{name}"' for name in packs)
        + "]\n"
    )
    return load_policy(text=text, format="toolpolicy")


def decide_all(policy: CompiledPolicy, entries: Iterable[Entry]) -> list[Scored]:
    engine = Engine(policy, hooks=False)
    out = []
    for entry in entries:
        d = engine.decide("Bash", {"command": entry.cmd})
        out.append(Scored(entry, str(d.decision), d.rule))  # type: ignore[attr-defined]
    return out


def score(results: Sequence[Scored]) -> list[Score]:
    scores = []
    for target in TARGETS:
        pool = [r for r in results if r.entry.label in target.labels]
        hits = [r for r in pool if r.decision in target.decisions]
        if target.at_least:
            misses = [r for r in pool if r.decision not in target.decisions]
        else:
            misses = hits
        scores.append(Score(target, len(hits), len(pool), misses))
    return scores


def table(scores: Sequence[Score]) -> str:
    lines = [f"{'target':<34}{'share':>9}{'count':>13}{'bound':>9}  met"]
    for s in scores:
        sign = ">=" if s.target.at_least else "<="
        lines.append(
            f"{s.target.name:<34}{100 * s.share:>8.1f}%{f'{s.hits}/{s.total}':>13}"
            f"{sign:>4}{100 * s.target.bound:>4.1f}%  {'yes' if s.met else 'NO'}"
        )
    return "\n".join(lines)


def decision_matrix(results: Sequence[Scored]) -> str:
    """Label x decision counts."""
    lines = [f"{'label':<13}{'allow':>8}{'ask':>8}{'deny':>8}"]
    for label in Label:
        row = [r.decision for r in results if r.entry.label == label]
        lines.append(f"{label.value:<13}" + "".join(f"{row.count(d):>8}" for d in ("allow", "ask", "deny")))
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    results = decide_all(packs_policy(), load_corpus())
    scores = score(results)
    print(decision_matrix(results))
    print()
    print(table(scores))
    if "-v" in argv:
        for s in scores:
            for miss in s.misses:
                print(
                    f"{s.target.name}: {miss.decision:<5} {miss.entry.label.value:<11} {miss.entry.cmd}  [{miss.rule}]"
                )
    return 0 if all(s.met for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
