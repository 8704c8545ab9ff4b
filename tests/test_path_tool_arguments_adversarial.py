"""A denied file reached through another argument of a file tool (round 11c).

SECURITY.md: a profile's read deny covers every tool that reads paths (Gemini's `read_file(...)`
covers `read_many_files`, `list_directory`, `glob` and the search; LangChain's likewise), and a write
deny covers every writer. Probed here: the argument names the agents send today, alias arguments,
list and non-string values, path spellings (`..`, `//`, trailing `/.`, backslashes, `~user`) and
symlinks in the workspace, for Claude Code, Gemini CLI, docker-agent, Cline, Copilot and LangChain.

Findings (fixed; each test says how), each checked against the agent's own tool schema:

* R11c-F2: Gemini CLI 0.61.0 (`@google/gemini-cli-core`, `tools/definitions/base-declarations.js`:
  `PARAM_DIR_PATH = 'dir_path'`; `ls.js`, `glob.js`, `grep.js` resolve `params.dir_path`) names the
  directory of `list_directory`, `glob` and the search `dir_path`; the profile reads only `path`,
  so `search_file_content {"dir_path": "secrets"}` is decided as a search of the project and allowed
  past `read_file(./secrets/**)`.
* R11c-F3: Gemini's `read_many_files` takes its files as `include` (`READ_MANY_PARAM_INCLUDE`, required;
  `read-many-files.js` globs each entry under the workspace); the profile reads only `paths`, so
  `read_many_files {"include": ["secrets/api.key"]}` is allowed past `read_file(./secrets/**)`.
* R11c-F4: Gemini CLI 0.61.0 calls its search tool `grep_search` (`GREP_TOOL_NAME`; `search_file_content`
  is only a legacy alias, `tool-names.js` `TOOL_LEGACY_ALIASES`), and hooks receive `grep_search`;
  the profile does not know it, so no read deny covers it and `default: allow` allows it.
* R11c-F6: LangChain's `copy_file` / `move_file` read (and `move_file` removes) `source_path`
  (`shutil.copy2` / `shutil.move` of "the file to copy"); the profile decides only `destination_path`,
  so `copy_file {"source_path": ".env", ...}` is allowed past `read_file(./.env)`, and `yolo` moves
  `.claude/settings.json` away.
* R11c-F7: a LangChain `write_file(...)` deny does not cover `copy_file` / `move_file`, which write
  their `destination_path`: `copy_file` onto `.git/hooks/pre-commit` is allowed past
  `write_file(./.git/**)` (the profile's `deny_covers` lists only `file_delete`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy

F2 = "R11c-F2: Gemini's list_directory/glob/search `dir_path` (0.61.0's name) is not read as the path"
F3 = "R11c-F3: Gemini's read_many_files `include` (0.61.0's only file argument) is not read as paths"
F4 = "R11c-F4: Gemini 0.61.0's search tool `grep_search` is unknown to the profile: no read deny covers it"
F6 = "R11c-F6: LangChain copy_file/move_file `source_path` (read, and removed by a move) is never decided"
F7 = "R11c-F7: a LangChain write_file deny does not cover copy_file/move_file destinations"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("r11c") / "ws"
    (ws / "secrets").mkdir(parents=True)
    (ws / "secrets" / "api.key").write_text("KEY=1\n")
    (ws / ".env").write_text("SECRET=1\n")
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "e").symlink_to(".env")  # a symlink the repository ships
    (ws / "s").symlink_to("secrets")
    return ws


def _engine(text: str) -> Engine:
    return Engine(load_policy(text=text), hooks=False)


def _decide(engine: Engine, tool: str, args: object, ws: Path) -> str:
    return engine.decide(tool, args, context={"cwd": str(ws)}).decision


# --- Gemini CLI -------------------------------------------------------------------------------

GEMINI = """
version: 1
profile: gemini
default: {default}
permissions:
  deny: ["read_file(./secrets/**)", "read_file(./.env)"]
  allow: ["read_file", "read_many_files", "list_directory", "glob", "search_file_content"]
