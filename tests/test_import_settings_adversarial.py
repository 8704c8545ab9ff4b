"""Red team, round 11b: agents' permission settings that `policy import` decides looser than the agent.

Each probe writes an agent's own settings file, converts it with the entry `policy import` runs
(`cli.import_cmd.run_import`: the importer, then the YAML the command writes), loads that YAML as
the user would (`-o policy.yaml`) and decides calls with `Engine.decide`. A finding is a call the
agent itself denies or asks about that the imported policy allows; it is a strict xfail until the
importer is fixed. The probes that held are plain tests pinning the behaviour.

Ground truth: Claude Code's documented settings semantics (the importer's own docstring reads hook
matchers as unanchored JavaScript regexes); GitHub Copilot CLI 1.0.102's `--help` / `copilot help
permissions` and runs of the real CLI through `tests/agents/copilot_client.py` (offline, fake model):
`--deny-tool 'shell(echo)' 'shell(touch)'` denied `touch` ("denied due to the following rules:
`shell(touch)`"), and `--allow-all-tools --deny-url=evil.example` denied the shell command
`curl https://evil.example/x` ("... rules: `url(https://evil.example)`").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.cli.import_cmd import run_import
from toolpolicy.errors import PolicyError
from toolpolicy.policies.formats import import_document


def _imported(fmt: str, settings: Path, out_dir: Path, *, hooks: bool = False) -> Engine:
    """`policy import FMT SETTINGS -o OUT/policy.yaml`, then the engine of that file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / "policy.yaml"
    text, _warnings = run_import(fmt, str(settings), str(output))
    output.write_text(text, encoding="utf-8")
    return Engine(load_policy(output), hooks=hooks)


def _decide(engine: Engine, tool: str, args: dict, cwd: Path) -> str:
    return engine.decide(tool, args, context={"cwd": str(cwd)}).decision


def _edit(path: Path) -> dict:
    return {"file_path": str(path), "old_string": "a", "new_string": "b"}


# ---- R11b-F1: literal directories pasted into globs ----------------------------------------------
#
# Claude Code anchors a project settings file's `/path` rules at the project root, and
# `additionalDirectories` names directories; both are literal paths. The importer writes them into
# native globs unescaped (`anchor_rule`: `//<root>/secrets/**`; `_dir_pattern`: `//<dir>/**`), so a
# `[...]` in the directory's name is a character class: the project's own deny no longer matches
# its files, and acceptEdits' allow covers a sibling directory the user never named.

ROOTS = ["proj", "proj [old]"]


def _project(tmp_path: Path, name: str) -> tuple[Path, Path]:
    root = tmp_path / name
    (root / ".claude").mkdir(parents=True)
    (root / "secrets").mkdir()
    settings = root / ".claude" / "settings.json"
    # The team's project settings: everything may be read and edited except the secrets folder.
    settings.write_text(
        json.dumps(
            {"permissions": {"allow": ["Read", "Edit"], "deny": ["Read(/secrets/**)", "Edit(/secrets/**)"]}}
        ),
        encoding="utf-8",
    )
    return root, settings


def test_project_anchor_denies_under_a_plain_root(tmp_path: Path) -> None:
    root, settings = _project(tmp_path, "proj")
    engine = _imported("claude-code", settings, tmp_path / "out")
    assert _decide(engine, "Read", {"file_path": str(root / "secrets" / "key")}, root) == "deny"
    assert _decide(engine, "Edit", _edit(root / "secrets" / "key"), root) == "deny"
    assert _decide(engine, "Read", {"file_path": str(root / "README.md")}, root) == "allow"


