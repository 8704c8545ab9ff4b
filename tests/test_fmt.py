"""`policy fmt`: canonical form, idempotence, comments kept, and round-trips that keep the compiled policy.

The round-trip property (Cedar fuzzes parse . print == id): for every native policy of the corpus
(the conformance cases and the valid golden fixtures), parse -> format -> parse gives the same
compiled policy as the original, for YAML, TOML and JSON output.
"""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from toolpolicy import load_policy
from toolpolicy.cli import cli
from toolpolicy.errors import PolicyError
from toolpolicy.policies.fmt import format_text, toml_comments
from toolpolicy.source import Source

HERE = Path(__file__).parent
SUFFIX = {"yaml": ".yaml", "toml": ".toml", "json": ".json"}
LOCATED = ("location", "origin")  # where things were written: formatting moves them


def canonical_dump(policy: Any) -> dict[str, Any]:
    """Everything a compiled policy decides with, minus source locations and digests."""

    def strip(obj: Any) -> Any:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            fields = {
                f.name: strip(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name not in LOCATED
            }
            return (type(obj).__name__, tuple(sorted(fields.items(), key=lambda kv: kv[0])))
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple record
            fields = {f: strip(getattr(obj, f)) for f in obj._fields if f not in LOCATED}
            return (type(obj).__name__, tuple(sorted(fields.items(), key=lambda kv: kv[0])))
        if isinstance(obj, dict):
            return tuple(sorted((k, strip(v)) for k, v in obj.items()))
        if isinstance(obj, list | tuple):
            return tuple(strip(v) for v in obj)
        return repr(obj)

    return {
        "rules": strip(policy.rules),
        "hooks": strip(policy.hooks),
        "tools": strip(policy.tools),
        "tests": strip(policy.tests),
        **{
            k: getattr(policy, k)
            for k in ("name", "default", "mode", "fold", "profile", "tool_aliases", "write_tool")
        },
    }


def _corpus() -> list[Any]:
    out = []
    data = yaml.safe_load((HERE / "cases" / "conformance" / "core.yaml").read_text())
    for case in data["cases"]:
        out.append(pytest.param(yaml.safe_dump(case["policy"], sort_keys=False), ".yaml", id=case["note"]))
    for path in sorted((HERE / "golden" / "cli" / "fixtures").glob("*")):
        if path.suffix in (".yaml", ".yml", ".toml") and not path.stem.endswith("_test"):
            out.append(pytest.param(path.read_text(), path.suffix, id=f"fixture {path.name}"))
    return out


@pytest.mark.parametrize("target", ["yaml", "toml", "json"])
@pytest.mark.parametrize(("text", "suffix"), _corpus())
def test_round_trip_keeps_the_compiled_policy(tmp_path: Path, text: str, suffix: str, target: str) -> None:
    original = tmp_path / f"policy{suffix}"
    original.write_text(text)
    try:
        before = load_policy(original)
    except PolicyError:
        pytest.skip("not a valid native policy")
    try:
        formatted = format_text(Source(str(original), text), to=target)
    except PolicyError as exc:
        assert target == "toml" and "null" in exc.message, exc  # TOML has no null: the only refusal
        return
    out = tmp_path / f"formatted{SUFFIX[target]}"  # same directory: `/`-anchored paths stay the same
    out.write_text(formatted)
    assert canonical_dump(load_policy(out)) == canonical_dump(before)
    again = format_text(Source(str(out), formatted), to=target)
    assert again == formatted, "formatting is not idempotent"


POLICY = """\
# team policy: keep this comment
rules:   # long-form rules
  - match: "Edit|Write"   # writers
    decision: deny
    priority: 0
    id: no-env
permissions:
  allow: ["Read"]
  deny:
    # never as root
    - "Bash(sudo *)"
  ask: []
default: ask
profile: claude-code
version: 1
hooks:
  pre_tool_use:
    - matcher: ""
      hooks:
        - {type: command, command: ./veto.sh, timeout: 60, on_error: warn}
tests:
  - {name: sudo, call: {tool: Bash, args: {command: "sudo ls"}, context: {}}, expect: deny}
"""

EXPECTED = """\
# team policy: keep this comment
version: 1
profile: claude-code
permissions:
  deny:
    # never as root
    - "Bash(sudo *)"
  allow: ["Read"]
rules:   # long-form rules
  - id: no-env
    decision: deny
    match: "Edit|Write"   # writers
hooks:
  pre_tool_use:
    - hooks:
        - {type: command, command: ./veto.sh}
tests:
  - {name: sudo, call: {tool: Bash, args: {command: "sudo ls"}}, expect: deny}
"""


def test_canonical_yaml_keeps_comments_and_quotes() -> None:
    assert format_text(Source("policy.yaml", POLICY)) == EXPECTED
    assert format_text(Source("policy.yaml", EXPECTED)) == EXPECTED


def test_toml_output() -> None:
    text = format_text(Source("policy.yaml", POLICY), to="toml")
    assert text.startswith('version = 1\nprofile = "claude-code"\n')
    assert "[permissions]" in text and "priority" not in text and "timeout" not in text
    assert format_text(Source("policy.toml", text)) == text


def test_settings_of_a_child_policy_are_kept(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("version: 1\ndefault: deny\nmode: yolo\n")
    child = "version: 1\nextends: [base.yaml]\ndefault: ask\nmode: default\n"
    assert format_text(Source(str(tmp_path / "child.yaml"), child)) == child
    tools = "version: 1\nprofile: claude-code\ntools:\n  Read: {read_only: false, kind: path}\n"
    assert "read_only: false" in format_text(Source("p.yaml", tools))


def test_invalid_policy_is_not_formatted() -> None:
    with pytest.raises(PolicyError) as info:
        format_text(Source("p.yaml", "version: 1\nrulez: []\n"))
    assert info.value.errors[0].code == "policy_schema_error"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a = "#x"\n', False),
        ("a = 1 # c\n", True),
        ("# c\na = 1\n", True),
        ("a = '''#\n'''\n", False),
        ('a = "\\"#"\n', False),
    ],
)
def test_toml_comment_detection(text: str, expected: bool) -> None:
    assert toml_comments(text) is expected


