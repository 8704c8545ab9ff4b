"""The arguments of the non-shell tools, adversarially (round 12, area C).

Probed: argument names as the agents themselves read them (Go's `encoding/json` in docker-agent
matches keys case-insensitively, the last duplicate winning), an argument sent under two spellings,
`~` on tools that never expand it (docker-agent, LangChain), `when` conditions over path arguments
spelt so the tool reads another text than the condition does, path lists past the per-element bound,
and URL and address spellings against `domain:` and `address:` rules (these held).

Findings (all fixed on branch f12c; each test says why the call is dangerous and what the author
meant, and the edges of each fix are tested at the end of the file):

* R12c-F1: a `when` over a path argument reads the value as sent, never its normalised reading: the
  README's own `no-env-edits` rule (`args.file_path.endsWith(".env")`) misses `Write .env/.`, which
  Claude Code writes to `.env` (Node's `path.resolve`); `yolo` then allows it.
* R12c-F2: docker-agent decodes its tools' arguments with Go's `encoding/json`, which matches keys
  case-insensitively and keeps the last duplicate: `shell {"cmd": "ls", "CMD": "rm -rf ~"}` runs
  `rm -rf ~` and is allowed by `shell(ls *)`; `read_file {"Path": ".env"}` reads `.env` past
  `read_file(./.env)`.
* R12c-F3: a `when` that names an alias of the primary argument (`args.command` on docker-agent's
  `shell`, whose primary is `cmd`) sees only that spelling's value; the readings the engine adds
  are substituted into the canonical name only, so `{"cmd": "rm -rf src", "command": "ls"}` skips
  the deny while docker-agent runs `cmd`.
* R12c-F4: the path kind expands a leading `~` for every profile, but docker-agent
  (`filepath.Join` + `Clean`) and LangChain (`root_dir / path`, `Path.resolve`) never expand it:
  `read_file {"path": "~/../.env"}` is the project's `.env` to them and `$HOME/../.env` to the engine.
* R12c-F5 (LOW): a path list longer than 256 elements is not read element by element even by deny
  rules: `read_multiple_files` with `.env` as its 257th path asks instead of denying.
"""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.adapters import HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

F1 = "R12c-F1: a `when` over a path argument reads the raw spelling (`.env/.`), not the path the tool opens"
F2 = "R12c-F2: docker-agent (Go encoding/json) reads argument names case-insensitively, last duplicate wins"
F3 = "R12c-F3: a `when` on an alias of the primary argument never sees the value the agent runs"
F4 = "R12c-F4: `~` is expanded for docker-agent and LangChain paths, which read it as a plain directory name"
F5 = "R12c-F5: a path list over 256 elements is not read per element by deny rules (deny becomes ask)"


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("r12c")
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "secrets").mkdir()
    (ws / "secrets" / "api.key").write_text("KEY=1\n")
    (ws / ".env").write_text("SECRET=1\n")
    (root / "home").mkdir()
    return ws


def _engine(text: str) -> Engine:
    return Engine(load_policy(text=text), hooks=False)


def _decide(engine: Engine, tool: str, args: object, ws: Path) -> str:
    # an explicit home beside the workspace: `~/..` is the workspace's parent, never the workspace
    context = {"cwd": str(ws), "home": str(ws.parent / "home")}
    return str(engine.decide(tool, args, context=context).decision)


# --- R12c-F1: `when` over a path reads the raw spelling ------------------------------------------

README_POLICY = """
version: 1
profile: claude-code
default: ask
mode: {mode}
permissions:
  deny:  ["Bash(sudo *)", "Edit(//etc/**)"]
  ask:   ["Bash(git push *)"]
  allow: ["Bash(npm run test:*)", "Read"]
rules:
  - id: no-env-edits
    decision: deny
    match: "Edit|Write"
    when: 'args.file_path.endsWith(".env")'
    reason: env files hold secrets
"""


