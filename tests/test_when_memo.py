"""The memo of pure conditions (`runtime/when_table.py`): a condition that reads one argument
is decided once per value, and the memo never changes a decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolpolicy as tp
from toolpolicy.grammar.when_parse import parse_when
from toolpolicy.runtime.views import clear_memos
from toolpolicy.runtime.when import text_field


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('args.command.matches("rm")', "command"),
        ('!args.command.matches("a") && !args.command.matches("b")', "command"),
        ('!has(args.command) || args.command.matches("curl")', "command"),
        ('size(args.url) > 10 && lower(args.url).startsWith("http")', "url"),
        ('args.mode in ["a", "b"]', "mode"),
        ('args.a.matches("x") || args.b.matches("y")', None),  # two arguments
        ('context.cwd.startsWith("/tmp")', None),
        ('tool == "Bash" && args.command.matches("x")', None),
        ('has(args.command) && args["command"] == "x"', None),  # indexed: not one field's value
        ('json(args).contains("x")', None),  # all arguments
        ('args.map.k == "v"', None),  # a field of a field
    ],
)
def test_text_field(text: str, field: str | None) -> None:
    assert text_field(parse_when(text)) == field


POLICY = """\
version: 1
default: ask
tools:
  probe: {kind: generic}
rules:
  - id: pure
    decision: deny
    match: "probe"
    when: 'args.cmd.matches("^rm ") && !args.cmd.matches("--dry-run")'
  - id: by-context
    decision: allow
    match: "probe"
    when: 'has(context.trusted) && context.trusted == true && args.cmd.startsWith("ls")'
  - id: error
    decision: deny
    match: "probe"
    when: 'args.cmd.startsWith("err") && args.n > 1'
  - id: pure-error
    decision: deny
    match: "probe"
    when: 'args.cmd.startsWith("bad") && args.cmd > 1'
"""


def _engine(tmp_path: Path) -> tp.Engine:
    (tmp_path / "p.yaml").write_text(POLICY)
    return tp.Engine(tp.load_policy(str(tmp_path / "p.yaml")), hooks=False)


@settings(max_examples=150, deadline=None)
@given(cmd=st.sampled_from(["rm x", "rm --dry-run x", "ls", "ls -l", "err", "errx", "echo", "bad"]),
       trusted=st.sampled_from([None, True, False]), n=st.sampled_from([None, 0, 2, "2"]))  # fmt: skip
def test_memo_never_changes_a_decision(tmp_path_factory: pytest.TempPathFactory, cmd: str, trusted: object,
                                       n: object) -> None:  # fmt: skip
    engine = _engine(tmp_path_factory.mktemp("p"))
    args: dict[str, object] = {"cmd": cmd} if n is None else {"cmd": cmd, "n": n}
    context = {} if trusted is None else {"trusted": trusted}
    clear_memos()
    cold = engine.decide("probe", args, context=context)
    warm = engine.decide("probe", args, context=context)  # the pure rule's result is now memoised
    other = _engine(tmp_path_factory.mktemp("q")).decide("probe", args, context=context)
    for d in (warm, other):
        assert (d.decision, d.rule, d.reason) == (cold.decision, cold.rule, cold.reason)


def test_context_conditions_are_not_memoised(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    assert engine.decide("probe", {"cmd": "ls"}, context={"trusted": True}).decision == "allow"
    assert engine.decide("probe", {"cmd": "ls"}, context={"trusted": False}).decision == "ask"
    assert engine.decide("probe", {"cmd": "ls"}).decision == "ask"


def test_errors_are_not_memoised_and_fail_closed(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    for _ in range(2):
        d = engine.decide("probe", {"cmd": "err", "n": "two"})  # `"two" > 1`: an error value
        assert d.decision == "ask"
        assert any("condition" in x or "error" in x for x in d.diagnostics)
    error = next(r.index for r in engine.policy.rules if r.id == "error")
    assert engine.when_table().known(error, "err") is None  # two arguments: never memoised
    pure_error = next(r.index for r in engine.policy.rules if r.id == "pure-error")
    assert engine.when_table().field(pure_error) == "cmd"
    for _ in range(2):
        d = engine.decide("probe", {"cmd": "bad"})  # `"bad" > 1`: an error value, every time
        assert d.decision == "ask"
        assert any("cannot compare" in x for x in d.diagnostics)
    assert engine.when_table().known(pure_error, "bad") is None


def test_pure_results_are_memoised_and_cleared(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    clear_memos()
    assert engine.decide("probe", {"cmd": "rm x"}).decision == "deny"
    table = engine.when_table()
    pure = next(r.index for r in engine.policy.rules if r.id == "pure")
    assert table.known(pure, "rm x") is True
    clear_memos()
    assert table.known(pure, "rm x") is None
