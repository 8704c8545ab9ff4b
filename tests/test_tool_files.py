"""Edges of the round-11c fixes: the patch reader, the files a tool names besides its primary
argument (`runtime/tool_files.py`), Gemini 0.61's argument names and the replay of the same calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.replay.records import RecordedCall
from toolpolicy.replay.toolmap import map_call
from toolpolicy.runtime.patch import patch_files


def _patch(*hunks: str) -> str:
    return "\n".join(["*** Begin Patch", *hunks, "*** End Patch"]) + "\n"


# --- the patch reader ----------------------------------------------------------------------------


@pytest.mark.parametrize("pad", [" ", "\t", "\u3000", "\u00a0", "\u2028", "\x0b", "  \t "])
def test_a_header_padded_with_unicode_white_space_names_its_file(pad: str) -> None:
    files, readable = patch_files(_patch(f"{pad}*** Add File: a/b.txt{pad}\n+x"))
    assert readable and files == [("add", "a/b.txt")]


def test_the_reader_follows_codex_on_what_it_does_not_trim() -> None:
    # U+001C is not Unicode White_Space: Rust's trim keeps it, so Codex reads no header there
    files, readable = patch_files(_patch("\x1c*** Add File: x\n+y", "*** Delete File: z"))
    assert files == [("delete", "z")] and readable
    # `*** Move to:` is read on the line as it is: the destination keeps its spaces
    files, _ = patch_files(_patch("*** Update File: a\n*** Move to: b c \n@@\n-a\n+b"))
    assert files == [("update", "a"), ("move", "b c ")]
    # CRLF lines: the `\r` is not part of the path
    files, _ = patch_files(_patch("*** Delete File: a.txt").replace("\n", "\r\n"))
    assert files == [("delete", "a.txt")]


@pytest.mark.parametrize(
    "text",
    [
        _patch("*** Add File: \n+x"),  # an empty header: not one Codex reads
        _patch("*** Frobnicate File: x"),
        "  *** Begin Patch\n*** End Patch\n",
    ],
)
def test_an_envelope_naming_no_file_is_unreadable(text: str) -> None:
    assert patch_files(text) == ([], False)


def test_text_without_an_envelope_names_nothing_and_is_readable() -> None:
    assert patch_files("just some text\n") == ([], True)
    assert patch_files("--- a/x.py\n+++ b/x.py\n@@\n-a\n+b\n") == ([("diff", "x.py"), ("diff", "x.py")], True)


# --- apply_patch under a claude-code policy --------------------------------------------------------

CLAUDE = """
version: 1
profile: claude-code
default: {default}
permissions:
  deny: ["Edit(./.env)", "Write(./secrets/**)"]
  allow: {allow}
"""


def _engine(text: str) -> Engine:
    return Engine(load_policy(text=text), hooks=False)


def _decide(engine: Engine, tool: str, args: object, ws: Path) -> str:
    return engine.decide(tool, args, context={"cwd": str(ws)}).decision


@pytest.mark.parametrize("arg", ["command", "input"])
def test_a_patch_of_files_edit_allows_is_allowed_and_a_denied_one_denied(tmp_path: Path, arg: str) -> None:
    engine = _engine(CLAUDE.format(default="ask", allow='["Edit(./src/**)"]'))
    ok = _patch("*** Update File: src/a.py\n@@\n-a\n+b", "*** Add File: src/b.py\n+x")
    assert _decide(engine, "apply_patch", {arg: ok}, tmp_path) == "allow"
    # one file outside the allow: the call is not allowed (the default asks)
    assert _decide(engine, "apply_patch", {arg: ok + _patch("*** Delete File: README")}, tmp_path) == "ask"
    # an added file meets `Write` rules, an updated one `Edit` rules (as replay decides them)
    added = _patch("*** Add File: secrets/k\n+x")
    assert _decide(engine, "apply_patch", {arg: added}, tmp_path) == "deny"
    assert _decide(engine, "apply_patch", {arg: _patch("\t*** Delete File: .env")}, tmp_path) == "deny"


def test_an_own_allow_of_apply_patch_does_not_lift_a_file_deny(tmp_path: Path) -> None:
    engine = _engine(CLAUDE.format(default="ask", allow='["apply_patch"]'))
    assert (
        _decide(engine, "apply_patch", {"command": _patch("*** Add File: ok.txt\n+x")}, tmp_path) == "allow"
    )
    patch = _patch("*** Update File: ok.txt\n*** Move to: .env\n@@\n-a\n+b")
    assert _decide(engine, "apply_patch", {"command": patch}, tmp_path) == "deny"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"command": _patch("*** Bogus")}, id="envelope-without-files"),
        pytest.param({"command": ["*** Begin Patch", "*** Add File: x"]}, id="list"),
        pytest.param({"command": {"patch": "x"}}, id="object"),
        pytest.param({"command": _patch("*** Add File: a\x00b\n+x")}, id="nul-in-path"),
        pytest.param(
            {"command": _patch(*(f"*** Delete File: f{i}" for i in range(65)))}, id="too-many-files"
        ),
    ],
)
def test_a_patch_that_cannot_be_read_is_never_allowed(tmp_path: Path, args: dict) -> None:
    engine = _engine(CLAUDE.format(default="allow", allow="[]"))
    assert _decide(engine, "apply_patch", args, tmp_path) == "ask"


def test_a_codex_profile_patch_is_decided_by_its_own_rules(tmp_path: Path) -> None:
    # The codex profile has no path tools: the patch tool's own rules and the default decide.
    engine = _engine("version: 1\nprofile: codex\ndefault: allow\n")
    assert _decide(engine, "apply_patch", {"command": _patch("*** Add File: .env\n+x")}, tmp_path) == "allow"
    yolo = _engine("version: 1\nprofile: codex\ndefault: ask\nmode: yolo\n")
    assert _decide(yolo, "apply_patch", {"command": _patch("*** Bogus")}, tmp_path) == "ask"
    assert _decide(yolo, "apply_patch", {"command": ["x"]}, tmp_path) == "ask"


# --- Gemini CLI 0.61 -------------------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "api.key").write_text("KEY=1\n")
    (tmp_path / "src").mkdir()
    return tmp_path


GEMINI = """
version: 1
profile: gemini
default: allow
permissions:
  deny: ["read_file(./secrets/**)", "read_file(~/.ssh/**)"]
