"""The pattern ids a view's texts complete are kept on the (memoised) view, per pattern set
(`runtime/fastpath.py` `_unit_hits`, `_view_hits`, `_best_other`), and so is the rule a
one-unit view picks under a tool's plan, per plan (`_pick`, when no `when` looked at the call).

A view is shared by every engine and tool that sees the same text, so what it keeps must be
told apart by the set it was matched against: engines over different policies deciding the
same texts in turn decide exactly as engines that never shared a view, a replaced policy's
sets are not kept alive by the views, and a view keeps the ids of a bounded number of sets.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.kinds import shell
from toolpolicy.runtime.pattern_set import PatternSet
from toolpolicy.runtime.plan import ToolPlan
from toolpolicy.runtime.views import clear_memos

POLICIES = [
    # the same texts, different verdicts: a view's kept ids must never leak from one to another
    'deny: ["Bash(git push *)", "shell:cmd=*secret*"]\n  allow: ["Bash(git *)", "Bash(ls *)"]',
    'deny: ["Bash(ls *)"]\n  ask: ["Bash(git *)"]\n  allow: ["Bash(*secret*)"]',
    'allow: ["Bash(git push *)", "Bash(ls *)", "Read", "WebFetch(domain:a.test)"]',
    'deny: ["Read(./a/**)", "WebFetch(domain:a.test)", "mcp__s__t(q:*DROP*)"]\n  allow: ["mcp__s__*", "Read"]',
    'ask: ["Bash(*)"]\n  deny: ["mcp__s__t(q:*SELECT*)"]',
]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": "git push origin main"}),
    ("Bash", {"command": "git status"}),
    ("Bash", {"command": "ls -la"}),
    ("Bash", {"command": "cat secret.txt"}),
    ("Bash", {"command": "ls && git push x"}),
    ("Bash", {"command": "echo secret | git push"}),
    ("Read", {"file_path": "a/b.txt"}),
    ("Read", {"file_path": "c.txt"}),
    ("WebFetch", {"url": "https://a.test/x"}),
    ("WebFetch", {"url": "https://b.test/x"}),
    ("mcp__s__t", {"q": "DROP TABLE x"}),
    ("mcp__s__t", {"q": "SELECT 1"}),
]


def _engine(tmp_path: Path, n: int, text: str) -> Engine:
    path = tmp_path / f"p{n}.yaml"
    path.write_text(f"version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  {text}\n")
    return Engine(load_policy(str(path)), hooks=False)


def _decisions(engine: Engine, cwd: str) -> list[tuple[str, str | None]]:
    out = []
    for tool, args in CALLS:
        d = engine.decide(tool, args, context={"cwd": cwd})
        out.append((d.decision, d.rule))
    return out


def test_engines_sharing_views_decide_as_engines_that_never_did(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    cwd = str(tmp_path)
    alone = []
    for n, text in enumerate(POLICIES):
        clear_memos()  # no view shared with another engine
        alone.append(_decisions(_engine(tmp_path, n, text), cwd))
    assert len({tuple(a) for a in alone}) == len(POLICIES)  # the policies really disagree
    clear_memos()
    engines = [_engine(tmp_path, n, text) for n, text in enumerate(POLICIES)]
    for _ in range(3):  # in turn, several rounds: every view is matched against every set
        for engine, expected in zip(engines, alone):
            assert _decisions(engine, cwd) == expected


def test_a_view_keeps_no_pattern_set_alive_and_a_bounded_number_of_sets(tmp_path: Path) -> None:
    clear_memos()
    cwd = str(tmp_path)
    command = "git push origin main"
    for n in range(12):  # twelve policies, each deciding the same text, each dropped after
        engine = _engine(tmp_path, n, POLICIES[n % 2])
        engine.decide("Bash", {"command": command}, context={"cwd": cwd})
        del engine
    gc.collect()
    view = shell.view(command)
    kept = view.memo.get("hits")
    assert isinstance(kept, dict) and 1 <= len(kept) <= 4
    reachable = gc.get_referents(*kept.keys(), *kept.values())
    assert not any(isinstance(x, PatternSet) for x in reachable)
    # the sets whose ids the view keeps were freed with their engines
    assert not any(isinstance(x, PatternSet) and x.token in kept for x in gc.get_objects())
    picks = view.memo.get("pick")  # and so were the plans whose picks it keeps
    assert isinstance(picks, dict) and 1 <= len(picks) <= 4
    assert not any(isinstance(x, ToolPlan) for x in gc.get_referents(*picks.keys(), *picks.values()))
    assert not any(isinstance(x, ToolPlan) and x.token in picks for x in gc.get_objects())


def test_the_same_patterns_under_other_verdicts_pick_their_own_rule(tmp_path: Path) -> None:
    """Two policies whose pattern sets are alike but whose rules decide differently: each plan
    keeps its own pick on the shared view."""
    clear_memos()
    cwd = str(tmp_path)
    texts = [
        'allow: ["Bash(git *)", "Read"]',
        'deny: ["Bash(git *)", "Read"]',
        'ask: ["Bash(git *)", "Read"]',
    ]
    engines = [_engine(tmp_path, n, text) for n, text in enumerate(texts)]
    for _ in range(3):
        for engine, want in zip(engines, ["allow", "deny", "ask"]):
            assert engine.decide("Bash", {"command": "git log"}, context={"cwd": cwd}).decision == want
            assert engine.decide("Read", {"file_path": "x.txt"}, context={"cwd": cwd}).decision == want
