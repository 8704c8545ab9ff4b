"""Memos kept on shared views never carry one policy's matches into another's decision.

A view (one text's analysis) is shared by every engine in the process, and the fast path keeps on
it the ids of the patterns each pattern set matched (`fastpath._keep`, keyed by the set's
`token`). Several policies deciding the same texts, engines dropped and rebuilt (new sets, the old
ones collected), the same command under different working directories and homes, different
command knowledge (`commands:`) and modes must each decide exactly as a lone, cold engine would.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.views import clear_memos

POLICIES = {
    "git-allow": """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(git *)", "Bash(cat *)", "Read(**)", "Bash(ls *)"]
""",
    "git-push-deny": """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(git push *)", "Read(./.env)", "Read(//tmp/memo-a/**)"]
  allow: ["Bash(git *)", "Bash(cat *)", "Bash(mycat *)"]
""",
    "cat-deny": """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(cat *)", "Bash(git push *)"]
  ask: ["Read(**/.env)"]
""",
    "knowledge": """
version: 1
profile: claude-code
default: ask
commands:
  mycat:
    operands: [data...]
permissions:
  deny: ["Read(./.env)"]
  allow: ["Bash(mycat *)", "Bash(git *)", "Bash(cat *)"]  # mycat's operands are only data here
""",
    "packs": """
version: 1
profile: claude-code
extends: ["pack:destructive", "pack:read-only", "pack:secrets"]
default: ask
""",
    "when": r"""
version: 1
profile: claude-code
default: ask
rules:
  - id: git-no-push
    decision: allow
    match: ["Bash(git *)", "Bash(cat *)"]
    when: '!args.command.matches(r"\bpush\b")'
""",
}

CALLS: list[tuple[str, dict[str, str], str]] = [
    ("Bash", {"command": "git push origin main"}, "/tmp/memo-a"),
    ("Bash", {"command": "git 'push' origin main"}, "/tmp/memo-a"),
    ("Bash", {"command": "git status"}, "/tmp/memo-a"),
    ("Bash", {"command": "cat .env"}, "/tmp/memo-a"),
    ("Bash", {"command": "cat .env"}, "/tmp/memo-b"),
    ("Bash", {"command": "cat secret.txt"}, "/tmp/memo-a"),
    ("Bash", {"command": "cat secret.txt"}, "/tmp/memo-b"),
    ("Bash", {"command": "mycat .env"}, "/tmp/memo-a"),
    ("Bash", {"command": "ls -la; git status && cat README.md"}, "/tmp/memo-a"),
    ("Bash", {"command": "git status; git push"}, "/tmp/memo-b"),
    ("Bash", {"command": "rm -rf /"}, "/tmp/memo-a"),
    ("Read", {"file_path": ".env"}, "/tmp/memo-a"),
    ("Read", {"file_path": ".env"}, "/tmp/memo-b"),
    ("Read", {"file_path": "secret.txt"}, "/tmp/memo-a"),
    ("Read", {"file_path": "secret.txt"}, "/tmp/memo-b"),
    ("Read", {"file_path": "/tmp/memo-a/x"}, "/"),
]


def _decide(engine: Engine, call: tuple[str, dict[str, str], str]) -> tuple[str, str | None]:
    tool, args, cwd = call
    d = engine.decide(tool, dict(args), context={"cwd": cwd})
    return str(d.decision), (str(getattr(d.rule, "id", d.rule)) if d.rule is not None else None)


def _engine(name: str, mode: str | None = None) -> Engine:
    return Engine(load_policy(text=POLICIES[name]), mode=mode, hooks=False)


@pytest.fixture(scope="module")
def reference() -> dict[tuple[str, str | None], list[tuple[str, str | None]]]:
    """Each policy (and mode) alone and cold: memos cleared, a fresh engine, nothing else alive."""
    out = {}
    for name in POLICIES:
        for mode in (None, "yolo"):
            clear_memos()
            engine = _engine(name, mode)
            out[(name, mode)] = [_decide(engine, c) for c in CALLS]
            del engine
            gc.collect()
    clear_memos()
    return out


def test_the_reference_tells_the_policies_apart(
    reference: dict[tuple[str, str | None], list[tuple[str, str | None]]],
) -> None:
    # the calls are chosen so that a leak would show: the policies disagree on the same texts
    git_push = CALLS.index(("Bash", {"command": "git push origin main"}, "/tmp/memo-a"))
    assert reference[("git-allow", None)][git_push][0] == "allow"
    assert reference[("git-push-deny", None)][git_push][0] == "deny"
    assert reference[("when", None)][git_push][0] == "ask"
    mycat = CALLS.index(("Bash", {"command": "mycat .env"}, "/tmp/memo-a"))
    assert reference[("knowledge", None)][mycat][0] == "allow"  # its own knowledge: operands are data
    assert reference[("git-push-deny", None)][mycat][0] == "deny"  # unknown: an operand may be a read


def test_engines_of_different_policies_deciding_the_same_texts_interleaved(
    reference: dict[tuple[str, str | None], list[tuple[str, str | None]]],
) -> None:
    engines = {(name, mode): _engine(name, mode) for name in POLICIES for mode in (None, "yolo")}
    rng = random.Random(8)
    order = [(key, i) for key in engines for i in range(len(CALLS))] * 2
    rng.shuffle(order)
    for key, i in order:
        assert _decide(engines[key], CALLS[i]) == reference[key][i], (key, CALLS[i])


def test_engines_dropped_and_rebuilt_decide_like_the_first(
    reference: dict[tuple[str, str | None], list[tuple[str, str | None]]],
) -> None:
    names = list(POLICIES)
    rng = random.Random(88)
    for round_ in range(24):  # new pattern sets each round; the old ones collected (their tokens too)
        name = names[round_ % len(names)]
        engine = _engine(name)
        calls = list(range(len(CALLS)))
        rng.shuffle(calls)
        for i in calls:
            assert _decide(engine, CALLS[i]) == reference[(name, None)][i], (name, CALLS[i])
        del engine
        gc.collect()


def test_more_live_policies_than_a_view_keeps_memos_for(
    reference: dict[tuple[str, str | None], list[tuple[str, str | None]]],
) -> None:
    # a view keeps the ids of a few sets; more live policies than that evict each other's entries
    engines = [(name, _engine(name)) for name in POLICIES for _ in range(2)]
    for _ in range(3):
        for i in range(len(CALLS)):
            for name, engine in engines:
                assert _decide(engine, CALLS[i]) == reference[(name, None)][i], (name, CALLS[i])


def test_the_same_text_under_another_home(tmp_path: Path) -> None:
    text = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(//tmp/memo-h1/.ssh/**)"]
  allow: ["Bash(cat *)"]
"""
    engine = Engine(load_policy(text=text), hooks=False)
    for _ in range(2):
        one = engine.decide(
            "Bash", {"command": "cat ~/.ssh/id_rsa"}, context={"cwd": "/tmp", "home": "/tmp/memo-h1"}
        )
        two = engine.decide(
            "Bash", {"command": "cat ~/.ssh/id_rsa"}, context={"cwd": "/tmp", "home": "/tmp/memo-h2"}
        )
        assert (one.decision, two.decision) == ("deny", "allow")


def test_a_view_is_never_built_with_other_knowledge_than_its_policys() -> None:
    """The registry of knowledge tables may be emptied by another thread (past 64 tables)
    between a view registering its policy's table and reading it: the view is then built with
    the policy's table again, never with the bundled knowledge memoised under the policy's name."""
    from toolpolicy.runtime.kinds import shell as shell_kind

    text = (
        "version: 1\nprofile: claude-code\ndefault: ask\n"
        'permissions:\n  allow: ["Bash(mytool *)"]\n  deny: ["Read(./secret.txt)"]\n'
        "commands:\n  mytool:\n    operands: [read...]\n"
    )
    engine = Engine(load_policy(text=text), hooks=False)
    table = engine.policy.commands
    command = "mytool secret.txt"
    clear_memos()
    shell_kind._TABLES.clear()  # the registry emptied, as another thread's 65th table does
    shell_kind._WALKS.clear()
    with pytest.raises(shell_kind._TableGone):
        shell_kind._view_text(command, table.digest)  # never the bundled knowledge under this name
    view = shell_kind.view(command, None, table)
    assert any("secret.txt" in r for u in view.units for r in u.reads)  # the policy's `mytool` reads it
    assert engine.decide("Bash", {"command": command}, context={"cwd": "/tmp"}).decision == "deny"
    shell_kind._TABLES.clear()
    assert engine.decide("Bash", {"command": "mytool other.txt"}, context={"cwd": "/tmp"}).decision == "allow"
