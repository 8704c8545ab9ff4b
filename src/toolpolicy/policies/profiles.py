"""Built-in tool profiles (SPEC 3): the tools of known agents, their kinds, arguments and hints.

Data only. A profile maps tool names to a declaration (`kind`, primary `arg`, argument
`aliases`, `read_only`, known `args`); `tool_aliases` rename tools (`Task` -> `Agent`);
`covers` makes a rule on one tool apply to others (Claude Code's `Edit(...)` covers every
built-in writer); `deny_covers` does so for deny and ask rules only: a read deny covers every tool
that reads paths (Claude Code applies `Read` rules to Grep, Glob, LS and NotebookRead; a
docker-agent `read_file` deny covers `read_multiple_files`, the listings and the searches), and a
write deny every tool that writes (a `Read` deny also blocks edits of the same path);
`tree_readers` are the tools that read a whole tree below their path (searches, recursive globs):
a deny or ask on a path also covers them on every directory above it (see `compiler/rules.py`);
`dir_readers` list one directory (a deny on `d/*.pem` also covers listing `d`); `write_tool` is
the tool whose path rules decide shell redirections; `operations` spell the common operations
(read, write, edit...) in the profile's tools.

A tool's `files` name the arguments that name files it touches besides its primary argument's path:
`read` (LangChain `copy_file`'s `source_path`: decided by the read tool's path rules), `move` (read
and removed: by the read and the write tool's rules, and a protected path), `patch` (a patch text:
each file it adds is decided as the `write` operation's tool, each it updates, deletes or moves to
as the `edit` operation's, `runtime/tool_files.py`), `globs` (a list of globs the tool matches
case-insensitively with dotfiles, Gemini CLI's: weighed against the read tool's deny and ask rules in
any case; a third element names the argument holding their base directory), `fetch` (a URL the tool
opens: decided as the `fetch` operation's tool, Claude Code's `WebFetch`). An argument inside an
object is named by its path (`ws.url`: the `url` of the object `ws`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Profile:
    name: str
    tools: dict[str, dict[str, Any]]
    tool_aliases: dict[str, str] = field(default_factory=dict)
    covers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    deny_covers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    write_tool: str | None = None
    tree_readers: tuple[str, ...] = ()
    dir_readers: tuple[str, ...] = ()
    # operation (shell, read, write, edit, list, glob, grep, fetch, search, patch) -> the tool and
    # primary argument that spell it: how `policy replay` maps another agent's call onto this
    # profile, and which tools decide the files a patch adds (`write`) and changes (`edit`)
    operations: dict[str, tuple[str, str]] = field(default_factory=dict)
    # how its tools read a leading `~` in a path (`ToolSpec.tilde`): `home` (expanded: Claude
    # Code), or `both`: the agent reads `~` as a directory named `~` under its working directory
    # (docker-agent, LangChain) or that is not verified; the path is read both ways, as that
    # directory and as the home (a deny on either reading denies, an allow needs both)
    tilde: str = "both"
    # its tools decode their arguments with Go's `encoding/json` (`ToolSpec.fold_keys`): a key is
    # matched case-insensitively (`CMD`, `Path`, `pathſ` are `cmd`, `path`, `paths`), the last wins
    fold_keys: bool = False


def _shell(
    arg: str,
    *,
    aliases: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    workdir: tuple[str, ...] = (),
    files: tuple[tuple[str, str], ...] = (),
    dialect: str = "bash",
) -> dict[str, Any]:
    """A shell tool; `workdir`: the arguments naming the directory its command runs in; `files`:
    other arguments naming files or URLs it opens, with their role (see the module doc);
    `dialect`: the language of its commands (`ToolSpec.dialect`)."""
    decl: dict[str, Any] = {
        "kind": "shell",
        "arg": arg,
        "aliases": aliases or {},
        "args": [arg, *args],
        "workdir": list(workdir),
    }
    if dialect != "bash":
        decl["dialect"] = dialect
    if files:
        decl["files"] = [list(f) for f in files]
    return decl


def _path(
    arg: str,
    *,
    read_only: bool = False,
    args: tuple[str, ...] = (),
    aliases: dict[str, str] | None = None,
    files: tuple[tuple[str, ...], ...] = (),
) -> dict[str, Any]:
    """A path tool; `aliases`: other names of the primary argument (alias -> `arg`); `files`:
    arguments naming files it reads or writes, with their role (see the module doc)."""
    decl: dict[str, Any] = {"kind": "path", "arg": arg, "read_only": read_only, "args": [arg, *args]}
    if aliases:
        decl["aliases"] = dict(aliases)
        decl["args"] = list(dict.fromkeys([*decl["args"], *aliases]))
    if files:
        decl["files"] = [list(f) for f in files]
        decl["args"] = list(dict.fromkeys([*decl["args"], *(f[0] for f in files)]))
    return decl


def _patch(arg: str = "input", *, aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """A tool applying a patch text (`apply_patch`): each file it names is decided as a write."""
    decl = _generic(arg, args=tuple(aliases or ()))
    decl["aliases"] = dict(aliases or {})
    decl["files"] = [[arg, "patch"]]
    return decl


def _url(arg: str = "url", *, args: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"kind": "url", "arg": arg, "args": [arg, *args]}


def _generic(
    arg: str | None = None, *, read_only: bool = False, args: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {"kind": "generic", "arg": arg, "read_only": read_only, "args": [a for a in (arg, *args) if a]}


_DOCKER_AGENT_TOOLS: dict[str, dict[str, Any]] = {
    "shell": _shell("cmd", aliases={"command": "cmd"}, args=("command", "timeout"), workdir=("cwd",)),
    "run_background_job": _shell("cmd", aliases={"command": "cmd"}, args=("command",), workdir=("cwd",)),
    "read_file": _path("path", read_only=True),
    "read_multiple_files": _path("paths", read_only=True),  # a list: every element is a path
    "write_file": _path("path", args=("content",)),
    "edit_file": _path("path", args=("edits",)),
    "list_directory": _path("path", read_only=True),
    "directory_tree": _path("path", read_only=True),
    "search_files": _path("path", read_only=True, args=("pattern",)),
    "search_files_content": _path("path", read_only=True, args=("query",)),
    "fetch": _url("url"),
}

_CLAUDE_TOOLS: dict[str, dict[str, Any]] = {
    "Bash": _shell(
        "command", args=("timeout", "description", "run_in_background", "dangerouslyDisableSandbox")
    ),
    # `Monitor` (2.1.98+) runs `command` in the background ("Shell command or script", decided by
    # Bash's rules, as Claude Code does), or opens the WebSocket `ws.url` (decided as `WebFetch`)
    "Monitor": _shell("command", args=("description", "timeout_ms", "ws"), files=(("ws.url", "fetch"),)),
    # `PowerShell` (opt-in, CLAUDE_CODE_USE_POWERSHELL_TOOL) runs `command` in PowerShell: its own
    # rules, and Bash's deny and ask rules too (read as a shell command: aliases `rm`, `cat`, ...)
    "PowerShell": _shell(
        "command", args=("timeout", "description", "run_in_background"), dialect="powershell"
    ),
    "Read": _path("file_path", read_only=True, args=("offset", "limit")),
    "Edit": _path("file_path", args=("old_string", "new_string", "replace_all")),
    "MultiEdit": _path("file_path", args=("edits",)),
    "Write": _path("file_path", args=("content",)),
    "NotebookEdit": _path("notebook_path", args=("new_source", "cell_id", "edit_mode")),
    # A glob's `pattern` may name its own base (`/etc/*`, `../x/**`): it is read as a path too.
    "Glob": {**_path("path", read_only=True, args=("pattern",)), "aliases": {"pattern": "path"}},
    "Grep": _path("path", read_only=True, args=("pattern", "glob", "output_mode")),
    "LS": _path("path", read_only=True, args=("ignore",)),
    "NotebookRead": _path("notebook_path", read_only=True, args=("cell_id",)),
    "WebFetch": _url("url", args=("prompt",)),
    "WebSearch": _generic("query", args=("allowed_domains", "blocked_domains")),
    "Agent": _generic("subagent_type", args=("description", "prompt", "model")),
    "TodoWrite": _generic(None, read_only=True, args=("todos",)),
    "BashOutput": _generic("bash_id", read_only=True),
    "KillShell": _generic("shell_id"),
    "Skill": _generic("skill"),
    # 2.1.330 tools that upload a local file: `Artifact` publishes `file_path` (or `file_paths`) to
    # claude.ai, `Projects` uploads `local_path`: each file is decided as a `Read` of it
    "Artifact": {
        **_generic("action", args=("url", "title", "description", "label", "prompt", "out_dir")),
        "args": [
            "action",
            "url",
            "title",
            "description",
            "label",
            "prompt",
            "out_dir",
            "file_path",
            "file_paths",
        ],
        "files": [["file_path", "read"], ["file_paths", "read"], ["out_dir", "into"]],
    },
    "Projects": {
        **_generic("method", args=("path", "content", "query")),
        "args": ["method", "path", "content", "query", "local_path"],
        "files": [["local_path", "read"]],
    },
    # Codex sends its patches to a hook as `apply_patch` (a `claude-code` policy works for Codex too):
    # each file the patch names is decided as `Write` (added) or `Edit` (the others)
    "apply_patch": _patch("input", aliases={"command": "input"}),
}

_GEMINI_TOOLS: dict[str, dict[str, Any]] = {
    # Gemini CLI runs the command in `path.resolve(workspace, dir_path)` (`directory` before 0.50)
    "run_shell_command": _shell(
        "command", args=("description", "is_background"), workdir=("dir_path", "directory")
    ),
    "read_file": {
        **_path("absolute_path", read_only=True, args=("file_path", "offset", "limit")),
        "aliases": {"file_path": "absolute_path"},
    },
    # Gemini CLI 0.61 names the directory of the listing, the glob and the search `dir_path`
    # (`PARAM_DIR_PATH`; `path` before), and `read_many_files`' files `include` (a list of paths
    # or globs, each globbed under every workspace directory); the old names stay aliases.
    # It globs them with `{nocase: true, dot: true}` (read-many-files.ts), so they are also
    # weighed case-insensitively against the read rules (`globs`, runtime/tool_files.py)
    "read_many_files": _path(
        "include",
        read_only=True,
        args=("exclude", "recursive", "useDefaultExcludes", "file_filtering_options"),
        aliases={"paths": "include"},
        files=(("include", "globs"),),
    ),
    "write_file": _path("file_path", args=("content",)),
    "replace": _path("file_path", args=("old_string", "new_string", "instruction", "allow_multiple")),
    "list_directory": _path(
        "dir_path", read_only=True, args=("ignore", "file_filtering_options"), aliases={"path": "dir_path"}
    ),
    # a glob's `pattern` may name its own base (`/etc/*`, `../x/**`): it is read as a path too;
    # it matches case-insensitively unless `case_sensitive` (glob.ts: `nocase: !case_sensitive`,
    # `dot: true`), so the pattern under `dir_path` is weighed as `read_many_files`' globs are
    "glob": _path(
        "dir_path",
        read_only=True,
        args=("pattern", "case_sensitive", "respect_git_ignore", "respect_gemini_ignore"),
        aliases={"path": "dir_path", "pattern": "dir_path"},
        files=(("pattern", "globs", "dir_path"),),
    ),
    # 0.61's search is `grep_search`; `search_file_content` is its legacy name (a tool alias)
    "grep_search": _path(
        "dir_path",
        read_only=True,
        args=(
            "pattern",
            "include_pattern",
            "exclude_pattern",
            "names_only",
            "case_sensitive",
            "fixed_strings",
            "context",
            "after",
            "before",
            "no_ignore",
            "max_matches_per_file",
            "total_max_matches",
        ),
        aliases={"path": "dir_path"},
    ),
    "web_fetch": _generic("prompt"),
    "google_web_search": _generic("query", read_only=True),
    "save_memory": _generic("fact"),
}

_CODEX_TOOLS: dict[str, dict[str, Any]] = {
    "shell": _shell("command", aliases={"cmd": "command"}, args=("timeout",), workdir=("workdir",)),
    "exec": _shell("command", aliases={"cmd": "command"}, workdir=("workdir",)),
    "apply_patch": _patch("input", aliases={"command": "input"}),
    # Not tools Codex calls: the path tools whose rules decide the files its shell commands read
    # and write and its patches change (`Read(./.env)`, the packs' file rules), as under claude-code
    "Read": _path("file_path", read_only=True),
    "Edit": _path("file_path"),
    "Write": _path("file_path"),
}

# Cursor agent tools as its hooks name them (`preToolUse` tool_name; beforeShellExecution -> Shell,
# beforeReadFile -> Read, beforeMCPExecution -> MCP:<tool>).
_CURSOR_TOOLS: dict[str, dict[str, Any]] = {
    "Shell": _shell("command", args=("timeout",), workdir=("cwd",)),
    "Read": _path("file_path", read_only=True),
    "Write": _path("file_path", args=("content",)),
    "Edit": _path("file_path", args=("old_string", "new_string")),
    "StrReplace": _path("file_path", args=("old_string", "new_string")),
    "Delete": _path("file_path"),
    "Grep": _path("file_path", read_only=True, args=("pattern",)),
    "Glob": _path("file_path", read_only=True, args=("pattern",)),
    "Task": _generic("subagent_type", args=("task", "description", "prompt")),
}

# GitHub Copilot CLI tools (preToolUse `toolName`, `toolArgs`).
_COPILOT_TOOLS: dict[str, dict[str, Any]] = {
    "bash": _shell("command", args=("description", "mode", "initial_wait", "sessionId")),
    "powershell": _shell(
        "command", args=("description", "mode", "initial_wait", "sessionId"), dialect="powershell"
    ),
    "view": _path("path", read_only=True, args=("view_range",)),
    "create": _path("path", args=("file_text",)),
    "edit": _path("path", args=("old_str", "new_str")),
    "glob": _path("path", read_only=True, args=("pattern",)),
    "grep": _path("path", read_only=True, args=("pattern", "glob", "output_mode")),
    "web_fetch": _url("url", args=("max_length", "raw")),
    "write_bash": _generic("input", args=("sessionId",)),
}

# Cline tools (PreToolUse `preToolUse.toolName`, string `parameters`); Roo Code shares them.
_CLINE_TOOLS: dict[str, dict[str, Any]] = {
    "execute_command": _shell("command", args=("requires_approval", "timeout")),
    # Cline CLI 3 (cline 3.0.65) tools; the hook adapter joins `commands` into `command`.
    "run_commands": _shell("command", args=("commands",)),
    "read_files": {
        **_path("paths", read_only=True, args=("file_paths",)),
        "aliases": {"file_paths": "paths"},
    },
    "apply_patch": _patch("input"),
    "fetch_web_content": _generic("urls", args=("url",)),
    "read_file": _path("path", read_only=True),
    "write_to_file": _path("path", args=("content",)),
    "replace_in_file": _path("path", args=("diff",)),
    "apply_diff": _path("path", args=("diff",)),
    "search_files": _path("path", read_only=True, args=("regex", "file_pattern")),
    "list_files": _path("path", read_only=True, args=("recursive",)),
    "list_code_definition_names": _path("path", read_only=True),
    "web_fetch": _url("url"),
    "browser_action": _generic("action", args=("url", "coordinate", "text")),
    "use_mcp_tool": _generic("server_name", args=("tool_name", "arguments")),
    "access_mcp_resource": _generic("server_name", args=("uri",)),
    "ask_followup_question": _generic("question", read_only=True, args=("options",)),
    "plan_mode_respond": _generic("response", read_only=True),
    "attempt_completion": _generic("result", args=("command",)),
}

# LangChain's community tools (`langchain_community.tools`: file management, `ShellTool`, requests),
# as `toolpolicy.integrations.langchain` names them; `terminal`'s `commands` list is decided as the
# `;`-joined script the tool runs. Copy and move write their destination (the primary argument) and
# read their `source_path` (`shutil.copy2`, `shutil.move`), which a move also removes.
_LANGCHAIN_TOOLS: dict[str, dict[str, Any]] = {
    "terminal": _shell("commands"),
    "read_file": _path("file_path", read_only=True),
    "write_file": _path("file_path", args=("text", "append")),
    "file_delete": _path("file_path"),
    "copy_file": _path("destination_path", files=(("source_path", "read"),)),
    "move_file": _path("destination_path", files=(("source_path", "move"),)),
    "list_directory": _path("dir_path", read_only=True),
    "file_search": _path("dir_path", read_only=True, args=("pattern",)),
    **{f"requests_{verb}": _url("url", args=("data",)) for verb in ("get", "post", "patch", "put", "delete")},
}

_DOCKER_READERS = (
    "read_multiple_files",
    "list_directory",
    "directory_tree",
    "search_files",
    "search_files_content",
)
_DOCKER_KW: dict[str, Any] = {
    "deny_covers": {"read_file": _DOCKER_READERS, "write_file": ("edit_file",)},
    "tree_readers": ("directory_tree", "search_files", "search_files_content"),
    "dir_readers": ("list_directory",),
    "write_tool": "write_file",
    # `FilesystemTool.resolvePath`: `filepath.Clean(filepath.Join(workingDir, path))`, no `~`
    "tilde": "both",
    # the tools' handlers `json.Unmarshal` the arguments into Go structs (`tools.NewHandler`)
    "fold_keys": True,
    "operations": {
        "shell": ("shell", "cmd"),
        "read": ("read_file", "path"),
        "write": ("write_file", "path"),
        "edit": ("edit_file", "path"),
        "list": ("list_directory", "path"),
        "glob": ("search_files", "path"),
        "grep": ("search_files_content", "path"),
        "fetch": ("fetch", "url"),
    },
}

PROFILES: dict[str, Profile] = {
    "generic": Profile("generic", dict(_DOCKER_AGENT_TOOLS), **_DOCKER_KW),
    "docker-agent": Profile("docker-agent", dict(_DOCKER_AGENT_TOOLS), **_DOCKER_KW),
    "claude-code": Profile(
        "claude-code",
        _CLAUDE_TOOLS,
        tool_aliases={"Task": "Agent"},
        covers={"Edit": ("Write", "MultiEdit", "NotebookEdit"), "Bash": ("Monitor",)},
        deny_covers={
            "Read": ("Edit", "Write", "MultiEdit", "NotebookEdit", "Grep", "Glob", "LS", "NotebookRead"),
            "Bash": ("PowerShell",),
        },
        write_tool="Edit",
        tree_readers=("Grep", "Glob"),
        dir_readers=("LS",),
        tilde="home",  # Claude Code expands `~` in its tools' paths
        operations={
            "shell": ("Bash", "command"),
            "read": ("Read", "file_path"),
            "write": ("Write", "file_path"),
            "edit": ("Edit", "file_path"),
            "list": ("LS", "path"),
            "glob": ("Glob", "path"),
            "grep": ("Grep", "path"),
            "fetch": ("WebFetch", "url"),
            "search": ("WebSearch", "query"),
        },
    ),
    "gemini": Profile(
        "gemini",
        _GEMINI_TOOLS,
        tool_aliases={"search_file_content": "grep_search"},
        deny_covers={
            "read_file": ("read_many_files", "list_directory", "glob", "grep_search"),
            "write_file": ("replace",),
        },
        write_tool="write_file",
        # `read_many_files` globs each `include` entry: a glob in it reads a tree, as `glob` does
        tree_readers=("glob", "grep_search", "read_many_files"),
        dir_readers=("list_directory",),
        operations={
            "shell": ("run_shell_command", "command"),
            "read": ("read_file", "absolute_path"),
            "write": ("write_file", "file_path"),
            "edit": ("replace", "file_path"),
            "list": ("list_directory", "dir_path"),
            "glob": ("glob", "dir_path"),
            "grep": ("grep_search", "dir_path"),
            "fetch": ("web_fetch", "prompt"),
            "search": ("google_web_search", "query"),
        },
    ),
    # Codex's hooks name the shell tool `Bash` (its `command` is a string) and send a patch as
    # `apply_patch` with the patch text in `command`.
    "codex": Profile(
        "codex",
        _CODEX_TOOLS,
        tool_aliases={"Bash": "shell"},
        covers={"Edit": ("Write",)},
        deny_covers={"Read": ("Edit", "Write")},
        write_tool="Edit",
        operations={
            "shell": ("shell", "command"),
            "patch": ("apply_patch", "input"),
            "read": ("Read", "file_path"),
            "write": ("Write", "file_path"),
            "edit": ("Edit", "file_path"),
        },
    ),
    "cursor": Profile(
        "cursor",
        _CURSOR_TOOLS,
        covers={"Write": ("Edit", "StrReplace", "Delete")},
        deny_covers={"Read": ("Grep", "Glob")},
        write_tool="Write",
        tree_readers=("Grep", "Glob"),
    ),
    "copilot": Profile(
        "copilot",
        _COPILOT_TOOLS,
        covers={"create": ("edit",)},
        deny_covers={"view": ("glob", "grep")},
        write_tool="create",
        tree_readers=("glob", "grep"),
    ),
    "cline": Profile(
        "cline",
        _CLINE_TOOLS,
        deny_covers={
            "read_file": ("read_files", "search_files", "list_files", "list_code_definition_names"),
            "write_to_file": ("replace_in_file", "apply_diff"),
        },
        write_tool="write_to_file",
        tree_readers=("search_files", "list_files", "list_code_definition_names"),
    ),
    "langchain": Profile(
        "langchain",
        _LANGCHAIN_TOOLS,
        # copy and move write their destination: a write deny covers them (their source: `files`)
        deny_covers={
            "read_file": ("list_directory", "file_search"),
            "write_file": ("file_delete", "copy_file", "move_file"),
        },
        write_tool="write_file",
        tree_readers=("file_search",),
        dir_readers=("list_directory",),
        tilde="both",  # `get_validated_relative_path`: `(root_dir / path).resolve()`, no `~`
    ),
}


def get_profile(name: str) -> Profile:
    return PROFILES[name]
