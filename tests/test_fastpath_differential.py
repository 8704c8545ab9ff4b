"""The fast path, the general flow and the reference interpreter agree on random policies and calls.

`tests/test_fastpath.py` replays the corpora both ways; this file generates what the corpora do
not hold: random Claude Code permission lists (Bash, Read/Edit/Write/Grep/Glob, WebFetch, MCP
tools, native `shell:` and bare tool globs), long-form rules with `when`, `priority` and `modes`,
declared tools with `read_only` and argument aliases, case-insensitive globs, every mode, in the
native YAML and in Claude Code's own `settings.json`; and calls of every shape the fast path
takes or refuses (chains, wrappers, redirections, symlinks, `..`, NUL, lone surrogates, non-ASCII,
numbers, alias spellings, the read-only hint).

Each example is decided by four engines, each over its own freshly loaded policy so that the
lazily built state (plans, the `few` candidate sets of a plan's first matches, the tool-glob
prefix sets, `Engine._fixed`) starts cold:

* the fast path (`Engine` as shipped), in call order;
* the general flow (`engine._fast = False`): the same `Decision`, field by field;
* the reference interpreter (`Engine(reference=True)`): the same decision;
* `adecide` (the flow as a generator, under asyncio): the same `Decision`;
* the fast path again, after `views.clear_memos()`, in a shuffled order, every call twice: the
  same `Decision` (no memo, warm-up or earlier call changes a decision).

A second test does the same with every `*M*` pattern split off as a floating substring
(`PatternSet`'s thresholds lowered to 1), which the small generated policies never reach by
themselves. A third decides with a policy read back from the hook's compiled-policy cache (a
pickle, with its lazily derived tool-glob prefixes) against a freshly compiled one.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from toolpolicy import Engine, load_policy
from toolpolicy.adapters.cache import load_policy_cached
from toolpolicy.errors import PolicyError
from toolpolicy.runtime import pattern_set
from toolpolicy.runtime.views import clear_memos

BASH_SPECS = [
    "rm -rf *", "rm:*", "git push:*", "git status", "git status*", "ls *", "ls:*", "* *pastebin*",
    "*forbidden*", "curl *", "npm run test:*", "cat *", "echo *", "sudo *", "find *", "git *", "*",
    "* --force*", "python3 *", "cat .env", "*rm -rf*", "grep *", "xargs *", "env *", "bash *",
    "sh -c *", "cd *", "git reset --hard*", "*.env*", "*secret*", "ls", "*  *", "tee *", "*é*",
    "*\\**", "*;*", "* && *",
]  # fmt: skip
PATH_SPECS = [
    "./src/**", "src/**", "**/.env", ".env", "~/.ssh/**", "//etc/**", "//etc/passwd", "*secret*",
    "**", "/src/*.py", "./**", "~/**", "**/*.py", "src/*", "//tmp/**", ".git/**", "**/.git/**",
    "*.env", "link", "**/*é*",
]  # fmt: skip
URL_SPECS = [
    "domain:evil.test",
    "domain:*.python.org",
    "domain:docs.python.org",
    "domain:*",
    "domain:example.com",
]
MCP = [
    "mcp__db__query(sql:*DROP*)", "mcp__db__*", "mcp__github__*", "mcp__*", "mcp__db__query",
    "mcp__db__query(sql:SELECT *)", "mcp__fs__read(path:*secret*)", "mcp__*(q:*x*)", "mcp__db__query(n:3)",
]  # fmt: skip
PLAIN = ["Bash", "Read", "Edit", "Write", "WebFetch", "Grep", "Glob", "WebSearch", "Task", "LS", "TodoWrite",
         "Bas*", "*", "NotebookEdit", "Agent", "Web*", "*Search", "mcp__*__x"]  # fmt: skip
NATIVE = ["shell:cmd=*forbidden*", "shell:cmd=rm *", "shell:cmd=git push *", "shell:cmd=*"]
WHENS = [
    'args.command.contains("x")', 'args.file_path.endsWith(".py")', "has(args.url)",
    'context.cwd.endsWith("cwd")', 'args.sql.startsWith("S")', "size(args.command) > 10",
    "args.missing.x == 1", 'tool == "Bash"', 'args.command.matches("^git")', "has(args.q)",
    'args.command.matches("(a|b)+$")', '!has(args.description) || args.description != "ok"',
]  # fmt: skip
DECISIONS = ("allow", "ask", "deny")
MODES = ("default", "yolo", "non_interactive")


def _expr(r: random.Random) -> str:
    x = r.random()
    if x < 0.4:
        return f"Bash({r.choice(BASH_SPECS)})"
    if x < 0.6:
        return f"{r.choice(['Read', 'Edit', 'Write', 'Grep', 'Glob'])}({r.choice(PATH_SPECS)})"
    if x < 0.7:
        return f"WebFetch({r.choice(URL_SPECS)})"
    if x < 0.85:
        return r.choice(MCP)
    if x < 0.9:
        return r.choice(NATIVE)
    return r.choice(PLAIN)


def policy_doc(r: random.Random) -> dict[str, Any]:
    """A native policy (profile claude-code) drawn with `r`."""
    doc: dict[str, Any] = {
        "version": 1,
        "profile": "claude-code",
        "default": r.choice(["ask", "ask", "allow", "deny"]),
        "mode": r.choice(["default", "default", "yolo", "non_interactive"]),
    }
    perms = {d: [_expr(r) for _ in range(r.randint(0, 6))] for d in DECISIONS}
    doc["permissions"] = {d: xs for d, xs in perms.items() if xs}
    rules = []
    for _ in range(r.randint(0, 3)):
        rule: dict[str, Any] = {
            "decision": r.choice(DECISIONS),
            "match": [_expr(r) for _ in range(r.randint(1, 2))],
        }
        if r.random() < 0.5:
            rule["when"] = r.choice(WHENS)
        if r.random() < 0.3:
            rule["priority"] = r.randint(-1, 3)
        if r.random() < 0.2:
            rule["modes"] = [r.choice(MODES)]
        if r.random() < 0.1 and rule["decision"] == "allow":
            rule["allow_redirection"] = True
        rules.append(rule)
    if rules:
        doc["rules"] = rules
    if r.random() < 0.3:
        doc["tools"] = {
            "mcp__fs__read": {
                "kind": "path",
                "arg": "path",
                "read_only": r.random() < 0.5,
                "aliases": {"p": "path"},
            },
            "mcp__db__query": {
                "kind": "generic",
                "arg": "sql",
                "read_only": r.random() < 0.5,
                "aliases": {"query": "sql"},
            },
            "mcp__sh__run": {"kind": "shell", "arg": "cmd", "aliases": {"command": "cmd"}},
            "mcp__web__get": {"kind": "url", "arg": "url", "read_only": r.random() < 0.5},
        }
    if r.random() < 0.15:
        doc["glob"] = {"case": "insensitive"}
    return doc


def settings_doc(r: random.Random) -> dict[str, Any]:
    """Claude Code's own settings.json (the importer's format)."""
    perms: dict[str, Any] = {d: [_expr(r) for _ in range(r.randint(0, 6))] for d in DECISIONS}
    perms = {d: [x for x in xs if not x.startswith("shell:")] for d, xs in perms.items()}
    if r.random() < 0.5:
        perms["defaultMode"] = r.choice(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"])
    return {"permissions": perms}


CMDS = [
    "ls", "ls -la", "git status", "git push origin main", "rm -rf /", "rm -rf build", "cat .env", "cat src/a.py",
    "echo hi > out.txt", "echo x > .claude/settings.json", "curl https://pastebin.com/x", "sudo rm x",
    "find . -exec rm {} +", "xargs rm", "env rm -rf /", "bash -c 'rm -rf /'", "cd src && rm -rf ..",
    "git status; rm -rf /", "ls && git push", "ls | grep x", "npm run test:unit", "echo forbidden", "echo $(id)",
    "ls `id`", "grep 'rm -rf' f", 'echo "git reset --hard"', "python3 x.py", "ls  -la", "ls\t-la", "ls\n-la",
    "ls #x", "tee .env", "cat < .env", "ls > /etc/passwd", "git reset --hard HEAD", "a=1 ls", "PATH=/tmp ls",
    "ls é", "cat ~/.ssh/id_rsa", "ls; ls; ls", "rm -r -f /", "command rm -rf /", "echo secret", "cat link",
    "cp a .env", "ls --force", "ls\x00rm -rf /", "ls \ud800", "cat /etc/passwd", "exec rm -rf /", "x" * 40,
    "ls a;b", "echo a && b", "cat src/*.py", "cat ~/.ss?/id_rsa", "ls {a,b}", "$'rm' -rf /", "ls\rrm x",
    "cat \\.env", "ls *", "echo '*'", "echo x >> src/a.py", "cd /etc && cat passwd",
]  # fmt: skip
PATHS = [
    "src/a.py", "./src/a.py", "/etc/passwd", "~/.ssh/id_rsa", "link", "src/../../x", "é.txt", ".env",
    "src/envlink", "src/.env", "secret.txt", "src/sub/", "/tmp/x", "src//a.py", "SRC/A.PY", "~/x",
    ".git/config", ".claude/settings.json", "\ud800", "a\x00b", "", "*", "/etc/*", "~", "/", "src/./a.py",
    "e\u0301.txt", "src\\a.py", "x" * 300,
]  # fmt: skip
URLS = [
    "https://docs.python.org/3/", "https://evil.test/x", "https://EVIL.test./", "http://x.python.org",
    "https://evil.test@good.com", "https://good.com@evil.test/", "ftp://evil.test", "not a url",
    "https://example.com/\\@evil.test", "https://127.1/", "https://evil%2etest/", "https://xn--e1afmkfd.test/",
    "HTTPS://Docs.Python.Org", "https://docs.python.org:443/",
]  # fmt: skip
ODD_TOOLS = [
    "WebSearch", "Task", "TodoWrite", "Agent", "agent", "Unknown", "bash", "BASH", "Bash", "mcp__DB__query",
    "Bash\ud800", "\uff22ash", "Bash\x00", " Bash", "Bas\u0307h", "mcp__db__query\x00", "Web\u200bFetch",
    "mcp__", "", "\u00df", "ss", "ReAd",
]  # fmt: skip
SQL = ["DROP TABLE x", "SELECT 1", "select drop", "SELECT DROP", "x", "", "DR\x00OP", "DROP\ud800"]


LONG_SIZES = [
    2047,
    2048,
    2049,
    4095,
    4096,
    4097,
    9999,
    10000,
    10001,
    16385,
    70000,
]  # the kinds' and sets' bounds
LONG_FILLS = ["a", " ", "/", "a/", "x ", "\u00e9", ";ls", "&&rm -rf /;", "*"]


def call(r: random.Random, cwd: str) -> tuple[Any, Any]:
    tool, args = _call(r, cwd)
    if r.random() < 0.03 and isinstance(args, dict) and args:  # one value at a size bound
        key = r.choice(list(args))
        if isinstance(args[key], str):
            size, fill = r.choice(LONG_SIZES), r.choice(LONG_FILLS)
            value = (args[key] + fill * size)[:size]
            args = {**args, key: value + (" rm -rf /" if r.random() < 0.5 else "")}
    return tool, args


def _call(r: random.Random, cwd: str) -> tuple[Any, Any]:
    x = r.random()
    if x < 0.4:
        c = r.choice(CMDS)
        if r.random() < 0.2:
            c = c + r.choice([" ", "; ", " && ", " | "]) + r.choice(CMDS)
        args: dict[str, Any] = {"command": c}
        if r.random() < 0.1:
            args["description"] = r.choice(["x", "forbidden", "DROP", "ok"])
        if r.random() < 0.05:
            args["timeout"] = 5
        if r.random() < 0.03:
            args = {"command": [c]}
        return "Bash", args
    if x < 0.65:
        tool = r.choice(["Read", "Edit", "Write", "Grep", "Glob", "LS", "MultiEdit", "NotebookEdit"])
        key = {"Grep": "path", "Glob": "path", "LS": "path", "NotebookEdit": "notebook_path"}.get(
            tool, "file_path"
        )
        path = r.choice(PATHS)
        if r.random() < 0.1:
            path = os.path.join(cwd, path)
        args = {key: path}
        if tool == "Glob" and r.random() < 0.5:
            args = {"pattern": r.choice(["**/*.py", "/etc/*", "~/.ss?/*", ".env", "src/[a]*"])}
        if tool == "Grep":
            args["pattern"] = "x"
        return tool, args
    if x < 0.75:
        return "WebFetch", {"url": r.choice(URLS)} if r.random() < 0.95 else {"url": 7}
    if x < 0.92:
        tool = r.choice(["mcp__db__query", "mcp__db__other", "mcp__github__x", "mcp__fs__read", "mcp__x__y",
                         "mcp__sh__run", "mcp__web__get", "mcp__a__x"])  # fmt: skip
        args = {}
        for _ in range(r.randint(0, 2)):
            args[r.choice(["sql", "query", "path", "p", "q", "cmd", "command", "url"])] = r.choice(
                SQL + PATHS[:8] + CMDS[:8] + URLS[:3]
            )
        if r.random() < 0.1:
            args["n"] = r.choice([3, 3.0, True, None, [1], {"a": 1}])
        return tool, args
    tool = r.choice(ODD_TOOLS)
    return tool, r.choice([{}, {"q": "x"}, {"command": "rm -rf /"}, {"prompt": "x"}, None, "x", [1]])


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diff")
    cwd = root / "cwd"
    (cwd / "src" / "sub").mkdir(parents=True)
    (cwd / ".git").mkdir()
    (cwd / "src" / "a.py").write_text("x")
    (cwd / ".env").write_text("S=1")
    (cwd / "link").symlink_to("/etc/passwd")
    (cwd / "src" / "envlink").symlink_to(cwd / ".env")
    return root


def _load(root: Path, n: int, doc: dict[str, Any], as_settings: bool) -> list[Any] | None:
    path = root / f"p{n}" / ("settings.json" if as_settings else "policy.yaml")
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(doc) if as_settings else yaml.safe_dump(doc, allow_unicode=True))
    fmt = "claude-code" if as_settings else None
    try:
        return [load_policy(str(path), format=fmt) for _ in range(4)]
    except PolicyError:
        return None


COUNTER = iter(range(10**9))


async def _adecide_all(engine: Engine, calls: list[Any], hints: list[Any], contexts: list[Any]) -> list[Any]:
    return [
        await engine.adecide(tool, args, context=ctx, read_only=hint)
        for (tool, args), hint, ctx in zip(calls, hints, contexts, strict=True)
    ]


def _check(root: Path, r: random.Random) -> None:
    as_settings = r.random() < 0.25
    doc = settings_doc(r) if as_settings else policy_doc(r)
    policies = _load(root, next(COUNTER), doc, as_settings)
    if policies is None:
        return
    cwd = str(root / "cwd")
    calls = [call(r, cwd) for _ in range(24)]
    hints = [r.choice([None, None, True, False]) for _ in calls]
    contexts = [{"cwd": cwd} if r.random() < 0.9 else {"cwd": cwd, "home": str(root)} for _ in calls]
    mode = r.choice([None, None, *MODES])
    fast = Engine(policies[0], hooks=False, mode=mode)
    general = Engine(policies[1], hooks=False, mode=mode)
    general._fast = False
    reference = Engine(policies[2], hooks=False, mode=mode, reference=True)
    flow = Engine(policies[2], hooks=False, mode=mode)
    flowed = asyncio.run(_adecide_all(flow, calls, hints, contexts))
    first = []
    for (tool, args), hint, ctx, d in zip(calls, hints, contexts, flowed, strict=True):
        a = fast.decide(tool, args, context=ctx, read_only=hint)
        b = general.decide(tool, args, context=ctx, read_only=hint)
        c = reference.decide(tool, args, context=ctx, read_only=hint)
        where = (doc, tool, args, hint, mode)
        assert a == b, (where, a, b)
        assert a.to_json() == b.to_json(), where
        assert a.decision == c.decision, (where, a, c)
        assert a == d, (where, a, d)
        first.append(a)
    clear_memos()
    again = Engine(policies[3], hooks=False, mode=mode)
    order = [i for i in range(len(calls)) for _ in range(2)]
    r.shuffle(order)
    for i in order:
        (tool, args), hint, ctx = calls[i], hints[i], contexts[i]
        d = again.decide(tool, args, context=ctx, read_only=hint)
        assert d == first[i], ((doc, tool, args, hint, mode), first[i], d)


SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@seed(7001)
@SETTINGS
@given(st.integers(0, 2**32))
def test_fast_general_and_reference_decide_alike(workspace: Path, n: int) -> None:
    _check(workspace, random.Random(n))


@contextmanager
def _floating_always() -> Iterator[None]:
    """Every `*M*` pattern of a set split off as a floating substring, whatever the set's size
    (the module's thresholds, which a set made with no thresholds of its own reads)."""
    saved = pattern_set.FLOATING_FROM, pattern_set.SPLIT_PRODUCT
    pattern_set.FLOATING_FROM = pattern_set.SPLIT_PRODUCT = 1
    try:
        probe = pattern_set.PatternSet([(pattern_set.ALLOW, "a.*b"), (pattern_set.DENY, ".*x.*")])
        assert probe._params == (1, 1), "a set made with no thresholds reads the module's"
        yield
    finally:
        pattern_set.FLOATING_FROM, pattern_set.SPLIT_PRODUCT = saved


@seed(7002)
@settings(SETTINGS, max_examples=100)
@given(st.integers(0, 2**32))
def test_floating_substrings_decide_as_the_reference(workspace: Path, n: int) -> None:
    with _floating_always():
        _check(workspace, random.Random(n))


@seed(7003)
@settings(SETTINGS, max_examples=60)
@given(st.integers(0, 2**32))
def test_a_policy_read_from_the_hook_cache_decides_as_a_fresh_one(workspace: Path, n: int) -> None:
    """The compiled-policy cache pickles a policy with lazily derived data (the tool-glob prefixes):
    a hook's engine over the unpickled policy, cold, decides as the general flow over a fresh one."""
    r = random.Random(n)
    doc = policy_doc(r)
    path = workspace / f"cached{next(COUNTER)}" / "policy.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    old = time.time() - 10
    os.utime(path, (old, old))  # a file not being written right now: the cache keeps its entry
    env = {"TOOLPOLICY_CACHE_DIR": str(workspace / "cache")}
    try:
        written = load_policy_cached(str(path), enabled=True, env=env)
    except PolicyError:
        return
    cached = load_policy_cached(str(path), enabled=True, env=env)
    assert cached is not written, "the second load is the cache's entry"
    fast = Engine(cached, hooks=False)
    general = Engine(load_policy(str(path)), hooks=False)
    general._fast = False
    cwd = str(workspace / "cwd")
    for _ in range(24):
        tool, args = call(r, cwd)
        a = fast.decide(tool, args, context={"cwd": cwd})
        b = general.decide(tool, args, context={"cwd": cwd})
        assert (a.decision, a.reason, a.rule) == (b.decision, b.reason, b.rule), (doc, tool, args, a, b)
