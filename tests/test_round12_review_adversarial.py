"""Review of the round-12 non-shell fixes (R12s): variants the fixes of R12b/c/d/e miss.

Probes, per fix:
- R12b-F1 (Claude Code's `Monitor`, `PowerShell`, `Artifact`, `Projects`): `PowerShell` commands are
  read as bash, so PowerShell's own names for `rm` and `cat` pass Bash's deny rules; `Artifact`'s
  `read_asset` saves a file into `out_dir`, which is not decided as a write.
- R12c-F1 (`when` on a path argument): the readings added are lexical only; a symlink's target,
  which the path rules follow, is not one of them.
- R12d-F3 (Gemini's case-insensitive globs): the `glob` tool's pattern against a cwd-relative rule,
  and a backslash, which `glob` (unlike `read_many_files`) reads as an escape on POSIX.
- R12e-F2..F4 (`policy diff --exit-code`): a comparison that hits the analysis bound, or a
  narrowed `when`, reports "0 changed" and passes the gate.

Each finding is a strict xfail `R12s-Fn`; the probes that held are plain tests.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.analysis.diff import diff_policies


def _engine(tmp_path: Path, name: str, text: str, **kw: object) -> Engine:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return Engine(load_policy(path), hooks=False, **kw)  # type: ignore[arg-type]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A project with a `.env`, a `secrets/` directory, a `.git/hooks` and a home beside it."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "secrets" / "k").write_text("k\n")
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".env").write_text("SECRET=1\n")
    (tmp_path / "home").mkdir()
    return root


def _ctx(ws: Path) -> dict[str, str]:
    return {"cwd": str(ws), "home": str(ws.parent / "home")}


def _decide(engine: Engine, ws: Path, tool: str, args: dict[str, object]) -> str:
    return str(engine.decide(tool, args, context=_ctx(ws)).decision)


# ----------------------------------------------------------------- R12b-F1's fix: PowerShell

CLAUDE_DENY_LIST = """
    version: 1
    profile: claude-code
    default: allow
    rules:
      - {decision: deny, match: "Bash(rm *)"}
      - {decision: deny, match: "Read(./.env)"}
