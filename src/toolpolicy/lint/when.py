"""Lint: `when` conditions: unguarded field accesses, and conditions that are constant.

Place in the pipeline: a check family of `lint_policy`, over the `when` ASTs kept on compiled
rules. An access `args.x` can fail at decide time when the call has no `x` (SPEC 2.6): the has()
guard analysis is `compiler.when.field_accesses_without_has`. An argument is known present, so
needs no guard, when the rule's match has a condition on it (the `when` only runs after the
match), or when it is the primary argument of every tool the rule applies to (the schema's
required argument, as Cedar treats required attributes).
Constant conditions are found by folding the sub-expressions that read no field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..ast import ExprError
from ..ast.when import Ident, Literal, Logical, Node, Unary, children
from ..runtime.compiled import CompiledRule
from ..source import Location
from .context import LintContext, label

_FIRST_KEY = re.compile(r'^args(?:\.([A-Za-z_][A-Za-z0-9_]*)|\["((?:[^"\\]|\\.)*)"\])$')


def check_when(ctx: LintContext) -> None:
    for rules in _by_source(ctx):
        first = rules[0]
        if first.when is None:
            continue
        src = ctx.rule_source(first)
        if src is None:
            continue
        path = (*src.path, "when")
        _check_guards(ctx, rules, path)
        _check_constant(ctx, first, ctx.locate(src.lp, path))


def _by_source(ctx: LintContext) -> Iterator[list[CompiledRule]]:
    groups: dict[str, list[CompiledRule]] = {}
    for rule in ctx.policy.rules:
        groups.setdefault(rule.id, []).append(rule)
    return iter(groups.values())


def _check_guards(ctx: LintContext, rules: list[CompiledRule], path: tuple) -> None:
    from ..compiler.when import field_accesses_without_has

    src = ctx.rule_source(rules[0])
    assert src is not None  # INVARIANT: checked by the caller
    present = _present_keys(ctx, rules)
    outcome = "the rule does not match" if rules[0].decision == "allow" else "the rule asks"
    assert rules[0].when is not None  # INVARIANT: only rules with a `when` are checked
    for text, span in field_accesses_without_has(rules[0].when, roots=("args", "context")):
        if text.startswith("context"):
            message = f"`{text}` fails when the caller passes no such context field: {outcome}"
            ctx.add(
                "lint_when_unguarded",
                message,
                ctx.expr_location(src.lp, path, span.start, span.end),
                help=f"guard it: `has({text}) && ...`",
            )
            continue
        m = _FIRST_KEY.match(text)
        key = (m.group(1) or m.group(2)) if m else None
        if key is not None and key in present:
            continue
        lacking = _lacking(ctx, rules, key)
        if lacking:
            message = f"`{text}` always fails for {lacking} calls, which have no `{key}`: {outcome}"
        else:
            message = f"`{text}` fails when the call has no such argument: {outcome}"
        loc = ctx.expr_location(src.lp, path, span.start, span.end)
        ctx.add("lint_when_unguarded", message, loc, help=f"guard it: `has({text}) && ...`")


def _lacking(ctx: LintContext, rules: list[CompiledRule], key: str | None) -> str:
    """The rule's tools whose known arguments do not include `key` (as a message fragment)."""
    if key is None:
        return ""
    names = []
    for tool in dict.fromkeys(t for r in rules for t in r.tools):
        spec = ctx.policy.tools.get(tool)
        if spec is not None and spec.args and key not in spec.args and key != spec.arg:
            names.append(f"`{tool}`")
    return ", ".join(names)


def _present_keys(ctx: LintContext, rules: list[CompiledRule]) -> set[str]:
    """Arguments every matching call has: keys of the match's conditions, or common primary args."""
    per_rule: list[set[str]] = []
    for rule in rules:
        keys: set[str] = set()
        primaries = (
            {ctx.policy.tool_spec(t).arg for t in rule.tools}
            if rule.tools and not rule.tool_globs
            else {None}
        )
        if len(primaries) == 1 and None not in primaries:
            keys |= {p for p in primaries if p is not None}
        for cond in rule.conds:
            if cond.key is not None:
                keys.add(cond.key)
            else:
                keys |= {a for a in primaries if a is not None}
        per_rule.append(keys)
    return set.intersection(*per_rule) if per_rule else set()


def _check_constant(ctx: LintContext, rule: CompiledRule, loc: Location) -> None:
    assert rule.when is not None  # INVARIANT: only rules with a `when` are checked
    value = constant_value(rule.when, ctx.policy.fold)
    if value is None:
        return
    if value == "error":
        ctx.add("lint_when_always_fails", f"the `when` of {label(rule)} always fails to evaluate", loc)
    elif value is False:
        ctx.add(
            "lint_rule_never_matches",
            f"the `when` of {label(rule)} is always false: the rule never matches",
            loc,
        )
    else:
        ctx.add("lint_when_always_true", f"the `when` of {label(rule)} is always true", loc)


def constant_value(node: Node, fold: bool = False) -> bool | str | None:
    """True/False when the condition is constant, "error" when it always fails, None when it depends."""
    if isinstance(node, Logical):
        values = [constant_value(o, fold) for o in node.operands]
        absorbing, neutral = (False, True) if node.op == "&&" else (True, False)
        if absorbing in values:
            return absorbing
        if all(v == neutral for v in values):
            return neutral
        return None
    if isinstance(node, Unary) and node.op == "!":
        inner = constant_value(node.operand, fold)
        return (not inner) if isinstance(inner, bool) else inner
    if isinstance(node, Literal):
        return node.value if isinstance(node.value, bool) else None
    if _reads_fields(node):
        return None
    return _evaluate(node, fold)


def _reads_fields(node: Node) -> bool:
    if isinstance(node, Ident):
        return True
    return any(_reads_fields(c) for c in children(node))


def _evaluate(node: Node, fold: bool) -> bool | str | None:
    from ..compiler.when import compile_when
    from ..runtime.cel import evaluate_when

    try:
        fn = compile_when(node, glob_fold=fold)
    except ExprError:
        return None
    ok, err = evaluate_when(fn, {"tool": "", "args": {}, "context": {}})
    return "error" if err is not None else ok
