"""The edges of the round-12e fixes to the policy tools (fmt, diff, check).

- R12e-F1: format detection decides on the parsed keys (quoted or not, YAML flow or JSON): a
  document with a native-only key holding a native value (`default: deny`, `profile: claude-code`,
  `rules: [...]`, ...) and only native keys, or `version: 1`, is native before any importer looks
  at it; the formatter's output is checked to load back as native, over every bundled example and
  pack, in every syntax.
- R12e-F6: a value JSON has no type for (a YAML/TOML date) is a located `policy_fmt_error`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolpolicy import PolicyError
from toolpolicy.api import load_document
from toolpolicy.cli import cli
from toolpolicy.policies.fmt import format_text
from toolpolicy.policies.formats import detect_format
from toolpolicy.policies.loader import read_source
from toolpolicy.policies.packs import known_packs, pack_path

ROOT = Path(__file__).resolve().parent.parent


# ---- R12e-F1: detection on parsed keys -------------------------------------------------------------

NATIVE = [
    ("policy.json", '{"version": 1, "default": "deny", "permissions": {"allow": ["Read(./**)"]}}'),
    ("policy.json", '{"version": 1, "profile": "claude-code", "permissions": {"deny": ["Write(./x)"]}}'),
    ("policy.json", '{"version": 1, "rules": [], "permissions": {"allow": ["Shell(ls)"]}}'),
    ("cli-config.json", '{"version": 1, "mode": "yolo", "permissions": {"allow": ["Mcp(x:y)"]}}'),
    # a foreign key beside `version: 1` and a native-only key: the native loader reports the key
    ("cli-config.json", '{"version": 1, "default": "deny", "editor": {}, "permissions": {}}'),
    ("policy.yaml", '"version": 1\n"default": "deny"\npermissions:\n  deny: [shell]\n'),
    ("policy.yaml", "'profile': claude-code\npermissions:\n  deny: [shell]\n"),
    ("policy.yaml", '{"version": 1, default: deny, permissions: {allow: [shell]}}\n'),
    ("policy.yml", "? version\n: 1\npermissions: {allow: [shell]}\n"),
    ("README", '"version": 1\n"default": "deny"\npermissions:\n  deny: [shell]\n'),
]

FOREIGN = [
    (
        "cli-config.json",
        '{"version": 1, "editor": {"vimMode": false}, "permissions": {"allow": ["Read(x)"]}}',
        "cursor",
    ),
    ("cli-config.json", '{"version": 1, "permissions": {"allow": ["Shell(ls)"]}}', "cursor"),
    ("settings.json", '{"permissions": {"allow": []}, "model": "opus", "default": "allow"}', "claude-code"),
    ("agent.yaml", '"agents":\n  root: {}\n"permissions":\n  deny: [shell]\n', "docker-agent"),
    ("agent.yaml", "{permissions: {deny: [shell]}}\n", "docker-agent"),
    ("agent.yaml", "permissions:\n  deny: [shell]\n  bad: [\n", "docker-agent"),
]


@pytest.mark.parametrize(("name", "text"), NATIVE)
def test_native_documents_are_detected_on_their_parsed_keys(name: str, text: str) -> None:
    assert detect_format(name, text) == "toolpolicy"


@pytest.mark.parametrize(("name", "text", "fmt"), FOREIGN)
def test_foreign_documents_are_still_detected(name: str, text: str, fmt: str) -> None:
    assert detect_format(name, text) == fmt


def test_a_foreign_key_beside_native_ones_is_an_error_not_an_import(tmp_path: Path) -> None:
    path = tmp_path / "cli-config.json"
    path.write_text('{"version": 1, "default": "deny", "editor": {}, "permissions": {}}')
    with pytest.raises(PolicyError) as info:
        load_document(path)
    assert "editor" in str(info.value)


def _round_trip_sources() -> list[Path]:
    packs = [pack_path(p.name) for p in known_packs()]
    return [*sorted((ROOT / "examples").glob("*.yaml")), *(p for p in packs if p is not None)]


def _meaning(path: Path) -> dict:
    return load_document(path).document.model_dump(mode="json")


@pytest.mark.parametrize("to", ["json", "toml", "yaml"])
@pytest.mark.parametrize("src", _round_trip_sources(), ids=lambda p: p.name)
def test_fmt_output_loads_back_as_the_same_native_policy(tmp_path: Path, src: Path, to: str) -> None:
    """Every bundled example and pack, converted to each syntax, is detected as native and
    validates to the same document."""
    text = format_text(read_source(src), to=to)
    out = tmp_path / f"policy.{to}"
    out.write_text(text, encoding="utf-8")
    assert detect_format(out, text) == "toolpolicy"
    if "extends" not in text:  # relative `extends` resolve beside the file; the document is what counts
        assert _meaning(out) == _meaning(src)


SMALL = {
    # nothing native-only but `version`: the JSON would read as Cursor's cli-config
    "permissions-only": "version: 1\npermissions:\n  allow: [Read(./**)]\n  deny: [Write(./.github/**)]\n",
    "generic-default": "version: 1\nprofile: generic\ndefault: ask\npermissions:\n  allow: [Read(./**)]\n",
    "native-only": "version: 1\nprofile: claude-code\ndefault: deny\nrules: [{decision: deny, match: Bash(rm *)}]\n",
}


@pytest.mark.parametrize("to", ["json", "toml", "yaml"])
@pytest.mark.parametrize("case", list(SMALL))
def test_fmt_keeps_a_native_key_where_the_output_would_read_as_foreign(
    tmp_path: Path, case: str, to: str
) -> None:
    src = tmp_path / "src.yaml"
    src.write_text(SMALL[case], encoding="utf-8")
    out = tmp_path / f"out.{to}"
    result = CliRunner().invoke(cli, ["fmt", "--to", to, str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert detect_format(out, out.read_text()) == "toolpolicy"
    assert _meaning(out) == _meaning(src)


# ---- R12e-F6: values JSON cannot hold ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "policy.yaml",
            "version: 1\ntests:\n  - name: x\n    expect: ask\n    call:\n      tool: Bash\n"
            "      args: {command: ls}\n      context: {at: 2001-12-14t21:59:43.10-05:00}\n",
            ":8:",
        ),
        (
            "policy.toml",
            'version = 1\n\n[[tests]]\nname = "x"\nexpect = "ask"\n'
            'call = { tool = "Bash", args = { command = "ls", at = 07:32:00 } }\n',
            "",
        ),
    ],
)
@pytest.mark.parametrize("to", ["json", "toml", "yaml"])
def test_fmt_reports_a_date_located(tmp_path: Path, name: str, text: str, where: str, to: str) -> None:
    src = tmp_path / name
    src.write_text(textwrap.dedent(text), encoding="utf-8")
    result = CliRunner().invoke(cli, ["fmt", "--to", to, str(src)])
    if to == "yaml" and name.endswith(".yaml"):  # a same-syntax format is a round trip: kept, no error
        assert result.exit_code == 0, result.output
        kept = src.read_text(encoding="utf-8")
        assert "at: 2001-12-14T21:59:43.1" in kept and "-05:00" in kept, kept
        return
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "policy_fmt_error" in result.output
    assert "call.args.at" in result.output or "call.context.at" in result.output
    assert f"{src}{where}" in result.output
    assert "quote it" in result.output


# ---- R12e-F2..F4: `policy diff` in every mode, on tool specs, and outside the rules -----------------

from toolpolicy import load_policy  # noqa: E402
from toolpolicy.analysis.diff import diff_policies  # noqa: E402


def _policies(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    a, b = tmp_path / "old.yaml", tmp_path / "new.yaml"
    a.write_text(textwrap.dedent(old).lstrip(), encoding="utf-8")
    b.write_text(textwrap.dedent(new).lstrip(), encoding="utf-8")
    return a, b


def _diff(tmp_path: Path, old: str, new: str) -> tuple[object, int, str]:
    a, b = _policies(tmp_path, old, new)
    result = diff_policies(load_policy(a), load_policy(b))
    run = CliRunner().invoke(cli, ["diff", "--exit-code", str(a), str(b)])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    return result, run.exit_code, run.output


def _tool(result: object, name: str) -> object:
    return next(t for t in result.tools if t.tool.name == name)  # type: ignore[attr-defined]


DROP = "version: 1\nrules:\n  - {decision: deny, match: mcp__db__drop_table%s}\n"


def test_an_allow_added_for_one_mode_only_is_more_permissive_in_that_mode(tmp_path: Path) -> None:
    new = DROP % "" + "  - {decision: allow, match: mcp__db__drop_table, priority: 5, modes: [auto_edit]}\n"
    result, code, out = _diff(tmp_path, DROP % "", new)
    tool = _tool(result, "mcp__db__drop_table")
    assert tool.change == "more permissive" and code == 1  # type: ignore[attr-defined]
    assert [e.mode for e in tool.examples] == ["auto_edit"]  # type: ignore[attr-defined]
    assert "[mode auto_edit]" in out


def test_same_rules_in_every_mode_stay_proven_equivalent(tmp_path: Path) -> None:
    text = DROP % ", modes: [yolo, default]"
    result, code, out = _diff(tmp_path, text, text)
    tool = _tool(result, "mcp__db__drop_table")
    assert (tool.change, tool.exact) == ("equivalent", True)  # type: ignore[attr-defined]
    assert code == 0 and "modes compared: default, yolo, non_interactive, auto_edit" in out


def test_policies_in_different_modes_are_compared_each_in_its_own_too(tmp_path: Path) -> None:
    result, code, out = _diff(tmp_path, "version: 1\n", "version: 1\nmode: yolo\n")
    assert result.modes[0] == "default->yolo"  # type: ignore[attr-defined]
    assert result.more_permissive() and code == 1  # type: ignore[attr-defined]
    assert "mode: default -> yolo" in out


KIND = """
version: 1
profile: claude-code
%s
permissions:
  allow:
    - %s
