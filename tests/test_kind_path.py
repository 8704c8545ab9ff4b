"""The path kind: Claude Code path specifiers (compile_spec) against normalised path views (view)."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
import re2

from toolpolicy.runtime.kinds import TAG_CWD, ArgView, CallContext, CompiledPattern
from toolpolicy.runtime.kinds import path as kind
from toolpolicy.runtime.kinds.glob import GlobError, to_regex

CWD, HOME, POLICY_DIR = "/home/u/p", "/home/u", "/proj"
CTX = CallContext(cwd=CWD, home=HOME, policy_dir=POLICY_DIR)


@cache
def _re(regex: str) -> re2._Regexp:
    return re2.compile(regex)


def allowed(patterns: list[CompiledPattern], v: ArgView) -> bool:
    """An allow holds when every unit has an allow text matched by some allow pattern."""
    return all(any(_re(p.regex).fullmatch(t) for p in patterns for t in u.allow_texts) for u in v.units)


def denied(patterns: list[CompiledPattern], v: ArgView) -> bool:
    """A deny fires when any deny text (of any unit, or of the whole) matches any deny pattern."""
    texts = [t for u in v.units for t in u.deny_texts] + list(v.whole)
    return any(_re(p.regex).fullmatch(t) for p in patterns for t in texts)


def allow_spec(spec: str, fold: bool = False) -> CompiledPattern:
    return kind.compile_spec(spec, fold=fold, policy_dir=POLICY_DIR, home=HOME, for_allow=True)


def deny_spec(spec: str, fold: bool = False) -> CompiledPattern:
    return kind.compile_spec(spec, fold=fold, policy_dir=POLICY_DIR, home=HOME, for_allow=False)


def lexical(value: object, ctx: CallContext = CTX) -> ArgView:
    return kind.view(value, ctx, resolve_symlinks=False)


# (spec, value, allowed as an allow rule?, fires as a deny rule?) with cwd=/home/u/p,
# home=/home/u, policy dir=/proj; values are read lexically (no filesystem).
CASES = [
    # bare names: any depth under the cwd; as deny also anywhere
    (".env", "config/.env", True, True),
    (".env", ".env", True, True),
    (".env", "a/b/c/.env", True, True),
    (".env", "config/.env.example", False, False),
    (".env", "x.env", False, False),
    (".env", "/elsewhere/.env", False, True),
    (".env", ".env/inner", False, True),
    ("*.pem", "certs/server.pem", True, True),
    ("*.pem", "server.pem.bak", False, False),
    ("*.pem", "/etc/ssl/k.pem", False, True),
    ("secrets.json", "deploy/prod/secrets.json", True, True),
    ("?.txt", "a.txt", True, True),
    ("?.txt", "ab.txt", False, False),
    ("file\\*.txt", "file*.txt", True, True),
    ("file\\*.txt", "fileA.txt", False, False),
    ("[!a]x", "bx", True, True),
    ("[!a]x", "ax", False, False),
    ("[a-c]x", "d/bx", True, True),
    # `build/`: a directory at any depth and everything below it
    ("build/", "build/x", True, True),
    ("build/", "a/build/x/y", True, True),
    ("build/", "build", True, True),
    ("build/", "buildx/y", False, False),
    # single-segment directory patterns: allow anchored at the cwd, deny at any depth
    ("src/**", "src/main.ts", True, True),
    ("src/**", "src/a/b/c.ts", True, True),
    ("src/**", "/home/u/p/src/a.ts", True, True),
    ("src/**", "lib/src/main.ts", False, True),
    ("src/**", "src", False, True),
    ("src/**", "srcx/a", False, False),
    ("src/**", "/home/u/q/src/a", False, True),
    ("src/*", "src/a", True, True),
    ("src/*", "src/a/b", False, True),
    # multi-segment cwd patterns are anchored for allow and deny
    ("src/*.ts", "src/a.ts", True, True),
    ("src/*.ts", "src/a/b.ts", False, False),
    ("src/*.ts", "lib/src/a.ts", False, False),
    ("./.env", ".env", True, True),
    ("./.env", "a/.env", False, False),
    ("./src/**", "lib/src/a", False, False),
    ("x/../y", "y", True, True),
    ("x/../y", "a/y", False, False),
    # `**`
    ("a/**/b", "a/b", True, True),
    ("a/**/b", "a/x/b", True, True),
    ("a/**/b", "a/x/y/b", True, True),
    ("a/**/b", "a/xb", False, False),
    ("a/**/b", "ab", False, False),
    ("**/foo", "foo", True, True),
    ("**/foo", "x/y/foo", True, True),
    ("**/foo", "x/foox", False, False),
    ("**", "a/b", True, True),
    ("**", "/etc/passwd", False, False),
    ("a**b/c", "axyb/c", True, True),
    ("a**b/c", "ax/yb/c", False, False),
    # anchors: `//` root, `~` home, `/` policy directory
    ("//etc/*.conf", "/etc/resolv.conf", True, True),
    ("//etc/*.conf", "/etc/nginx/nginx.conf", False, False),
    ("//etc/passwd", "/etc//passwd", True, True),
    ("//etc/passwd", "/etc/./passwd", True, True),
    ("//etc/passwd", "/../../etc/passwd", True, True),
    ("//etc/passwd", "/etc/../etc/passwd", True, True),
    ("//etc/passwd", "../../../../etc/passwd", True, True),
    ("//etc/passwd", "src/../../../../../../etc/passwd", True, True),
    ("//etc/**", "/etc", False, True),
    ("///etc/./x/../passwd", "/etc/passwd", True, True),
    ("//", "/", True, True),
    ("//", "/etc", False, True),
    ("/secrets/**", "/secrets/api.key", False, False),
    ("/secrets/**", "/proj/secrets/api.key", True, True),
    ("/secrets/**", "/proj/secrets", False, True),
    ("/../x", "/x", True, True),
    ("~/Documents/*.pdf", "~/Documents/a.pdf", True, True),
    ("~/Documents/*.pdf", "/home/u/Documents/a.pdf", True, True),
    ("~/Documents/*.pdf", "~/Documents/x/a.pdf", False, False),
    ("~/Documents/*.pdf", "../Documents/b.pdf", True, True),
    ("~", "~", True, True),
    ("~", "/home/u/.ssh/id_rsa", False, True),
    ("~/.ssh/**", "~/.ssh/id_rsa", True, True),
    # traversal never escapes into an allow
    ("src/**", "src/../../etc/passwd", False, False),
    ("src/**", "src/../secrets/x", False, False),
    ("**", "../p2/x", False, False),
    ("**", "/home/u/p/../p2/x", False, False),
    # cwd itself
    (".", "/home/u/p", True, True),
    ("./", "/home/u/p/a/b", True, True),
]


@pytest.mark.parametrize(("spec", "value", "want_allow", "want_deny"), CASES)
def test_allow_and_deny(spec: str, value: str, want_allow: bool, want_deny: bool) -> None:
    v = lexical(value)
    assert allowed([allow_spec(spec)], v) is want_allow
    assert denied([deny_spec(spec)], v) is want_deny


@pytest.mark.parametrize(
    ("spec", "value", "fold", "want"),
    [
        (".ENV", "config/.env", True, True),
        (".ENV", "config/.env", False, False),
        ("//ETC/*.CONF", "/etc/a.conf", True, True),
        ("SRC/**", "src/a", True, True),
        ("SRC/**", "src/a", False, False),
    ],
)
def test_fold(spec: str, value: str, fold: bool, want: bool) -> None:
    v = lexical(value)
    assert allowed([allow_spec(spec, fold)], v) is want
    assert denied([deny_spec(spec, fold)], v) is want


@pytest.mark.parametrize(
    ("spec", "exact"),
    [
        ("//etc/passwd", True),
        ("src/a.ts", True),
        ("~/x", True),
        (".env", False),
        ("src/**", False),
        ("//etc/*", False),
        ("build/", False),
    ],
)
def test_exact_flag(spec: str, exact: bool) -> None:
    assert allow_spec(spec).exact is exact
    assert allow_spec(spec).source == spec


def test_cwd_patterns_start_with_the_cwd_tag() -> None:
    assert allow_spec("src/**").regex.startswith("(?s)" + TAG_CWD)
    assert allow_spec(".env").regex.startswith("(?s)" + TAG_CWD)
    assert not allow_spec("//etc/x").regex.startswith("(?s)" + TAG_CWD)


def test_policy_dir_anchoring_follows_the_policy_file() -> None:
    pattern = kind.compile_spec("/secrets/**", policy_dir="/other/place", home=HOME, for_allow=True)
    assert allowed([pattern], lexical("/other/place/secrets/k"))
    assert not allowed([pattern], lexical("/proj/secrets/k"))


def test_home_defaults_to_the_users_home() -> None:
    pattern = kind.compile_spec("~/x", policy_dir=POLICY_DIR, for_allow=True)
    ctx = CallContext(cwd=CWD, home=os.path.expanduser("~"), policy_dir=POLICY_DIR)
    assert allowed([pattern], lexical("~/x", ctx))


@pytest.mark.parametrize("spec", ["", "../x", "a/../../x", "[abc", "a\\", "[/]", "a\x01b", "a\x00"])
def test_bad_patterns_raise_glob_error(spec: str) -> None:
    with pytest.raises(GlobError):
        allow_spec(spec)


# ---------------------------------------------------------------- view: odd values


@pytest.mark.parametrize(
    ("value", "deny", "diagnostic"),
    [
        (None, None, "null"),
        (42, "42", "not a string"),
        (True, "true", "not a string"),
        (["a"], '\\["a"]', "not a string"),
        ("", "//home/u/p", "empty"),
        ("a\x00b", "a", "NUL"),
        ("a\x01b", "a?b", "control"),
        ("~root/x", "~root/**", "another user"),
        ("x/" * 3000 + "y", "y", "longer than"),
    ],
)
def test_odd_values_are_never_allowed(value: object, deny: str | None, diagnostic: str) -> None:
    v = lexical(value)
    assert not allowed([allow_spec("**"), allow_spec("//**"), allow_spec("*")], v)
    if deny is not None:
        assert denied([deny_spec(deny)], v)
    assert any(diagnostic in d for d in v.diagnostics)


def test_huge_path_with_resolution_does_not_crash() -> None:
    v = kind.view("/a" * 100_000, CTX)
    assert not allowed([allow_spec("//**")], v)
    assert denied([deny_spec("//a/**")], v)


def test_null_matches_nothing() -> None:
    v = lexical(None)
    assert not denied([deny_spec("**"), deny_spec("//**")], v)


@pytest.mark.parametrize(
    ("value", "allow", "deny_spec_", "want_allow", "want_deny"),
    [
        ("C:\\Users\\x", ["//c/Users/**"], "//c/Users/**", False, True),
        ("C:\\Users\\x", ["//c/Users/**", "**"], "//c/Users/x", True, True),
        ("c:/Users/x", ["//c/Users/**"], "//c/users/x", False, False),
        ("c:/Users/x", ["//c/Users/**", "c:/**"], "//c/Users/x", True, True),
        ("..\\..\\..\\..\\etc\\passwd", ["**"], "//etc/passwd", False, True),
        ("src\\a.ts", ["src/**"], "src/a.ts", False, True),
    ],
)
def test_windows_forms_need_both_readings(
    value: str, allow: list[str], deny_spec_: str, want_allow: bool, want_deny: bool
) -> None:
    v = lexical(value)
    assert allowed([allow_spec(s) for s in allow], v) is want_allow
    assert denied([deny_spec(deny_spec_)], v) is want_deny


def test_view_texts() -> None:
    v = lexical("./src/../src/a.ts")
    (unit,) = v.units
    assert unit.allow_texts == ("/home/u/p/src/a.ts", TAG_CWD + "src/a.ts", "src/a.ts")
    assert "./src/../src/a.ts" in unit.deny_texts
    assert "./src/../src/a.ts" not in unit.allow_texts
    outside = lexical("../q/x").units[0]
    assert outside.allow_texts == ("/home/u/q/x",)


def test_tilde_without_home_is_not_allowed() -> None:
    ctx = CallContext(cwd=CWD, home="", policy_dir=POLICY_DIR)
    assert not allowed([allow_spec("//**")], lexical("~/x", ctx))


# ---------------------------------------------------------------- colon-form plain globs


@pytest.mark.parametrize(
    ("glob", "value", "want_allow", "want_deny"),
    [
        ("/etc/*", "/etc/../etc/passwd", True, True),
        ("/etc/*", "../../../../etc/passwd", True, True),
        ("/tmp/*", "/tmp/x", True, True),
        ("/tmp/*", "/tmp/../etc/passwd", False, True),  # the raw text serves deny only
        ("/home/user/safe/*", "/home/user/safe/config.txt", True, True),
        ("src/*", "src/a.txt", True, True),
        ("src/*", "src/../../etc/passwd", False, True),
        ("*..*", "a/../b", False, True),
        ("*secret*", "x/secret/y", True, True),
    ],
)
def test_plain_globs_see_normalised_paths(glob: str, value: str, want_allow: bool, want_deny: bool) -> None:
    pattern = CompiledPattern(regex=to_regex(glob), exact=False, source=glob)
    v = lexical(value)
    assert allowed([pattern], v) is want_allow
    assert denied([pattern], v) is want_deny


# ---------------------------------------------------------------- symlinks (real files)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/proj (the cwd) with links out of it, tmp/outside/secret, and a symlinked alias of proj."""
    root = tmp_path.resolve()
    (root / "proj" / "src").mkdir(parents=True)
    (root / "outside").mkdir()
    (root / "outside" / "secret").write_text("s")
    (root / "proj" / "src" / "a.ts").write_text("a")
    (root / "proj" / "link").symlink_to(root / "outside" / "secret")
    (root / "proj" / "dirlink").symlink_to(root / "outside")
    (root / "proj" / "inlink").symlink_to(root / "proj" / "src" / "a.ts")
    (root / "proj" / "loop1").symlink_to(root / "proj" / "loop2")
    (root / "proj" / "loop2").symlink_to(root / "proj" / "loop1")
    (root / "alias").symlink_to(root / "proj")
    return root


