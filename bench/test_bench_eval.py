"""decide() speed: the indexed evaluator against the linear reference, at 10 / 100 / 1,000 rules.

Numbers are read as ratios within one run (the machine varies); every benchmark asserts the
decision so that a fast wrong answer fails.
"""

from __future__ import annotations

import pytest

from toolpolicy import Engine, load_policy


def _policy(n: int):  # type: ignore[no-untyped-def]
    lines = ["version: 1", "permissions:", "  deny:"]
    lines += [f"    - 'tool{i}:path=/secret/{i}/*'" for i in range(n // 2)]
    lines += ["  allow:"]
    lines += [f"    - 'tool{i}:path=/work/{i}/*'" for i in range(n // 2)]
    lines += ["    - 'probe:cmd=ls *'", "    - 'read_*'"]
    return load_policy(text="\n".join(lines) + "\n", name="bench.yaml")


CALLS = {
    "hit-allow": ("tool3", {"path": "/work/3/a.txt"}, "allow"),
    "hit-deny": ("tool3", {"path": "/secret/3/a"}, "deny"),
    "miss": ("unknown_tool", {"path": "/x"}, "ask"),
    "glob-tool": ("read_notes", {}, "allow"),
}


@pytest.mark.benchmark(group="decide")
@pytest.mark.parametrize("n", [10, 100, 1000])
@pytest.mark.parametrize("engine", ["indexed", "reference"])
@pytest.mark.parametrize("call", list(CALLS))
def test_decide(benchmark, n: int, engine: str, call: str) -> None:  # type: ignore[no-untyped-def]
    eng = Engine(_policy(n), hooks=False, reference=engine == "reference")
    tool, args, want = CALLS[call]
    eng.decide(tool, args)  # warm the lazy index
    result = benchmark(eng.decide, tool, args)
    assert result.decision == want


@pytest.mark.benchmark(group="compile")
@pytest.mark.parametrize("n", [10, 100, 1000])
def test_compile(benchmark, n: int) -> None:  # type: ignore[no-untyped-def]
    policy = benchmark(_policy, n)
    assert len(policy.rules) == n // 2 * 2 + 2


@pytest.mark.benchmark(group="shell")
@pytest.mark.parametrize("engine", ["indexed", "reference"])
def test_shell_compound(benchmark, engine: str) -> None:  # type: ignore[no-untyped-def]
    policy = load_policy(
        text="version: 1\nprofile: claude-code\npermissions:\n  deny: ['Bash(rm *)', 'Bash(sudo *)']\n"
        "  allow: ['Bash(git status *)', 'Bash(ls *)', 'Bash(grep *)', 'Bash(npm run test:*)']\n",
        name="b.yaml",
    )
    eng = Engine(policy, hooks=False, reference=engine == "reference")
    cmd = "git status && ls -la | grep x; npm run test -- --ci"
    result = benchmark(eng.decide, "Bash", {"command": cmd})
    assert result.decision == "allow"