"""


@pytest.mark.parametrize(
    ("tools", "allow"),
    [
        ("tools: {Read: {kind: generic, arg: file_path}}", "Read(./src/**)"),
        ("tools: {Bash: {kind: generic, arg: cmd}}", "Bash(git status *)"),
        ("tools: {Bash: {kind: shell, arg: command, aliases: {cmd: command}}}", "Bash(git status *)"),
    ],
    ids=["path-to-generic", "arg-renamed", "aliases-added"],
)
def test_a_tool_spec_change_is_never_just_less_permissive(tmp_path: Path, tools: str, allow: str) -> None:
    result, code, out = _diff(tmp_path, KIND % ("", allow), KIND % (tools, allow))
    tool = _tool(result, allow.split("(")[0])
    assert tool.change in ("more permissive", "incomparable"), tool.change  # type: ignore[attr-defined]
    assert code == 1, out


@pytest.mark.parametrize(
    ("old", "tools"),
    [
        ("permissions: {deny: [Read(./secrets/**)]}", "tools: {Read: {kind: generic, arg: file_path}}"),
        ("permissions: {deny: [Bash(rm *)]}", "tools: {Bash: {kind: generic, arg: command}}"),
    ],
    ids=["path-deny", "shell-deny"],
)
def test_a_deny_read_as_a_plain_glob_is_shown_more_permissive(tmp_path: Path, old: str, tools: str) -> None:
    head = "version: 1\nprofile: claude-code\ndefault: allow\n"
    result, code, _out = _diff(tmp_path, head + old + "\n", head + old + "\n" + tools + "\n")
    tool = _tool(result, "Read" if "Read" in old else "Bash")
    assert tool.change in ("more permissive", "incomparable") and code == 1  # type: ignore[attr-defined]
    assert any(e.direction == "more permissive" for e in tool.examples)  # type: ignore[attr-defined]


def test_chained_witnesses_show_what_a_glob_allow_lets_through(tmp_path: Path) -> None:
    """The glob witnesses alone only show `git status` allow -> ask; the rereading ones show a
    chained command newly allowed."""
    allow = "Bash(git status *)"
    result, _code, _out = _diff(
        tmp_path, KIND % ("", allow), KIND % ("tools: {Bash: {kind: generic, arg: command}}", allow)
    )
    more = [e for e in _tool(result, "Bash").examples if e.direction == "more permissive"]  # type: ignore[attr-defined]
    assert any(op in e.args["command"] for e in more for op in (";", "&&", "|", "$(")), more


def test_an_unchanged_spec_is_not_called_incomparable(tmp_path: Path) -> None:
    tools = "tools: {Bash: {kind: shell, arg: command}}"
    result, code, _out = _diff(
        tmp_path, KIND % ("", "Bash(git status *)"), KIND % (tools, "Bash(git status *)")
    )
    assert _tool(result, "Bash").change == "equivalent" and code == 0  # type: ignore[attr-defined]


def test_a_profile_change_makes_its_tools_incomparable(tmp_path: Path) -> None:
    result, code, _out = _diff(
        tmp_path, "version: 1\nprofile: claude-code\n", "version: 1\nprofile: generic\ndefault: deny\n"
    )
    assert _tool(result, "Bash").change == "incomparable" and code == 1  # type: ignore[attr-defined]


HOOK = """
version: 1
profile: claude-code
default: allow
hooks:
%s
"""
GUARD = "  tool_guard:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'exit 2'}\n"
GUARD2 = "  tool_guard:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'exit 0'}\n"
PRE = "  pre_tool_use:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'echo ok'}\n"
PRE_ALL = "  pre_tool_use:\n    - hooks:\n        - {type: command, command: 'echo all'}\n"


@pytest.mark.parametrize(
    ("old", "new", "loosens", "says"),
    [
        (GUARD, "", True, "tool_guard `Bash`: 1 hook(s) removed"),
        ("", GUARD, False, "tool_guard `Bash`: 1 hook(s) added"),
        (GUARD, GUARD2, True, "1 hook(s) removed (command: exit 2), 1 hook(s) added"),
        ("", PRE, True, "pre_tool_use `Bash`: 1 hook(s) added"),
        (
            PRE + PRE_ALL.replace("  pre_tool_use:\n", ""),
            PRE_ALL + PRE.replace("  pre_tool_use:\n", ""),
            True,
            "pre_tool_use: groups reordered",
        ),
    ],
    ids=["guard-removed", "guard-added", "guard-changed", "pre-tool-use-added", "reordered"],
)
def test_hook_changes_are_listed_and_gate_the_exit_code(
    tmp_path: Path, old: str, new: str, loosens: bool, says: str
) -> None:
    result, code, out = _diff(
        tmp_path, HOOK % old if old else HOOK % "  {}", HOOK % new if new else HOOK % "  {}"
    )
    assert says in out, out
    assert [c.loosens for c in result.changes] == [loosens]  # type: ignore[attr-defined]
    assert code == (1 if loosens else 0)


def test_same_hooks_are_no_change(tmp_path: Path) -> None:
    result, code, _out = _diff(tmp_path, HOOK % GUARD, HOOK % GUARD)
    assert result.changes == [] and code == 0  # type: ignore[attr-defined]


CMDS = "version: 1\nprofile: claude-code\ndefault: allow\n%s"


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("", "commands:\n  cp: {operands: data}\n", "`cp` changed"),
        ("commands:\n  mytool: {operands: write}\n", "", "`mytool` removed"),
        ("", "commands:\n  mytool: {operands: data}\n", "`mytool` added"),
    ],
)
def test_command_knowledge_changes_may_loosen(tmp_path: Path, old: str, new: str, says: str) -> None:
    result, code, out = _diff(tmp_path, CMDS % old, CMDS % new)
    assert says in out and code == 1, out
    assert [c.what for c in result.changes] == ["commands"]  # type: ignore[attr-defined]


def test_same_command_knowledge_is_no_change(tmp_path: Path) -> None:
    text = CMDS % "commands:\n  mytool: {operands: data}\n"
    result, code, _out = _diff(tmp_path, text, text)
    assert result.changes == [] and code == 0  # type: ignore[attr-defined]


def test_diff_json_carries_modes_and_changes(tmp_path: Path) -> None:
    import json

    a, b = _policies(tmp_path, HOOK % GUARD, HOOK % "  {}")
    run = CliRunner().invoke(cli, ["diff", "--format", "json", str(a), str(b)])
    data = json.loads(run.output)
    assert data["more_permissive"] is True
    assert data["modes"] == ["default", "yolo", "non_interactive", "auto_edit"]
    assert data["changes"][0]["what"] == "hooks" and data["changes"][0]["loosens"] is True


# ---- R12e-F5: spellings a path pattern keeps literally -------------------------------------------


@pytest.mark.parametrize(
    "rule",
    [
        "Read(~/.netrc)",
        "Read(//home/me/$(x))",
        "Bash(cat $HOME/.netrc)",
        "Bash(rm * )",
        "Read(./build/**/Outer$Inner.class)",
        "Read(./100%done%)",
    ],
)
def test_plain_spellings_are_not_flagged(tmp_path: Path, rule: str) -> None:
    """`~/` is the documented spelling; a shell pattern trims its blanks (and `$` there is shell
    text); `$(` and a `$` not followed by a name are not variables."""
    path = tmp_path / "policy.yaml"
    path.write_text(f'version: 1\nprofile: claude-code\npermissions:\n  deny: ["{rule}"]\n', encoding="utf-8")
    out = CliRunner().invoke(cli, ["check", "--strict", str(path)]).output
    assert "lint_env_var_path" not in out and "lint_padded_pattern" not in out, out


def test_a_shell_pattern_with_blanks_still_matches() -> None:
    """Why blanks are linted only outside the shell kind: the shell kind reads words."""
    from toolpolicy import Engine
    from toolpolicy import load_policy as load

    policy = load(
        None, text='version: 1\nprofile: claude-code\ndefault: allow\npermissions: {deny: ["Bash(rm * )"]}\n'
    )
    assert Engine(policy, hooks=False).decide("Bash", {"command": "rm -rf x"}).decision == "deny"


def test_a_colon_form_env_var_suggests_the_call_form(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('version: 1\nprofile: claude-code\npermissions:\n  deny: ["Read:file_path=$HOME/x"]\n')
    out = CliRunner().invoke(cli, ["check", "--strict", str(path)]).output
    assert "lint_env_var_path" in out and "Read(~/x)" in out, out
