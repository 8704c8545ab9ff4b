"""Red team, round 12e: the `policy` tools a reviewer trusts in CI (fmt, diff, check, test).

A team gates policy changes with `policy fmt`, `policy diff --exit-code` and `policy check`; a
reviewer reads their output and believes it. Each probe writes the policy files a pull request
would carry, runs the tool the way CI runs it (the click command, or the function it calls) and
compares what it says with the truth, shown with `Engine.decide`. A finding is output that leads
the reviewer to a looser policy than the one they believe they approved (or a crash); it is a
strict xfail until the tool is fixed. The probes that held are plain tests pinning the behaviour.

Findings:
- R12e-F1: a native policy (it says `version: 1`) read as another agent's settings by format
  detection: `policy fmt --to json` writes a JSON policy that loads as Cursor's `cli-config.json`,
  a YAML policy with quoted keys loads as docker-agent; `default: deny` and the `rules:` vanish,
  and `policy check` passes.
- R12e-F2: `policy diff` compares only under the policies' own `mode:`; a deny narrowed to
  `modes: [default]` is reported "equivalent" (exact), while in `yolo` (`policy hook --mode auto`
  with Claude Code's bypassPermissions) the call is allowed.
- R12e-F3: `policy diff` calls a shell tool redeclared `kind: generic` "less permissive", and
  `--exit-code` passes, while the allow now lets chained commands through.
- R12e-F4: `policy diff` says nothing about what decides calls outside the rules: removed
  `tool_guard` hooks, and `commands:` knowledge that turns a deny into an allow.
- R12e-F5: `policy check --strict` passes a path deny written with an environment variable
  (`Read($HOME/.netrc)`), which matches nothing.
- R12e-F6: `policy fmt --to json|toml` of a policy whose test arguments hold a YAML/TOML date
  ends in an internal error (exit 123) instead of a located error.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolpolicy import Engine, load_policy
from toolpolicy.analysis.diff import diff_policies
from toolpolicy.cli import cli


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str]:
    """The command's exit code and output; an exception the command let out (which `policy`'s
    entry point reports as `policy: internal error`, exit 123) is exit 123."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return 123, f"{result.output}policy: internal error: {result.exception!r}"
    return result.exit_code, result.output


def _engine(path: Path, **kw: object) -> Engine:
    return Engine(load_policy(path), hooks=False, **kw)  # type: ignore[arg-type]


def _decide(engine: Engine, tool: str, args: dict) -> str:
    return engine.decide(tool, args).decision


# ---- R12e-F1: a native policy read as another agent's settings -----------------------------------
#
# `api.detect_format` asks `formats.detect_format` first. For JSON, `_detect_more.detect_json` runs
# before the `version` check and calls any document "cursor" whose `permissions.allow|deny` items
# all look like Cursor tokens (`Read(`, `Write(`, `Shell(`, `Mcp(`) when the document has a
# `version` key - which every native policy has. For YAML, `_detect_yaml` reads keys with a regex
# that only sees unquoted keys at column 0: `"version": 1` is missed, and a plain `permissions:`
# makes it docker-agent. Either way the importer keeps the permissions as it reads them and drops
# `default: deny`, `rules:` and `profile:`; `policy check` reports nothing (JSON) or only import
# notes (YAML) and exits 0. The author meant: everything not allowed is denied, `rm` is denied.

NATIVE = """
version: 1
profile: claude-code
default: deny
permissions:
  deny:
    - Write(./.github/**)
  allow:
    - Read(./**)
rules:
  - decision: deny
    match: Bash(rm *)
"""

QUOTED_YAML = """
"version": 1
"profile": "claude-code"
"default": "deny"
permissions:
  deny:
    - Write(./.github/**)
    - Bash(rm *)
  allow:
    - Read(./**)
"""


def _native_json_from_fmt(tmp_path: Path) -> Path:
    """`policy fmt --to json policy.yaml -o policy.json`: the JSON the formatter writes."""
    src = _write(tmp_path / "policy.yaml", NATIVE)
    out = tmp_path / "policy.json"
    code, output = _run("fmt", "--to", "json", str(src), "-o", str(out))
    assert code == 0, output
    assert json.loads(out.read_text())["default"] == "deny"
    return out


def _quoted_yaml(tmp_path: Path) -> Path:
    return _write(tmp_path / "policy.yaml", QUOTED_YAML)


DETECTED = {
    "fmt-to-json-read-as-cursor": _native_json_from_fmt,
    "quoted-yaml-keys-read-as-docker-agent": _quoted_yaml,
}


