#!/usr/bin/env python3
"""Record what the real agent CLIs do with the (rule set, command) pairs of this directory.

    python tests/cases/vendor/record.py [--agent claude-code|gemini|codex|all] [--set ID] [--jobs N]
    python tests/cases/vendor/record.py --codex-schemas

For every pair, the agent's own permission engine decides with no hook at all: the real CLI
(installed by `tests/agents/claude_client.py` into the temp dir, run offline against its fake
model, which asks for exactly that shell command) gets the rule set in its own format, and what
it then did is classified:

* `ran`: the command ran;
* `asked`: the agent wanted a confirmation (which a headless run cannot give);
* `blocked`: a rule of the set refused it (or took the shell tool away);
* `default`: no rule decided; the agent's own default or heuristics did.

The result goes to `recorded/<agent>.json` with the CLI version and a snippet of the evidence
(the tool result the model got). Re-run this when a pinned agent version changes (the harness's
`DEFAULT_VERSION`, `GEMINI_DEFAULT_VERSION`, `CODEX_DEFAULT_VERSION`), then run
`pytest tests/test_vendor_differential.py`: it compares toolpolicy's import of the same rules
with the recording, without the CLIs. `--codex-schemas` re-extracts Codex's hook schemas into
`tests/fixtures/codex/` from the installed Codex binary.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
sys.path.insert(0, str(TESTS / "agents"))

import claude_client as harness  # noqa: E402
import vendor_runs  # noqa: E402

vendor_runs.register(harness)

AGENTS = ("claude-code", "gemini", "codex")
RUN_TIMEOUT = 150.0
EVIDENCE_CHARS = 300
CORPUS_MARK = "[corpus]"  # the justification / denyMessage every deny rule of the corpus carries


def load_pairs(agent: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((HERE / f"{agent}.yaml").read_text())
    return data


def redact(text: str) -> str:
    """Evidence without the run's temp paths (they differ on every run and name the machine)."""
    return re.sub(re.escape(harness.tmp_root()) + r"/run-[\w-]+", "<run>", text)[:EVIDENCE_CHARS]


def key(set_id: str, command: str) -> str:
    return f"{set_id}: {command}"


# ---- one pair ----------------------------------------------------------------------------------------
def run_claude(rules: dict[str, list[str]], command: str) -> dict[str, Any]:
    result = harness.run_scenario(
        agent="claude-user-rules",
        bash=command,
        allow=tuple(rules.get("allow", ())),
        deny=tuple(rules.get("deny", ())),
        ask=tuple(rules.get("ask", ())),
        capture=False,
        timeout=RUN_TIMEOUT,
    )
    text = result["tool_result_text"]
    if result["tool_use_sent"] and text is None:
        raise RuntimeError(f"no tool result: {result.get('stderr_tail')}")
    if not result["tool_use_sent"] or text is None:
        outcome = "blocked"  # a bare `Bash` deny takes the tool away
    elif "has been denied" in text:
        outcome = "blocked"
    elif "haven't granted it yet" in text:
        outcome = "asked"
    elif result.get("permission_denials"):  # refused without a rule: it needed approval
        outcome = "default"
    else:
        outcome = "ran"
    return {
        "outcome": outcome,
        "evidence": (text or "(the model was not offered the Bash tool)")[:EVIDENCE_CHARS],
    }


def run_gemini(rules: str, command: str) -> dict[str, Any]:
    result = harness.run_scenario(
        agent="gemini-policy",
        bash=command,
        extra_files={vendor_runs.POLICY_FILE: rules},
        capture=False,
        timeout=RUN_TIMEOUT,
    )
    text = result["tool_result_text"]
    if not result["tool_use_sent"] or text is None:
        # Gemini hides a tool whose first applicable rule without a command condition is a deny; the
        # corpus has no such user rule, so it is the headless default (deny) that hid it
        return {"outcome": "default", "evidence": "(the model was not offered run_shell_command)"}
    if "denied by policy" in text:
        outcome = "blocked" if CORPUS_MARK in text else "default"
    elif "requires user confirmation" in text:
        outcome = "asked"
    else:
        outcome = "ran"
    return {"outcome": outcome, "evidence": text[:EVIDENCE_CHARS]}