@pytest.mark.parametrize("spelling", [".env/.", ".env/", "./.env//", "src/../.env/."])
@pytest.mark.parametrize("mode", ["default", "yolo"])
def test_readme_env_rule_holds_on_every_spelling_of_the_path(ws: Path, spelling: str, mode: str) -> None:
    """R12c-F1 (fixed): a `when` on a path argument also reads the path the tool opens (absolute,
    relative to the cwd, and `normpath` of the text): a deny holds if it holds on any reading."""
    # The README's example policy: "no-env-edits ... env files hold secrets". Claude Code's Write
    # resolves `file_path` with Node's `path.resolve` (the path kind's own docstring relies on it),
    # which turns `.env/.`, `.env/` and `./.env//` into `<cwd>/.env`: the call overwrites the secrets
    # file (checked with node: `fs.writeFileSync(path.resolve(".env/."))` creates `.env`). The path
    # rules read it as `.env` too; the `when` reads the text as sent, so the deny is skipped: the
    # call asks (the default), and in `yolo` it is allowed.
    engine = _engine(README_POLICY.format(mode=mode))
    assert _decide(engine, "Write", {"file_path": spelling, "content": "X=1\n"}, ws) == "deny"


def test_readme_env_rule_on_the_plain_spelling_and_a_normpath_condition(ws: Path) -> None:
    engine = _engine(README_POLICY.format(mode="yolo"))
    for spelling in (".env", f"{ws}/.env", "src/../.env"):
        assert _decide(engine, "Write", {"file_path": spelling, "content": "x"}, ws) == "deny", spelling
    # the workaround an author can write today: `normpath()` reads `.env/.` as `.env`
    guarded = _engine(README_POLICY.format(mode="yolo").replace("args.file_path", "normpath(args.file_path)"))
    for spelling in (".env/.", "./.env//", "src/../.env/."):
        assert posixpath.normpath(spelling).endswith(".env")
        assert _decide(guarded, "Write", {"file_path": spelling, "content": "x"}, ws) == "deny", spelling
    assert _decide(guarded, "Write", {"file_path": "src/app.py", "content": "x"}, ws) == "allow"


# --- R12c-F2: docker-agent reads argument names as Go's encoding/json does ----------------------

DOCKER = """
version: 1
profile: docker-agent
default: ask
permissions:
  deny: ["read_file(./.env)", "read_file(./secrets/**)", "shell(rm *)", "write_file(./.git/**)"]
  allow: ["shell(ls)", "shell(ls *)", "read_file", "read_multiple_files", "write_file(./src/**)"]
"""


@pytest.fixture(scope="module")
def docker() -> Engine:
    return _engine(DOCKER)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        pytest.param("shell", {"cmd": "ls", "CMD": "rm -rf ~"}, id="shell-upper-duplicate"),
        pytest.param("shell", {"cmd": "ls", "Cmd": "rm -rf ~"}, id="shell-title-duplicate"),
        pytest.param("read_file", {"Path": ".env"}, id="read-title-only"),
        pytest.param("read_file", {"path": "src/app.py", "PATH": "secrets/api.key"}, id="read-duplicate"),
        pytest.param("read_multiple_files", {"paths": ["src/app.py"], "Paths": [".env"]}, id="read-many"),
        pytest.param(
            "write_file",
            {"path": "src/new.py", "Path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"},
            id="write-duplicate",
        ),
    ],
)
def test_docker_agent_argument_names_are_read_as_go_reads_them(
    docker: Engine, ws: Path, tool: str, args: dict
) -> None:
    """R12c-F2 (fixed): under docker-agent a key that Go's encoding/json folds to a declared
    argument (`CMD`, `Path`) is that argument; the primary is decided on every spelling's value."""
    # docker-agent hands the hook `tool_input` as a map of the keys as sent (`parseToolInput`:
    # `json.Unmarshal` into `map[string]any`), then runs the tool on `json.Unmarshal` of the same
    # text into its argument struct (`RunShellArgs{Cmd string json:"cmd"}`, `ReadFileArgs{Path
    # string json:"path"}`, through `tools.NewHandler`). Go's encoding/json accepts a case-insensitive
    # key match and the last matching key wins (golang/go#43664: `{"dist":"ok","Dist":"KO"}` decodes
    # `KO`). So the shell runs `rm -rf ~`, read_file returns `.env` / the API key, write_file plants a
    # git hook, while the engine decided on `cmd`/`path`/`paths` alone: allowed.
    assert _decide(docker, tool, args, ws) != "allow"