def test_native_yaml_policy_denies(tmp_path: Path) -> None:
    """Held: the YAML policy as written decides as its author means."""
    engine = _engine(_write(tmp_path / "policy.yaml", NATIVE))
    assert engine.policy.profile == "claude-code"
    assert _decide(engine, "Bash", {"command": "rm -rf src"}) == "deny"
    assert _decide(engine, "WebFetch", {"url": "https://evil.example/", "prompt": "p"}) == "deny"


def test_fmt_to_toml_stays_native(tmp_path: Path) -> None:
    """Held: the TOML conversion says `version = 1` and is detected as native."""
    src = _write(tmp_path / "policy.yaml", NATIVE)
    out = tmp_path / "policy.toml"
    assert _run("fmt", "--to", "toml", str(src), "-o", str(out))[0] == 0
    engine = _engine(out)
    assert (engine.policy.profile, engine.policy.default) == ("claude-code", "deny")
    assert _decide(engine, "Bash", {"command": "rm -rf src"}) == "deny"


@pytest.mark.parametrize("case", list(DETECTED))
def test_native_policy_is_not_read_as_foreign_settings(tmp_path: Path, case: str) -> None:
    """R12e-F1 (fixed): detection decides on the parsed keys (a native-only key with a native value,
    before any importer's sniffing), so JSON and quoted-key YAML policies load as native."""
    path = DETECTED[case](tmp_path)
    engine = _engine(path)
    # what the author wrote: `rm` is denied, and so is anything no rule allows
    assert _decide(engine, "Bash", {"command": "rm -rf src"}) == "deny"
    assert _decide(engine, "WebFetch", {"url": "https://evil.example/", "prompt": "p"}) == "deny"
    assert engine.policy.profile == "claude-code"


# ---- R12e-F2: `policy diff` compares one mode only -----------------------------------------------
#
# `analysis.diff._diff_tool` builds its regions from `candidate_rules(p, n, p.mode)` and decides
# the examples with `Engine(policy)`: only in each policy's own `mode:`. But the mode of a call is
# chosen at run time (`policy hook claude-code --mode auto` maps Claude Code's permissionMode:
# bypassPermissions -> yolo, acceptEdits -> auto_edit; `policy serve` callers pass one). NEW
# scopes the deny to `modes: [default, non_interactive]`: in yolo the drop is then an ask, which
# yolo allows. `policy diff` calls the tool "equivalent" with no approximation note (a proof), and
# `--exit-code` exits 0. The author of OLD meant: never drop a table.

MODES_OLD = """
version: 1
rules:
  - decision: deny
    match: mcp__db__drop_table
"""
MODES_NEW = """
version: 1
rules:
  - decision: deny
    match: mcp__db__drop_table
    modes: [default, non_interactive]
"""


def test_modes_change_really_allows_in_yolo(tmp_path: Path) -> None:
    """The truth: OLD denies the drop in every mode, NEW allows it in yolo and asks in auto_edit."""
    old = _write(tmp_path / "old.yaml", MODES_OLD)
    new = _write(tmp_path / "new.yaml", MODES_NEW)
    call = ("mcp__db__drop_table", {"table": "users"})
    for mode in ("default", "yolo", "auto_edit", "non_interactive"):
        assert _decide(_engine(old, mode=mode), *call) == "deny"
    assert _decide(_engine(new, mode="yolo"), *call) == "allow"
    assert _decide(_engine(new, mode="auto_edit"), *call) == "ask"


def test_diff_finds_a_loosening_in_the_policy_mode(tmp_path: Path) -> None:
    """Held: dropping the deny outright is reported, and `--exit-code` fails."""
    old = _write(tmp_path / "old.yaml", MODES_OLD)
    new = _write(tmp_path / "new.yaml", "version: 1\n")
    code, out = _run("diff", "--exit-code", str(old), str(new))
    assert code == 1 and "mcp__db__drop_table`: more permissive" in out


def test_diff_sees_a_deny_scoped_away_from_yolo(tmp_path: Path) -> None:
    """R12e-F2 (fixed): `policy diff` decides every example in every mode, both policies in the same
    one (and each in its own when their `mode:` differs), and shows the mode of an example."""
    old = _write(tmp_path / "old.yaml", MODES_OLD)
    new = _write(tmp_path / "new.yaml", MODES_NEW)
    result = diff_policies(load_policy(old), load_policy(new))
    tool = next(t for t in result.tools if t.tool.name == "mcp__db__drop_table")
    assert not (tool.change == "equivalent" and tool.exact), "claimed proven equivalent"
    assert result.more_permissive()
    assert _run("diff", "--exit-code", str(old), str(new))[0] == 1


