"""Lint: names the policy's profile does not know: tools in expressions, arguments in conditions and `when`.

Place in the pipeline: a check family of `lint_policy`. The profile plus `tools:` declarations is
the tool catalogue (Cedar's schema validation). Only `claude-code` is a closed catalogue (every
other tool there is `mcp__server__tool`); in the other profiles any name may come from an MCP
server, so an unknown tool is reported only when it is close to a known one (a likely typo).
Arguments are checked only for tools whose argument list is known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..ast import ExprError
from ..ast.when import Ident, Index, Literal, Node, Select, children
from ..errors import did_you_mean
from ..grammar.permission import parse_permission
from ..runtime.compiled import ToolSpec
from ..runtime.kinds.glob import has_wildcard
from .context import DocPath, LintContext, RuleSource

CLOSED_PROFILES = {"claude-code": ("mcp__",)}


def check_names(ctx: LintContext) -> None:
    unknown: dict[str, list[tuple[str, Any]]] = {}
    for src in _unique_sources(ctx):
        for path in src.match_paths:
            expr = _value_at(src.lp.located.data, path)
            if not isinstance(expr, str):
                continue
            try:
                perm = parse_permission(expr)
            except ExprError:
                continue  # the compiler reported it
            _check_tools(ctx, src, path, perm, unknown)
            _check_condition_keys(ctx, src, path, perm)
        _check_when_args(ctx, src)
    _report_unknown_tools(ctx, unknown)


def _unique_sources(ctx: LintContext) -> Iterator[RuleSource]:
    seen: set[int] = set()
    for src in ctx.sources.values():
        if id(src) not in seen:
            seen.add(id(src))
            yield src


def _value_at(data: Any, path: DocPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _known_tools(ctx: LintContext) -> list[str]:
    return sorted({*ctx.policy.tools, *ctx.policy.tool_aliases})


def _literal(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _check_tools(
    ctx: LintContext, src: RuleSource, path: DocPath, perm: Any, unknown: dict[str, list[tuple[str, Any]]]
) -> None:
    policy = ctx.policy
    for tool in perm.tools:
        if tool.text == "*" or has_wildcard(tool.text):
            message = _glob_matches_nothing(ctx, tool.text)
            if message is not None:
                loc = ctx.expr_location(src.lp, path, tool.span.start, tool.span.end)
                unknown.setdefault(tool.text, []).append((message, loc))
            continue
        name = _literal(tool.text)
        if policy.canonical_tool(name) in policy.tools or name in policy.tool_aliases:
            continue
        message = _unknown_tool_message(ctx, name)
        if message is None:
            continue
        loc = ctx.expr_location(src.lp, path, tool.span.start, tool.span.end)
        unknown.setdefault(name, []).append((message, loc))


def _report_unknown_tools(ctx: LintContext, unknown: dict[str, list[tuple[str, Any]]]) -> None:
    """One finding per unknown name, at its first use (a policy may name it many times)."""
    for name, uses in unknown.items():
        message, loc = min(uses, key=lambda u: u[1].sort_key())
        if len(uses) > 1:
            message += f" (used {len(uses)} times)"
        hint = did_you_mean(name, _known_tools(ctx))
        ctx.add(
            "lint_unknown_tool",
            message,
            loc,
            help=hint or f"declare it under `tools: {{{name}: {{kind: generic}}}}` if the agent has it",
        )


def _unknown_tool_message(ctx: LintContext, name: str) -> str | None:
    profile = ctx.policy.profile
    prefixes = CLOSED_PROFILES.get(profile)
    if prefixes is not None:
        if name.startswith(prefixes):
            return None
        return f"unknown tool `{name}`: the `{profile}` profile has no such tool"
    if did_you_mean(name, _known_tools(ctx)) is None:
        return None  # open catalogue: any name may be an MCP tool
    return f"unknown tool `{name}` (not in the `{profile}` profile or `tools:`)"


def _glob_matches_nothing(ctx: LintContext, text: str) -> str | None:
    """In a closed profile, a tool glob that meets no known tool and no MCP name (a certain miss)."""
    from ..analysis.glob_lang import Glob, Undecided, intersection_witness

    profile = ctx.policy.profile
    prefixes = CLOSED_PROFILES.get(profile)
    if prefixes is None:
        return None
    glob = Glob(text, ctx.policy.fold)
    try:
        if any(glob.matches(n) for n in _known_tools(ctx)) or any(
            intersection_witness(glob, Glob(p + "*", ctx.policy.fold)) is not None for p in prefixes
        ):
            return None
    except (Undecided, ValueError):
        return None
    return f"tool glob `{text}` matches no tool of the `{profile}` profile (nor any MCP tool)"


def _specs_of(ctx: LintContext, perm: Any) -> list[ToolSpec]:
    specs = []
    for tool in perm.tools:
        if has_wildcard(tool.text):
            continue
        spec = ctx.policy.tools.get(ctx.policy.canonical_tool(_literal(tool.text)))
        if spec is not None and spec.args:
            specs.append(spec)
    return specs


def _known_args(spec: ToolSpec) -> set[str]:
    return {*spec.args, *(a for pair in spec.aliases for a in pair)} | ({spec.arg} if spec.arg else set())


def _check_condition_keys(ctx: LintContext, src: RuleSource, path: DocPath, perm: Any) -> None:
    specs = _specs_of(ctx, perm)
    for cond in perm.conditions:
        missing = [s for s in specs if cond.key not in _known_args(s)]
        if not missing:
            continue
        tools = ", ".join(f"`{s.name}`" for s in missing)
        loc = ctx.expr_location(src.lp, path, cond.span.start + 1, cond.span.start + 1 + len(cond.key))
        known = sorted(set().union(*(_known_args(s) for s in missing)))
        ctx.add(
            "lint_unknown_argument",
            f"unknown argument `{cond.key}` for {tools}: the condition never holds",
            loc,
            help=did_you_mean(cond.key, known) or "known arguments: " + ", ".join(f"`{a}`" for a in known),
        )


def _check_when_args(ctx: LintContext, src: RuleSource) -> None:
    rules = [r for r in ctx.policy.rules if r.id in ctx.sources and ctx.sources[r.id] is src]
    if not rules or rules[0].when is None or any(r.tool_globs for r in rules):
        return
    specs = [ctx.policy.tools.get(t) for r in rules for t in r.tools]
    if not specs or any(s is None or not s.args for s in specs):
        return
    known = set().union(*(_known_args(s) for s in specs if s is not None))
    when_path = (*src.path, "when")
    for key, span in _arg_keys(rules[0].when):
        if key in known:
            continue
        loc = ctx.expr_location(src.lp, when_path, span.start, span.end)
        tools = ", ".join(dict.fromkeys(f"`{s.name}`" for s in specs if s is not None))
        ctx.add(
            "lint_unknown_argument",
            f"unknown argument `{key}` for {tools} in `when`",
            loc,
            help=did_you_mean(key, sorted(known))
            or "known arguments: " + ", ".join(f"`{a}`" for a in sorted(known)),
        )


def _arg_keys(node: Node) -> Iterator[tuple[str, Any]]:
    """The first key of every `args.KEY` / `args["KEY"]` access, with the access's span."""
    if isinstance(node, Select) and isinstance(node.operand, Ident) and node.operand.name == "args":
        yield node.name, node.span
        return
    if (
        isinstance(node, Index)
        and isinstance(node.operand, Ident)
        and node.operand.name == "args"
        and isinstance(node.index, Literal)
        and isinstance(node.index.value, str)
    ):
        yield node.index.value, node.span
        return
    for child in children(node):
        yield from _arg_keys(child)
