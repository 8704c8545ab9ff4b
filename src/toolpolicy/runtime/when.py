"""Build `when` closures (SPEC 2.6): a checked `toolpolicy.ast.when` tree -> a Python closure.

The compiler (`toolpolicy.compiler.when`) has already checked the tree (names, functions,
arities, literal patterns, the result type); this module only turns it into closures that call
the `toolpolicy.runtime.cel` helpers, compiling `matches()` regexes and `glob()` patterns once.
The engine builds a rule's closure on first use, from the AST kept on the compiled policy (so an
unpickled policy needs neither Lark nor pydantic). A closure takes `{"tool", "args", "context"}`
and returns True, False or a `CelError`; run it with `cel.evaluate_when`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..ast.when import (
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
    unparse,
)
from . import cel
from .cel import WhenFn

__all__ = ["IMPLEMENTATIONS", "WhenFn", "build_when", "text_field"]

# The functions of `toolpolicy.ast.when.FUNCTIONS` that are not pattern functions.
IMPLEMENTATIONS: dict[str, Callable[..., object]] = {
    "size": cel.size,
    "lower": cel.lower,
    "basename": cel.basename,
    "dirname": cel.dirname,
    "normpath": cel.normpath,
    "json": cel.to_json,
    "stable_json": cel.to_stable_json,
    "startsWith": cel.starts_with,
    "endsWith": cel.ends_with,
    "contains": cel.contains,
}


def build_when(node: Node, *, glob_fold: bool = False) -> WhenFn:
    """The closure of a checked condition; `glob_fold` makes `glob()` case-insensitive.

    Raises `cel.RegexError` / `GlobError` for a bad literal pattern and `ValueError` for a node
    the compiler would have rejected (an unchecked tree).
    """
    return _Builder(glob_fold).build(node)


def text_field(node: Node) -> str | None:
    """`X` when the condition reads nothing but the one argument `args.X` (and literals), so its
    result is a pure function of that argument's value; None otherwise.

    Such a condition's result can be memoised per value (`Engine.when_holds`): `tool`,
    `context`, other arguments, `args` as a whole or an indexed argument make it impure here.
    """
    found: set[str] = set()
    if not _reads_only_args_fields(node, found) or len(found) != 1:
        return None
    return found.pop()


def _reads_only_args_fields(node: Node, found: set[str]) -> bool:
    if isinstance(node, Literal):
        return True
    if isinstance(node, Select):
        if isinstance(node.operand, Ident) and node.operand.name == "args":
            found.add(node.name)
            return True
        return False  # `context.x`, `args.x.y`, ...: not one argument's value
    if isinstance(node, Has):
        return _reads_only_args_fields(node.operand, found)
    if isinstance(node, ListLit):
        return all(_reads_only_args_fields(i, found) for i in node.items)
    if isinstance(node, Unary):
        return _reads_only_args_fields(node.operand, found)
    if isinstance(node, Binary):
        return _reads_only_args_fields(node.left, found) and _reads_only_args_fields(node.right, found)
    if isinstance(node, Logical):
        return all(_reads_only_args_fields(o, found) for o in node.operands)
    if isinstance(node, Call):
        operands = ((node.target,) if node.target is not None else ()) + node.args
        return all(_reads_only_args_fields(o, found) for o in operands)
    return False  # Ident (`tool`, `args`, `context` whole), Index


def _where(node: Node) -> str:
    text = unparse(node)
    return text if len(text) <= 60 else text[:59] + "…"


class _Builder:
    """One method per node type; each returns a closure `env -> value | CelError`."""

    def __init__(self, glob_fold: bool) -> None:
        self.glob_fold = glob_fold

    def build(self, node: Node) -> WhenFn:
        method: Callable[[Node], WhenFn] = getattr(self, f"_{type(node).__name__.lower()}")
        return method(node)

    def _literal(self, node: Literal) -> WhenFn:
        value = node.value
        return lambda env: value

    def _listlit(self, node: ListLit) -> WhenFn:
        if all(isinstance(i, Literal) for i in node.items):
            constant = tuple(i.value for i in node.items)  # type: ignore[union-attr]
            return lambda env: constant
        items = [self.build(i) for i in node.items]
        return lambda env: cel.make_list([item(env) for item in items])

    def _ident(self, node: Ident) -> WhenFn:
        name = node.name
        return lambda env: cel.ident(env, name)

    def _select(self, node: Select) -> WhenFn:
        operand, name, where = self.build(node.operand), node.name, _where(node)
        if isinstance(node.operand, Ident):  # `args.command`: one closure for the common case
            base = node.operand.name

            def field(env: Mapping[str, object]) -> object:
                value = env.get(base)
                if type(value) is dict and name in value:
                    return value[name]
                return cel.select(operand(env), name, where)  # errors and non-dict maps as usual

            return field
        return lambda env: cel.select(operand(env), name, where)

    def _index(self, node: Index) -> WhenFn:
        operand, key, where = self.build(node.operand), self.build(node.index), _where(node)
        return lambda env: cel.index(operand(env), key(env), where)

    def _has(self, node: Has) -> WhenFn:
        target = node.operand
        operand = self.build(target.operand)
        if isinstance(target, Select):
            name = target.name
            if isinstance(target.operand, Ident):  # `has(args.url)`
                base = target.operand.name

                def has(env: Mapping[str, object]) -> object:
                    value = env.get(base)
                    if type(value) is dict:
                        return name in value
                    return cel.has_field(operand(env), name)

                return has
            return lambda env: cel.has_field(operand(env), name)
        key = self.build(target.index)
        return lambda env: cel.has_field(operand(env), key(env))

    def _unary(self, node: Unary) -> WhenFn:
        operand, where = self.build(node.operand), _where(node)
        if node.op == "!":

            def negation(env: Mapping[str, object]) -> object:
                value = operand(env)
                if value is True or value is False:
                    return not value
                return cel.logical_not(value, where)

            return negation
        return lambda env: cel.negate(operand(env), where)

    def _binary(self, node: Binary) -> WhenFn:
        left, right = self.build(node.left), self.build(node.right)
        op, where = cel.RELATIONS[node.op], _where(node)
        return lambda env: op(left(env), right(env), where)

    def _logical(self, node: Logical) -> WhenFn:
        fns, where = tuple(self.build(o) for o in node.operands), _where(node)
        combine = cel.all_of if node.op == "&&" else cel.any_of
        return lambda env: combine(fns, env, where)

    def _call(self, node: Call) -> WhenFn:
        operands = ((node.target,) if node.target is not None else ()) + node.args
        where = _where(node)
        if node.name in ("matches", "glob"):
            value = self.build(operands[0])
            pattern = operands[1]
            if not (isinstance(pattern, Literal) and isinstance(pattern.value, str)):
                raise ValueError(f"the pattern of `{node.name}()` must be a string literal")
            if node.name == "matches":
                regex = cel.Regex(pattern.value)
                return lambda env: regex.search(value(env), where)
            glob = cel.Glob(pattern.value, fold=self.glob_fold)
            return lambda env: glob.match(value(env), where)
        impl = IMPLEMENTATIONS.get(node.name)
        if impl is None:
            raise ValueError(f"unknown function `{node.name}`")
        fns = [self.build(o) for o in operands]
        if len(fns) == 1:
            (first,) = fns
            return lambda env: impl(first(env), where)
        first, second = fns
        return lambda env: impl(first(env), second(env), where)
