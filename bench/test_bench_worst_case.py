"""Worst-case decision time (issue 8): 1,000 rules against hostile, maximal arguments.

Run explicitly: `pytest bench/test_bench_worst_case.py --benchmark-only` (add `-s` for the tables).

* `test_worst_case_call` benchmarks one pathological call each (a 1 MiB value against 400
  many-star globs such as `*a*a*a*a*a*b7`, 10,000-character shell commands, deep `$(...)`
  nesting, 1 MiB paths and URLs) at 1,000 rules, asserting the decision inside the benchmark.
  Shell views are cached per command text, so the shell calls clear that cache before every
  round: an attacker sends a new command each time. The path and URL calls repeat one value, so
  their rounds after the first are warm-memo figures (the cold cost is the first round's).
* `test_worst_case_over_*` sweep the security suite (tests/security, indexed evaluator) and the
  atheris seed corpora (shell commands decided at 1,000 rules) and report the slowest decisions.

The target is 5 ms per decision at 1,000 rules with a 1 MiB argument (`TARGET_MS`); the sweeps
record the slowest decision and whether the target was met in `extra_info` (and print the
slowest inputs with `-s`): a machine's speed is not a test outcome. `CEILING_MS` is the hard
bound no single call may exceed (a regression to super-linear matching would blow far past it).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.kinds import shell

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
TARGET_MS = 5.0
CEILING_MS = 500.0
REPEAT = 3  # each input's time is the best of REPEAT runs: input cost, not scheduler noise


def policy_1000() -> Any:
    """1,000 rules: many-star globs, Bash prefixes and denies, path trees and domains."""
    deny: list[str] = []
    allow: list[str] = []
    for i in range(200):
        deny.append(f"probe:v=*a*a*a*a*a*b{i}")
        allow.append(f"probe:w=*a*a*a*a*a*c{i}")
    for i in range(150):
        allow.append(f"Bash(tool{i} *)")
        deny.append(f"Bash(*danger{i}*)")
    for i in range(100):
        deny.append(f"Read(//secret/{i}/**)")
        allow.append(f"Edit(./src/{i}/**)")
    for i in range(50):
        deny.append(f"WebFetch(domain:*.evil{i}.com)")
        allow.append(f"WebFetch(domain:ok{i}.example.com)")
    lines = ["version: 1", "profile: claude-code", "permissions:", "  deny:"]
    lines += [f"    - '{d}'" for d in deny] + ["  allow:"] + [f"    - '{a}'" for a in allow]
    policy = load_policy(text="\n".join(lines) + "\n", name="bench.yaml", base_dir="/srv/project")
    assert len(deny) + len(allow) == 1000
    assert len(policy.rules) >= 1000  # a profile may compile one permission to several rules
    return policy


@pytest.fixture(scope="module")
def engine() -> Engine:
    eng = Engine(policy_1000(), hooks=False)
    eng.decide("probe", {"v": "warm"})  # build the lazy index outside the measurements
    return eng


CALLS: dict[str, tuple[str, dict[str, Any], str]] = {
    "1MiB value, no glob matches": ("probe", {"v": "a" * (MIB - 16)}, "ask"),
    "1MiB value, first deny glob": ("probe", {"v": "a" * (MIB - 16) + "b0"}, "deny"),
    "1MiB value, last deny glob": ("probe", {"v": "a" * (MIB - 16) + "b199"}, "deny"),
    "1MiB value, allow glob": ("probe", {"w": "a" * (MIB - 16) + "c7"}, "allow"),
    "1MiB value over the size cap": ("probe", {"v": "a" * MIB + "b3"}, "deny"),
    "10,000-char allowed command": ("Bash", {"command": "tool1 " + "x " * 4997}, "allow"),
    "10,000-char chain of 909 commands": ("Bash", {"command": ("tool1 x && " * 908) + "tool2 y"}, "allow"),
    "10,000-char chain ending in a deny": ("Bash", {"command": ("tool1 x && " * 908) + "danger9"}, "deny"),
    "10,001-char command (opaque)": ("Bash", {"command": "tool1 " + "x" * 9995}, "ask"),
    "$(...) nested 8 deep": ("Bash", {"command": "$(" * 8 + "tool3 x" + ")" * 8}, "ask"),
    "$(...) nested 40 deep": ("Bash", {"command": "$(" * 40 + "danger7" + ")" * 40}, "deny"),
    "1MiB command": ("Bash", {"command": "danger5 " + "a" * (MIB - 16)}, "deny"),
    "4,000-char path": ("Edit", {"file_path": "src/1/" + "a/" * 1990 + "x"}, "allow"),
    "1MiB path": ("Read", {"file_path": "/secret/3/" + "a/" * (MIB // 2 - 16)}, "deny"),
    "1MiB URL": ("WebFetch", {"url": "https://x.evil3.com/" + "a" * (MIB - 40)}, "deny"),
}


def _decide(engine: Engine, tool: str, args: Any, context: Any = None) -> Any:
    if tool == "Bash":
        shell._view_text.cache_clear()  # a new command every time: no cache hit
    return engine.decide(tool, args, context=context or {"cwd": "/srv/project"})


def _best_ms(run: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        run()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


@pytest.mark.benchmark(group="worst-case")
@pytest.mark.parametrize("name", list(CALLS))
def test_worst_case_call(benchmark: Any, engine: Engine, name: str) -> None:
    tool, args, want = CALLS[name]

    def run() -> Any:
        d = _decide(engine, tool, args)
        assert d.decision == want, (name, d)
        return d

    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert benchmark.stats.stats.max * 1000 < CEILING_MS, name


def _report(title: str, timings: list[tuple[float, str]]) -> float:
    timings.sort(reverse=True)
    print(f"\n{title}: {len(timings)} decisions, slowest first")
    for ms, label in timings[:10]:
        print(f"  {ms:9.2f} ms  {label}")
    return timings[0][0] if timings else 0.0


@pytest.mark.benchmark(group="worst-case-sweep")
def test_worst_case_over_the_calls_above(benchmark: Any, engine: Engine) -> None:
    def sweep() -> list[tuple[float, str]]:
        return [(_best_ms(lambda t=t, a=a: _decide(engine, t, a)), n) for n, (t, a, _) in CALLS.items()]

    worst = _report("worst-case calls at 1,000 rules", benchmark.pedantic(sweep, rounds=1, iterations=1))
    _record(benchmark, worst)


def _record(benchmark: Any, worst: float) -> None:
    benchmark.extra_info["worst_ms"] = round(worst, 3)
    benchmark.extra_info["target_ms"] = TARGET_MS
    benchmark.extra_info["target_met"] = worst <= TARGET_MS
    assert worst <= CEILING_MS, f"slowest decision {worst:.2f} ms > {CEILING_MS} ms ceiling"


def _security_cases() -> Any:
    spec = importlib.util.spec_from_file_location(
        "security_cases", ROOT / "tests" / "security" / "security_cases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.benchmark(group="worst-case-sweep")
def test_worst_case_over_the_security_suite(benchmark: Any, tmp_path: Path) -> None:
    cases = _security_cases()

    def sweep() -> list[tuple[float, str]]:
        out = []
        for i, (topic, case) in enumerate(cases.iter_cases("decision")):
            if case.get("hooks") or "indexed" not in case.get("engines", ("indexed",)):
                continue
            tmp = tmp_path / str(i)
            tmp.mkdir()
            (tmp / "cwd").mkdir()
            cases.run_setup(case.get("setup", []), tmp)
            policy_file = tmp / case.get("policy_name", "policy.yaml")  # a foreign config keeps its name
            policy_file.parent.mkdir(parents=True, exist_ok=True)
            policy_file.write_text(cases.policy_text(case, tmp), encoding="utf-8")
            eng = Engine(load_policy(policy_file), mode=case.get("mode"), hooks=False)
            call = cases.materialise(case["call"], tmp)
            ctx = {"cwd": str(tmp / "cwd"), **call.get("context", {})}
            eng.decide(call["tool"], {"warm": "index"})
            ms = _best_ms(lambda e=eng, c=call, x=ctx: _decide(e, c["tool"], c.get("args"), x))
            out.append((ms, cases.case_id(topic, case)))
        return out

    worst = _report("security suite (indexed evaluator)", benchmark.pedantic(sweep, rounds=1, iterations=1))
    _record(benchmark, worst)


@pytest.mark.benchmark(group="worst-case-sweep")
def test_worst_case_over_the_fuzz_corpus(benchmark: Any, engine: Engine) -> None:
    seeds = sorted((ROOT / "fuzz" / "corpus" / "shell").iterdir())
    seeds += sorted((ROOT / "fuzz" / "corpus" / "permission").iterdir())

    def sweep() -> list[tuple[float, str]]:
        out = []
        for seed in seeds:
            text = seed.read_bytes().decode("utf-8", errors="replace")
            for tool, args in (
                ("Bash", {"command": text}),
                ("probe", {"v": text}),
                ("Read", {"file_path": text}),
            ):
                ms = _best_ms(lambda t=tool, a=args: _decide(engine, t, a))
                out.append((ms, f"{tool} {seed.parent.name}/{seed.name} {text[:40]!r}"))
        return out

    worst = _report("fuzz seed corpora at 1,000 rules", benchmark.pedantic(sweep, rounds=1, iterations=1))
    _record(benchmark, worst)
