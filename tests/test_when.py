"""`when` conditions (SPEC 2.6): parsing errors with exact spans, CEL evaluation semantics,
error values and their absorption, functions and methods, regexes, has() guards, limits."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolpolicy.ast.when import Binary, Call, Has, Literal, Logical, Select, unparse
from toolpolicy.compiler.when import compile_when, compile_when_text, field_accesses_without_has
from toolpolicy.grammar import ExprError, clear_caches
from toolpolicy.grammar.when_parse import MAX_DEPTH, MAX_LENGTH, parse_when
from toolpolicy.runtime import cel
from toolpolicy.runtime.cel import CelError, evaluate_when

ENV = {
    "tool": "shell",
    "args": {
        "cmd": "sudo rm -rf /",
        "path": "/etc/.env",
        "n": 3,
        "f": 2.5,
        "flag": True,
        "none": None,
        "list": [1, "a", 2.0],
        "map": {"k": "v", "nested": {"deep": 1}},
        "odd-key": "odd",
        "héllo": "wörld",
        "emoji": "😀x",
        "empty": "",
        "0": "zero",
        "multi": "line one\nline two",
        "slow": "a" * 5000,
        "surrogate": "\ud800",
    },
    "context": {"cwd": "/home/u/proj", "mode": "default"},
}


def run(text: str, env: dict[str, object] | None = None, **kw: object) -> tuple[bool | None, str | None]:
    return evaluate_when(compile_when_text(text, **kw), ENV if env is None else env)  # type: ignore[arg-type]


def expr_error(text: str) -> tuple[ExprError, str]:
    """The error of compiling `text`, and the text its span underlines."""
    with pytest.raises(ExprError) as info:
        compile_when_text(text)
    err = info.value
    return err, text[err.start : err.end]


# ---- Evaluation: results that are bools

TRUE_CASES = [
    # literals and equality (CEL heterogeneous equality)
    "true",
    "!false",
    "null == null",
    "1 == 1.0",
    "1 != true",
    "0 != false",
    "null != false",
    '"a" == "a"',
    "'a' == \"a\"",
    '"a" != "b"',
    '[1, "a"] == [1, "a"]',
    "[1] == [1.0]",
    "[1, 2] != [2, 1]",
    "[] == []",
    "[[1], [2]] == [[1], [2.0]]",
    "0x10 == 16",
    "0XfF == 255",
    "1e3 == 1000",
    ".5 == 0.5",
    "1.5e-1 == 0.15",
    "-1 < 0",
    "--1 == 1",
    "-(1) == -1",
    "-args.n == -3",
    "-args.f < 0",
    # string literals and escapes
    r'"a\tb".size() == 3',
    r'"\x41" == "A"',
    r'"\u00e9" == "é"',
    r'"\U0001F600" == "😀"',
    r'"\101" == "A"',
    r"'it\'s' == " + '"it' + "'" + 's"',
    r'"q\"q".size() == 3',
    r'r"\d" == "\\d"',
    r"R'\w' == '\\w'",
    '"""a\nb""" == "a\\nb"',
    "'''x''' == 'x'",
    '"a" // trailing comment\n == "a"',
    # ordering
    "1 < 2",
    "2 <= 2",
    "3 > 2.5",
    "2.5 >= 2",
    '"abc" < "abd"',
    '"b" > "a"',
    '"é" > "z"',
    '"😀" < "😁"',
    '"" < "a"',
    # fields and keys
    'args.cmd == "sudo rm -rf /"',
    'args["odd-key"] == "odd"',
    "args['odd-key'] == 'odd'",
    'args["héllo"] == "wörld"',
    'args.map.k == "v"',
    'args.map["nested"].deep == 1',
    'args["map"]["nested"]["deep"] == 1.0',
    'args.list[1] == "a"',
    "args.list[2] == 2",
    "args.list[2.0] == 2",
    'args["0"] == "zero"',
    'context.cwd == "/home/u/proj"',
    'tool == "shell"',
    "args.flag",
    "args.flag == true",
    "args.none == null",
    "args.in == null || has(args.cmd)",
    # in
    '"a" in args.list',
    "2 in args.list",
    '!("b" in args.list)',
    '"k" in args.map',
    '!("v" in args.map)',
    "!(1 in args.map)",
    'tool in ["shell", "bash"]',
    "[1] in [[1], [2]]",
    '"cmd" in args',
    # functions and methods, both spellings
    "size(args.emoji) == 2",
    "args.emoji.size() == 2",
    "size(args.list) == 3",
    "args.map.size() == 2",
    "size([]) == 0",
    'size("") == 0',
    'size("e\u0301") == 2',
    'args.cmd.startsWith("sudo ")',
    'startsWith(args.cmd, "sudo")',
    'args.path.endsWith(".env")',
    'args.cmd.contains("rm -rf")',
    'args.cmd.contains("")',
    'lower("ÀB") == "àb"',
    '"ÀB".lower() == "àb"',
    'basename(args.path) == ".env"',
    'args.path.basename() == ".env"',
    'dirname(args.path) == "/etc"',
    'args.path.dirname() == "/etc"',
    'basename("/a/b/") == ""',
    'normpath("/a/./b/../c") == "/a/c"',
    '"a//b/".normpath() == "a/b"',
    'normpath("") == "."',
    'args.path.dirname().basename() == "etc"',
    'json(args.map) == \'{"k":"v","nested":{"deep":1}}\'',
    'args.map.json() == \'{"k":"v","nested":{"deep":1}}\'',
    'json(args["héllo"]) == \'"wörld"\'',
    'json([1, true, null, "x"]) == \'[1,true,null,"x"]\'',
    'json(args.f) == "2.5"',
    "json(args.list) == '[1,\"a\",2.0]'",
    # glob (whole-value plain globs, SPEC 2.2)
    'glob(args.path, "/etc/*")',
    'glob(args.path, "*.env")',
    '!glob(args.path, "/ETC/*")',
    'args.path.glob("/etc/?env")',
    'glob(args.multi, "line*two")',
    '!glob(args.path, "etc")',
    'glob(args.cmd, "[st]udo *")',
    # matches (RE2, search semantics)
    'args.cmd.matches("^sudo")',
    'args.cmd.matches("rm")',
    '!args.cmd.matches("^rm")',
    'matches(args.cmd, "s.do")',
    'args.emoji.matches("^.x$")',
    '!args.multi.matches("one.line")',
    'args.multi.matches("(?s)one.line")',
    'args.cmd.matches("(?i)SUDO")',
    r'args.cmd.matches(r"\brm\b")',
    r'args.cmd.matches("\\s-rf\\s")',
    'args["héllo"].matches("^w.rld$")',
    # matches on patterns only the fallback engine takes
    'args.cmd.matches("sudo(?= rm)")',
    'args.cmd.matches("(?<=sudo )rm")',
    r'"aab".matches("(a)\\1")',
    # logic
    "true && true",
    "false || true",
    "!(true && false)",
    "true && true && true && true",
    "false || false || true",
    "true || false && false",
    "(true || false) && true",
    "1 < 2 == true",
]

FALSE_CASES = [
    "false",
    "!true",
    "1 == true",
    "0 == false",
    "null == false",
    '"1" == 1',
    "[1, 2] == [2, 1]",
    "[1] == [1, 1]",
    '[1] == ["1"]',
    "1.5 >= 2",
    "args.n > 3",
    '"B" > "a"',
    "!args.flag",
    '"b" in args.list',
    '"v" in args.map',
    '"x" in []',
    'args.cmd.startsWith("rm")',
    'args.path.endsWith(".envx")',
    'args.cmd.contains("RM")',
    'glob(args.path, "/etc")',
    'args.cmd.matches("^rm")',
    "false && true",
    "true && false",
    "false || false",
    "(true || false) && false",
]


@pytest.mark.parametrize("text", TRUE_CASES)
def test_true(text: str) -> None:
    assert run(text) == (True, None)


@pytest.mark.parametrize("text", FALSE_CASES)
def test_false(text: str) -> None:
    assert run(text) == (False, None)


# ---- Evaluation: error values (never exceptions)

ERROR_CASES = [
    ("args.nope == 1", "no such key `nope` (in `args.nope`)"),
    ("args.nope.x == 1", "no such key `nope`"),
    ('args.map.nested.nope == ""', "no such key `nope` (in `args.map.nested.nope`)"),
    ("args.cmd.x == 1", "cannot select `x` from a string"),
    ('tool.name == "x"', "cannot select `name` from a string"),
    ("args.none.x == 1", "cannot select `x` from a null"),
    ("args.list[5] == 1", "index 5 out of range for a list of size 3"),
    ("args.list[-1] == 1", "index -1 out of range for a list of size 3"),
    ('args.list["a"] == 1', "a list index needs an int, got string"),
    ("args.list[true] == 1", "a list index needs an int, got bool"),
    ('args.cmd[0] == "s"', "cannot index a string"),
    ("args.map[1] == 1", "no such key `1`"),
    ('1 < "a"', "cannot compare int with string using `<`"),
    ("true < false", "cannot compare bool with bool using `<`"),
    ("null <= 1", "cannot compare null with int using `<=`"),
    ("[1] > [0]", "cannot compare list with list using `>`"),
    ('args.map >= ""', "cannot compare map with string using `>=`"),
    ('"a".startsWith(1)', "`startsWith()` needs a string argument, got int"),
    ('1.startsWith("a")', "`startsWith()` needs a string receiver, got int"),
    ('args.none.startsWith("a")', "`startsWith()` needs a string receiver, got null"),
    ('args.list.endsWith("a")', "`endsWith()` needs a string receiver, got list"),
    ("args.cmd.contains(args.n)", "`contains()` needs a string argument, got int"),
    ("size(1) == 1", "`size()` needs a string, a list or a map, got int"),
    ("args.flag.size() == 1", "`size()` needs a string, a list or a map, got bool"),
    ('lower(1) == "1"', "`lower()` needs a string, got int"),
    ('args.n.basename() == ""', "`basename()` needs a string, got int"),
    ('dirname(args.map) == ""', "`dirname()` needs a string, got map"),
    ('normpath(null) == ""', "`normpath()` needs a string, got null"),
    ('"a" in "abc"', "use `.contains()` to look for a substring"),
    ("1 in 1", "`in` needs a list or a map on its right, got int"),
    ("!args.cmd", "`!` needs a bool, got string"),
    ("-args.cmd == 1", "`-` needs a number, got string"),
    ("-args.flag == 1", "`-` needs a number, got bool"),
    ("args.cmd && true", "`&&` needs bools, got string"),
    ("args.cmd || false", "`||` needs bools, got string"),
    ("true && 1", "`&&` needs bools, got int"),
    ('args.n.matches("3")', "`matches()` needs a string, got int"),
    ('glob(args.n, "3")', "`glob()` needs a string, got int"),
    ("[args.nope] == []", "no such key `nope`"),
    ('json(args.nope) == ""', "no such key `nope`"),
    ("args.nope in [1]", "no such key `nope`"),
    ("1 in args.nope", "no such key `nope`"),
    ("args.nope != 1", "no such key `nope`"),
    ("args.nope == args.nope", "no such key `nope`"),
    ("!(args.nope == 1)", "no such key `nope`"),
    ('args.nope.startsWith("a")', "no such key `nope`"),
    ('"a".startsWith(args.nope)', "no such key `nope`"),
    ("size(args.nope) == 0", "no such key `nope`"),
    ("args.a == 1 && args.b == 1", "no such key `a`"),
    ('args.surrogate.matches("a")', "`matches()` cannot search this text"),
]


@pytest.mark.parametrize(("text", "message"), ERROR_CASES)
def test_error_values(text: str, message: str) -> None:
    result, error = run(text)
    assert result is None
    assert error is not None and message in error


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("args.cmd", "string"),
        ("args.n", "int"),
        ("args.none", "null"),
        ("args.map", "map"),
        ("args.list", "list"),
    ],
)
def test_non_bool_result_is_an_error(text: str, kind: str) -> None:
    assert run(text) == (None, f"condition must be a bool, got {kind}")


def test_errors_are_values_not_exceptions() -> None:
    fn = compile_when_text("args.nope == 1")
    value = fn(ENV)
    assert isinstance(value, CelError)
    assert value.message == "no such key `nope`" and value.expr == "args.nope"


def test_an_error_value_has_no_truth_value() -> None:
    # `if fn(env):` would otherwise treat an error as a match (fail open)
    with pytest.raises(TypeError):
        bool(CelError("x"))


def test_missing_root_in_env_is_an_error_value() -> None:
    result, error = run('context.cwd == "/"', {"tool": "t", "args": {}})
    assert result is None and error is not None and "`context` is not available" in error


def test_helper_bug_still_fails_closed() -> None:
    result, error = evaluate_when(compile_when_text("tool == 1"), None)  # type: ignore[arg-type]
    assert result is None and error is not None and error.startswith("internal error")


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"path": "/x"}, (True, None)), ({}, (False, None)), (None, (False, None)), ("text", (False, None))],
)
def test_has_guard_on_any_args(args: object, expected: tuple[bool | None, str | None]) -> None:
    env = {"tool": "t", "args": args, "context": {}}
    assert run('has(args.path) && args.path.startsWith("/")', env) == expected


# ---- Error absorption (CEL truth tables)

T, F, E, X = "true", "false", "(args.nope == 1)", "args.cmd"  # E: error value, X: non-bool
AND_TABLE = [
    (T, T, True), (T, F, False), (T, E, None), (T, X, None),
    (F, T, False), (F, F, False), (F, E, False), (F, X, False),
    (E, T, None), (E, F, False), (E, E, None), (X, F, False), (X, T, None),
]  # fmt: skip
OR_TABLE = [
    (T, T, True), (T, F, True), (T, E, True), (T, X, True),
    (F, T, True), (F, F, False), (F, E, None), (F, X, None),
    (E, T, True), (E, F, None), (E, E, None), (X, T, True), (X, F, None),
]  # fmt: skip


@pytest.mark.parametrize(("left", "right", "want"), AND_TABLE)
def test_and_absorbs_errors(left: str, right: str, want: bool | None) -> None:
    result, error = run(f"{left} && {right}")
    assert result is want
    assert (error is None) == (want is not None)


@pytest.mark.parametrize(("left", "right", "want"), OR_TABLE)
def test_or_absorbs_errors(left: str, right: str, want: bool | None) -> None:
    result, error = run(f"{left} || {right}")
    assert result is want
    assert (error is None) == (want is not None)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (f"{E} && {E} && false", False),
        (f"false && {E} && {E}", False),
        (f"{E} || {X} || true", True),
        (f"{E} && true && true", None),
        (f"!{E}", None),
        (f"!({F} && {E})", True),
        (f"!({T} || {E})", False),
        (f"({E} || true) && ({E} && false || true)", True),
    ],
)
def test_absorption_in_chains(text: str, want: bool | None) -> None:
    assert run(text)[0] is want


def test_first_error_is_reported() -> None:
    _, error = run("args.first == 1 && args.second == 1")
    assert error is not None and "`first`" in error


def test_false_and_short_circuits_slow_right_side(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = compile_when_text('false && args.slow.matches("(?=.)(a+)+b")')
    searched: list[object] = []
    real = cel.Regex.search
    monkeypatch.setattr(cel.Regex, "search", lambda self, *a: searched.append(a) or real(self, *a))
    assert evaluate_when(fn, ENV) == (False, None)
    assert searched == []  # the slow regex never ran
    assert evaluate_when(compile_when_text('true && args.slow.matches("(?=.)(a+)+b")'), ENV)[0] is None
    assert len(searched) == 1  # (the spy sees a search that runs)


# ---- has()

HAS_CASES = [
    ("has(args.cmd)", True),
    ("has(args.nope)", False),
    ("has(args.map.k)", True),
    ("has(args.map.nope)", False),
    ("has(args.nope.deeper)", False),
    ('has(args["odd-key"])', True),
    ("has(args['héllo'])", True),
    ("has(args.list[2])", True),
    ("has(args.list[3])", False),
    ("has(args.list[-1])", False),
    ("has(args.none)", True),
    ("has(args.none.x)", False),
    ("has(tool.x)", False),
    ("has(args.cmd.x)", False),
    ("has(args.map.nested.deep)", True),
    ("has(context.cwd)", True),
    ("has(args[args.nope])", False),
    ("!has(args.nope)", True),
]


@pytest.mark.parametrize(("text", "want"), HAS_CASES)
def test_has(text: str, want: bool) -> None:
    assert run(text) == (want, None)


# ---- Regexes: RE2 first, `regex` with a timeout as the fallback


@pytest.mark.parametrize(
    ("pattern", "engine"),
    [("^sudo", "re2"), (r"\d+", "re2"), (r"\p{L}", "re2"), ("a(?=b)", "regex"), ("(?<!a)b", "regex"),
     (r"(a)\1", "regex"), ("a{2000}", "regex")],
)  # fmt: skip
def test_regex_engine_choice(pattern: str, engine: str) -> None:
    assert cel.Regex(pattern).engine == engine


def test_regex_fallback_timeout_is_an_error_value() -> None:
    result, error = run('args.slow.matches("(?=.)(a+)+b")')
    assert result is None and error is not None and "timed out after 50 ms" in error


def test_regex_timeout_is_absorbed_by_a_deciding_side() -> None:
    assert run('args.slow.matches("(?=.)(a+)+b") || true') == (True, None)


def test_invalid_regex_is_a_compile_error_even_on_a_dead_branch() -> None:
    err, snippet = expr_error('false && args.cmd.matches("(")')
    assert err.code == "policy_parse_error" and err.message.startswith("invalid regex")
    assert snippet == '"("'


def test_glob_fold_option() -> None:
    assert run('glob(args.path, "/ETC/*")', glob_fold=True) == (True, None)
    assert run('glob(args.path, "/ETC/*")') == (False, None)


# ---- Compile-time and parse errors: code, message, underlined text, help

PARSE_ERRORS = [
    ("(a == 1", "expected `)` after `a == 1`", "", "the `(` is never closed"),
    ("size(args.x", "expected `)` after `args.x`", "", "the `(` is never closed"),
    ("[1, 2", "expected `]` after `1, 2`", "", "the `[` is never closed"),
    ('args["x"', 'expected `]` after `"x"`', "", "the `[` is never closed"),
    ("args.x == 1 && && true", "unexpected `&&`", "&&", "expected an expression"),
    ("args.x = 1", "unexpected `=`", "=", "use `==` to compare"),
    ("args.x & true", "unexpected `&`", "&", "use `&&`"),
    ("args.x | true", "unexpected `|`", "|", "use `||`"),
    ("args.x and args.y", "unexpected `and`", "and", "use `&&`"),
    ("args.x or args.y", "unexpected `or`", "or", "use `||`"),
    ("args.x args.y", "unexpected `args`", "args", "expected an operator or the end of the condition"),
    ("f(a b)", "unexpected `b`", "b", "expected an operator, `,` or `)`"),
    ("(a b)", "unexpected `b`", "b", "expected an operator or `)`"),
    ("[1 2]", "unexpected `2`", "2", "expected an operator, `,` or `]`"),
    ("args.x == ", "unexpected end of condition", "", "expected an expression"),
    ('args.x == "a" ||', "unexpected end of condition", "", "expected an expression"),
    ("args.x.", "unexpected end of condition", "", "expected a field or method name"),
    ("args.(", "unexpected `(`", "(", "expected a field or method name"),
    (")", "unexpected `)`", ")", "expected an expression"),
    ("(a))", "unexpected `)`", ")", None),
    ('"abc', "unterminated string", '"abc', "close it"),
    ("x == 'abc", "unterminated string", "'abc", "close it"),
    ('tool == r"abc', "unterminated string", 'r"abc', "close it"),
    ('"""abc', "unterminated string", '"""abc', "close it"),
    ('"ab\ncd"', "unterminated string", '"ab', "close it"),
    (r'"\d"', r"invalid escape `\d` in string", r"\d", 'raw string such as `r"\\d+"`'),
    (r'tool == "a\qb"', r"invalid escape `\q` in string", r"\q", None),
    (r'"\uD800" == ""', r"`\uD800` is not a valid code point", r"\uD800", None),
    (r'"\x4" == ""', r"invalid escape `\x` in string", r"\x", None),
    ("1e999 > 1", "float literal `1e999` is out of range", "1e999", None),
    ("1 + 2", "unexpected `+`", "+", "arithmetic is not supported"),
    ("a ? b : c", "unexpected `?`", "?", "`? :` is not supported"),
    ('{"a": 1}', "unexpected `{`", "{", "map literals are not supported"),
    ("tool == #", "unexpected `#`", "#", "expected an expression"),
    ("tool == 'x' ;", "unexpected `;`", ";", "expected an operator or the end of the condition"),
    ("", "empty condition", "", None),
    ("  \n ", "empty condition", "  \n ", None),
    ("has(args)", "`has()` takes one field access", "has(args)", "has(args.path)"),
    ("has(args.x, args.y)", "`has()` takes one field access", "has(args.x, args.y)", None),
    ("has(1)", "`has()` takes one field access", "has(1)", None),
]


@pytest.mark.parametrize(("text", "message", "snippet", "help"), PARSE_ERRORS)
def test_parse_errors(text: str, message: str, snippet: str, help: str | None) -> None:
    err, underlined = expr_error(text)
    assert err.message == message
    assert underlined == snippet
    if help is not None:
        assert err.help is not None and help in err.help
    assert err.code in ("policy_parse_error", "policy_type_error")


COMPILE_ERRORS = [
    ("x.y == 1", "unknown name `x`", "x", "did you mean `args.x`?"),
    ("arg.cmd == 1", "unknown name `arg`", "arg", "did you mean `args`?"),
    ("contex.cwd == 1", "unknown name `contex`", "contex", "did you mean `context`?"),
    ('Tool == "x"', "unknown name `Tool`", "Tool", "did you mean `tool`?"),
    ("args.x == True", "unknown name `True`", "True", "the literal is written `true`"),
    ("args.x == None", "unknown name `None`", "None", "`null`"),
    ("size == 1", "unknown name `size`", "size", "is a function"),
    ('args.x.startswith("a")', "unknown method `startswith`", "startswith", "did you mean `startsWith`?"),
    ("args.cmd.lowr() == 1", "unknown method `lowr`", "lowr", "did you mean `lower`?"),
    ("foo(1)", "unknown function `foo`", "foo", "the functions are `size()`"),
    ("args.x.has(1)", "unknown method `has`", "has", None),
    ("args.x.startsWith()", "`.startsWith()` takes 1 argument, got 0", "args.x.startsWith()", None),
    ("size(1, 2) == 1", "`size()` takes 1 argument, got 2", "size(1, 2)", None),
    ("args.cmd.lower(1) == 1", "`.lower()` takes 0 arguments, got 1", "args.cmd.lower(1)", None),
    ("glob(args.path) == 1", "`glob()` takes 2 arguments, got 1", "glob(args.path)", None),
    (
        "args.x.matches(args.y)",
        "the pattern of `matches()` must be a string literal",
        "args.y",
        "compiled once",
    ),
    ('glob(args.x, "a" + "b")', None, "+", None),
    ("glob(args.x, 1)", "the pattern of `glob()` must be a string literal", "1", None),
    ('args.x.matches("[")', "invalid regex: unterminated character set at position 1", '"["', None),
    ('matches(args.x, "a)")', None, '"a)"', None),
    ('glob(args.x, "[")', "invalid glob: unclosed `[` character class", '"["', None),
    ('glob(args.x, "a\\\\")', "invalid glob: trailing `\\` escapes nothing", '"a\\\\"', None),
    ('"a"', "condition must be a bool, got string", '"a"', "compare it"),
    ("1", "condition must be a bool, got int", "1", None),
    ("-1.5", "condition must be a bool, got float", "-1.5", None),
    ("[true]", "condition must be a bool, got list", "[true]", None),
    ("null", "condition must be a bool, got null", "null", None),
    ("tool", "condition must be a bool, got string", "tool", None),
    ('lower("A")', "condition must be a bool, got string", 'lower("A")', None),
    ("args.x.size()", "condition must be a bool, got int", "args.x.size()", None),
]


@pytest.mark.parametrize(("text", "message", "snippet", "help"), COMPILE_ERRORS)
def test_compile_errors(text: str, message: str | None, snippet: str, help: str | None) -> None:
    err, underlined = expr_error(text)
    if message is not None:
        assert err.message == message
    assert underlined == snippet
    if help is not None:
        assert err.help is not None and help in err.help


def test_error_codes() -> None:
    assert expr_error("(a")[0].code == "policy_parse_error"
    assert expr_error("x == 1")[0].code == "policy_type_error"
    assert expr_error('args.x.matches("(")')[0].code == "policy_parse_error"
    assert expr_error("!" * (MAX_DEPTH + 1) + "true")[0].code == "policy_limit_exceeded"


def test_spans_shift_into_file_coordinates() -> None:
    from toolpolicy.source import Location, Source, Span

    text = "when: 'args.x == 1 && && true'"
    source = Source("p.yaml", text)
    origin = Location(source, Span(7, 29), "rules[0].when")
    with pytest.raises(ExprError) as info:
        parse_when(text[7:29])
    located = info.value.locate(origin)
    assert located.location is not None
    span = located.location.span
    assert text[span.start : span.end] == "&&"
    assert span.start == text.index("&& true")


# ---- Limits


def test_depth_limit_is_inclusive() -> None:
    assert run("!" * MAX_DEPTH + "true")[0] is True
    assert run("(" * MAX_DEPTH + "true" + ")" * MAX_DEPTH) == (True, None)


@pytest.mark.parametrize(
    "text",
    [
        "!" * (MAX_DEPTH + 1) + "true",
        "(" * (MAX_DEPTH + 1) + "true" + ")" * (MAX_DEPTH + 1),
        "(" * 4000 + "true" + ")" * 4000,
        "!" * 9000 + "true",
        "[" * 3000 + "]" * 3000 + " == []",
        "lower(" * 1200 + '"a"' + ")" * 1200 + ' == "a"',
        "args" + ".a" * 3000 + " == 1",
        "-" * 9000 + "1 == 1",
    ],
)
def test_deep_nesting_is_a_limit_error_not_a_recursion_error(text: str) -> None:
    err, _ = expr_error(text)
    assert err.code == "policy_limit_exceeded"
    assert f"more than {MAX_DEPTH} levels" in err.message


def test_unbalanced_deep_nesting_is_a_parse_error() -> None:
    err, _ = expr_error("[" * 5000)
    assert err.code == "policy_parse_error"


def test_length_limit() -> None:
    text = "true && " * (MAX_LENGTH // 8) + "true"
    err, snippet = expr_error(text)
    assert err.code == "policy_limit_exceeded" and "longer than 10000" in err.message
    assert snippet == text[MAX_LENGTH:]


def test_long_flat_chains_are_fine() -> None:
    chain = " && ".join(["true"] * 1200)
    assert run(chain) == (True, None)
    big_list = "[" + ",".join(str(i) for i in range(1500)) + "]"
    assert run(f"1499 in {big_list}") == (True, None)


# ---- AST shape, spans, unparse


def test_ast_equality_ignores_spans() -> None:
    assert parse_when("a==1") == parse_when("  a  ==  1 ")
    assert parse_when("args.x") != parse_when("args.y")


def test_ast_shape_and_spans() -> None:
    text = 'has(args.p) && args.p.startsWith("/etc") || tool == "x"'
    node = parse_when(text)
    assert isinstance(node, Logical) and node.op == "||"
    left = node.operands[0]
    assert isinstance(left, Logical) and left.op == "&&"
    has, call = left.operands
    assert isinstance(has, Has) and text[has.span.start : has.span.end] == "has(args.p)"
    assert isinstance(call, Call) and call.name == "startsWith"
    assert text[call.span.start : call.span.end] == 'args.p.startsWith("/etc")'
    assert text[call.name_span.start : call.name_span.end] == "startsWith"
    assert isinstance(call.target, Select) and text[call.target.span.start : call.target.span.end] == "args.p"
    right = node.operands[1]
    assert isinstance(right, Binary) and right.op == "=="


def test_logical_chains_are_flat() -> None:
    node = parse_when("a && b && c && d")
    assert isinstance(node, Logical) and len(node.operands) == 4


def test_negative_literals_fold() -> None:
    node = parse_when("-1.5")
    assert isinstance(node, Literal) and node.value == -1.5


@pytest.mark.parametrize(
    "text",
    [
        'has(args.path) && args.path.endsWith(".env")',
        'args["odd-key"] == "v" || !(tool in ["a", "b"])',
        'lower(args.cmd).matches("^sudo\\\\s") && size(args.l) >= 2',
        "(a || b) && (c || d)",
        "-args.n < -1 && [1, 2.5, null, true] == []",
        '"tab\\there" == "quote\\"d"',
        "!!(a == b) != (c < d)",
    ],
)
def test_unparse_round_trips(text: str) -> None:
    node = parse_when(text)
    assert parse_when(unparse(node)) == node


# ---- has() guard analysis (for the `policy check` warning)

GUARD_CASES = [
    ("args.a == 1", ["args.a"]),
    ("has(args.a) && args.a == 1", []),
    ("args.a == 1 && has(args.a)", []),
    ("!has(args.a) || args.a == 1", []),
    ("has(args.a) || args.a == 1", ["args.a"]),
    ("has(args.a) && args.a.b == 1", ["args.a.b"]),
    ("has(args.a.b) && args.a.size() > 0", []),
    ('has(args["odd-key"]) && args["odd-key"] == 1', []),
    ('has(args.x) && args["x"] == 1', []),
    ("args.list[0] == 1", ["args.list[0]"]),
    ("has(args.list) && args.list[0] == 1", ["args.list[0]"]),
    ('context.cwd == "/"', []),
    ("size(args) > 0", []),
    ("has(args.a) && (args.a == 1 || args.b == 2)", ["args.b"]),
    ("(has(args.a) && has(args.b)) && args.b == 1", []),
    ("args[args.k] == 1", ["args[args.k]", "args.k"]),
    ('has(args.a) && args.a.startsWith("x") || args.c.endsWith("y")', ["args.c"]),
    ("lower(args.cmd).size() > 0", ["args.cmd"]),
    ("has(args.a) && (has(args.b) || args.a == args.b)", ["args.b"]),
]


@pytest.mark.parametrize(("text", "want"), GUARD_CASES)
def test_field_accesses_without_has(text: str, want: list[str]) -> None:
    found = field_accesses_without_has(parse_when(text))
    assert [path for path, _ in found] == want
    for path, span in found:
        assert text[span.start : span.end] == path


def test_field_accesses_without_has_other_roots() -> None:
    node = parse_when('context.cwd == "/" && args.a == 1')
    found = field_accesses_without_has(node, roots=("args", "context"))
    assert [path for path, _ in found] == ["context.cwd", "args.a"]


# ---- Compile once, never re-parse; runtime stays free of Lark and pydantic


def test_closures_never_reenter_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = compile_when_text('args.cmd.matches("^sudo") && glob(args.path, "/etc/*") && has(args.n)')
    clear_caches()  # a closure that needed the parser would now have to import Lark again
    for name in [m for m in sys.modules if m == "lark" or m.startswith("lark.")]:
        monkeypatch.setitem(sys.modules, name, None)
    try:
        assert evaluate_when(fn, ENV) == (True, None)
    finally:
        clear_caches()


def test_compile_accepts_a_parsed_node() -> None:
    node = parse_when("has(args.cmd)")
    assert evaluate_when(compile_when(node), ENV) == (True, None)


def test_runtime_module_imports_no_lark_or_pydantic() -> None:
    source = Path(cel.__file__).read_text(encoding="utf-8")
    absolute: set[str] = set()
    relative: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            absolute.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            absolute.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            relative.add("." * node.level + (node.module or ""))
    assert not absolute & {"lark", "pydantic", "toolpolicy"}
    assert relative <= {".kinds.glob"}  # the runtime layer only


# ---- Robustness: any text gives a node or an ExprError, nothing else

WORDS = ["args", "tool", "context", "has", "size", "in", "true", "null", "1", "2.5", "x", "r", '"a"', "&&"]
ALPHABET = st.sampled_from([*"()[]{}.,!-<>=&|\"'\\ \n", *WORDS])


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=20).map("".join))
def test_fuzz_only_expr_errors(text: str) -> None:
    try:
        fn = compile_when_text(text)
    except ExprError as err:
        assert 0 <= err.start <= err.end <= len(text)
        return
    result, error = evaluate_when(fn, ENV)
    assert (result is None) != (error is None)
