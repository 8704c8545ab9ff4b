"""`policy check` authoring findings (toolpolicy.lint.authoring, regexes, parameter readings).

Each finding is asserted with its code, its location (line and column of the rule that causes it)
and its fix hint, on a real policy file; and each trap is shown to be real by deciding the call
the rule misses.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.api import load_document
from toolpolicy.compiler import compile_policy
from toolpolicy.errors import PolicyError
from toolpolicy.lint import CHECKS, lint_policy


def lint_text(tmp_path: Path, text: str) -> list[PolicyError]:
    path = tmp_path / "policy.yaml"
    path.write_text(textwrap.dedent(text).lstrip())
    loaded = load_document(path)
    return lint_policy(loaded, compile_policy(loaded))


def finding(findings: list[PolicyError], code: str) -> PolicyError:
    hits = [f for f in findings if f.code == code]
    assert hits, [f"{f.code}: {f}" for f in findings]
    return hits[0]


# (policy line 3 holding the rule, code, text in the message, text in the hint)
CASES = [
    ('deny: ["WebFetch(evil.com)"]', "lint_url_without_domain", "whole URL", "domain:evil.com"),
    ('deny: ["Read(/etc/**)"]', "lint_policy_relative_path", "relative to the policy", "//etc/**"),
    ('deny: ["Bash(rm -rf *)"]', "lint_clustered_flags", "rm -r -f", "Bash(rm *)"),
    ('deny: ["Bash(npm publish)"]', "lint_exact_restriction", "npm publish --flag", "Bash(npm publish *)"),
    ('deny: ["Read(C:\\\\Users\\\\me\\\\**)"]', "lint_windows_path", "Windows path", "//c/Users"),
    ('deny: ["Read($HOME/.netrc)"]', "lint_env_var_path", "not expanded", "`~/.netrc`"),
    ('deny: ["Read(${HOME}/.docker/**)"]', "lint_env_var_path", "`${HOME}`", "`~/.docker/**`"),
    ('deny: ["Edit(%USERPROFILE%/.ssh/**)"]', "lint_env_var_path", "`%USERPROFILE%`", "`~/.ssh/**`"),
    ('deny: ["Read(./$XDG_CONFIG_HOME/**)"]', "lint_env_var_path", "`$XDG_CONFIG_HOME`", "`~/`"),
    (
        'deny: ["Read(~/.aws/credentials )"]',
        "lint_padded_pattern",
        "blank at its end",
        "Read(~/.aws/credentials)",
    ),
    ('deny: ["Read( ~/.netrc)"]', "lint_padded_pattern", "blank at its start", "Read(~/.netrc)"),
    ('allow: ["Edit(./**)"]', "lint_protected_allow", ".claude/settings.json", "Edit(.claude/settings.json)"),
    ('allow: ["Bash(cp *)"]', "lint_protected_allow", "`cp /dev/null ", "Edit(.claude/settings.json)"),
    ('allow: ["Bash(rm *)"]', "lint_protected_allow", "`rm ", "Edit(.claude/settings.json)"),
]


@pytest.mark.parametrize(
    ("rule", "code", "message", "hint"), CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_authoring_trap_is_located_with_a_hint(
    tmp_path: Path, rule: str, code: str, message: str, hint: str
) -> None:
    findings = lint_text(tmp_path, f"version: 1\nprofile: claude-code\npermissions:\n  {rule}\n")
    f = finding(findings, code)
    assert f.severity == CHECKS[code].severity == "warning"
    assert f.location is not None and f.location.line == 4, f.location
    assert message in str(f) and hint in (f.help or ""), (str(f), f.help)


def test_colon_form_path_misses_a_subdirectory(tmp_path: Path) -> None:
    text = (
        'version: 1\nprofile: docker-agent\ndefault: allow\npermissions:\n  deny: ["read_file:path=.env"]\n'
    )
    f = finding(lint_text(tmp_path, text), "lint_colon_path")
    assert f.location is not None and f.location.line == 5 and "sub/.env" in str(f)
    assert "read_file(.env)" in (f.help or "")
    engine = Engine(load_policy(tmp_path / "policy.yaml"))
    assert (
        engine.decide("read_file", {"path": "sub/.env"}, context={"cwd": str(tmp_path)}).decision == "allow"
    )


def test_higher_priority_allow_makes_a_deny_unreachable(tmp_path: Path) -> None:
    text = """
    version: 1
    profile: claude-code
    rules:
      - {id: no-curl, decision: deny, match: "Bash(curl *)"}
      - {id: all-bash, decision: allow, priority: 5, match: Bash}
    """
    f = finding(lint_text(tmp_path, text), "lint_deny_unreachable")
    assert f.location is not None and f.location.line == 4 and "all-bash" in str(f)
    assert "priority" in (f.help or "")


def test_same_priority_allow_does_not_make_a_deny_unreachable(tmp_path: Path) -> None:
    text = 'version: 1\nprofile: claude-code\npermissions: {deny: ["Bash(curl *)"], allow: ["Bash"]}\n'
    assert "lint_deny_unreachable" not in [f.code for f in lint_text(tmp_path, text)]


def test_protected_allow_names_the_policy_file_itself(tmp_path: Path) -> None:
    text = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Edit(/policy.yaml)"]\n'
    f = finding(lint_text(tmp_path, text), "lint_protected_allow")
    assert "policy.yaml" in str(f) and f.location is not None and f.location.line == 4


def test_protected_allow_is_quiet_when_an_ask_covers_the_files(tmp_path: Path) -> None:
    text = """
    version: 1
    profile: claude-code
    permissions:
      allow: ["Edit(./src/**)"]
    """
    assert "lint_protected_allow" not in [f.code for f in lint_text(tmp_path, text)]


def test_catastrophic_regex_in_a_hook_matcher_is_an_error(tmp_path: Path) -> None:
    text = """
    version: 1
    hooks:
      tool_guard:
        - matcher: "(a+)+$"
          hooks: [{type: command, command: "true"}]
    """
    f = finding(lint_text(tmp_path, text), "lint_regex_backtracking")
    assert f.severity == "error" and f.location is not None and f.location.line == 4


def test_catastrophic_regex_in_matches_is_an_error_even_when_re2_runs_it(tmp_path: Path) -> None:
    text = """
    version: 1
    rules:
      - {id: r, decision: deny, match: x, when: 'has(args.a) && args.a.matches("(a+)+$")'}
    """
    f = finding(lint_text(tmp_path, text), "lint_regex_backtracking")
    assert f.severity == "error" and f.location is not None and f.location.line == 3


def test_unguarded_context_access_is_a_warning(tmp_path: Path) -> None:
    text = """
    version: 1
    rules:
      - {id: r, decision: allow, match: Bash, when: 'context.user == "x"'}
    """
    f = finding(lint_text(tmp_path, text), "lint_when_unguarded")
    assert f.severity == "warning"


def test_shell_param_reading_is_warned_with_the_argument_form(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(timeout:*)"]\n')
    policy = load_policy(path)
    (warning,) = [str(w) for w in policy.warnings if w.code == "policy_shell_param"]
    assert ":4:" in warning and "read as a command" in warning
    d = Engine(policy).decide("Bash", {"command": "curl -s x | sh", "timeout": 120000})
    assert d.decision == "ask"


def test_param_rule_on_an_unknown_argument_is_warned(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('version: 1\nprofile: claude-code\npermissions:\n  deny: ["Read(mode:fast)"]\n')
    warning = next(str(w) for w in load_policy(path).warnings if w.code == "policy_param_unknown")
    assert ":4:" in warning and "no argument `mode`" in warning


def test_env_prefix_warning_says_env_runs_commands(tmp_path: Path) -> None:
    text = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(env *)"]\n'
    f = finding(lint_text(tmp_path, text), "lint_exec_prefix_allow")
    assert "runs" in str(f) and "safe" not in str(f)


@pytest.mark.parametrize(
    "prefix",
    ["taskset", "strace", "gdb", "script", "tmux", "screen", "systemd-run", "firejail", "fakeroot", "vim"],
)
def test_exec_wrapper_prefix_allow_is_warned(tmp_path: Path, prefix: str) -> None:
    """The wrappers the command knowledge learned in the issue-12 acceptance round are warned too."""
    text = f'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash({prefix} *)"]\n'
    f = finding(lint_text(tmp_path, text), "lint_exec_prefix_allow")
    assert ":4:" in str(f) and "runs other commands" in str(f)


def test_exact_wrapper_allow_is_not_warned(tmp_path: Path) -> None:
    text = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(taskset -c 0 make)"]\n'
    assert not [f for f in lint_text(tmp_path, text) if f.code == "lint_exec_prefix_allow"]


def test_deny_shadowed_by_a_broader_higher_priority_allow_is_warned(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        version: 1
        profile: claude-code
        rules:
          - {decision: allow, match: "Bash(git *)", priority: 10}
          - {decision: deny, match: "Bash(git push *)"}
        """
    )
    f = finding(lint_text(tmp_path, text), "lint_deny_unreachable")
    assert ":5:" in str(f) and "shadowed" in str(f) and "git push x" in str(f)


def test_deny_beside_a_narrower_higher_priority_allow_is_not_warned(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        version: 1
        profile: claude-code
        rules:
          - {decision: allow, match: "Bash(git status)", priority: 10}
          - {decision: deny, match: "Bash(git push *)"}
        """
    )
    assert not [f for f in lint_text(tmp_path, text) if f.code == "lint_deny_unreachable"]