"""


@pytest.mark.parametrize("tool", ["grep_search", "search_file_content"])
def test_the_search_under_either_name_meets_the_deny_and_leaves_the_rest(ws: Path, tool: str) -> None:
    engine = _engine(GEMINI)
    assert _decide(engine, tool, {"pattern": "KEY", "dir_path": "secrets"}, ws) == "deny"
    assert _decide(engine, tool, {"pattern": "KEY", "path": "secrets"}, ws) == "deny"
    # two spellings with different values: the deny fires on either
    assert _decide(engine, tool, {"pattern": "K", "dir_path": "src", "path": "secrets"}, ws) == "deny"
    assert _decide(engine, tool, {"pattern": "KEY", "dir_path": "src"}, ws) == "allow"
    # a tree reader: a search of the directory above an anchored deny is denied
    assert _decide(engine, tool, {"pattern": "KEY", "dir_path": "~"}, ws) == "deny"


def test_a_rule_on_the_legacy_search_name_applies_to_grep_search(ws: Path) -> None:
    engine = _engine(
        'version: 1\nprofile: gemini\ndefault: allow\npermissions:\n  deny: ["search_file_content(./secrets/**)"]\n'
    )
    assert _decide(engine, "grep_search", {"pattern": "x", "dir_path": "secrets/a"}, ws) == "deny"
    assert _decide(engine, "grep_search", {"pattern": "x", "dir_path": "src"}, ws) == "allow"


@pytest.mark.parametrize(
    "args",
    [
        {"include": ["~/.ss?/*"]},  # a glob whose base is a directory above the denied one
        {"include": ["src/a.py"], "paths": ["secrets/api.key"]},
        {"include": ["secrets/api.key"], "exclude": ["**"]},  # `exclude` never loosens
        {"include": "secrets/api.key"},  # one string
        {"include": ["src/a.py", 5]},  # an element that is not a path: never allowed
    ],
)
def test_read_many_files_include_edges(ws: Path, args: dict) -> None:
    assert _decide(_engine(GEMINI), "read_many_files", args, ws) in ("deny", "ask")


def test_read_many_files_of_allowed_files_is_allowed(ws: Path) -> None:
    assert _decide(_engine(GEMINI), "read_many_files", {"include": ["src/*.py", "README.md"]}, ws) == "allow"


# --- LangChain copy/move ------------------------------------------------------------------------------

LANGCHAIN = """
version: 1
profile: langchain
default: ask
permissions:
  deny: ["read_file(./.env)", "write_file(./.git/**)"]
  allow: ["copy_file(./**)", "move_file(./**)"]
"""


def test_a_copy_from_a_write_denied_path_only_reads_it(ws: Path) -> None:
    engine = _engine(LANGCHAIN)
    args = {"source_path": ".git/config", "destination_path": "config.bak"}
    assert _decide(engine, "copy_file", args, ws) == "allow"  # a copy reads its source, never writes it
    assert _decide(engine, "move_file", args, ws) == "deny"  # a move removes it


@pytest.mark.parametrize("source", [5, {"p": ".env"}, "~nobody-r11c/.env", ".e\x00nv"])
def test_a_source_that_is_not_a_plain_path_is_never_allowed(ws: Path, source: object) -> None:
    args = {"source_path": source, "destination_path": "out.txt"}
    assert _decide(_engine(LANGCHAIN), "copy_file", args, ws) == "ask"


def test_yolo_asks_for_a_move_of_a_protected_file_not_a_copy(ws: Path) -> None:
    engine = _engine("version: 1\nprofile: langchain\ndefault: ask\nmode: yolo\n")
    args = {"source_path": ".claude/settings.json", "destination_path": "settings.bak"}
    assert _decide(engine, "move_file", args, ws) == "ask"
    assert _decide(engine, "copy_file", args, ws) == "allow"  # reading agent settings writes nothing there


# --- replay of the same calls -------------------------------------------------------------------------


def _recorded(agent: str, tool: str, args: dict) -> RecordedCall:
    return RecordedCall(tool, args, "t", agent, {}, None, None)


def test_replay_reads_a_patch_with_the_same_reader() -> None:
    call = _recorded("codex", "apply_patch", {"command": _patch("\u3000*** Add File: .git/hooks/x\n+id")})
    mapped = map_call(call, "claude-code")
    assert [(c.tool, c.args) for c in mapped] == [("Write", {"file_path": ".git/hooks/x"})]


@pytest.mark.parametrize("key", ["dir_path", "path"])
def test_replay_maps_gemini_directory_tools_by_either_argument_name(key: str) -> None:
    for tool, target in [("list_directory", "LS"), ("grep_search", "Grep"), ("glob", "Glob")]:
        mapped = map_call(_recorded("gemini", tool, {key: "secrets"}), "claude-code")
        assert [(c.tool, c.args.get("path")) for c in mapped] == [(target, "secrets")]