@pytest.mark.parametrize("case", ["project-root-deny", "accept-edits-directory"])
def test_literal_directories_are_not_globs(tmp_path: Path, case: str) -> None:
    """R11b-F1 (fixed): the project root and `additionalDirectories` are glob-escaped before the
    rule's own glob is appended, so `[old]` / `[2024]` name those folders, not character classes."""
    if case == "project-root-deny":
        # Claude Code denies reading `<root>/secrets/key` (its `/secrets/**` is under the project
        # root `proj [old]`); the import's `//.../proj [old]/secrets/**` matches `proj o/...`,
        # `proj d/...`, never the real folder, so the Read is allowed by `Read`.
        root, settings = _project(tmp_path, "proj [old]")
        engine = _imported("claude-code", settings, tmp_path / "out")
        assert _decide(engine, "Read", {"file_path": str(root / "secrets" / "key")}, root) == "deny"
        assert _decide(engine, "Edit", _edit(root / "secrets" / "key"), root) == "deny"
    else:
        # acceptEdits approves edits in the working directory and `data[2024]` only; Claude asks
        # before editing `data2/`, a directory the user never added. The import's
        # `//.../data[2024]/**` is `data2`, `data0`, `data4` ... and allows it.
        (tmp_path / "data[2024]").mkdir()
        (tmp_path / "data2").mkdir()
        work = tmp_path / "work"
        work.mkdir()
        settings = tmp_path / "settings.json"
        settings.write_text(
            json.dumps(
                {
                    "permissions": {
                        "defaultMode": "acceptEdits",
                        "additionalDirectories": [str(tmp_path / "data[2024]")],
                    }
                }
            ),
            encoding="utf-8",
        )
        engine = _imported("claude-code", settings, tmp_path / "out")
        assert _decide(engine, "Edit", _edit(tmp_path / "data2" / "run.sh"), work) == "ask"


# Every glob-special character of the dialect (`*`, `?`, `[`, `]`, `\\`) in a folder name; `{`, `}`
# and `!` are literal in path patterns and must stay so.
SPECIAL_NAMES = ["proj [old]", "a*b", "q?", "x]y", "back\\slash", "br{a,b}ce", "!bang", "[!x]", "**"]


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_project_root_with_glob_characters_denies_only_itself(tmp_path: Path, name: str) -> None:
    """R11b-F1 (edge): the deny holds under the real root and does not spill onto a folder the
    unescaped glob would have named (`proj o` for `proj [old]`, `aXb` for `a*b`)."""
    root, settings = _project(tmp_path, name)
    engine = _imported("claude-code", settings, tmp_path / "out")
    assert _decide(engine, "Read", {"file_path": str(root / "secrets" / "key")}, root) == "deny"
    assert _decide(engine, "Edit", _edit(root / "secrets" / "nested" / "key"), root) == "deny"
    assert _decide(engine, "Read", {"file_path": str(root / "README.md")}, root) == "allow"
    lookalike = {"proj [old]": "proj o", "a*b": "aXb", "q?": "qz", "[!x]": "y", "**": "deep"}.get(name)
    if lookalike is not None:
        other = tmp_path / lookalike
        assert _decide(engine, "Read", {"file_path": str(other / "secrets" / "key")}, other) == "allow"