def _ctx(cwd: Path) -> CallContext:
    return CallContext(cwd=str(cwd), home=HOME, policy_dir=POLICY_DIR)


def _abs(spec_path: Path, for_allow: bool, suffix: str = "") -> CompiledPattern:
    return kind.compile_spec("/" + str(spec_path) + suffix, policy_dir=POLICY_DIR, for_allow=for_allow)


def test_symlink_target_is_denied(tree: Path) -> None:
    v = kind.view("link", _ctx(tree / "proj"))
    assert denied([_abs(tree / "outside", False, "/**")], v)
    assert denied([CompiledPattern(to_regex(str(tree / "outside") + "/*"), False, "g")], v)


def test_symlink_allow_needs_link_and_target(tree: Path) -> None:
    ctx = _ctx(tree / "proj")
    v = kind.view("link", ctx)
    assert len(v.units) == 2
    assert not allowed([allow_spec("**")], v)
    assert not allowed([_abs(tree / "outside", True, "/**")], v)
    assert allowed([allow_spec("**"), _abs(tree / "outside", True, "/**")], v)


def test_symlink_inside_the_cwd_is_allowed(tree: Path) -> None:
    assert allowed([allow_spec("**")], kind.view("inlink", _ctx(tree / "proj")))


def test_dotdot_after_a_symlinked_directory_follows_the_kernel(tree: Path) -> None:
    # dirlink/.. is tmp (the link's target's parent), not proj: lexical `x` would be proj/x.
    v = kind.view("dirlink/../outside/secret", _ctx(tree / "proj"))
    assert denied([_abs(tree / "outside" / "secret", False)], v)
    assert not allowed([allow_spec("**")], v)