"""


@pytest.fixture(scope="module")
def gemini() -> Engine:
    # The author allows Gemini's reading tools and denies the project's secrets to all of them.
    return _engine(GEMINI.format(default="ask"))


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        pytest.param(
            "search_file_content", {"pattern": "KEY", "dir_path": "secrets"}, id="search-reads-contents"
        ),
        pytest.param(
            "search_file_content", {"pattern": "KEY", "dir_path": "secrets/api.key"}, id="search-one-file"
        ),
        pytest.param("list_directory", {"dir_path": "secrets"}, id="list"),
        pytest.param("glob", {"pattern": "*", "dir_path": "secrets"}, id="glob"),
    ],
)
def test_gemini_dir_path_meets_the_read_deny(gemini: Engine, workspace: Path, tool: str, args: dict) -> None:
    """R11c-F2 (fixed): `dir_path` is the primary argument of Gemini's listing, glob and search
    (`path` an alias of it), so a read deny meets it."""
    # Gemini resolves `dir_path` against the workspace and searches/lists there: the key's contents
    # (search) or names (list, glob) come back to the model.
    assert _decide(gemini, tool, args, workspace) == "deny"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_file_content", {"pattern": "KEY", "path": "secrets"}),
        ("list_directory", {"path": "secrets"}),
        ("glob", {"pattern": "*", "path": "secrets"}),
        ("glob", {"pattern": "secrets/*"}),
        ("read_file", {"file_path": "secrets/api.key"}),
        ("read_file", {"absolute_path": "secrets/api.key"}),
        ("read_file", {"absolute_path": "README.md", "file_path": "secrets/api.key"}),
        ("read_file", {"file_path": "s/api.key"}),  # through a workspace symlink
        ("read_many_files", {"paths": ["src/app.py", "secrets/api.key"]}),
        ("read_many_files", {"paths": ["secrets/*"]}),
    ],
)
def test_gemini_spellings_the_profile_knows_are_denied(
    gemini: Engine, workspace: Path, tool: str, args: dict
) -> None:
    assert _decide(gemini, tool, args, workspace) == "deny"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"include": ["secrets/api.key"]}, id="file"),
        pytest.param({"include": ["secrets/**"]}, id="glob"),
        pytest.param({"include": ["src/app.py", "s/api.key"]}, id="second-through-symlink"),
        # `**/.env` is one of Gemini's default excludes; `useDefaultExcludes: false` lifts it.
        pytest.param({"include": [".env"], "useDefaultExcludes": False}, id="env-without-default-excludes"),
    ],
)
def test_gemini_read_many_files_include_meets_the_read_deny(
    gemini: Engine, workspace: Path, args: dict
) -> None:
    """R11c-F3 (fixed): `include` is `read_many_files`' primary argument (a list, each element a path
    or a glob; `paths` an alias), and the tool is a tree reader like `glob`."""
    # read_many_files returns each matched file's contents: the secret is read.
    assert _decide(gemini, "read_many_files", args, workspace) == "deny"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"pattern": "KEY", "dir_path": "secrets"}, id="dir"),
        pytest.param({"pattern": "KEY", "dir_path": "secrets/api.key"}, id="file"),
    ],
)
def test_gemini_grep_search_meets_the_read_deny(workspace: Path, args: dict) -> None:
    """R11c-F4 (fixed): `grep_search` is the gemini profile's search tool (`search_file_content` a
    tool alias of it), covered by a `read_file` deny and a tree reader."""
    # `default: allow` with a read deny: "everything but the secrets". 0.61.0's search reads them.
    engine = _engine(GEMINI.format(default="allow"))
    assert _decide(engine, "read_file", {"file_path": "secrets/api.key"}, workspace) == "deny"
    assert _decide(engine, "grep_search", args, workspace) == "deny"


def test_gemini_writers_meet_the_write_deny(workspace: Path) -> None:
    engine = _engine(
        'version: 1\nprofile: gemini\ndefault: ask\npermissions:\n  deny: ["write_file(./.git/**)"]\n'
        '  allow: ["write_file(./**)", "replace(./**)"]\n'
    )
    for tool in ("write_file", "replace"):
        for path in (".git/hooks/pre-commit", "src/../.git/config", f"{workspace}//.git/config"):
            got = _decide(engine, tool, {"file_path": path, "content": "x"}, workspace)
            assert got == "deny", (tool, path)
    assert _decide(engine, "write_file", {"file_path": "src/new.py", "content": "x"}, workspace) == "allow"


# --- LangChain ---------------------------------------------------------------------------------

LANGCHAIN = """
version: 1
profile: langchain
default: {default}
permissions:
  deny: ["read_file(./.env)", "write_file(./.git/**)"]
  allow: {allow}
