"""What the four bundled packs cost decide() on the `agent-permissions-v1` workload, in one run.

    python bench/pack_overhead.py [--size 1000] [--rounds 5]

Issue 14 asks that the packs do not slow decide(): the speed issue's numbers must hold with
`pack:destructive`, `pack:read-only`, `pack:secrets` and `pack:network` loaded. The packs speak
Claude Code (`Bash`, `Read`, `Edit`, `WebFetch`), so the workload is written in Claude Code's
names: its rules as colon-form rules on `Bash:command`, `Edit:file_path`, `Read:file_path`,
`WebFetch:url` and `mcp__server__tool`, its 20,000 calls renamed the same way. Two engines decide
the same calls in the same process: the workload policy alone, and the same policy extending the
four packs. Printed per tool family: µs per call of each (median of the rounds, every view memo
warm, as in `bench/compare.py`), the first pass over the calls (memos empty), and the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "agent_permissions")]

TOOLS = {"shell": ("Bash", "command"), "edit_file": ("Edit", "file_path"), "read_file": ("Read", "file_path"),
         "fetch": ("WebFetch", "url")}  # fmt: skip
ARGS = {"cmd": "command", "path": "file_path"}
PACKS = ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]


def claude_tool(tool: str) -> str:
    if tool.startswith("mcp:"):
        return "mcp__" + tool[4:].replace(":", "__")
    return TOOLS.get(tool, (tool, None))[0]


def claude_call(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    tool = claude_tool(call["tool"])
    args = {ARGS.get(k, k) if call["tool"] in TOOLS else k: v for k, v in call["args"].items()}
    return tool, args


def write_policy(rules: list[Any], path: Path, packs: bool) -> None:
    lists: dict[str, list[str]] = {"deny": [], "ask": [], "allow": []}
    for r in rules:
        tool = claude_tool(r.tool)
        if r.arg is None:
            lists[r.effect].append(tool)
        else:
            arg = TOOLS[r.tool][1] if r.tool in TOOLS else r.arg
            lists[r.effect].append(f"{tool}:{arg}={r.pattern}")
    doc: dict[str, Any] = {"version": 1, "profile": "claude-code", "default": "ask", "permissions": lists}
    if packs:
        doc["extends"] = PACKS
    path.write_text(json.dumps(doc, indent=1))


def family(tool: str) -> str:
    return {"Bash": "shell", "Edit": "edit", "Read": "read", "WebFetch": "fetch"}.get(tool, "mcp")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()

    import workload  # type: ignore[import-not-found]

    import toolpolicy as tp

    rules, calls = workload.make_policy(a.size), workload.make_requests(a.size)
    renamed = [claude_call(c) for c in calls]
    engines = {}
    with tempfile.TemporaryDirectory() as d:
        for name, packs in (("workload", False), ("workload + 4 packs", True)):
            path = Path(d) / f"{'packs' if packs else 'plain'}.json"
            write_policy(rules, path, packs)
            engines[name] = tp.Engine(tp.load_policy(str(path)), hooks=False)
    families: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for tool, args in renamed:
        families.setdefault(family(tool), []).append((tool, args))
    first: dict[str, float] = {}
    for name, engine in engines.items():
        from toolpolicy.runtime.views import clear_memos

        clear_memos()
        t = time.process_time()
        for tool, args in renamed:
            engine.decide(tool, args)
        first[name] = (time.process_time() - t) / len(renamed) * 1e6
    us: dict[str, dict[str, list[float]]] = {f: {n: [] for n in engines} for f in families}
    for _ in range(a.rounds):
        for fam, fcalls in families.items():
            for name, engine in engines.items():
                t = time.process_time()
                for tool, args in fcalls:
                    engine.decide(tool, args)
                us[fam][name].append((time.process_time() - t) / len(fcalls) * 1e6)
    names = list(engines)
    print(f"agent-permissions-v1 at R = {a.size:,} in Claude Code's names, {len(renamed):,} calls")
    print(f"| family | calls | {names[0]} µs | {names[1]} µs | ratio |")
    print("|---|---|---|---|---|")
    for fam in sorted(families):
        plain, packed = (statistics.median(us[fam][n]) for n in names)
        print(f"| {fam} | {len(families[fam]):,} | {plain:.2f} | {packed:.2f} | {packed / plain:.2f}× |")
    print(f"| first pass (memos empty) | {len(renamed):,} | {first[names[0]]:.2f} | {first[names[1]]:.2f} "
          f"| {first[names[1]] / first[names[0]]:.2f}× |")  # fmt: skip


if __name__ == "__main__":
    main()