def _codex_run(rules: str, command: str, mode: str | None) -> str:
    result = harness.run_scenario(
        agent="codex-rules",
        bash=command,
        extra_files={vendor_runs.RULES_FILE: rules},
        capture=False,
        timeout=RUN_TIMEOUT,
        **({"permission_mode": mode} if mode else {}),
    )
    text = result["tool_result_text"]
    if text is None:
        raise RuntimeError(f"no tool result: {result.get('stderr_tail')}")
    return str(text)


def run_codex(rules: str, command: str) -> dict[str, Any]:
    never = _codex_run(rules, command, None)
    if "approval required" in never or "requires approval" in never:
        return {"outcome": "asked", "evidence": never[:EVIDENCE_CHARS]}
    if "Rejected(" in never or "rejected" in never:
        outcome = "blocked" if CORPUS_MARK in never or "policy forbids" in never else "default"
        return {"outcome": outcome, "evidence": never[:EVIDENCE_CHARS]}
    reviewed = _codex_run(rules, command, "approve-for-me")
    if "unacceptable risk" in reviewed:  # no allow rule covered it: Codex's reviewer was asked
        return {"outcome": "default", "evidence": (never[:120] + " | approve-for-me: " + reviewed[:160])}
    return {"outcome": "ran", "evidence": never[:EVIDENCE_CHARS]}


RUNNERS: dict[str, Callable[[Any, str], dict[str, Any]]] = {
    "claude-code": run_claude,
    "gemini": run_gemini,
    "codex": run_codex,
}


# ---- recording ---------------------------------------------------------------------------------------
def version_of(agent: str) -> str:
    name = {"claude-code": "claude", "gemini": "gemini", "codex": "codex"}[agent]
    spec = harness.AGENTS[name]
    version = spec["default_version"]
    if name == "claude":
        spec["ensure"](None, version, log=io.StringIO())
    else:
        spec["ensure"](None, version)
    packages = {"claude": harness.PACKAGE, "gemini": harness.GEMINI_PACKAGE, "codex": harness.CODEX_PACKAGE}
    return f"{packages[name]}@{version}"


def record(agent: str, only: str | None, jobs: int) -> int:
    pairs = load_pairs(agent)
    out_path = HERE / "recorded" / f"{agent}.json"
    previous = json.loads(out_path.read_text()) if out_path.exists() else {}
    outcomes: dict[str, Any] = dict(previous.get("outcomes", {})) if only else {}
    cli = version_of(agent)
    todo = [
        (s["id"], s["rules"], command)
        for s in pairs["sets"]
        if only in (None, s["id"])
        for command in s["commands"]
    ]
    runner: Callable[[Any, str], dict[str, Any]] = RUNNERS[agent]
    started = time.time()
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures: dict[concurrent.futures.Future[dict[str, Any]], tuple[str, str]] = {
            pool.submit(runner, rules, command): (set_id, command) for set_id, rules, command in todo
        }
        for future in concurrent.futures.as_completed(futures):
            set_id, command = futures[future]
            try:
                found = future.result()
                outcomes[key(set_id, command)] = {**found, "evidence": redact(found["evidence"])}
                print(
                    f"{agent} {key(set_id, command)!r}: {outcomes[key(set_id, command)]['outcome']}",
                    flush=True,
                )
            except Exception as exc:  # a run the harness could not complete: reported, not recorded
                failures += 1
                print(f"{agent} {key(set_id, command)!r}: FAILED {exc}", file=sys.stderr, flush=True)
    order = [key(s["id"], c) for s in pairs["sets"] for c in s["commands"]]
    data = {
        "agent": agent,
        "cli": cli,
        "recorded_with": "tests/agents/claude_client.py + tests/agents/vendor_runs.py, no hook",
        "outcomes": {k: outcomes[k] for k in order if k in outcomes},
    }
    out_path.parent.mkdir(exist_ok=True)
    out_path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{agent}: {len(todo)} pairs in {time.time() - started:.0f} s, {failures} failed -> {out_path}")
    return 1 if failures else 0