def test_docker_agent_hook_answers_go_duplicate_keys(ws: Path, tmp_path: Path) -> None:
    """R12c-F2 (fixed): the same call through `policy hook docker-agent`."""
    # The same call as docker-agent's pre_tool_use hook sends it, through `policy hook docker-agent`.
    policy = tmp_path / "policy.yaml"
    policy.write_text(DOCKER)
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": str(ws),
            "hook_event_name": "pre_tool_use",
            "tool_name": "shell",
            "tool_input": {"cmd": "ls", "CMD": "rm -rf ~"},
        }
    )
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    result = handle("docker-agent", payload, factory, options=HookOptions(env={}, cwd=str(ws)))
    decision = json.loads(result.stdout)["hook_specific_output"]["permission_decision"]
    assert decision != "allow"


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("shell", {"cmd": "rm -rf ~"}, "deny"),
        ("shell", {"cmd": "ls", "command": "rm -rf ~"}, "deny"),  # an alias the profile knows
        ("shell", {"cmd": "ls -la"}, "allow"),
        ("read_file", {"path": ".env"}, "deny"),
        ("read_file", {"path": "src/app.py"}, "allow"),
        ("read_multiple_files", {"paths": ["src/app.py", ".env"]}, "deny"),
        ("write_file", {"path": ".git/hooks/pre-commit", "content": "x"}, "deny"),
    ],
)
def test_docker_agent_exact_names_are_decided(
    docker: Engine, ws: Path, tool: str, args: dict, expected: str
) -> None:
    assert _decide(docker, tool, args, ws) == expected


# --- R12c-F3: a `when` on an alias of the primary argument ---------------------------------------

DOCKER_WHEN = """
version: 1
profile: docker-agent
default: ask
permissions:
  allow: ["shell"]
rules:
  - id: no-rm
    decision: deny
    match: shell
    when: 'args.{name}.matches("(^|[;&| ])rm ")'
    reason: deleting files needs a person
"""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"cmd": "rm -rf src", "command": "ls"}, id="alias-benign"),
        pytest.param({"cmd": "ls; rm -rf src", "command": "ls"}, id="alias-benign-chain"),
    ],
)
def test_a_deny_condition_on_the_alias_sees_the_command_that_runs(ws: Path, args: dict) -> None:
    """R12c-F3 (fixed): a `when` is evaluated with each value of the primary argument (and each of
    its shell readings) put in every spelling of it: a deny holds if it holds on any."""
    # The profile declares `command` an alias of docker-agent's `cmd` ("aliases of the primary
    # argument are the primary argument", docs/decisions.md), and the packs spell their shell
    # conditions `args.command`. docker-agent runs only `cmd` (`RunShellArgs{Cmd string
    # json:"cmd"}`; a `command` key is ignored), so the agent puts its `rm -rf src` there and `ls`
    # in `command`: the condition reads `ls`, the deny is skipped and `shell` allows the deletion.
    engine = _engine(DOCKER_WHEN.format(name="command"))
    assert _decide(engine, "shell", args, ws) == "deny"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("command", {"cmd": "rm -rf src"}),
        ("command", {"command": "rm -rf src"}),
        ("command", {"cmd": "ls", "command": "rm -rf src"}),
        ("cmd", {"cmd": "rm -rf src", "command": "ls"}),
        ("cmd", {"cmd": "ls", "command": "rm -rf src"}),
        ("cmd", {"command": "rm -rf src"}),
    ],
)
def test_a_deny_condition_holds_where_the_spellings_agree_or_it_names_the_primary(
    ws: Path, name: str, args: dict
) -> None:
    assert _decide(_engine(DOCKER_WHEN.format(name=name)), "shell", args, ws) == "deny"