@pytest.mark.parametrize(
    ("entry", "inside", "sibling"),
    [
        ("{tmp}/data[2024]", "data[2024]", "data2"),
        ("{tmp}/data*", "data*", "database"),
        ("{tmp}/d?ta", "d?ta", "data"),
        ("~/n[ab]", "home/n[ab]", "home/na"),
    ],
)
def test_accept_edits_directories_are_literal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, inside: str, sibling: str
) -> None:
    """R11b-F1 (edge): absolute and `~/` entries are literal; the `~/` anchor still is home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {
                    "defaultMode": "acceptEdits",
                    "additionalDirectories": [entry.format(tmp=tmp_path)],
                }
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    out.mkdir()
    output = out / "policy.yaml"
    text, _ = run_import("claude-code", str(settings), str(output))
    output.write_text(text, encoding="utf-8")
    engine = Engine(load_policy(output), hooks=False)

    def decide(path: Path) -> str:
        ctx = {"cwd": str(work), "home": str(home)}
        return engine.decide("Edit", _edit(path), context=ctx).decision

    assert decide(tmp_path / inside / "x.py") == "allow"
    assert decide(tmp_path / sibling / "x.py") == "ask"


def test_accept_edits_relative_directory_is_escaped() -> None:
    """R11b-F1 (edge): a relative entry keeps its `./` anchor and escapes its name."""
    text = json.dumps(
        {"permissions": {"defaultMode": "acceptEdits", "additionalDirectories": ["./w[1]", "~"]}}
    )
    rule = next(
        r
        for r in import_document(text, format="claude-code").document["rules"]
        if r.get("id") == "accept-edits"
    )
    assert rule["match"] == ["Edit(./**)", "Edit(./w\\[1\\]/**)", "Edit(~/**)"]


def test_codex_layer_in_a_folder_with_glob_characters_reads_its_rules(tmp_path: Path) -> None:
    """R11b-F1 (same class, Codex): `config.toml` pulls in `rules/*.rules` of its own folder; the
    folder's name is escaped before the `*.rules` glob, so `codex [old]/` keeps its deny rules."""
    layer = tmp_path / "codex [old]"
    (layer / "rules").mkdir(parents=True)
    (layer / "config.toml").write_text('approval_policy = "on-request"\n', encoding="utf-8")
    (layer / "rules" / "default.rules").write_text(
        'prefix_rule(pattern = ["git", "push"], decision = "forbidden")\n', encoding="utf-8"
    )
    (tmp_path / "codex o" / "rules").mkdir(parents=True)  # what the unescaped glob would read instead
    result = import_document(
        (layer / "config.toml").read_text(), format="codex", path=str(layer / "config.toml")
    )
    assert any(
        r.get("decision") == "deny" and "git push" in str(r.get("match")) for r in result.document["rules"]
    )


def test_accept_edits_directory_plain_name(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data2").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {"permissions": {"defaultMode": "acceptEdits", "additionalDirectories": [str(tmp_path / "data")]}}
        ),
        encoding="utf-8",
    )
    engine = _imported("claude-code", settings, tmp_path / "out")
    assert _decide(engine, "Edit", _edit(tmp_path / "data" / "x.py"), work) == "allow"
    assert _decide(engine, "Edit", _edit(tmp_path / "data2" / "x.py"), work) == "ask"
    assert _decide(engine, "Edit", _edit(work / "x.py"), work) == "allow"


# ---- R11b-F2: a Claude Code PreToolUse hook dropped for its JavaScript matcher ---------------------
#
# Claude Code reads a hook matcher that is not a plain name list as a JavaScript regex, tested
# unanchored on the tool name; JavaScript has lookahead, so `^(?!Read$).*` ("every tool but Read")
# selects Bash and the hook's exit 2 blocks the call. The importer drops the whole group (a warning:
# "its hooks are not imported", because RE2 lacks lookaround), so the blocking guard is gone and
# the allow rule approves the command. Fail-closed reading: keep the hook on a broader matcher
# (every tool), or refuse the import.

BLOCKING_HOOK = {"type": "command", "command": "echo 'blocked by the team hook' >&2; exit 2"}


def _hook_settings(tmp_path: Path, matcher: str) -> Path:
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(ls *)"]},
                "hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [BLOCKING_HOOK]}]},
            }
        ),
        encoding="utf-8",
    )
    return settings


def test_hook_with_a_plain_regex_matcher_blocks(tmp_path: Path) -> None:
    engine = _imported("claude-code", _hook_settings(tmp_path, "Ba.*|Write"), tmp_path / "out", hooks=True)
    assert _decide(engine, "Bash", {"command": "ls -la"}, tmp_path) == "deny"


@pytest.mark.parametrize("matcher", ["^(?!Read$).*", "^(?!(Read|Grep|Glob)$)"])
def test_hook_with_a_lookaround_matcher_still_blocks(tmp_path: Path, matcher: str) -> None:
    """R11b-F2 (fixed): a PreToolUse matcher RE2 cannot run is widened (lookaround dropped, else
    every tool), never dropped: the guard runs on at least the tools Claude Code runs it for."""
    engine = _imported("claude-code", _hook_settings(tmp_path, matcher), tmp_path / "out", hooks=True)
    assert _decide(engine, "Bash", {"command": "ls -la"}, tmp_path) != "allow"