# ---- which hook answers block (the table in docs/agents.md) ---------------------------------------------
HOOK_ANSWERS = {
    "exit 0, no output": "cat >/dev/null; exit 0",
    "exit 2, reason on stderr": "cat >/dev/null; echo reason-x >&2; exit 2",
    "exit 2, empty stderr": "cat >/dev/null; exit 2",
    "exit 1": "cat >/dev/null; echo crash >&2; exit 1",
    "stdout not JSON": "cat >/dev/null; echo not-json",
    "command missing": "@WORK@/no-such-hook",
    "past the hook timeout": "cat >/dev/null; sleep 8; exit 2",
}
JSON_ANSWERS = {
    "claude": {
        "JSON deny with a reason": {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "nope",
            }
        },
        "JSON deny, an unknown field": {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "nope",
                "extra": 1,
            }
        },
        "JSON ask": {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": "hm",
            }
        },
        "JSON invalid decision": {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}
        },
    },
    "gemini": {
        "JSON deny with a reason": {"decision": "deny", "reason": "nope"},
        "JSON deny, an unknown field": {"decision": "deny", "reason": "nope", "extra": 1},
        "JSON ask": {"decision": "ask", "reason": "hm"},
        "JSON invalid decision": {"decision": "maybe"},
    },
}
JSON_ANSWERS["codex"] = {
    **JSON_ANSWERS["claude"],
    "JSON deny without a reason": {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
    },
}
# (agent, column, options): modes where the agent itself runs `touch`, so only the hook can stop it
COLUMNS: list[tuple[str, str, dict[str, Any]]] = [
    ("claude", "claude", {"permission_mode": "acceptEdits"}),
    ("claude", "claude+onFailure:block", {"permission_mode": "acceptEdits", "on_failure": "block"}),
    ("gemini", "gemini", {"permission_mode": "yolo"}),
    ("codex", "codex", {}),
]


def blocking() -> int:
    """Run each kind of hook answer through each real CLI; write recorded/blocking.json."""
    import shlex

    table: dict[str, dict[str, str]] = {}
    versions = {}
    for agent, column, options in COLUMNS:
        answers = dict(HOOK_ANSWERS)
        answers.update(
            {k: "cat >/dev/null; echo " + shlex.quote(json.dumps(v)) for k, v in JSON_ANSWERS[agent].items()}
        )
        for label, command in answers.items():
            result = harness.run_scenario(
                command,
                agent=agent,
                bash="touch MARKER_FILE",
                timeout=RUN_TIMEOUT,
                hook_timeout=2 if "timeout" in label else None,
                **options,
            )
            versions[agent] = result["cc_version"]
            seen = "hangs" if result["timed_out"] else ("runs" if result["ran"] else "blocks")
            table.setdefault(label, {})[column] = seen
            print(f"{column:24} {label:30} {seen}", flush=True)
    out = {"clis": versions, "answers": table}
    path = HERE / "recorded" / "blocking.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"-> {path}")
    return 0


def codex_schemas() -> int:
    """Re-extract the hook schemas from the installed Codex binary into tests/fixtures/codex/."""
    _launcher, version = harness.ensure_codex(None, harness.CODEX_DEFAULT_VERSION)
    root = Path(harness.tmp_root()) / f"codex-{version}" / "node_modules" / "@openai"
    binaries = [p for p in root.glob("codex-*/vendor/*/bin/codex") if p.is_file()]
    if not binaries:
        print(f"no Codex binary under {root}", file=sys.stderr)
        return 1
    blob = binaries[0].read_bytes()
    decoder = json.JSONDecoder()
    target = TESTS / "fixtures" / "codex"
    for event in ("pre-tool-use", "permission-request", "post-tool-use"):
        for kind in ("input", "output"):
            title = f"{event}.command.{kind}"
            at = blob.find(f'"title": "{title}"'.encode())
            start = blob.rfind(b'{\n  "$schema"', 0, at)
            schema, _ = decoder.raw_decode(blob[start : start + 50_000].decode("utf-8", "replace"))
            assert schema["title"] == title, title
            (target / f"{title}.json").write_text(json.dumps(schema, indent=2) + "\n")
            print(f"wrote {target / f'{title}.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agent", choices=[*AGENTS, "all"], default="all")
    parser.add_argument("--set", dest="only", default=None, help="re-record one rule set only")
    parser.add_argument("--jobs", type=int, default=2, help="agent runs at a time (default 2)")
    parser.add_argument("--codex-schemas", action="store_true", help="re-extract Codex's hook schemas")
    parser.add_argument(
        "--blocking", action="store_true", help="record which hook answers block (docs table)"
    )
    args = parser.parse_args(argv)
    if args.codex_schemas:
        return codex_schemas()
    if args.blocking:
        return blocking()
    os.environ.setdefault("TOOLPOLICY_NO_CACHE", "1")
    status = 0
    for agent in AGENTS if args.agent == "all" else (args.agent,):
        status |= record(agent, args.only, max(1, args.jobs))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