"""


@pytest.mark.parametrize(
    "command",
    [
        # `del`, `erase`, `ri`, `rd`, `rmdir` are built-in aliases of Remove-Item, as `rm` is
        # (`Get-Alias` on every platform): the same deletion `rm -r src` is denied for
        "del src",
        "erase src",
        "ri -Recurse src",
        "Remove-Item -Recurse -Force src",
        # `type` is a built-in alias of Get-Content (bash's `type` builtin reads no file): the
        # secret is printed, while `cat .env` and `gc .env` are denied
        "type .env",
    ],
)
def test_powershell_aliases_meet_bash_denies(tmp_path: Path, ws: Path, command: str) -> None:
    """R12s-F1 (fixed): a PowerShell command is also read as the bash command its cmdlets and
    aliases stand for (`runtime/powershell.py`).

    R12b-F1 put `PowerShell` under Bash's deny rules (`deny_covers`), so `Bash(rm *)` and
    `Read(./.env)` are meant to stop the same deletion and the same read in PowerShell. The
    command is walked as a bash text, where `del`/`Remove-Item` are unknown programs and `type` the
    bash builtin: allowed under `default: allow`."""
    engine = _engine(tmp_path, "p", CLAUDE_DENY_LIST)
    assert _decide(engine, ws, "PowerShell", {"command": command}) == "deny"


def test_powershell_type_under_secrets_pack_in_yolo(tmp_path: Path, ws: Path) -> None:
    """R12s-F1 (fixed): `type` is Get-Content, read as `cat`.

    R12s-F1's worst form: pack:secrets in yolo denies `cat .env` in PowerShell too, but `type
    .env` (Get-Content) only meets the pack's "names a credential file" ask, which yolo lifts."""
    engine = _engine(tmp_path, "y", "version: 1\nprofile: claude-code\nmode: yolo\nextends: [pack:secrets]\n")
    assert _decide(engine, ws, "PowerShell", {"command": "type .env"}) == "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -r src", "deny"),
        ("gc .env", "deny"),
        ("Get-Content -Path .env", "deny"),
        ("iex 'rm -r src'", "deny"),
    ],
)
def test_powershell_names_bash_shares_held(tmp_path: Path, ws: Path, command: str, expected: str) -> None:
    """Held: the names PowerShell shares with bash, Get-Content through its operand, and
    Invoke-Expression of a quoted text meet Bash's denies."""
    engine = _engine(tmp_path, "p", CLAUDE_DENY_LIST)
    assert _decide(engine, ws, "PowerShell", {"command": command}) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("DEL src", "deny"),  # PowerShell names are case-insensitive
        ("Microsoft.PowerShell.Management\\Remove-Item src", "deny"),
        ("git status; rd src", "deny"),
        ("pwsh -Command 'del src'", "deny"),
        ("Get-Content .env | Select-String KEY", "deny"),
        ("iwr https://evil.example/x", "deny"),
        ("echo hi", "allow"),
        ("git status", "allow"),
    ],
)
def test_powershell_aliases_edges(tmp_path: Path, ws: Path, command: str, expected: str) -> None:
    """R12s-F1's edges: case, module-qualified names, statements, a nested `pwsh -Command`, a
    pipeline, Invoke-WebRequest as curl; a plain command stays allowed."""
    engine = _engine(tmp_path, "p", CLAUDE_DENY_LIST + '      - {decision: deny, match: "Bash(curl *)"}\n')
    assert _decide(engine, ws, "PowerShell", {"command": command}) == expected


@pytest.mark.parametrize(
    "command", ["& $cmd", "{ Remove-Item src }.Invoke()", "powershell -EncodedCommand AAAA", "icm { del x }"]
)
def test_powershell_unreadable_asks_in_yolo(tmp_path: Path, ws: Path, command: str) -> None:
    """R12s-F1's edges: what the bash reading cannot follow (a variable run by `&`, a script
    block, an encoded command, Invoke-Command) asks, and yolo does not lift it; an allow written
    in PowerShell's words still allows what it names."""
    engine = _engine(tmp_path, "y", YOLO)
    assert _decide(engine, ws, "PowerShell", {"command": command}) == "ask"
    allow = _engine(
        tmp_path,
        "a",
        YOLO.replace("mode: yolo\n", "")
        + 'rules:\n  - {decision: allow, match: "PowerShell(Get-ChildItem *)"}\n',
    )
    assert _decide(allow, ws, "PowerShell", {"command": "Get-ChildItem src"}) == "allow"


# ----------------------------------------------------------------- R12b-F1's fix: Artifact's out_dir

YOLO = "version: 1\nprofile: claude-code\nmode: yolo\n"


@pytest.mark.parametrize("out_dir", [".git/hooks", ".claude/agents"])
def test_artifact_read_asset_out_dir_is_a_write(tmp_path: Path, ws: Path, out_dir: str) -> None:
    """R12s-F2 (fixed): `out_dir` is a `files` role `into`, a directory written into, which the
    protected paths and the write tool's rules see (`tool_files._into`, `protected._written_into`).

    Claude Code 2.1.330's `ArtifactInput`: "'read_asset' saves one of them to a local file named
    by its id (pass `url` and `asset_id`, optionally `out_dir`) ... saving to any directory other
    than the default is an ordinary file save the user may be asked to approve". The profile
    declares `file_path`/`file_paths` (uploads) but not `out_dir`, so in yolo a file is written
    into a protected directory (`.claude/agents/<id>.md` is a subagent definition) with no ask,
    where `Write` to the same directory asks in every mode."""
    engine = _engine(tmp_path, "y", YOLO)
    args = {
        "action": "read_asset",
        "url": "https://claude.ai/artifact/1",
        "asset_id": "a1",
        "out_dir": out_dir,
    }
    assert _decide(engine, ws, "Artifact", args) == "ask"


def test_write_into_protected_directory_asks_in_yolo(tmp_path: Path, ws: Path) -> None:
    """Held (the control for R12s-F2): `Write` into the same directories asks in yolo."""
    engine = _engine(tmp_path, "y", YOLO)
    for path in (".git/hooks/a1.md", ".claude/agents/a1.md"):
        assert _decide(engine, ws, "Write", {"file_path": path, "content": "x"}) == "ask"


def test_monitor_variants_held(tmp_path: Path, ws: Path) -> None:
    """Held: Monitor's command meets Bash's denies and path rules; its `ws.url` meets WebFetch's
    domain deny in any case and with a trailing dot; `ws` in another shape asks."""
    engine = _engine(
        tmp_path,
        "m",
        CLAUDE_DENY_LIST + '      - {decision: deny, match: "WebFetch(domain:evil.example)"}\n',
    )
    base = {"description": "d", "timeout_ms": 5}
    assert _decide(engine, ws, "Monitor", {**base, "command": "rm -rf src"}) == "deny"
    assert _decide(engine, ws, "Monitor", {**base, "command": "tail -f .env"}) == "deny"
    assert _decide(engine, ws, "Monitor", {**base, "ws": {"url": "wss://EVIL.example./x"}}) == "deny"
    assert _decide(engine, ws, "Monitor", {**base, "ws": "wss://evil.example/x"}) == "ask"
    assert _decide(engine, ws, "Monitor", {**base, "ws": [{"url": "wss://evil.example/x"}]}) == "ask"


# ----------------------------------------------------------------- R12c-F1's fix: `when` through a symlink

WHEN_ENV = """
    version: 1
    profile: claude-code
    default: allow
    rules:
      - {id: no-env, decision: deny, match: "Read|Write", when: 'args.file_path.endsWith(".env")'}
"""


@pytest.mark.parametrize("tool", ["Read", "Write"])
def test_when_on_path_reads_the_symlink_target(tmp_path: Path, ws: Path, tool: str) -> None:
    """R12s-F3 (fixed): a `when` is evaluated again on the readings of the symlink-resolved view
    when the engine resolves the path (`Engine._when_eval` keys its readings on the view).

    R12c-F1 evaluates a `when` also "on the path the tool opens" (`views.path_readings`, whose
    docstring names "a symlink's target, where the view has them"). A workspace symlink `cfg ->
    .env` (a hostile repository ships it: SECURITY.md's threat model) makes Read/Write open `.env`;
    `Read(./.env)` would deny it (the path view resolves the target), but the README-style `when`
    deny sees only `cfg` and its lexical forms: allowed."""
    os.symlink(".env", ws / "cfg")
    engine = _engine(tmp_path, "w", WHEN_ENV)
    args: dict[str, object] = {"file_path": "cfg"}
    if tool == "Write":
        args["content"] = "X=1"
    assert _decide(engine, ws, tool, args) == "deny"


def test_when_on_path_symlink_edges(tmp_path: Path, ws: Path) -> None:
    """R12s-F3's edges: a symlinked directory (`d -> secrets`, `d/k` opens `secrets/k`), an
    absolute link target, a link chain, an allow's exclusion; a plain file is unchanged."""
    os.symlink("secrets", ws / "d")
    os.symlink(str(ws / ".env"), ws / "abs")
    os.symlink("abs", ws / "chain")
    (ws / "plain").write_text("x")
    engine = _engine(
        tmp_path,
        "w",
        WHEN_ENV + "      - {decision: deny, match: Read, when: 'args.file_path.startsWith(\"secrets/\")'}\n",
    )
    assert _decide(engine, ws, "Read", {"file_path": "d/k"}) == "deny"
    assert _decide(engine, ws, "Read", {"file_path": "abs"}) == "deny"
    assert _decide(engine, ws, "Read", {"file_path": "chain"}) == "deny"
    assert _decide(engine, ws, "Read", {"file_path": "plain"}) == "allow"
    # an allow's exclusion holds on every reading, the target's too
    allow = _engine(
        tmp_path,
        "a",
        "version: 1\nprofile: claude-code\ndefault: ask\nrules:\n"
        "  - {decision: allow, match: Write, when: '!args.file_path.endsWith(\".env\")'}\n",
    )
    assert _decide(allow, ws, "Write", {"file_path": "chain", "content": "x"}) == "ask"
    assert _decide(allow, ws, "Write", {"file_path": "plain", "content": "x"}) == "allow"


def test_when_on_path_lexical_readings_held(tmp_path: Path, ws: Path) -> None:
    """Held: the lexical readings of R12c-F1 (`.env/.`, `~/..` forms, an absolute path) and a path
    rule through the same symlink."""
    os.symlink(".env", ws / "cfg")
    engine = _engine(tmp_path, "w", WHEN_ENV)
    for path in (".env/.", "src/../.env", str(ws / ".env") + "/."):
        assert _decide(engine, ws, "Read", {"file_path": path}) == "deny"
    rule = _engine(
        tmp_path,
        "r",
        'version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Read(./.env)"]\n',
    )
    assert _decide(rule, ws, "Read", {"file_path": "cfg"}) == "deny"


# ----------------------------------------------------------------- R12d-F3's fix: Gemini's `glob` tool

GEMINI_CWD_RULE = """
    version: 1
    profile: gemini
    default: allow
    permissions:
      deny: ["read_file(./.env)"]
"""
GEMINI_FLOATING_RULE = GEMINI_CWD_RULE.replace("./.env", ".env")


@pytest.mark.parametrize("pattern", [".ENV", "**/.ENV", ".En?"])
def test_gemini_glob_tool_case_with_cwd_relative_rule(tmp_path: Path, ws: Path, pattern: str) -> None:
    """R12s-F4 (fixed): the glob's base directory was read from the normalised arguments, where
    `pattern` (an alias of `dir_path`) had been copied into `dir_path`, so `.ENV` was weighed as
    `.ENV/.ENV`; the base is read from the arguments as sent (`tool_files._base_value`).

    glob.ts matches with `nocase: !case_sensitive`, so `.ENV` finds `.env`. The engine denies
    `glob {"pattern": ".env"}` under `read_file(./.env)` and `read_many_files [".ENV"]` too, but
    `glob {"pattern": ".ENV"}` is allowed: R12d-F3's case folding reaches the glob tool only for
    floating rules."""
    engine = _engine(tmp_path, "g", GEMINI_CWD_RULE)
    assert _decide(engine, ws, "glob", {"pattern": pattern}) == "deny"


@pytest.mark.parametrize("pattern", [".e\\nv", ".\\ENV"])
def test_gemini_glob_tool_backslash_is_an_escape(tmp_path: Path, ws: Path, pattern: str) -> None:
    """R12s-F5 (fixed): the `glob` tool's pattern is weighed with a backslash as `/` and as an
    escape (`tool_files._globs`).

    `read_many_files` replaces `\\` by `/` before globbing (`p.replace(/\\\\/g, "/")` in the
    0.61 bundle), but the `glob` tool passes `this.params.pattern` to `glob()` as is, where on
    POSIX a backslash escapes the next character: `.e\\nv` is `.env`. The engine reads every
    backslash as `/` (`.e/nv`), which names nothing the rule guards."""
    engine = _engine(tmp_path, "g", GEMINI_FLOATING_RULE)
    assert _decide(engine, ws, "glob", {"pattern": pattern}) == "deny"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("glob", {"pattern": ".env"}),
        ("read_many_files", {"include": [".ENV"]}),
        ("read_many_files", {"include": ["[.]env"]}),
        ("read_many_files", {"include": ["{x,.E{n,m}V}"]}),
        ("read_many_files", {"include": ["[^a]env"]}),
        ("read_many_files", {"include": ["src/../.ENV"]}),
        ("read_many_files", {"include": [".[[:alpha:]]nv"]}),
        ("read_many_files", {"include": [".env/**"]}),
    ],
)
def test_gemini_globs_held(tmp_path: Path, ws: Path, tool: str, args: dict[str, object]) -> None:
    """Held: classes, braces, `..` and the exact name under a cwd-relative rule."""
    engine = _engine(tmp_path, "g", GEMINI_CWD_RULE)
    assert _decide(engine, ws, tool, args) == "deny"


def test_gemini_backslash_in_read_many_files_held(tmp_path: Path, ws: Path) -> None:
    """Held: in `read_many_files` a backslash is a `/` (as Gemini reads it), so `.\\ENV` is `./ENV`,
    not `.env`: allowed; and `[!.]env` cannot match `.env`."""
    engine = _engine(tmp_path, "g", GEMINI_FLOATING_RULE)
    assert _decide(engine, ws, "read_many_files", {"include": [".\\ENV"]}) == "allow"
    assert _decide(engine, ws, "read_many_files", {"include": ["[!.]env"]}) == "allow"


# ----------------------------------------------------------------- docker-agent's Go argument names

DOCKER = """
    version: 1
    profile: docker-agent
    default: ask
    rules:
      - {decision: deny, match: "read_file(./.env)"}
      - {decision: deny, match: "shell(rm *)"}
      - {decision: allow, match: "shell(ls *)"}
      - {decision: allow, match: "read_file"}
      - {decision: allow, match: "read_multiple_files"}
"""


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        # Go leaves a field unchanged on `null`: `cmd` keeps `rm -rf ~`
        ("shell", {"cmd": "rm -rf ~", "CMD": None}, "deny"),
        ("shell", {"CMD": "rm -rf ~", "cmd": None}, "deny"),
        ("read_file", {"path": ".env", "PATH": None}, "deny"),
        ("read_multiple_files", {"paths": ["src/a.py"], "pathſ": [".env"]}, "deny"),
        # `~` forms docker-agent reads as plain names (`filepath.Clean` removes `~x/..`)
        ("read_file", {"path": "~x/../.env"}, "deny"),
        ("read_file", {"path": "~+/../.env"}, "deny"),
        ("read_file", {"path": "~-/../.env"}, "deny"),
        ("read_multiple_files", {"paths": ["~root/../.env"]}, "deny"),
        # lists of mixed types are never allowed
        ("read_multiple_files", {"paths": ["src/a.py", 1, ".env"]}, "ask"),
        ("read_multiple_files", {"paths": ["src/a.py", None, ".env"]}, "ask"),
        ("read_multiple_files", {"paths": [[".env"]]}, "ask"),
    ],
)
def test_docker_agent_argument_variants_held(
    tmp_path: Path, ws: Path, tool: str, args: dict[str, object], expected: str
) -> None:
    """Held (R12c-F2/F4): a `null` under another spelling, `~user`/`~+`/`~-` forms and mixed lists."""
    engine = _engine(tmp_path, "d", DOCKER, mode="yolo")
    assert _decide(engine, ws, tool, args) == expected


# ----------------------------------------------------------------- R12e's fixes: `policy diff --exit-code`

# 40 credential-file denies (the first 40 file patterns of pack:secrets) on one declared path tool
_CREDENTIALS = [
    "~/.ssh/id_*", "**/.ssh/id_*", "*.pem", "*.key", "*.p12", "*.pfx", "~/.aws/credentials",
    "~/.aws/config", "~/.aws/sso/cache/**", "~/.aws/cli/cache/**", "~/.config/gcloud/**",
    "~/.azure/**", "~/.kube/config", "~/.docker/config.json", "~/.netrc", "~/.npmrc", "~/.pypirc",
    "~/.git-credentials", "~/.pgpass", "~/.gnupg/**", "~/.config/gh/hosts.yml",
    "~/Library/Keychains/**", "~/.mozilla/**", "~/.config/google-chrome/**",
    "~/.config/chromium/**", "~/Library/Application Support/Google/Chrome/**",
    "~/Library/Application Support/Firefox/**", ".env", ".env.local", ".env.*.local",
    ".env.production", ".env.prod", ".env.staging", ".env.development", ".env.test",
    "//proc/**/environ", "**/id_rsa", "**/id_dsa", "**/id_ecdsa", "**/id_ed25519",
]  # fmt: skip
_READER = "version: 1\ndefault: ask\ntools:\n  reader: {kind: path, arg: path}\n"


def _load(tmp_path: Path, name: str, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path)


def test_diff_removed_deny_list_past_the_analysis_bound(tmp_path: Path, ws: Path) -> None:
    """R12s-F6 (fixed): a tool whose regions could not be enumerated and whose deny/ask rules were
    removed is "incomparable", which fails `--exit-code`.

    A pull request deletes the credential denies (or swaps `extends: [pack:secrets]` for
    another pack: the same result, "0 of 23 tool(s) changed", exit 0, in about 11 s). The
    regions of the tool are too big to enumerate, so only a call without arguments is compared
    ("no difference found (approximate)"), and `--exit-code` passes a change that turns `reader
    ~/.netrc` from deny into allow in yolo. A comparison that could not be made is "may be more
    permissive", the way R12e-F3 made a kind change incomparable."""
    old_text = _READER + "rules:\n  - id: creds\n    decision: deny\n    match:\n"
    old_text += "".join(f'      - "reader({p})"\n' for p in _CREDENTIALS)
    old = _load(tmp_path, "old", old_text)
    new = _load(tmp_path, "new", _READER + "rules: []\n")
    # the truth: NEW allows what OLD denies (yolo lifts the default ask)
    assert Engine(old, mode="yolo", hooks=False).decide("reader", {"path": "~/.netrc"}).decision == "deny"
    assert Engine(new, mode="yolo", hooks=False).decide("reader", {"path": "~/.netrc"}).decision == "allow"
    assert diff_policies(old, new).more_permissive()


def test_diff_removed_short_deny_list_held(tmp_path: Path) -> None:
    """Held: below the bound, removing the denies is reported more permissive."""
    old_text = _READER + "rules:\n  - id: creds\n    decision: deny\n    match:\n"
    old_text += "".join(f'      - "reader({p})"\n' for p in _CREDENTIALS[:8])
    old = _load(tmp_path, "old", old_text)
    new = _load(tmp_path, "new", _READER + "rules: []\n")
    assert diff_policies(old, new).more_permissive()


def test_diff_narrowed_when_fails_the_gate(tmp_path: Path, ws: Path) -> None:
    """R12s-F7 (fixed): a rule with a `when` changed (a deny removed and another added) makes the
    tool "incomparable" unless example calls show it more permissive.

    OLD denies Read when `args.file_path.endsWith(".env")`; NEW rewrites the condition to
    `args.file_path == ".env"`. `policy diff --exit-code` says "0 of 23 tool(s) changed" and exits
    0, but `Read src/.env` goes from deny to allow: the witnesses come from the `match` globs, never
    from the condition, so a rewritten `when` is compared on calls that both conditions treat
    alike. A tool whose `when` rules differ should at least be incomparable."""
    base = "version: 1\nprofile: claude-code\ndefault: ask\nrules:\n"
    rule = "  - {{id: d, decision: deny, match: Read, when: '{}'}}\n  - {{decision: allow, match: Read}}\n"
    old = _load(tmp_path, "old", base + rule.format('args.file_path.endsWith(".env")'))
    new = _load(tmp_path, "new", base + rule.format('args.file_path == ".env"'))
    args = {"file_path": "src/.env"}
    assert Engine(old, hooks=False).decide("Read", args, context=_ctx(ws)).decision == "deny"
    assert Engine(new, hooks=False).decide("Read", args, context=_ctx(ws)).decision == "allow"
    assert diff_policies(old, new).more_permissive()


def test_diff_past_the_bound_monotone_edits_stay_comparable(tmp_path: Path) -> None:
    """R12s-F6's edges: past the bound, identical rules, an added deny or a removed allow cannot
    loosen anything, so they do not make the tool incomparable; a removed deny, an added allow or
    ask, or a changed `modes:` does."""
    deny = _READER + "rules:\n  - id: creds\n    decision: deny\n    match:\n"
    deny += "".join(f'      - "reader({p})"\n' for p in _CREDENTIALS)
    extra_deny = deny + '  - {decision: deny, match: "reader(/etc/**)"}\n'
    with_allow = deny + '  - {decision: allow, match: "reader(src/**)"}\n'
    with_ask = deny + '  - {decision: ask, match: "reader(/etc/**)"}\n'
    base, denied = _load(tmp_path, "a", deny), _load(tmp_path, "b", extra_deny)
    allowed, asked = _load(tmp_path, "c", with_allow), _load(tmp_path, "d", with_ask)
    assert not diff_policies(base, _load(tmp_path, "e", deny)).more_permissive()
    assert not diff_policies(base, denied).more_permissive()
    assert not diff_policies(allowed, base).more_permissive()
    assert diff_policies(denied, base).more_permissive()
    assert diff_policies(base, allowed).more_permissive()
    assert diff_policies(base, asked).more_permissive()
    moded = _load(tmp_path, "f", deny.replace("decision: deny\n", "decision: deny\n    modes: [default]\n"))
    assert diff_policies(base, moded).more_permissive()


@pytest.mark.parametrize(
    ("old_when", "new_when", "loosens"),
    [
        ('args.file_path.endsWith(".env")', 'args.file_path.endsWith(".env")', False),
        ('args.file_path.endsWith(".env")', 'args.file_path.contains(".env")', True),
        ('args.file_path == ".env"', 'args.file_path.endsWith(".env")', True),  # wider: not proven
    ],
)
def test_diff_when_edits(tmp_path: Path, old_when: str, new_when: str, loosens: bool) -> None:
    """R12s-F7's edges: an unchanged `when` deny passes; any rewritten `when` of a deny fails the
    gate (the engine cannot prove a condition wider), and so does a `when` allow added."""
    base = "version: 1\nprofile: claude-code\ndefault: ask\nrules:\n"
    rule = "  - {{id: d, decision: deny, match: Read, when: '{}'}}\n  - {{decision: allow, match: Read}}\n"
    old = _load(tmp_path, "old", base + rule.format(old_when))
    new = _load(tmp_path, "new", base + rule.format(new_when))
    assert diff_policies(old, new).more_permissive() is loosens
    allow = "  - {decision: allow, match: Write, when: 'args.file_path.startsWith(\"src/\")'}\n"
    assert diff_policies(old, _load(tmp_path, "w", base + rule.format(old_when) + allow)).more_permissive()


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ({"pattern": "*.py"}, "allow"),  # spells nothing of `.env`
        ({"pattern": ".ENV", "path": "sub"}, "allow"),  # under `sub` (the old name of `dir_path`)
        ({"pattern": ".ENV", "dir_path": "."}, "deny"),
        ({"pattern": "src\\*.ts"}, "allow"),  # both readings name nothing the rule guards
    ],
)
def test_gemini_glob_tool_base_and_backslash_edges(
    tmp_path: Path, ws: Path, args: dict[str, object], want: str
) -> None:
    """The edges of R12s-F4/F5: the base directory comes from `dir_path` or its old name `path`
    as sent, never from the pattern; a backslash read both ways only widens what is weighed."""
    engine = _engine(tmp_path, "g", GEMINI_CWD_RULE)
    assert _decide(engine, ws, "glob", args) == want


@pytest.mark.parametrize(
    ("policy", "out_dir", "want"),
    [
        ('version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Edit(./.github/**)"]\n',
         ".github/workflows", "deny"),
        ('version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Edit(./.github/**)"]\n',
         "notes", "allow"),
        ('version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  ask: ["Edit(./docs/private/**)"]\n',
         "docs", "ask"),
        ("version: 1\nprofile: claude-code\nmode: yolo\n", "out", "allow"),
    ],
)  # fmt: skip
def test_artifact_out_dir_meets_the_write_rules_under_it(
    tmp_path: Path, ws: Path, policy: str, out_dir: str, want: str
) -> None:
    """The edges of R12s-F2: a deny or ask of the write tool lying in `out_dir` (or under it)
    decides the call; a directory no rule guards stays allowed, in yolo too."""
    engine = _engine(tmp_path, "a", policy)
    args = {
        "action": "read_asset",
        "url": "https://claude.ai/artifact/1",
        "asset_id": "a1",
        "out_dir": out_dir,
    }
    assert _decide(engine, ws, "Artifact", args) == want