# --- R12c-F4: `~` on tools that never expand it ---------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "tool", "args"),
    [
        pytest.param("docker-agent", "read_file", {"path": "~/../.env"}, id="docker-read"),
        pytest.param("docker-agent", "read_file", {"path": "~/x/../../secrets/api.key"}, id="docker-secrets"),
        pytest.param("docker-agent", "read_multiple_files", {"paths": ["~/../.env"]}, id="docker-many"),
        pytest.param("langchain", "read_file", {"file_path": "~/../.env"}, id="langchain-read"),
    ],
)
def test_tilde_is_a_plain_name_to_tools_that_never_expand_it(
    ws: Path, profile: str, tool: str, args: dict
) -> None:
    """R12c-F4 (fixed): a profile says how its tools read a leading `~` (`ToolSpec.tilde`); for
    docker-agent and LangChain the path is also read as a directory named `~` under the cwd."""
    # docker-agent resolves a relative path as `filepath.Clean(filepath.Join(workingDir, path))`
    # (`FilesystemTool.resolvePath`): `~` is an ordinary name and `Clean` removes it lexically with
    # the `..` after it, so `~/../.env` is `<workspace>/.env` whether or not a `~` exists. LangChain's
    # file tools (`get_validated_relative_path`: `(root_dir / path).resolve()`) do the same (checked:
    # `~/../.env` under a root_dir returns `<root_dir>/.env`). The engine reads `~` as the home
    # directory, so it decides `<home>/../.env`, which `read_file(./.env)` does not name, and the
    # read allow (or the read-only hint) returns the secrets.
    engine = _engine(
        f"version: 1\nprofile: {profile}\ndefault: ask\npermissions:\n"
        '  deny: ["read_file(./.env)", "read_file(./secrets/**)"]\n  allow: ["read_file"]\n'
    )
    assert _decide(engine, tool, args, ws) == "deny"


def test_tilde_writes_to_protected_paths_still_ask_in_yolo(ws: Path) -> None:
    # held: the protected-path check matches `.git/` and `.claude/` in the text as sent
    engine = _engine("version: 1\nprofile: docker-agent\ndefault: ask\nmode: yolo\n")
    for path in ("~/../.git/hooks/pre-commit", "~/../.claude/settings.json"):
        assert _decide(engine, "write_file", {"path": path, "content": "x"}, ws) == "ask", path
    assert _decide(engine, "write_file", {"path": "src/new.py", "content": "x"}, ws) == "allow"


def test_tilde_on_claude_code_is_the_home_directory(ws: Path) -> None:
    # held: Claude Code expands `~` (and the engine with it); a home deny meets `~/..`-free spellings
    home = ws.parent / "home"
    engine = _engine(
        f'version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  deny: ["Read(/{home}/.netrc)"]\n'
        '  allow: ["Read"]\n'
    )
    for path in ("~/.netrc", "~/./.netrc", "~/x/../.netrc", f"{home}//.netrc"):
        assert _decide(engine, "Read", {"file_path": path}, ws) == "deny", path


# --- R12c-F5: long path lists -----------------------------------------------------------------------

LISTS = """
version: 1
profile: {profile}
default: allow
permissions:
  deny: ["read_file(./.env)"]
"""


def _paths(n: int) -> list[str]:
    return [f"src/f{i}.py" for i in range(n - 1)] + [".env"]


@pytest.mark.parametrize(
    ("profile", "tool", "key"),
    [("docker-agent", "read_multiple_files", "paths"), ("gemini", "read_many_files", "include")],
)
def test_every_element_of_a_long_path_list_meets_the_deny(
    ws: Path, profile: str, tool: str, key: str
) -> None:
    """R12c-F5 (fixed): past 256 elements each path's lexical texts still meet the deny and ask
    rules (up to `views.MAX_PATH_LIST_DENY`); only the allow stops there."""
    # "everything but the secrets": `default: allow` and a read deny. docker-agent's
    # read_multiple_files reads every element of `paths` (Gemini's read_many_files every `include`
    # entry): the 257th returns `.env`. Up to 256 elements each path meets the deny; past that the
    # list is one JSON text no path pattern matches, and the call only asks (no mode lifts it).
    engine = _engine(LISTS.format(profile=profile))
    assert _decide(engine, tool, {key: _paths(257)}, ws) == "deny"


@pytest.mark.parametrize(
    ("profile", "tool", "key"),
    [("docker-agent", "read_multiple_files", "paths"), ("gemini", "read_many_files", "include")],
)
def test_long_path_lists_are_never_allowed(ws: Path, profile: str, tool: str, key: str) -> None:
    engine = _engine(LISTS.format(profile=profile))
    assert _decide(engine, tool, {key: _paths(256)}, ws) == "deny"
    assert _decide(engine, tool, {key: _paths(257)}, ws) != "allow"
    assert _decide(engine, tool, {key: [f"src/f{i}.py" for i in range(300)]}, ws) != "allow"


# --- URLs and addresses: probes that held -----------------------------------------------------------

FETCH = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["WebFetch(domain:evil.example)", "WebFetch(address:link-local)", "WebFetch(address:loopback)"]
  allow: ["WebFetch"]