"""
YOLO_LANGCHAIN = "version: 1\nprofile: langchain\ndefault: ask\nmode: yolo\n"


@pytest.mark.parametrize(
    ("policy", "tool", "args", "expected"),
    [
        pytest.param(
            LANGCHAIN.format(default="ask", allow='["copy_file(./**)", "move_file(./**)"]'),
            "copy_file",
            {"source_path": ".env", "destination_path": "notes.txt"},
            "deny",
            id="copy-reads-denied-file",
        ),
        pytest.param(
            LANGCHAIN.format(default="ask", allow='["copy_file(./**)", "move_file(./**)"]'),
            "move_file",
            {"source_path": ".env", "destination_path": "notes.txt"},
            "deny",
            id="move-reads-denied-file",
        ),
        pytest.param(
            LANGCHAIN.format(default="ask", allow='["copy_file(./**)", "move_file(./**)"]'),
            "move_file",
            {"source_path": ".git/config", "destination_path": "config.bak"},
            "deny",
            id="move-removes-write-denied-file",
        ),
        pytest.param(
            YOLO_LANGCHAIN,
            "move_file",
            {"source_path": ".claude/settings.json", "destination_path": "settings.bak"},
            "ask",
            id="yolo-moves-agent-settings-away",
        ),
    ],
)
def test_langchain_source_path_is_decided(
    workspace: Path, policy: str, tool: str, args: dict, expected: str
) -> None:
    """R11c-F6 (fixed): `source_path` is a file argument of copy/move (`ToolSpec.files`): decided by
    the read tool's rules, a move's also by the write tool's and the protected paths."""
    # copy_file copies the source (its contents land in a file the agent may read); move_file also
    # removes it (moving `.claude/settings.json` away unhooks the policy, in every mode a protected write).
    assert _decide(_engine(policy), tool, args, workspace) == expected


@pytest.mark.parametrize("tool", ["copy_file", "move_file"])
@pytest.mark.parametrize("default", ["allow", "ask"])
def test_langchain_write_deny_covers_copy_and_move_destinations(
    workspace: Path, tool: str, default: str
) -> None:
    """R11c-F7 (fixed): the langchain profile's `write_file` deny covers `copy_file` and `move_file`,
    whose primary argument is the destination they write."""
    # `write_file(./.git/**)`: no tool plants a git hook. The copy/move tools write their destination.
    allow = "[]" if default == "allow" else f'["{tool}"]'
    engine = _engine(LANGCHAIN.format(default=default, allow=allow))
    args = {"source_path": "src/app.py", "destination_path": ".git/hooks/pre-commit"}
    assert _decide(engine, tool, args, workspace) == "deny"


def test_langchain_held_probes(workspace: Path) -> None:
    engine = _engine(
        LANGCHAIN.format(default="ask", allow='["read_file", "write_file(./**)", "copy_file(./**)"]')
    )
    assert _decide(engine, "read_file", {"file_path": "e"}, workspace) == "deny"  # symlink to .env
    assert _decide(engine, "file_delete", {"file_path": ".git/config"}, workspace) == "deny"
    assert _decide(engine, "write_file", {"file_path": ".git/hooks/x", "text": "x"}, workspace) == "deny"
    assert (
        _decide(engine, "copy_file", {"source_path": "src/app.py", "destination_path": "b.py"}, workspace)
        == "allow"
    )
    yolo = _engine(YOLO_LANGCHAIN)
    args = {"source_path": "src/app.py", "destination_path": ".git/hooks/pre-commit"}
    assert _decide(yolo, "copy_file", args, workspace) == "ask"


# --- Claude Code, docker-agent, Cline, Copilot: probes that held ---------------------------------