# ---- R12e-F3: a shell tool redeclared `kind: generic` is "less permissive" ---------------------------
#
# NEW declares Claude Code's `Bash` with `kind: generic` (e.g. while adding `arg:`). Its allow
# `Bash(git status *)` is then a plain glob on the raw text: `git status; rm -rf ~` matches it.
# `policy diff` draws examples from the globs only (`git status`), finds allow -> ask there and
# reports `Bash: less permissive (approximate)`; `more_permissive` is false, so `--exit-code`
# exits 0. The truth: the change allows arbitrary commands after `git status`.

KIND_OLD = """
version: 1
profile: claude-code
permissions:
  allow:
    - Bash(git status *)
"""
KIND_NEW = """
version: 1
profile: claude-code
tools:
  Bash:
    kind: generic
    arg: command
permissions:
  allow:
    - Bash(git status *)
"""
CHAINED = {"command": "git status ; rm -rf ~"}


def test_kind_change_really_allows_chained_commands(tmp_path: Path) -> None:
    old = _engine(_write(tmp_path / "old.yaml", KIND_OLD))
    new = _engine(_write(tmp_path / "new.yaml", KIND_NEW))
    assert _decide(old, "Bash", CHAINED) == "ask"
    assert _decide(new, "Bash", CHAINED) == "allow"


def test_diff_reports_kind_change_as_wider(tmp_path: Path) -> None:
    """R12e-F3 (fixed): a tool whose kind (arg, aliases, file arguments) changes is also compared on
    chained/substituted/`..` witnesses, and is "incomparable" unless shown more permissive."""
    old = _write(tmp_path / "old.yaml", KIND_OLD)
    new = _write(tmp_path / "new.yaml", KIND_NEW)
    result = diff_policies(load_policy(old), load_policy(new))
    bash = next(t for t in result.tools if t.tool.name == "Bash")
    assert bash.change in ("more permissive", "incomparable"), bash.change
    assert _run("diff", "--exit-code", str(old), str(new))[0] == 1


# ---- R12e-F4: `policy diff` is silent on hooks and command knowledge ------------------------------
#
# `diff_policies` decides with `Engine(..., hooks=False)` and `_settings` compares only profile,
# default, mode and glob case. So a pull request that removes a `tool_guard` (which denied every
# `Bash` call) or adds `commands:` knowledge calling `cp`'s operands data (so `cp x
# .github/workflows/ci.yml` no longer meets the `Edit(./.github/**)` deny) prints
# "0 of N tool(s) changed" and nothing else, and `--exit-code` exits 0. The approximation notes that
# would hint at it are only printed with `--all`.

HOOK_OLD = """
version: 1
profile: claude-code
default: allow
hooks:
  tool_guard:
    - matcher: Bash
      hooks:
        - type: command
          command: "echo blocked >&2; exit 2"
"""
HOOK_NEW = """
version: 1
profile: claude-code
default: allow
"""
CMD_OLD = """
version: 1
profile: claude-code
permissions:
  deny:
    - Edit(./.github/**)
  allow:
    - Bash(cp *)
"""
CMD_NEW = (
    CMD_OLD
    + """
commands:
  cp:
    operands: data
"""
)
SILENT = {
    # (old, new, the call, old decision with hooks on, new decision, a word the output must say)
    "tool-guard-removed": (HOOK_OLD, HOOK_NEW, {"command": "rm -rf src"}, "deny", "allow", "hook"),
    "commands-knowledge-added": (
        CMD_OLD,
        CMD_NEW,
        {"command": "cp evil.yml ./.github/workflows/ci.yml"},
        "deny",
        "allow",
        "commands",
    ),
}