@pytest.mark.parametrize(
    ("matcher", "blocked", "free"),
    [
        ("Bash(?!Output)|Write", ["Bash", "Write", "BashOutput"], ["Read"]),  # widened, not every tool
        ("(?<=x)Bash", ["Bash"], ["Read"]),
        (r"(B)ash\1?", ["Bash"], []),
        (r"(?<t>Ba)sh\k<t>?", ["Bash"], []),
        ("(", ["Bash", "Read"], []),  # unreadable: every tool
        (r"\cJ|Bash", ["Bash", "Read"], []),  # a JavaScript escape neither engine here reads: every tool
        ("(?=Bash", ["Bash", "Read"], []),
    ],
)
def test_pre_tool_use_matcher_widening_covers_the_original(
    tmp_path: Path, matcher: str, blocked: list[str], free: list[str]
) -> None:
    """R11b-F2 (edge): the widened matcher keeps every tool the JavaScript regex selects; a
    matcher that cannot be read at all runs the guard on every tool; a warning says so."""
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [BLOCKING_HOOK]}]}}),
        encoding="utf-8",
    )
    result = import_document(settings.read_text(), format="claude-code", path=str(settings))
    assert len(result.document["hooks"]["tool_guard"]) == 1
    assert any("cannot be used" in w.message and "every tool" in w.message for w in result.warnings)
    engine = _imported("claude-code", settings, tmp_path / "out", hooks=True)
    args = {"Bash": {"command": "ls"}, "Write": {"file_path": str(tmp_path / "x"), "content": ""}}
    for tool in blocked:
        assert _decide(engine, tool, args.get(tool, {"file_path": str(tmp_path / "x")}), tmp_path) == "deny"
    for tool in free:
        assert _decide(engine, tool, {"file_path": str(tmp_path / "x")}, tmp_path) != "deny"


@pytest.mark.parametrize(
    ("matcher", "runs_on", "not_on"),
    [
        ("[^]", ["Bash", "Read"], []),  # JavaScript: any one character
        ("Bash[]|Read", ["Read"], ["Bash"]),  # JavaScript: `[]` matches nothing
        ("[[:alpha:]]", ["p]"], ["Bash", "p"]),  # JavaScript: the class `[[:alph]`, then `]`
        ("(?<x>Ba)sh", ["Bash"], ["Read"]),  # a named group, spelt `(?P<x>` for RE2
    ],
)
def test_javascript_only_spellings_translate_exactly(
    matcher: str, runs_on: list[str], not_on: list[str]
) -> None:
    """R11b-F2 (edge): JavaScript spellings RE2 reads differently are translated, not widened (no
    warning); checked against node's `RegExp.test` when this was written."""
    import re2

    text = json.dumps({"hooks": {"PermissionRequest": [{"matcher": matcher, "hooks": [BLOCKING_HOOK]}]}})
    result = import_document(text, format="claude-code", path="settings.json")
    assert not [w for w in result.warnings if "matcher" in w.message]
    native = result.document["hooks"]["permission_request"][0]["matcher"]
    assert all(re2.fullmatch(native, t) for t in runs_on)
    assert not any(re2.fullmatch(native, t) for t in not_on)


def test_permission_request_hook_with_an_unusable_matcher_is_an_error(tmp_path: Path) -> None:
    """R11b-F2 (edge): a PermissionRequest hook may approve, so widening it could allow and dropping
    it could lose a deny: the import stops with a located error and a hint."""
    text = json.dumps(
        {"hooks": {"PermissionRequest": [{"matcher": "^(?!Read$).*", "hooks": [BLOCKING_HOOK]}]}}
    )
    with pytest.raises(PolicyError) as err:
        import_document(text, format="claude-code", path="settings.json")
    assert "PermissionRequest" in str(err.value) and "matcher" in str(err.value)
    assert err.value.errors[0].location is not None and err.value.errors[0].help


def test_post_tool_use_hook_with_an_unusable_matcher_is_dropped_with_a_warning() -> None:
    """R11b-F2 (edge): a PostToolUse hook decides nothing; it is not imported, and said so."""
    text = json.dumps({"hooks": {"PostToolUse": [{"matcher": "^(?!Read$).*", "hooks": [BLOCKING_HOOK]}]}})
    result = import_document(text, format="claude-code", path="settings.json")
    assert "hooks" not in result.document
    assert any("not imported" in w.message for w in result.warnings)


