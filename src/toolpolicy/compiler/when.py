"""Check `when` conditions (SPEC 2.6): the static half of compiling a `toolpolicy.ast.when` tree.

Everything that can be known before a call is checked here: names, functions and arities
(`toolpolicy.ast.when.FUNCTIONS`), literal `matches()` regexes and `glob()` patterns, and that
the condition is a bool. The closures themselves are built by `toolpolicy.runtime.when`, on
first use at decide time (`compile_when` builds one now, for tools and tests).

`field_accesses_without_has` is the static check behind `policy check`'s has()-guard warning.
"""

from __future__ import annotations

from ..ast import ExprError
from ..ast.when import (
    FUNCTIONS,
    ROOTS,
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
    Signature,
    Unary,
    children,
    unparse,
)
from ..errors import did_you_mean
from ..runtime import cel
from ..runtime.cel import WhenFn
from ..runtime.kinds.glob import GlobError
from ..runtime.when import build_when
from ..source import Span
from ..vocabulary import ErrorCode

__all__ = ["ROOTS", "WhenFn", "check_when", "compile_when", "compile_when_text", "field_accesses_without_has"]

TYPE_ERROR = ErrorCode.TYPE_ERROR


def compile_when_text(text: str, *, glob_fold: bool = False) -> WhenFn:
    """Parse, check and build one condition; raises `ExprError` (expression coordinates)."""
    from ..grammar.when_parse import parse_when

    return compile_when(parse_when(text), glob_fold=glob_fold)


def compile_when(node: Node, *, glob_fold: bool = False) -> WhenFn:
    """Check a parsed condition and build its closure; raises `ExprError`."""
    check_when(node, glob_fold=glob_fold)
    return build_when(node, glob_fold=glob_fold)


def check_when(node: Node, *, glob_fold: bool = False) -> None:
    """Every static check of a condition; raises the first `ExprError` in evaluation order."""
    _check(node, glob_fold)
    kind = _static_type(node)
    if kind not in (None, "bool"):
        raise ExprError(
            f"condition must be a bool, got {kind}",
            node.span.start,
            node.span.end,
            code=TYPE_ERROR,
            help="compare it, e.g. `args.force == true`",
        )


def _error(message: str, span: Span, help: str | None = None) -> ExprError:
    return ExprError(message, span.start, span.end, code=TYPE_ERROR, help=help)


def _check(node: Node, fold: bool) -> None:
    """Post-order, left to right: the order in which building the closures used to fail."""
    if isinstance(node, Ident):
        if node.name not in ROOTS:
            raise _error(f"unknown name `{node.name}`", node.span, _name_help(node.name))
        return
    if isinstance(node, Call):
        spec = _lookup(node)
        operands = ((node.target,) if node.target is not None else ()) + node.args
        if spec.pattern is not None:
            _check(operands[0], fold)
            _check_pattern(operands[1], node.name, spec.pattern, fold)
            return
        for operand in operands:
            _check(operand, fold)
        return
    if isinstance(node, Has):
        target = node.operand
        _check(target.operand, fold)
        if isinstance(target, Index):
            _check(target.index, fold)
        return
    for child in children(node):
        _check(child, fold)


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


def _lookup(node: Call) -> Signature:
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


def _check_pattern(node: Node, fn: str, kind: str, fold: bool) -> None:
    if not (isinstance(node, Literal) and isinstance(node.value, str)):
        raise _error(
            f"the pattern of `{fn}()` must be a string literal",
            node.span,
            "patterns are compiled once, when the policy is loaded",
        )
    span = node.span
    if kind == "regex":
        try:
            cel.Regex(node.value)
        except cel.RegexError as exc:
            raise ExprError(str(exc), span.start, span.end) from None
        return
    try:
        cel.Glob(node.value, fold=fold)
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