def test_new_file_under_a_symlinked_directory(tree: Path) -> None:
    v = kind.view("dirlink/new.txt", _ctx(tree / "proj"))
    assert denied([_abs(tree / "outside", False, "/**")], v)
    assert not allowed([allow_spec("dirlink/**")], v)


def test_symlinked_cwd_still_allows_cwd_patterns(tree: Path) -> None:
    v = kind.view("src/a.ts", _ctx(tree / "alias"))
    assert allowed([allow_spec("src/**")], v)


def test_symlink_loop_does_not_crash(tree: Path) -> None:
    v = kind.view("loop1/x", _ctx(tree / "proj"))
    assert denied([deny_spec("loop1/**")], v)


def test_resolve_symlinks_false_is_lexical(tree: Path) -> None:
    v = kind.view("link", _ctx(tree / "proj"), resolve_symlinks=False)
    assert len(v.units) == 1
    assert allowed([allow_spec("**")], v)


def test_relative_cwd_is_made_absolute(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "proj")
    v = kind.view("src/a.ts", CallContext(cwd=".", home=HOME, policy_dir=POLICY_DIR))
    assert allowed([allow_spec("src/**")], v)


def test_the_lexical_part_is_kept_but_symlinks_are_checked_on_every_view(tree: Path) -> None:
    """What the text alone decides is memoised; what the filesystem decides never is: a symlink
    made between two calls (`ln -s ~/.ssh/id_rsa x`, then `Read x`) must be seen."""
    ctx = _ctx(tree / "proj")
    assert kind.lexical("src/a.ts", ctx) is kind.lexical("src/a.ts", ctx)
    a_ts, secret = tree / "proj" / "src" / "a.ts", tree / "outside" / "secret"
    deny = [_abs(secret, for_allow=False)]
    for _ in range(3):  # the same text, the file swapped under it between calls, both ways
        assert not denied(deny, kind.view("src/a.ts", ctx))
        a_ts.unlink()
        a_ts.symlink_to(secret)
        assert denied(deny, kind.view("src/a.ts", ctx))
        a_ts.unlink()
        a_ts.write_text("a")


