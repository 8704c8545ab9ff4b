"""Lint: regular expressions in `matches()` that leave the linear-time engine (SPEC 2.5).

Place in the pipeline: a check family of `lint_policy`. Hook matchers must already be RE2 (the
compiler rejects others). A `matches()` pattern that RE2 rejects runs on the backtracking `regex`
module under a timeout (which fails closed): that is a warning, and an error when the pattern
has the shapes that backtrack catastrophically: a quantified group that contains another
unbounded quantifier (`(a+)+`, `(\\w+\\s?)*`), or alternatives that can start with the same
character under a quantifier (`(a|a)*`, `(a|ab)+`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..ast.when import Call, Literal, Node, children
from .context import LintContext

MAXREPEAT = 4294967295  # sre's "unbounded"


def check_regexes(ctx: LintContext) -> None:
    check_hook_matchers(ctx)
    seen: set[str] = set()
    for rule in ctx.policy.rules:
        if rule.when is None or rule.id in seen:
            continue
        seen.add(rule.id)
        src = ctx.rule_source(rule)
        if src is None:
            continue
        for literal in _regex_literals(rule.when):
            _check_pattern(
                ctx,
                str(literal.value),
                ctx.expr_location(src.lp, (*src.path, "when"), literal.span.start, literal.span.end),
            )


def _regex_literals(node: Node) -> Iterator[Literal]:
    if isinstance(node, Call) and node.name == "matches":
        operands = ((node.target,) if node.target is not None else ()) + node.args
        if len(operands) == 2 and isinstance(operands[1], Literal) and isinstance(operands[1].value, str):
            yield operands[1]
    for child in children(node):
        yield from _regex_literals(child)


def check_hook_matchers(ctx: LintContext) -> None:
    """Hook matchers run on RE2 here, but a policy may be exported to engines that backtrack."""
    for lp in ctx.chain:
        for event, entries in lp.document.hooks.items():
            for i, entry in enumerate(entries):
                matcher = getattr(entry, "matcher", None)
                if isinstance(matcher, str) and matcher not in ("", "*"):
                    shape = catastrophic_shape(matcher)
                    if shape is not None:
                        ctx.add(
                            "lint_regex_backtracking",
                            f"hook matcher `{matcher}` can backtrack catastrophically ({shape})",
                            ctx.locate(lp, ("hooks", event, i, "matcher")),
                        )


def _check_pattern(ctx: LintContext, pattern: str, loc: Any) -> None:
    shape = catastrophic_shape(pattern)
    if shape is not None:  # rejected even when RE2 runs it: SPEC 2.5 (the policy may be exported)
        ctx.add("lint_regex_backtracking", f"regex `{pattern}` can backtrack catastrophically ({shape})", loc)
        return
    reason = re2_rejects(pattern)
    if reason is None:
        return
    else:
        ctx.add(
            "lint_regex_fallback",
            f"regex `{pattern}` runs on the backtracking engine: RE2 rejects it ({reason})",
            loc,
        )


def re2_rejects(pattern: str) -> str | None:
    """Why RE2 (linear time) rejects `pattern`, or None when it accepts it."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        arg = exc.args[0] if exc.args else str(exc)
        return (
            arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
        ) or "unsupported syntax"
    return None


def catastrophic_shape(pattern: str) -> str | None:
    """A description of a nested or overlapping quantifier in `pattern`, or None (also if unparsable)."""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]

        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - syntax only the `regex` module knows: nothing to say
        return None
    return _scan(list(parsed), inside_repeat=False)


def _scan(items: list[Any], inside_repeat: bool) -> str | None:
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            _lo, hi, body = av
            body_items = list(body)
            if inside_repeat and hi > 1:
                return "a quantifier inside a quantified group"
            if hi > 1 and _overlapping_branches(body_items):
                return "alternatives that can match the same text under a quantifier"
            found = _scan(body_items, inside_repeat or hi > 1)
            if found:
                return found
        else:
            for sub in _subpatterns(name, av):
                found = _scan(sub, inside_repeat)
                if found:
                    return found
    return None


def _subpatterns(name: str, av: Any) -> Iterator[list[Any]]:
    if name == "SUBPATTERN":
        yield list(av[-1])
    elif name == "BRANCH":
        for branch in av[1]:
            yield list(branch)
    elif name in ("ASSERT", "ASSERT_NOT"):
        yield list(av[1])
    elif name == "ATOMIC_GROUP":
        return  # atomic groups do not backtrack into themselves
    elif name == "GROUPREF_EXISTS":
        for part in av[1:]:
            if part is not None:
                yield list(part)


def _overlapping_branches(items: list[Any]) -> bool:
    for op, av in items:
        name = str(op)
        if name == "SUBPATTERN":
            return _overlapping_branches(list(av[-1]))
        if name == "BRANCH":
            firsts = [_first_chars(list(b)) for b in av[1]]
            for i, a in enumerate(firsts):
                for b in firsts[i + 1 :]:
                    if a is None or b is None or a & b:
                        return True
            return False
    return False


def _first_chars(items: list[Any]) -> frozenset[int] | None:
    """Code points a branch can start with; None when unknown or unbounded (counts as overlapping)."""
    if not items:
        return None
    op, av = items[0]
    name = str(op)
    if name == "LITERAL":
        return frozenset({av})
    if name == "IN":
        out: set[int] = set()
        for iop, iav in av:
            if str(iop) == "LITERAL":
                out.add(iav)
            elif str(iop) == "RANGE" and iav[1] - iav[0] < 4096:
                out.update(range(iav[0], iav[1] + 1))
            else:
                return None
        return frozenset(out)
    if name == "SUBPATTERN":
        return _first_chars(list(av[-1]))
    return None
