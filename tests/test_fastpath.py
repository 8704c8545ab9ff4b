"""The fast path of decide() (runtime/fastpath.py) never disagrees with the general flow.

Every case of the conformance corpora and of the security suite, and a few thousand calls of
the benchmark's shapes, are decided twice by engines over the same compiled policy: once as
usual (the fast path takes what it can) and once with the fast path switched off. The two
`Decision`s must be equal field by field. The test also checks that the fast path really takes
most of them, so that it is exercised at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from security.security_cases import iter_cases, materialise, policy_text, run_setup
from toolpolicy import Engine, load_policy
from toolpolicy.runtime import fastpath

CASES = Path(__file__).parent / "cases"
FILES = {  # the file name each format's policy is written as
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
    "agent-code": "settings.toml",
    "cursor": "cli-config.json",
    "copilot": "copilot-flags.txt",
    "cline": "cline-settings.json",
    "roo-code": "settings.json",
    "windsurf": "settings.json",
    "factory": "settings.json",
}


def _corpus_cases() -> list[Any]:
    out = []
    for f in sorted(CASES.rglob("*.yaml")):
        data = yaml.safe_load(f.read_text())
        if not isinstance(data, dict) or "cases" not in data or "format" not in data:
            continue
        for i, case in enumerate(data["cases"]):
            if isinstance(case, dict) and "policy" in case and "call" in case:
                out.append(pytest.param(data["format"], case, id=f"{f.parent.name}/{f.stem}[{i}]"))
    return out


def _both(engine: Engine, slow: Engine, tool: Any, args: Any, context: dict[str, Any]) -> None:
    fast = engine.decide(tool, args, context=context)
    general = slow.decide(tool, args, context=context)
    assert fast == general, (tool, args, fast, general)
    assert fast.to_json() == general.to_json()


def _engines(policy: Any, mode: str | None) -> tuple[Engine, Engine]:
    engine = Engine(policy, hooks=False, mode=mode)
    slow = Engine(policy, hooks=False, mode=mode)
    slow._fast = False
    return engine, slow


@pytest.mark.parametrize(("fmt", "case"), _corpus_cases())
def test_corpus_case_decides_the_same_both_ways(fmt: str, case: dict[str, Any], tmp_path: Path) -> None:
    name = FILES.get(fmt, "policy.yaml")
    path = tmp_path / name
    path.write_text(case["policy"] if isinstance(case["policy"], str) else _as_format(case["policy"], name))
    (tmp_path / "cwd").mkdir()
    policy = load_policy(str(path), format=fmt)
    call = case["call"]
    engine, slow = _engines(policy, case.get("mode"))
    _both(engine, slow, call["tool"], call.get("args"), {"cwd": str(tmp_path / "cwd")})


def _as_format(policy: Any, name: str) -> str:
    if name.endswith(".json"):
        import json

        return json.dumps(policy)
    if name.endswith(".toml"):
        import tomli_w

        return tomli_w.dumps(policy)
    return yaml.safe_dump(policy)


_PLAIN = [(t, c) for t, c in iter_cases("decision") if not c.get("hooks")]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{t}: {c['note']}") for t, c in _PLAIN])
def test_security_case_decides_the_same_both_ways(case: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "cwd").mkdir(exist_ok=True)
    run_setup(case.get("setup", []), tmp_path)
    policy_file = tmp_path / case.get("policy_name", "policy.yaml")  # a foreign config needs its own name
    policy_file.parent.mkdir(parents=True, exist_ok=True)
    policy_file.write_text(policy_text(case, tmp_path), encoding="utf-8")
    policy = load_policy(str(policy_file))
    call = case["call"]
    context = {"cwd": str(tmp_path / "cwd"), **materialise(call.get("context", {}), tmp_path)}
    engine, slow = _engines(policy, case.get("mode"))
    _both(engine, slow, materialise(call["tool"], tmp_path), materialise(call.get("args"), tmp_path), context)


WORKLOAD_POLICY = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Bash(rm -rf *)", "Edit(//etc/**)", "Read(~/.ssh/**)", "WebFetch(domain:evil.test)",
         "mcp__db__query(sql:*DROP*)", "shell:cmd=*forbidden*"]
  ask: ["Bash(git push *)", "mcp__db__*"]
  allow: ["Bash(git status*)", "Bash(ls *)", "Bash(npm run test:*)", "Read", "Edit(./src/**)",
          "WebFetch(domain:docs.python.org)", "mcp__github__*"]
rules:
  - {decision: deny, match: "Write", priority: 5, when: 'args.file_path.endsWith(".env")'}
"""


