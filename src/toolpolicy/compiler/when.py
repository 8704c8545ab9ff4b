"""Compile `when` conditions (SPEC 2.6): `when_ast` nodes -> a tree of Python closures.

Everything that can be done once is done here: names, functions and arities are checked,
`matches()` regexes and `glob()` patterns are compiled, error-message texts are rendered. The
closures only call `toolpolicy.runtime.cel` helpers, so deciding a call never parses anything.
A compiled condition takes `{"tool": str, "args": object, "context": dict}` and returns
True, False or a `CelError`; run it with `toolpolicy.runtime.cel.evaluate_when`.

`field_accesses_without_has` is the static check behind `policy check`'s has()-guard warning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import did_you_mean
from ..grammar import ExprError
from ..grammar.when_ast import (
    Binary,
    Call,
    Has,
    Ident,
    Index,
    ListLit,
    Literal,
    Logical,
    Node,
    Select,
    Unary,
    children,
    unparse,
)
from ..runtime import cel
from ..runtime.cel import WhenFn
from ..runtime.kinds.glob import GlobError
from ..source import Span

__all__ = ["ROOTS", "WhenFn", "compile_when", "compile_when_text", "field_accesses_without_has"]

ROOTS = ("tool", "args", "context")
TYPE_ERROR = "policy_type_error"
Env = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class _Function:
    """A function or method: `arity` counts the receiver; `pattern` marks a literal pattern operand."""

    impl: Callable[..., object] | None
    arity: int
    result: str  # static result type, for the top-level "must be a bool" check
    pattern: str | None = None  # "regex" | "glob"


# Every function may be called as `f(x, ...)` or as a method `x.f(...)`.
FUNCTIONS: dict[str, _Function] = {
    "size": _Function(cel.size, 1, "int"),
    "lower": _Function(cel.lower, 1, "string"),
    "basename": _Function(cel.basename, 1, "string"),
    "dirname": _Function(cel.dirname, 1, "string"),
    "normpath": _Function(cel.normpath, 1, "string"),
    "json": _Function(cel.to_json, 1, "string"),
    "stable_json": _Function(cel.to_stable_json, 1, "string"),
    "startsWith": _Function(cel.starts_with, 2, "bool"),
    "endsWith": _Function(cel.ends_with, 2, "bool"),
    "contains": _Function(cel.contains, 2, "bool"),
    "matches": _Function(None, 2, "bool", "regex"),
    "glob": _Function(None, 2, "bool", "glob"),
}


def compile_when_text(text: str, *, glob_fold: bool = False) -> WhenFn:
    """Parse and compile one condition; raises `ExprError` (expression coordinates)."""
    from ..grammar.when_parse import parse_when  # only here: closures are rebuilt without Lark

    return compile_when(parse_when(text), glob_fold=glob_fold)


def compile_when(node: Node, *, glob_fold: bool = False) -> WhenFn:
    """Compile a parsed condition; `glob_fold` makes `glob()` case-insensitive (policy `glob.case`)."""
    fn = _Compiler(glob_fold).compile(node)
    kind = _static_type(node)
    if kind not in (None, "bool"):
        raise ExprError(
            f"condition must be a bool, got {kind}",
            node.span.start,
            node.span.end,
            code=TYPE_ERROR,
            help="compare it, e.g. `args.force == true`",
        )
    return fn


def _where(node: Node) -> str:
    text = unparse(node)
    return text if len(text) <= 60 else text[:59] + "…"


def _error(message: str, span: Span, help: str | None = None) -> ExprError:
    return ExprError(message, span.start, span.end, code=TYPE_ERROR, help=help)


class _Compiler:
    """One method per node type; each returns a closure `env -> value | CelError`."""

    def __init__(self, glob_fold: bool) -> None:
        self.glob_fold = glob_fold

    def compile(self, node: Node) -> WhenFn:
        return getattr(self, f"_{type(node).__name__.lower()}")(node)

    def _literal(self, node: Literal) -> WhenFn:
        value = node.value
        return lambda env: value

    def _listlit(self, node: ListLit) -> WhenFn:
        if all(isinstance(i, Literal) for i in node.items):
            constant = tuple(i.value for i in node.items)  # type: ignore[union-attr]
            return lambda env: constant
        items = [self.compile(i) for i in node.items]
        return lambda env: cel.make_list([item(env) for item in items])

    def _ident(self, node: Ident) -> WhenFn:
        name = node.name
        if name not in ROOTS:
            raise _error(f"unknown name `{name}`", node.span, _name_help(name))
        return lambda env: cel.ident(env, name)

    def _select(self, node: Select) -> WhenFn:
        operand, name, where = self.compile(node.operand), node.name, _where(node)
        return lambda env: cel.select(operand(env), name, where)

    def _index(self, node: Index) -> WhenFn:
        operand, key, where = self.compile(node.operand), self.compile(node.index), _where(node)
        return lambda env: cel.index(operand(env), key(env), where)

    def _has(self, node: Has) -> WhenFn:
        target = node.operand
        operand = self.compile(target.operand)
        if isinstance(target, Select):
            name = target.name
            return lambda env: cel.has_field(operand(env), name)
        key = self.compile(target.index)
        return lambda env: cel.has_field(operand(env), key(env))

    def _unary(self, node: Unary) -> WhenFn:
        operand, where = self.compile(node.operand), _where(node)
        if node.op == "!":
            return lambda env: cel.logical_not(operand(env), where)
        return lambda env: cel.negate(operand(env), where)

    def _binary(self, node: Binary) -> WhenFn:
        left, right = self.compile(node.left), self.compile(node.right)
        op, where = cel.RELATIONS[node.op], _where(node)
        return lambda env: op(left(env), right(env), where)

    def _logical(self, node: Logical) -> WhenFn:
        fns, where = tuple(self.compile(o) for o in node.operands), _where(node)
        combine = cel.all_of if node.op == "&&" else cel.any_of
        return lambda env: combine(fns, env, where)

    def _call(self, node: Call) -> WhenFn:
        spec = _lookup(node)
        operands = ((node.target,) if node.target is not None else ()) + node.args
        if spec.pattern is not None:
            return self._pattern_call(node, spec.pattern, operands)
        fns, where, impl = [self.compile(o) for o in operands], _where(node), spec.impl
        assert impl is not None
        if len(fns) == 1:
            (first,) = fns
            return lambda env: impl(first(env), where)
        first, second = fns
        return lambda env: impl(first(env), second(env), where)

    def _pattern_call(self, node: Call, kind: str, operands: tuple[Node, ...]) -> WhenFn:
        value, where = self.compile(operands[0]), _where(node)
        if kind == "regex":
            regex = _compile_regex(operands[1], node.name)
            return lambda env: regex.search(value(env), where)
        glob = _compile_glob(operands[1], node.name, self.glob_fold)
        return lambda env: glob.match(value(env), where)


_LITERAL_HINTS = {"True": "true", "False": "false", "None": "null", "nil": "null"}


def _name_help(name: str) -> str:
    if name in _LITERAL_HINTS:
        return f"the literal is written `{_LITERAL_HINTS[name]}`"
    close = did_you_mean(name, ROOTS)
    if close:
        return close
    if name in FUNCTIONS:
        return f"`{name}` is a function: call it, e.g. `{name}(args.path)`"
    return f"a condition can use `tool`, `args` and `context`; did you mean `args.{name}`?"


def _lookup(node: Call) -> _Function:
    spec = FUNCTIONS.get(node.name)
    what = "method" if node.target is not None else "function"
    if spec is None:
        help = did_you_mean(node.name, FUNCTIONS) or "the functions are " + ", ".join(
            f"`{n}()`" for n in FUNCTIONS
        )
        raise _error(f"unknown {what} `{node.name}`", node.name_span, help)
    given = len(node.args) + (node.target is not None)
    if given != spec.arity:
        want = spec.arity - (node.target is not None)
        shown = f".{node.name}()" if node.target is not None else f"{node.name}()"
        plural = "argument" if want == 1 else "arguments"
        raise _error(f"`{shown}` takes {want} {plural}, got {len(node.args)}", node.span)
    return spec


def _pattern_literal(node: Node, fn: str) -> tuple[str, Span]:
    if not (isinstance(node, Literal) and isinstance(node.value, str)):
        raise _error(
            f"the pattern of `{fn}()` must be a string literal",
            node.span,
            "patterns are compiled once, when the policy is loaded",
        )
    return node.value, node.span


def _compile_regex(node: Node, fn: str) -> cel.Regex:
    pattern, span = _pattern_literal(node, fn)
    try:
        return cel.Regex(pattern)
    except cel.RegexError as exc:
        raise ExprError(str(exc), span.start, span.end) from None


def _compile_glob(node: Node, fn: str, fold: bool) -> cel.Glob:
    pattern, span = _pattern_literal(node, fn)
    try:
        return cel.Glob(pattern, fold=fold)
    except GlobError as exc:
        raise ExprError(f"invalid glob: {exc}", span.start, span.end) from None


# ---- Static types (only what is certain; None = known only at decide time)


def _static_type(node: Node) -> str | None:
    match node:
        case Literal(value=value):
            return cel.type_name(value)
        case ListLit():
            return "list"
        case Logical() | Has() | Binary() | Unary(op="!"):
            return "bool"
        case Ident(name="tool"):
            return "string"
        case Call(name=name) if name in FUNCTIONS:
            return FUNCTIONS[name].result
    return None


# ---- has() guards (for the `policy check` warning)

Key = tuple[str, object]
Path = tuple[str, tuple[Key, ...]]


def field_accesses_without_has(node: Node, roots: tuple[str, ...] = ("args",)) -> list[tuple[str, Span]]:
    """Field accesses under `roots` that may fail: not guarded by `has()` in an enclosing `&&`.

    `has(args.a.b) && args.a.b == 1` is guarded (a guard covers its prefixes too), and so is
    `!has(args.a) || args.a == 1`. Each unguarded access chain is reported once, outermost,
    as (canonical text, span), in source order.
    """
    out: list[tuple[str, Span]] = []
    _walk_guards(node, frozenset(), roots, out)
    return sorted(out, key=lambda item: (item[1].start, item[1].end))


def _walk_guards(
    node: Node, guards: frozenset[Path], roots: tuple[str, ...], out: list[tuple[str, Span]]
) -> None:
    if isinstance(node, Logical):
        inner = guards | _guards_of(node, node.op)
        for operand in node.operands:
            _walk_guards(operand, inner, roots, out)
        return
    if isinstance(node, Has):
        for key in _dynamic_keys(node.operand):
            _walk_guards(key, guards, roots, out)
        return
    path = _access_path(node)
    if path is not None and path[0] in roots and path[1]:
        if not any(_covers(g, path) for g in guards):
            out.append((unparse(node), node.span))
        for key in _dynamic_keys(node):
            _walk_guards(key, guards, roots, out)
        return
    for child in children(node):
        _walk_guards(child, guards, roots, out)


def _guards_of(node: Logical, op: str) -> frozenset[Path]:
    """`has(p)` conjuncts of an `&&` (or `!has(p)` disjuncts of an `||`), through nested chains."""
    found: set[Path] = set()
    for operand in node.operands:
        if isinstance(operand, Logical) and operand.op == op:
            found |= _guards_of(operand, op)
            continue
        has = operand if op == "&&" else _negated(operand)
        if isinstance(has, Has) and (path := _access_path(has.operand)) is not None:
            found.add(path)
    return frozenset(found)


def _negated(node: Node) -> Node | None:
    return node.operand if isinstance(node, Unary) and node.op == "!" else None


def _access_path(node: Node) -> Path | None:
    """`args.a["b"][0]` -> ("args", (("str", "a"), ("str", "b"), ("int", 0))); None if not a chain."""
    keys: list[Key] = []
    while isinstance(node, Select | Index):
        if isinstance(node, Select):
            keys.append(("str", node.name))
        elif isinstance(node.index, Literal):
            keys.append((type(node.index.value).__name__, node.index.value))
        else:
            keys.append(("expr", unparse(node.index)))
        node = node.operand
    if not isinstance(node, Ident) or not keys:
        return None
    return node.name, tuple(reversed(keys))


def _covers(guard: Path, path: Path) -> bool:
    return guard[0] == path[0] and guard[1][: len(path[1])] == path[1]


def _dynamic_keys(node: Node) -> list[Node]:
    """The non-literal index expressions inside an access chain (they are accesses of their own)."""
    keys: list[Node] = []
    while isinstance(node, Select | Index):
        if isinstance(node, Index) and not isinstance(node.index, Literal):
            keys.append(node.index)
        node = node.operand
    return keys[::-1]