def _fmt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(cli, ["fmt", *args], catch_exceptions=False)


def test_cli_check_write_and_idempotence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    check = _fmt(tmp_path, monkeypatch, "--check", "policy.yaml")
    assert check.exit_code == 1 and "would reformat policy.yaml" in check.stderr
    assert (tmp_path / "policy.yaml").read_text() == POLICY
    diff = _fmt(tmp_path, monkeypatch, "--diff", "policy.yaml")
    assert diff.exit_code == 0 and "-default: ask" in diff.stdout
    write = _fmt(tmp_path, monkeypatch, "policy.yaml")
    assert write.exit_code == 0 and (tmp_path / "policy.yaml").read_text() == EXPECTED
    again = _fmt(tmp_path, monkeypatch, "--check", "policy.yaml")
    assert again.exit_code == 0 and "0 file(s) would reformat, 1 unchanged" in again.stderr


def test_cli_conversion_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "policy.yaml").write_text(EXPECTED)
    to_stdout = _fmt(tmp_path, monkeypatch, "--to", "toml", "policy.yaml")
    assert to_stdout.stdout.startswith("version = 1") and (tmp_path / "policy.yaml").read_text() == EXPECTED
    to_file = _fmt(tmp_path, monkeypatch, "--to", "toml", "-o", "policy.toml", "policy.yaml")
    assert to_file.exit_code == 0 and (tmp_path / "policy.toml").read_text() == to_stdout.stdout
    assert canonical_dump(load_policy(tmp_path / "policy.toml")) == canonical_dump(
        load_policy(tmp_path / "policy.yaml")
    )


def test_cli_toml_comments_need_consent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('# mine\nversion = 1\ndefault = "ask"\n')
    refused = _fmt(tmp_path, monkeypatch, "policy.toml")
    assert refused.exit_code == 1 and "comments" in refused.stderr and path.read_text().startswith("# mine")
    forced = _fmt(tmp_path, monkeypatch, "--drop-comments", "policy.toml")
    assert forced.exit_code == 0 and path.read_text() == "version = 1\n"


def test_cli_directory_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_text("version: 1\ndefault: ask\n")
    (tmp_path / "a_test.yaml").write_text("policy: a.yaml\ntests: []\n")
    (tmp_path / "ci.yaml").write_text("jobs: {}\n")
    (tmp_path / "bad.yaml").write_text(
        textwrap.dedent("""\
        version: 1
        permisions: {}
    """)
    )
    result = _fmt(tmp_path, monkeypatch, "--check", ".")
    assert result.exit_code == 1
    assert "would reformat a.yaml" in result.stderr and "unknown key `permisions`" in result.stderr
    assert "ci.yaml" not in result.stderr and "a_test.yaml" not in result.stderr


def test_cli_refuses_foreign_configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"permissions": {"allow": ["Bash(ls)"]}}\n')
    result = _fmt(tmp_path, monkeypatch, "settings.json")
    assert result.exit_code == 1
    assert "not a native policy" in result.stderr or "policy_" in result.stderr


def test_output_needs_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_text("version: 1\n")
    (tmp_path / "b.yaml").write_text("version: 1\n")
    assert _fmt(tmp_path, monkeypatch, "-o", "x.yaml", "a.yaml", "b.yaml").exit_code == 2
