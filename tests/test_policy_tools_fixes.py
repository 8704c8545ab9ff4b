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
    if to == "yaml" and name.endswith(".yaml"):
        pytest.skip("a same-syntax YAML format is a round trip that keeps the value as written")
    result = CliRunner().invoke(cli, ["fmt", "--to", to, str(src)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "policy_fmt_error" in result.output
    assert "call.args.at" in result.output or "call.context.at" in result.output
    assert f"{src}{where}" in result.output
    assert "quote it" in result.output