@pytest.mark.parametrize("case", list(SILENT))
def test_silent_changes_really_loosen(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    old_text, new_text, args, before, after, _word = SILENT[case]
    monkeypatch.chdir(tmp_path)
    old = Engine(load_policy(_write(tmp_path / "old.yaml", old_text)), hooks=True)
    new = Engine(load_policy(_write(tmp_path / "new.yaml", new_text)), hooks=True)
    ctx = {"cwd": str(tmp_path)}
    assert old.decide("Bash", args, context=ctx).decision == before
    assert new.decide("Bash", args, context=ctx).decision == after


@pytest.mark.parametrize("case", list(SILENT))
def test_diff_mentions_hooks_and_command_knowledge(
    tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R12e-F4 (fixed): hook and command-knowledge changes are listed as changes outside the rules;
    those that may loosen make `--exit-code` fail."""
    old_text, new_text, _args, _before, _after, word = SILENT[case]
    monkeypatch.chdir(tmp_path)
    old = _write(tmp_path / "old.yaml", old_text)
    new = _write(tmp_path / "new.yaml", new_text)
    code, out = _run("diff", "--exit-code", str(old), str(new))
    assert code == 1 or word in out, out


# ---- R12e-F5: a path deny written with an environment variable -----------------------------------
#
# Path patterns know `~/`, `//`, `/` and `./` (Claude Code's documented anchors); `$HOME`,
# `${HOME}` and `%USERPROFILE%` are literal text, so `Read($HOME/.netrc)` names a directory called
# `$HOME` under the working directory and never matches the real file. The linter has
# `lint_windows_path` and `lint_policy_relative_path` for the neighbouring traps but nothing for
# this one: `policy check --strict` exits 0 and the netrc is readable.

HOME_DENIES = {
    "dollar-home": ("Read($HOME/.netrc)", ".netrc"),
    "braced-home": ("Read(${HOME}/.docker/config.json)", ".docker/config.json"),
    "windows-profile": ("Read(%USERPROFILE%/.ssh/**)", ".ssh/id_rsa"),
}


def _home_policy(tmp_path: Path, rule: str) -> Path:
    return _write(
        tmp_path / "policy.yaml",
        f"""
        version: 1
        profile: claude-code
        default: allow
        permissions:
          deny:
            - "{rule}"
        """,
    )


@pytest.mark.parametrize("case", list(HOME_DENIES))
def test_env_var_path_deny_matches_nothing(tmp_path: Path, case: str) -> None:
    rule, rel = HOME_DENIES[case]
    engine = _engine(_home_policy(tmp_path, rule))
    target = os.path.join(os.path.expanduser("~"), rel)
    assert _decide(engine, "Read", {"file_path": target}) == "allow"


def test_tilde_path_deny_matches(tmp_path: Path) -> None:
    """Held: the documented spelling denies."""
    engine = _engine(_home_policy(tmp_path, "Read(~/.netrc)"))
    assert _decide(engine, "Read", {"file_path": os.path.expanduser("~/.netrc")}) == "deny"


def test_windows_drive_path_is_linted(tmp_path: Path) -> None:
    """Held: the neighbouring trap is reported."""
    code, out = _run("check", "--strict", str(_home_policy(tmp_path, "Read(C:/Users/me/.ssh/**)")))
    assert code == 1 and "lint_windows_path" in out


@pytest.mark.parametrize("case", list(HOME_DENIES))
def test_check_flags_env_var_path_deny(tmp_path: Path, case: str) -> None:
    """R12e-F5 (fixed): `lint_env_var_path` warns on `$NAME`, `${NAME}` and `%NAME%` in a path
    pattern (never expanded) and suggests `~/`."""
    rule, _rel = HOME_DENIES[case]
    code, out = _run("check", "--strict", str(_home_policy(tmp_path, rule)))
    assert code == 1, out


# ---- R12e-F6: `policy fmt` conversion crashes on a date in a test's arguments -----------------------
#
# `TestCall.args` is `Any`, so a YAML `2001-12-14` or a TOML datetime in a test call validates;
# `policies.fmt._plain` then deep-copies the document through `json.dumps`, which raises
# TypeError. The CLI turns it into "policy: internal error" and exit 123 (the action treats 123 as
# a crash) instead of a located `policy_fmt_error`.

DATED = {
    "yaml-date": (
        "policy.yaml",
        """
        version: 1
        default: deny
        tests:
          - name: x
            expect: deny
            call: {tool: Bash, args: {command: ls, when: 2001-12-14}}
        """,
        "toml",
    ),
    "toml-datetime": (
        "policy.toml",
        """
        version = 1
        default = "deny"

        [[tests]]
        name = "x"
        expect = "deny"
        call = { tool = "Bash", args = { command = "ls", when = 1979-05-27T07:32:00Z } }
        """,
        "yaml",
    ),
}


@pytest.mark.parametrize("case", list(DATED))
def test_fmt_conversion_of_a_date_is_not_an_internal_error(tmp_path: Path, case: str) -> None:
    """R12e-F6 (fixed): a value JSON cannot hold is a located `policy_fmt_error`, not a crash."""
    name, text, to = DATED[case]
    code, out = _run("fmt", "--to", to, str(_write(tmp_path / name, text)))
    assert code in (0, 1), (code, out)
    assert "internal error" not in out