# ---- R11b-F3: Copilot CLI's variadic --deny-tool ---------------------------------------------------
#
# `copilot --help`: `--deny-tool [<tools>...]`, `--allow-tool [<tools>...]`: every word up to the
# next option is a pattern. The real CLI, run with `--allow-all-tools --deny-tool 'shell(echo)'
# 'shell(touch)'`, refused `touch` citing `shell(touch)`. The importer keeps the first word only,
# so the second deny is dropped and `--allow-all-tools` (default allow) runs `git push`.


def _copilot(tmp_path: Path, line: str) -> Engine:
    flags = tmp_path / "copilot.sh"
    flags.write_text(line + "\n", encoding="utf-8")
    return _imported("copilot", flags, tmp_path / "out")


def test_copilot_first_deny_value_denies(tmp_path: Path) -> None:
    engine = _copilot(tmp_path, "copilot --allow-all-tools --deny-tool 'shell(git push)' 'shell(rm)'")
    assert _decide(engine, "bash", {"command": "git push origin main"}, tmp_path) == "deny"
    assert _decide(engine, "bash", {"command": "ls"}, tmp_path) == "allow"


@pytest.mark.parametrize(
    "line",
    [
        "copilot --allow-all-tools --deny-tool 'shell(rm)' 'shell(git push)'",
        "copilot --allow-all-tools --deny-tool 'shell(rm)' 'shell(git push)' -p 'fix the bug'",
        "copilot --allow-all-tools --excluded-tools bash_x bash",
    ],
    ids=["deny-tool", "deny-tool-then-option", "excluded-tools"],
)
def test_copilot_every_deny_value_denies(tmp_path: Path, line: str) -> None:
    """R11b-F3 (fixed): a variadic flag written with a blank takes every word up to the next option
    or the end of the command, as commander (Copilot's option parser) does."""
    engine = _copilot(tmp_path, line)
    command = {"command": "git push origin main"}
    assert _decide(engine, "bash", command, tmp_path) == "deny"


COPILOT_VALUES = [
    # (invocation, what is denied, what is not)
    (
        "copilot --deny-tool 'shell(rm)' \\\n  'shell(git push)' --allow-all-tools",
        ["git push x", "rm a"],
        ["ls"],
    ),
    (
        "copilot --allow-all-tools --deny-tool 'shell(rm)' 'shell(git push)' --model gpt-5",
        ["git push x"],
        ["ls"],
    ),
    ("copilot --allow-all-tools --deny-tool 'shell(rm)' 'shell(git push)' -- more", ["git push x"], ["ls"]),
    ("copilot --allow-all-tools --excluded-tools=bash_x bash", [], ["git push x"]),  # `=`: one value only
    ("copilot --allow-all-tools --deny-tool 'shell(rm)'; echo 'shell(git push)'", ["rm a"], ["git push x"]),
    ("copilot --allow-all-tools --deny-tool 'shell(rm)' # 'shell(git push)'", ["rm a"], ["git push x"]),
    ("copilot --allow-all-tools --deny-tool 'shell(rm)'\necho 'shell(git push)'", ["rm a"], ["git push x"]),
    ("exec copilot --allow-all-tools --deny-tool 'shell(rm)' \"$@\"", ["rm a"], ["ls"]),
]


@pytest.mark.parametrize(("line", "denied", "allowed"), COPILOT_VALUES)
def test_copilot_variadic_values_end_where_commander_ends_them(
    tmp_path: Path, line: str, denied: list[str], allowed: list[str]
) -> None:
    """R11b-F3 (edge): values continue over a backslash-newline; they end at the next option, `--`,
    a command separator, a comment, a newline and a wrapper's `"$@"`; `--flag=A` takes `A` only."""
    engine = _copilot(tmp_path, line)
    for command in denied:
        assert _decide(engine, "bash", {"command": command}, tmp_path) == "deny", command
    for command in allowed:
        assert _decide(engine, "bash", {"command": command}, tmp_path) == "allow", command