def test_a_dot_dot_after_a_symlink_is_read_both_ways(tmp_path: Path) -> None:
    """`WS/h/../h/.ssh/id_rsa` with `h -> HOME`: the kernel goes up from HOME (a missing file), an
    agent that normalises first (Node's `path.resolve`, then `fs.readFile`) opens HOME/.ssh/id_rsa.
    Both readings are decided (review 10b)."""
    import os

    from toolpolicy import Engine, load_policy

    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    ws.mkdir()
    (ws / "h").symlink_to(home)
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        policy = load_policy(
            text='version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Read(~/.ssh/**)"]\n'
        )
    finally:
        os.environ["HOME"] = saved or ""
    engine = Engine(policy, hooks=False)
    context = {"cwd": str(ws), "home": str(home)}
    for path in (f"{ws}/h/../h/.ssh/id_rsa", "h/../h/.ssh/id_rsa", "./h/../h/.ssh/../.ssh/id_rsa"):
        assert engine.decide("Read", {"file_path": path}, context=context).decision == "deny", path
    assert engine.decide("Read", {"file_path": "h/../ws/README"}, context=context).decision == "allow"


@pytest.mark.parametrize("fast", [True, False])
def test_a_path_that_cannot_be_read_plainly_is_never_allowed_even_by_the_default(fast: bool) -> None:
    """NUL bytes, over-long paths, control characters, `~user` that names nobody: no rule and no
    `default: allow` allows them (review 10b: `.env\\0` was allowed by the default)."""
    from toolpolicy import Engine, load_policy

    policy = load_policy(
        text='version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  allow: ["Read(**)"]\n'
    )
    engine = Engine(policy, hooks=False)
    engine._fast = fast
    for value in (".env\x00", "a\x00b", "x" * 5000, "/etc/x\x01y", "~no-such-user-here/x"):
        got = engine.decide("Read", {"file_path": value}, context={"cwd": "/tmp"})
        assert got.decision == "ask", (value[:20], got.reason)
    assert engine.decide("Read", {"file_path": "ok.txt"}, context={"cwd": "/tmp"}).decision == "allow"


