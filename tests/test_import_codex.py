"""Codex importer: `.rules` (Starlark subset, Lark grammar) -> native rules and inline tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolpolicy import Engine, PolicyError, load_policy
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats.codex import PLAIN_WHEN, token_expressions

RULES = """\
# read-only git is fine
GIT = "git"
READ = ["status", "log", "diff"]
prefix_rule(
    pattern = [GIT, READ],
    decision = "allow",
    justification = "read-only git",
    match = ["git status", ["git", "log", "-1"]],
    not_match = ["git push", "git status"[0:0] if False else "git push"],
)
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden", match = ["rm -rf /"])
prefix_rule(pattern = [["npm", "pnpm"], ["i", "install"]], decision = "prompt")
prefix_rule(pattern = ["echo", "a b", "*"], decision = "prompt")
prefix_rule(pattern = ["/usr/bin/git", "push"], decision = "forbidden")
host_executable(name = "git", paths = ["/usr/bin/git", "~/bin/git"])
network_rule(host = "api.github.com", protocol = "https", decision = "allow")
"""


def _import(text: str):
    return import_document(text, format="codex", path="default.rules")


def test_token_expressions() -> None:
    assert token_expressions(["git", "status"]) == ["shell|exec(git status *)"]
    assert token_expressions(["echo", "*"]) == [
        "shell|exec:command=echo \\*",
        "shell|exec:command=echo \\* *",
    ]


def test_grammar_rejects_python_it_does_not_know() -> None:
    with pytest.raises(PolicyError) as info:
        _import(RULES)  # the slice/conditional in not_match is not in the subset
    assert info.value.code == "import_parse_error"
    assert info.value.location is not None and info.value.location.line == 9


def _rules() -> str:
    return RULES.replace(', "git status"[0:0] if False else "git push"', "")


def test_rules_and_tests() -> None:
    result = _import(_rules())
    rules = result.document["rules"]
    home = os.path.expanduser("~/bin/git")
    assert PLAIN_WHEN in rules[0].pop("when")  # Codex approves plain scripts only
    assert rules[0] == {
        "decision": "allow",
        "match": [
            f"shell|exec({program} {sub} *)"
            for sub in ("status", "log", "diff")
            for program in ("git", "/usr/bin/git", home)
        ],
        "reason": "read-only git",
    }
    assert rules[1] == {"decision": "deny", "match": "shell|exec(rm -rf *)"}
    assert rules[2]["decision"] == "ask" and len(rules[2]["match"]) == 4
    assert rules[4] == {"decision": "deny", "match": "shell|exec(/usr/bin/git push *)", "priority": 1}
    assert [(t["name"], t["expect"]) for t in result.document["tests"]] == [
        ("codex match example: git status", "allow"),
        ("codex match example: git log -1", "allow"),
        ("codex not match example: git push", "ask"),
        ("codex match example: rm -rf /", "deny"),
    ]
    assert result.origins["rules[0]"] == "default.rules:4"
    assert sorted(w.code for w in result.warnings) == ["import_semantics_differ", "import_unsupported"]


def test_imported_rules_decide(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    path.write_text(_rules(), encoding="utf-8")
    engine = Engine(load_policy(path), hooks=False)
    cases = {
        ("git", "status", "-s"): "allow",
        ("/usr/bin/git", "log"): "allow",
        ("/usr/bin/git", "push"): "deny",
        ("rm", "-rf", "/tmp/x"): "deny",
        ("pnpm", "install", "x"): "ask",
        ("git", "--no-pager", "status"): "ask",
    }
    for argv, want in cases.items():
        assert engine.decide("shell", {"command": list(argv)}).decision == want, argv


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('prefix_rule(pattern = ["a"], decision = "maybe")', 1),
        ("prefix_rule(pattern = [])", 1),
        ('prefix_rule(["a"])', 1),
        ('prefix_rule(pattern = ["a"], justification = "  ")', 1),
        ('prefix_rule(pattern = ["a"], colour = "red")', 1),
        ('prefix_rule(pattern = ["a"], pattern = ["b"])', 1),
        ("\nprefix_rule(pattern = [UNKNOWN])", 2),
        ('load("x.star", "y")', 1),
        ('prefix_rule(pattern = [["a", 1]])', 1),
        ('prefix_rule(pattern = ["git"], match = ["ls"])', 1),
        ('prefix_rule(pattern = ["git"], not_match = ["git x"])', 1),
        ('host_executable(name = "git", paths = ["bin/git"])', 1),
        ('host_executable(name = "git", paths = ["/usr/bin/gitx"])', 1),
        ('prefix_rule(pattern = ["a"]', 1),
        ("for x in y: pass", 1),
        ('prefix_rule(pattern = ["a" + ["b"]])', 1),
    ],
)
def test_errors_reject_the_file(text: str, line: int) -> None:
    with pytest.raises(PolicyError) as info:
        _import(text)
    err = info.value.errors[0]
    assert err.code == "import_parse_error" and err.location is not None and err.location.line == line


def test_strings_constants_and_concatenation() -> None:
    text = 'A = ["git"] + ["log"]\nB = r"\\d" + \'x\'\nprefix_rule(pattern = A + [B, """t"""], decision = "prompt",)\n'
    result = _import(text)
    assert result.document["rules"][0]["match"] == [
        "shell|exec:command=git log \\\\dx t",
        "shell|exec:command=git log \\\\dx t *",
    ]


def test_empty_file() -> None:
    assert _import("").document == {"version": 1, "profile": "codex"}
    assert _import("# only a comment\n").document == {"version": 1, "profile": "codex"}