def test_copilot_variadic_allow_values_are_read_too(tmp_path: Path) -> None:
    """R11b-F3 (edge): `--allow-tool A B` allows both (and only them); a later deny still wins."""
    engine = _copilot(
        tmp_path, "copilot --allow-tool 'shell(ls)' 'shell(git:*)' --deny-tool 'shell(git push)'"
    )
    assert _decide(engine, "bash", {"command": "ls -la"}, tmp_path) == "allow"
    assert _decide(engine, "bash", {"command": "git status"}, tmp_path) == "allow"
    assert _decide(engine, "bash", {"command": "git push"}, tmp_path) == "deny"
    assert _decide(engine, "bash", {"command": "rm x"}, tmp_path) == "ask"


def test_copilot_variadic_value_that_is_no_pattern_is_an_error(tmp_path: Path) -> None:
    """R11b-F3 (edge): a prompt left after a variadic flag is read as a pattern by Copilot too; the
    import says so with a located error instead of dropping it."""
    flags = tmp_path / "copilot.sh"
    flags.write_text("copilot --deny-tool 'shell(rm)' 'fix the bug'\n", encoding="utf-8")
    with pytest.raises(PolicyError) as err:
        run_import("copilot", str(flags), None)
    assert "fix the bug" in str(err.value)


# ---- R11b-F4: Copilot CLI's URL denies also govern the shell ---------------------------------------
#
# `copilot help permissions`: `url(...)` patterns "apply to the shell and web-fetch tools". The
# real CLI, run with `--allow-all-tools --deny-url=evil.example`, refused the shell command
# `curl https://evil.example/x` (a rule `url(https://evil.example)`). The importer writes the deny
# on `web_fetch` only, so under `--allow-all-tools` (default allow) the same download by `curl` or
# `wget` is allowed; with `--allow-tool 'shell(curl:*)'` too.


def test_copilot_url_deny_covers_web_fetch(tmp_path: Path) -> None:
    engine = _copilot(tmp_path, "copilot --allow-all-tools --deny-url=evil.example")
    assert _decide(engine, "web_fetch", {"url": "https://evil.example/x"}, tmp_path) == "deny"
    assert _decide(engine, "web_fetch", {"url": "http://EVIL.example/x"}, tmp_path) == "deny"


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("copilot --allow-all-tools --deny-url=evil.example", "curl -sS https://evil.example/x"),
        ("copilot --allow-all-tools --deny-tool='url(evil.example)'", "wget -q https://evil.example/x"),
        ("copilot --allow-tool='shell(curl:*)' --deny-url=evil.example", "curl https://evil.example/x"),
    ],
    ids=["deny-url", "deny-tool-url", "allowed-curl"],
)
def test_copilot_url_deny_covers_the_shell(tmp_path: Path, line: str, command: str) -> None:
    """R11b-F4 (fixed): a URL deny is also a deny rule on `bash|powershell` commands whose text
    names the host (every spelling the shell view reads), beating `--allow-all-tools` and allows."""
    engine = _copilot(tmp_path, line)
    assert _decide(engine, "bash", {"command": command}, tmp_path) == "deny"