def test_a_dot_dot_path_is_symlink_free_only_when_no_link_leads_to_it(tmp_path: Path) -> None:
    """The kernel resolves `..` from the directory it has reached: without a symlink on the way
    that is the lexical parent, so such a path may be decided by its lexical form; a link before
    the `..` (or after it) sends it the long way (`realpath`). A missing component before `..`
    fails the open itself (no file is named), which the probe counts as resolved."""
    (tmp_path / "a").mkdir()
    (tmp_path / "f").write_text("x\n")
    (tmp_path / "l").symlink_to(tmp_path / "a")
    for _ in range(kind.EARLY_CALLS + 1):  # past the lstat walk of a process's first calls
        kind.symlink_free("/")
    if not kind._OPENAT2 or kind._OPENAT2[0] is None:  # no openat2 (not Linux, seccomp): no shortcut
        assert not kind.symlink_free(f"{tmp_path}/a/../f")  # every `..` path takes the full walk
        return
    assert kind.symlink_free(f"{tmp_path}/a/../f")
    assert kind.symlink_free(f"{tmp_path}/a/../../{tmp_path.name}/f")
    assert not kind.symlink_free(f"{tmp_path}/l/../f")
    assert not kind.symlink_free(f"{tmp_path}/a/../l/x")
    assert kind.symlink_free(f"{tmp_path}/missing/../f")