def test_workload_shapes_decide_the_same_both_ways(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(WORKLOAD_POLICY)
    (tmp_path / "cwd" / "src").mkdir(parents=True)
    (tmp_path / "cwd" / "src" / "a.py").write_text("x")
    (tmp_path / "cwd" / "link").symlink_to("/etc/hosts")
    policy = load_policy(str(tmp_path / "p.yaml"))
    cwd = str(tmp_path / "cwd")
    calls: list[tuple[str, Any]] = []
    for word in ("git status", "ls -la", "npm run test:unit", "sudo rm x", "rm -rf /", "git push origin x"):
        for tail in ("", " a", " && ls", " | sudo tee x", " > out", " $(id)"):
            calls.append(("Bash", {"command": word + tail}))
    for p in ("src/a.py", "./src/a.py", "/etc/passwd", "~/.ssh/id_rsa", "link", "src/../../x", "é.txt"):
        calls += [("Read", {"file_path": p}), ("Edit", {"file_path": p}), ("Write", {"file_path": p})]
    for u in ("https://docs.python.org/3/", "https://evil.test/x", "https://other.test/"):
        calls.append(("WebFetch", {"url": u}))
    for t, a in (("mcp__db__query", {"sql": "DROP TABLE x"}), ("mcp__db__query", {"sql": "SELECT 1"})):
        calls.append((t, a))
    calls += [("mcp__github__x", {"q": 1}), ("Unknown", {}), ("Bash", {"command": ["ls"]}), ("Bash", "x")]
    for mode in (None, "yolo", "non_interactive"):
        engine, slow = _engines(policy, mode)
        taken = 0
        for tool, args in calls:
            _both(engine, slow, tool, args, {"cwd": cwd})
            taken += fastpath.decide_fast(engine, tool, args, {"cwd": cwd}, None) is not None
        # the mix is adversarial (chains, redirections, symlinks, non-ASCII): a third is plenty
        assert taken >= len(calls) // 3, f"the fast path took only {taken} of {len(calls)} calls"


def test_pack_policy_decides_the_same_both_ways(tmp_path: Path) -> None:
    """The four bundled packs have rules with `when` beside rules without: the fast path takes a
    call only when no rule with a `when` matched it, and must agree with the general flow."""
    from command_corpus import load_corpus
    from pack_scoring import packs_policy

    policy = packs_policy()
    cmds = list(dict.fromkeys(entry.cmd for entry in load_corpus()))
    engine, slow = _engines(policy, None)
    taken = 0
    for cmd in cmds:
        _both(engine, slow, "Bash", {"command": cmd}, {"cwd": str(tmp_path)})
        taken += (
            fastpath.decide_fast(engine, "Bash", {"command": cmd}, {"cwd": str(tmp_path)}, None) is not None
        )
    assert taken >= len(cmds) // 3, f"the fast path took only {taken} of {len(cmds)} calls"
    for mode in ("yolo", "non_interactive", "auto_edit"):
        engine, slow = _engines(policy, mode)
        for cmd in cmds[::7]:
            _both(engine, slow, "Bash", {"command": cmd}, {"cwd": str(tmp_path)})


def test_chains_of_corpus_commands_decide_the_same_both_ways(tmp_path: Path) -> None:
    """Several simple commands per call (chains, pipes, redirections into files the path rules
    judge) through the packs plus path rules: the fast path's combination of units and its file
    checks must give the general flow's decision."""
    import random

    from command_corpus import load_corpus

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x")
    (tmp_path / "link").symlink_to(Path.home())
    text = (
        "version: 1\nprofile: claude-code\ndefault: ask\n"
        'extends: ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]\n'
        "permissions:\n"
        '  allow: ["Edit(./src/**)", "Bash(make *)", "Bash(npm test*)"]\n'
        '  ask: ["Read(./link/**)", "Edit(./docs/**)"]\n'
        '  deny: ["Edit(./.git/**)", "Read(./secret/**)"]\n'
    )
    (tmp_path / "p.yaml").write_text(text)
    policy = load_policy(str(tmp_path / "p.yaml"))
    rng = random.Random(5)
    cmds = [entry.cmd for entry in load_corpus() if "\n" not in entry.cmd]
    tails = [
        "",
        " > src/out.txt",
        " > docs/x.md",
        " >> .git/config",
        " < secret/k",
        " 2>/dev/null",
        " | tee src/t",
    ]
    calls = []
    for _ in range(1500):
        parts = [rng.choice(cmds) + rng.choice(tails) for _ in range(rng.randint(1, 3))]
        calls.append(rng.choice([" && ", " | ", "; ", " || "]).join(parts))
    calls += ["make && npm test", "cat src/a.py | wc -l", "ls link/ && cat link/.bashrc", "sed -n p secret/k"]
    for mode in (None, "yolo"):
        engine, slow = _engines(policy, mode)
        taken = 0
        for cmd in calls:
            _both(engine, slow, "Bash", {"command": cmd}, {"cwd": str(tmp_path)})
            taken += (
                fastpath.decide_fast(engine, "Bash", {"command": cmd}, {"cwd": str(tmp_path)}, None)
                is not None
            )
        assert taken >= len(calls) // 4, f"the fast path took only {taken} of {len(calls)} calls"


_FIXED_POLICY = """
version: 1
default: ask
tools:
  lookup: {kind: generic, read_only: true}
permissions:
  allow: ["mcp__docs__*"]
  deny: ["mcp__prod__drop_*"]
"""


@pytest.mark.parametrize("mode", [None, "yolo", "non_interactive", "auto_edit"])
def test_a_tool_no_argument_can_change_is_decided_once_and_equally(mode: str | None) -> None:
    """`plan.fixed` tools (no primary argument, no conditions, no `when`): the decision kept per
    engine is the one the general flow makes, for every argument shape, hint and mode."""
    policy = load_policy(text=_FIXED_POLICY, name="fixed.yaml")
    engine, slow = _engines(policy, mode)
    calls = [
        ("mcp__docs__search", {"q": "x"}),
        ("mcp__docs__search", {}),
        ("mcp__prod__drop_table", {"name": "users"}),
        ("mcp__other__run", {"cmd": "ls"}),
        ("lookup", {"key": "a"}),
        ("mcp__docs__search", {"q": 5}),  # not a string: the general way, not the kept decision
        ("mcp__docs__search", {"q": "y" * 2_000_000}),  # oversized: the general way
    ]
    for _ in range(2):  # the second round answers from what the first one kept
        for tool, args in calls:
            for read_only in (None, True, False):
                fast = engine.decide(tool, args, read_only=read_only)
                general = slow.decide(tool, args, read_only=read_only)
                assert fast.to_json() == general.to_json(), (tool, args, read_only, mode)
    kept = set(engine._fixed)
    assert "mcp__docs__search" in kept and "mcp__prod__drop_table" in kept
    if mode in ("yolo", "non_interactive"):
        assert "mcp__other__run" not in kept  # an `ask` the mode rewrites is never kept