URL_SHELL_CASES = [
    # (invocation, tool, command, decision)
    ("copilot --allow-all-tools --deny-url=evil.example", "bash", "curl -sS https://EVIL.Example./x", "deny"),
    ("copilot --allow-all-tools --deny-url=evil.example", "bash", "wget EVIL.EXAMPLE/x", "deny"),
    (
        "copilot --allow-all-tools --deny-url=evil.example",
        "bash",
        "sh -c 'curl http://evil.example:8080/'",
        "deny",
    ),
    ("copilot --allow-all-tools --deny-url=evil.example", "powershell", "iwr https://evil.example/x", "deny"),
    ("copilot --allow-all-tools --deny-url=evil.example", "bash", "curl https://good.example/x", "allow"),
    ("copilot --allow-all-tools --deny-url=169.254.169.254", "bash", "curl http://2852039166/", "deny"),
    ("copilot --allow-all-tools --deny-url=169.254.169.254", "bash", "curl http://0xa9fea9fe/", "deny"),
    ("copilot --allow-all-tools --deny-url='*.evil.example'", "bash", "curl https://a.evil.example/", "deny"),
    (
        "copilot --allow-all-tools --deny-url=https://evil.example/path",
        "bash",
        "curl http://evil.example/",
        "deny",
    ),
    ("copilot --allow-all-tools --deny-url a.example b.example", "bash", "curl https://b.example/", "deny"),
    ("copilot --allow-all-tools --deny-tool 'url(*)'", "bash", "curl https://anything.example/", "deny"),
    ("copilot --allow-all-tools --deny-tool 'url(*)'", "bash", "wget anything.example", "deny"),
    ("copilot --allow-all-tools --deny-tool 'url(*)'", "bash", "ls -la", "allow"),
    # an allowed URL does not approve a shell command (Copilot still asks for the shell tool)
    ("copilot --allow-url=good.example", "bash", "curl https://good.example/", "ask"),
]


@pytest.mark.parametrize(("line", "tool", "command", "expected"), URL_SHELL_CASES)
def test_copilot_url_rules_on_the_shell(
    tmp_path: Path, line: str, tool: str, command: str, expected: str
) -> None:
    """R11b-F4 (edge): case, a trailing dot, a port, numeric IPv4 spellings, nested shells,
    PowerShell, wildcard subdomains, a URL with a path, `url(*)`, variadic URL flags; allows stay
    off the shell."""
    engine = _copilot(tmp_path, line)
    assert _decide(engine, tool, {"command": command}, tmp_path) == expected


def test_copilot_config_denied_urls_cover_the_shell(tmp_path: Path) -> None:
    """R11b-F4 (edge): `deniedUrls` in Copilot's config is the same URL deny."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"deniedUrls": ["evil.example"], "allowedUrls": ["good.example"]}), "utf-8")
    engine = _imported("copilot", config, tmp_path / "out")
    assert _decide(engine, "bash", {"command": "curl https://evil.example/x"}, tmp_path) == "deny"
    assert _decide(engine, "web_fetch", {"url": "https://evil.example/x"}, tmp_path) == "deny"
    assert _decide(engine, "bash", {"command": "curl https://good.example/x"}, tmp_path) == "ask"


# ---- held: hostile settings files are located errors, never tracebacks -----------------------------

HOSTILE = [
    ("claude-code", '{"permissions": {"allow": [null, 7, ["Bash"]], "additionalDirectories": [{}, 1e999]}}'),
    (
        "claude-code",
        '{"permissions": {"defaultMode": ["acceptEdits"]}, "hooks": {"PreToolUse": [{"matcher": "("}]}}',
    ),
    (
        "claude-code",
        '{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": [{"type": "command", "command": 7}]}]}}',
    ),
    ("claude-code", '{"autoMode": {"hard_deny": ["`rm -rf /`", 3, "Bash(rm:*)"]}, "permissions": []}'),
    ("copilot", "copilot --deny-tool '\x00(x)' --allow-tool 'shell(' --deny-url ':::'\n"),
    ("cursor", '{"permissions": {"deny": ["Mcp(,)", "Read()", "Shell(\\u0000)"]}}'),
    (
        "gemini",
        '[[rule]]\ntoolName = ["run_shell_command", 1]\ncommandRegex = "(a+)+$"\ndecision = "allow"\n',
    ),
    ("codex", 'prefix_rule(pattern = [], decision = "allow")\n'),
]


@pytest.mark.parametrize(("fmt", "text"), HOSTILE, ids=[f"{f}-{i}" for i, (f, _) in enumerate(HOSTILE)])
def test_hostile_settings_never_raise_anything_but_policy_error(tmp_path: Path, fmt: str, text: str) -> None:
    path = tmp_path / ("settings.json" if fmt != "codex" else "default.rules")
    path.write_text(text, encoding="utf-8")
    try:
        result = import_document(text, format=fmt, path=str(path))
    except PolicyError:
        return
    assert isinstance(result.document, dict)