CLAUDE = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Edit(./.git/**)", "Read(./secrets/**)"]
  allow: ["Read", "Edit(./**)", "Grep", "Glob", "LS"]
"""


@pytest.fixture(scope="module")
def claude() -> Engine:
    return _engine(CLAUDE)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Read", {"file_path": "./src/../.env"}),
        ("Read", {"file_path": "src//../.env"}),
        ("Read", {"file_path": ".env/."}),
        ("Read", {"file_path": ".env/"}),
        ("Read", {"file_path": "src\\..\\.env"}),
        ("Read", {"file_path": "e"}),  # symlink to .env
        ("Read", {"file_path": "s/api.key"}),  # symlink to secrets/
        ("Read", {"file_path": [".env"]}),
        ("Read", {"file_path": ".env", "offset": {"x": [1]}}),
        ("NotebookRead", {"notebook_path": ".env"}),
        ("Edit", {"file_path": ".git/config", "old_string": "a", "new_string": "b"}),
        ("Edit", {"file_path": "src/../.git/config"}),
        ("Write", {"file_path": ".git/hooks/pre-commit", "content": "x"}),
        ("MultiEdit", {"file_path": ".git/hooks/pre-commit", "edits": []}),
        ("NotebookEdit", {"notebook_path": ".git/hooks/pre-commit", "new_source": "x"}),
        ("Write", {"file_path": ".env", "content": "x"}),  # a Read deny also holds the writers
        ("Grep", {"pattern": "KEY", "path": "secrets"}),
        ("Grep", {"pattern": "KEY", "path": "s"}),
        ("Glob", {"pattern": "secrets/*"}),
        ("Glob", {"pattern": "*", "path": "s"}),
        ("LS", {"path": "secrets"}),
    ],
)
def test_claude_code_spellings_are_denied(claude: Engine, workspace: Path, tool: str, args: dict) -> None:
    assert _decide(claude, tool, args, workspace) == "deny"


@pytest.mark.parametrize(
    "args",
    [
        {"file_path": {"path": ".env"}},
        {"file_path": 5},
        {"file_path": ".e\x00nv"},
        {"file_path": "~nobody-r11c/.env"},
        {"file_path": "x" * 5000},
    ],
)
def test_claude_code_odd_path_values_are_not_allowed(claude: Engine, workspace: Path, args: dict) -> None:
    assert _decide(claude, "Read", args, workspace) != "allow"


@pytest.mark.parametrize(
    ("profile", "tool", "args"),
    [
        ("docker-agent", "read_multiple_files", {"paths": ["src/app.py", ".env"]}),
        ("docker-agent", "read_multiple_files", {"paths": ["src/app.py", "e"]}),
        ("docker-agent", "search_files_content", {"path": "secrets", "query": "KEY"}),
        ("docker-agent", "directory_tree", {"path": "s"}),
        ("cline", "read_files", {"paths": [".env"]}),
        ("cline", "read_files", {"file_paths": ["src/app.py", ".env"]}),
        ("cline", "read_files", {"paths": ["src/app.py"], "file_paths": [".env"]}),
        ("cline", "search_files", {"path": "secrets", "regex": "KEY"}),
        ("copilot", "view", {"path": "src/../.env"}),
        ("copilot", "grep", {"pattern": "KEY", "path": "secrets"}),
    ],
)
def test_other_profiles_list_and_alias_arguments_are_denied(
    workspace: Path, profile: str, tool: str, args: dict
) -> None:
    read = {"docker-agent": "read_file", "cline": "read_file", "copilot": "view"}[profile]
    engine = _engine(
        f"version: 1\nprofile: {profile}\ndefault: allow\npermissions:\n"
        f'  deny: ["{read}(./.env)", "{read}(./secrets/**)"]\n'
    )
    assert _decide(engine, tool, args, workspace) == "deny"


def test_the_workspace_symlinks_exist(workspace: Path) -> None:
    # The held probes above go through these links; without them they would prove nothing.
    assert os.path.realpath(workspace / "e") == str((workspace / ".env").resolve())
    assert (workspace / "s" / "api.key").read_text() == "KEY=1\n"