"""


@pytest.fixture(scope="module")
def fetch() -> Engine:
    return _engine(FETCH)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example./x",
        "https://EVIL.example/x",
        "HTTPS://evil.example",
        "https://evil%2eexample/",
        "https://good.example@evil.example/",
        "https://good.example:pw@evil.example/",
        "https://evil.example:443/",
        "https://evil\u3002example/",  # ideographic full stop
        "https://\uff45vil.example/",  # fullwidth e
        "https://evi\u00adl.example/",  # soft hyphen: mapped to nothing by IDNA
        "https://evi\u200bl.example/",  # zero-width space
        "//evil.example/x",
        "evil.example/x",
        "https:/evil.example",
        "https:\\\\evil.example",
        "https://evil.example\\@good.example",
        "https://\tevil.example/",
        " https://evil.example/",
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://0xa9.0xfe.0xa9.0xfe/",
        "http://0251.0376.0251.0376/",
        "http://169.254.43518/",
        "http://169.254.169.254./",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fe80::1%25eth0]/",  # an IPv6 zone id (RFC 6874), as Python's requests sends it
        "http://[::ffff:169.254.169.254%25eth0]/",
        "http://[::1%251]/",
        "http://127.1/",
        "http://0x7f.1/",
        "http://\u2460\u2461\u2466.0.0.1/",  # circled digits: NFKC 127.0.0.1
    ],
)
def test_url_spellings_meet_the_domain_and_address_denies(fetch: Engine, ws: Path, url: str) -> None:
    assert _decide(fetch, "WebFetch", {"url": url, "prompt": "x"}, ws) == "deny"


@pytest.mark.parametrize(
    "url",
    [
        "https://good.example/",
        "https://evil.example%2f@good.example/",  # userinfo: the host is good.example
        "https://good.example#@evil.example",
        "https://good.example/?next=https://evil.example/",
    ],
)
def test_url_near_misses_stay_allowed(fetch: Engine, ws: Path, url: str) -> None:
    assert _decide(fetch, "WebFetch", {"url": url, "prompt": "x"}, ws) == "allow"


@pytest.mark.parametrize("url", [["https://evil.example/"], {"u": "https://evil.example/"}, 7])
def test_url_values_that_are_not_strings_are_never_allowed(fetch: Engine, ws: Path, url: object) -> None:
    assert _decide(fetch, "WebFetch", {"url": url, "prompt": "x"}, ws) != "allow"


def test_the_workspace_is_as_the_probes_expect(ws: Path) -> None:
    # the probes above rely on these files and on `~/..` not being the workspace
    assert (ws / ".env").read_text() == "SECRET=1\n"
    assert (ws / "secrets" / "api.key").is_file()
    assert os.path.normpath(str(ws.parent / "home" / "..")) != str(ws)
    assert posixpath.normpath(posixpath.join(str(ws), "~/../.env")) == str(ws / ".env")


# --- R12c-F4 (fixed): the edges of `~` per profile -------------------------------------------------


def test_tilde_both_ways_denies_on_either_reading_and_allows_only_when_both_are_allowed(ws: Path) -> None:
    home = ws.parent / "home"
    engine = _engine(
        "version: 1\nprofile: docker-agent\ndefault: ask\npermissions:\n"
        f'  deny: ["read_file(/{home}/.netrc)", "read_file(./.env)"]\n'
        f'  allow: ["write_file(/{home}/notes/**)", "write_file(./src/**)"]\n'
    )
    # the home reading still meets a home deny (a later agent may expand it; denying costs nothing)
    assert _decide(engine, "read_file", {"path": "~/.netrc"}, ws) == "deny"
    # the directory-named-`~` reading meets a cwd deny, also in a Windows spelling
    for path in ("~/../.env", "~\\..\\.env", "~/x/../../.env"):
        assert _decide(engine, "read_file", {"path": path}, ws) == "deny", path
    # an allow of the home does not cover `./~/notes/a`, which is what docker-agent writes
    assert _decide(engine, "write_file", {"path": "~/notes/a.md", "content": "x"}, ws) == "ask"
    assert _decide(engine, "write_file", {"path": f"{home}/notes/a.md", "content": "x"}, ws) == "allow"
    assert _decide(engine, "write_file", {"path": "src/app.py", "content": "x"}, ws) == "allow"


@pytest.mark.parametrize("profile", ["gemini", "cursor", "copilot", "cline", "codex", "generic"])
def test_tilde_on_profiles_not_verified_to_expand_it_is_read_both_ways(ws: Path, profile: str) -> None:
    from toolpolicy.policies.profiles import PROFILES

    assert PROFILES[profile].tilde == "both"
    assert PROFILES["claude-code"].tilde == "home"
    assert PROFILES["docker-agent"].tilde == PROFILES["langchain"].tilde == "both"


# --- R12c-F5 (fixed): the edges of long path lists ---------------------------------------------------


def test_long_path_lists_meet_deny_and_ask_up_to_the_deny_bound_and_are_never_allowed(ws: Path) -> None:
    from toolpolicy.runtime.views import MAX_PATH_LIST_DENY

    engine = _engine(
        "version: 1\nprofile: docker-agent\ndefault: allow\npermissions:\n"
        '  deny: ["read_file(./.env)"]\n  ask: ["read_file(./secrets/**)"]\n'
    )
    spellings = [".env", "./.env", "src/../.env/.", "~/../.env"]  # each as the tool opens it
    for spelling in spellings:
        paths = [f"src/f{i}.py" for i in range(MAX_PATH_LIST_DENY - 1)] + [spelling]
        assert _decide(engine, "read_multiple_files", {"paths": paths}, ws) == "deny", spelling
    paths = ["secrets/api.key"] + [f"src/f{i}.py" for i in range(400)]
    assert _decide(engine, "read_multiple_files", {"paths": paths}, ws) == "ask"
    # past the deny bound the list is one text: asked, never allowed (the default here is allow)
    paths = [f"src/f{i}.py" for i in range(MAX_PATH_LIST_DENY + 1)]
    assert _decide(engine, "read_multiple_files", {"paths": paths}, ws) == "ask"
    # a list with an element that is not a string is one text too: never allowed
    assert _decide(engine, "read_multiple_files", {"paths": [*paths[:300], 7]}, ws) == "ask"


# --- R12c-F1 (fixed): the edges of path readings in `when` -----------------------------------------

PATH_WHEN = """
version: 1
profile: claude-code
default: ask
mode: yolo
rules:
  - id: r
    decision: {decision}
    match: "Write|Read"
    when: '{when}'
"""


@pytest.mark.parametrize("tool", ["Write", "Read"])
def test_an_allow_condition_holds_on_the_normalised_path_and_its_exclusions_on_every_reading(
    ws: Path, tool: str
) -> None:
    args = {"content": "x"} if tool == "Write" else {}
    starts = _engine(PATH_WHEN.format(decision="allow", when='args.file_path.startsWith("src/")'))
    for path in ("src/app.py", "src/./app.py", "src//app.py"):
        assert _decide(starts, tool, {"file_path": path, **args}, ws) == "allow", path
    # `src/../.env` starts with `src/` as sent, not as the tool opens it: yolo asks instead (default)
    assert (
        str(starts.decide(tool, {"file_path": "src/../.env", **args}, context={"cwd": str(ws)}).source)
        != "rule"
    )
    excludes = _engine(PATH_WHEN.format(decision="allow", when='!args.file_path.endsWith(".env")'))
    assert _decide(excludes, tool, {"file_path": "src/app.py", **args}, ws) == "allow"
    for path in (".env/.", ".env/", "./.env//", "src/../.env/."):
        decided = excludes.decide(tool, {"file_path": path, **args}, context={"cwd": str(ws)})
        assert decided.source != "rule", path


def test_a_deny_or_ask_condition_on_the_absolute_or_relative_form_meets_any_spelling(ws: Path) -> None:
    absolute = _engine(PATH_WHEN.format(decision="deny", when=f'args.file_path == "{ws}/.env"'))
    relative = _engine(
        PATH_WHEN.format(decision="ask", when='args.file_path == ".env"').replace("yolo", "default")
    )
    for path in (".env", "./.env", ".env/.", f"{ws}//.env", "src/../.env"):
        assert _decide(absolute, "Write", {"file_path": path, "content": "x"}, ws) == "deny", path
        decided = relative.decide("Write", {"file_path": path, "content": "x"}, context={"cwd": str(ws)})
        assert (decided.decision, decided.rule) == ("ask", "r"), path
    # a path that is not `.env` is not denied by it
    assert _decide(absolute, "Write", {"file_path": ".env.example", "content": "x"}, ws) == "allow"


# --- R12c-F2 (fixed): the edges of argument names as Go reads them ----------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        # a lone case variant is the argument: decided as it (allowed when the value is)
        pytest.param("shell", {"CMD": "ls -la"}, "allow", id="lone-variant-allowed"),
        pytest.param("shell", {"Cmd": "rm -rf ~"}, "deny", id="lone-variant-denied"),
        # Go folds the long s and the Kelvin sign to ASCII letters: `pathſ` is `paths`
        pytest.param(
            "read_multiple_files", {"paths": ["src/app.py"], "path\u017f": [".env"]}, "deny", id="long-s"
        ),
        pytest.param("read_file", {"PATH": "src/app.py", "path": ".env"}, "deny", id="exact-last"),
        # a name that folds to none is not an argument (the tool ignores it)
        pytest.param("shell", {"cmd": "ls", "cmdx": "rm -rf ~"}, "allow", id="other-name"),
        # the directory the command runs in, spelt `CWD`: decided there (`//etc/shadow`)
        pytest.param("shell", {"cmd": "cat shadow", "CWD": "/etc"}, "deny", id="workdir-variant"),
    ],
)
def test_docker_agent_argument_name_edges(ws: Path, tool: str, args: dict, expected: str) -> None:
    engine = _engine(
        DOCKER.replace('"write_file(./.git/**)"', '"write_file(./.git/**)", "read_file(//etc/shadow)"')
    )
    assert _decide(engine, tool, args, ws) == expected


def test_another_argument_spelt_twice_differently_is_never_allowed(ws: Path) -> None:
    engine = _engine(DOCKER.replace("default: ask", "default: ask\nmode: yolo"))
    args = {"path": "src/new.py", "content": "ok", "Content": "other"}
    decided = engine.decide("write_file", args, context={"cwd": str(ws)})
    assert decided.decision == "ask" and "given twice" in decided.reason
    # the same value twice is one argument
    assert (
        _decide(engine, "write_file", {"path": "src/new.py", "content": "ok", "CONTENT": "ok"}, ws) == "allow"
    )


def test_only_go_decoding_profiles_fold_argument_names(ws: Path) -> None:
    from toolpolicy.policies.profiles import PROFILES

    assert {name for name, p in PROFILES.items() if p.fold_keys} == {"docker-agent", "generic"}
    claude = _engine(
        'version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  allow: ["Read(./src/**)"]\n'
    )
    # Claude Code validates its tools' input against a case-sensitive schema: `FILE_PATH` is not read
    assert _decide(claude, "Read", {"file_path": "src/app.py", "FILE_PATH": ".env"}, ws) == "allow"


# --- R12c-F3 (fixed): the edges of `when` on every spelling of the primary -------------------------


def test_an_allow_condition_must_hold_on_every_spelling_of_the_primary(ws: Path) -> None:
    engine = _engine(
        "version: 1\nprofile: docker-agent\ndefault: ask\nrules:\n"
        "  - {id: ls, decision: allow, match: shell, when: 'args.command.startsWith(\"ls\")'}\n"
    )
    assert _decide(engine, "shell", {"cmd": "ls -la"}, ws) == "allow"
    assert _decide(engine, "shell", {"cmd": "ls", "command": "ls -la"}, ws) == "allow"
    for args in ({"cmd": "rm -rf src", "command": "ls"}, {"cmd": "ls", "CMD": "rm -rf src"}):
        assert _decide(engine, "shell", args, ws) == "ask", args


def test_shell_readings_reach_every_spelling_of_the_primary(ws: Path) -> None:
    # bash reads `ip 'addr' 'del' x` as `ip addr del x`: a condition on the alias sees it too
    engine = _engine(
        "version: 1\nprofile: docker-agent\ndefault: ask\npermissions:\n  allow: [shell]\nrules:\n"
        "  - {id: no-del, decision: deny, match: shell, when: 'args.command.matches(\"ip addr del\")'}\n"
    )
    assert _decide(engine, "shell", {"cmd": "ip 'addr' 'del' x"}, ws) == "deny"
    assert _decide(engine, "shell", {"cmd": "ls", "command": "ip 'addr' \"del\" x"}, ws) == "deny"
    assert _decide(engine, "shell", {"cmd": "ip addr show"}, ws) == "allow"
