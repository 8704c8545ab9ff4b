"""Compile one permission expression of one rule into `CompiledRule`s (the resolve stage's core).

An expression names tools (exact names or globs, alternatives with `|`) and either colon-form
conditions (plain globs on named arguments) or a call-form specifier, whose meaning depends on
each tool's kind: so an expression yields one compiled rule per tool pattern. Profile aliases
(`Task` -> `Agent`) and covers (`Edit(...)` applies to every writer) are expanded here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..ast import ExprError
from ..ast.permission import Permission, ToolPattern
from ..policies.profiles import Profile
from ..runtime.compiled import Cond, ToolSpec
from ..runtime.kinds import CompiledPattern, path
from ..runtime.kinds.glob import GlobError, escape, has_wildcard, to_regex, unescape
from ..runtime.pattern_set import nul_safe
from ..runtime.views import GENERIC, KINDS
from ..vocabulary import ErrorCode

_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$", re.S)


@dataclass(frozen=True, slots=True)
class RuleShape:
    """The tool part and conditions of one compiled rule (the rest comes from the rule)."""

    tools: tuple[str, ...]
    tool_globs: tuple[str, ...]
    tool_glob_texts: tuple[str, ...]
    conds: tuple[Cond, ...]


@dataclass
class Resolver:
    """What the resolve stage knows: tools, profile, glob case, where the policy lives."""

    tools: dict[str, ToolSpec]
    profile: Profile
    fold: bool
    base_dir: str
    warnings: list[ExprError]

    def __post_init__(self) -> None:
        # Built once per resolver: the folded alias map and both cover maps (rules only read them).
        self._aliases = {self.fold_name(k): self.fold_name(v) for k, v in self.profile.tool_aliases.items()}
        self._covers = self._cover_map([self.profile.covers])
        self._deny_covers = self._cover_map([self.profile.covers, self.profile.deny_covers])
        self._tree = frozenset(self.canonical(t) for t in self.profile.tree_readers)
        self._dir = frozenset(self.canonical(t) for t in self.profile.dir_readers)

    def fold_name(self, name: str) -> str:
        return name.casefold() if self.fold else name

    def canonical(self, name: str) -> str:
        """A tool name as the runtime sees it: folded first (insensitive policies), then aliased."""
        name = self.fold_name(name)
        return self._aliases.get(name, name)

    def covered_by(self, name: str, decision: str) -> tuple[str, ...]:
        """The tools a rule on `name` also applies to (Claude: `Edit` covers every writer)."""
        covers = self._covers if decision == "allow" else self._deny_covers
        return covers.get(self.canonical(name), ())

    def _cover_map(self, maps: list[dict[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
        covers: dict[str, tuple[str, ...]] = {}
        for mapping in maps:
            for k, v in mapping.items():
                key = self.canonical(k)
                covers[key] = tuple(dict.fromkeys(covers.get(key, ()) + tuple(self.canonical(t) for t in v)))
        return covers

    def reader_level(self, name: str) -> str | None:
        """`tree` for tools that read below their path, `dir` for listings, else None."""
        name = self.canonical(name)
        if name in self._tree:
            return "tree"
        return "dir" if name in self._dir else None

    def spec(self, name: str) -> ToolSpec | None:
        return self.tools.get(self.canonical(name))


def compile_permission(perm: Permission, decision: str, res: Resolver) -> list[RuleShape]:
    conds = _colon_conds(perm, res) if perm.call_spec is None else None
    shapes: list[RuleShape] = []
    for tool in perm.tools:
        names, globs, texts = _tool_part(tool, decision, res)
        if conds is not None:
            shapes.append(RuleShape(names, globs, texts, conds))
            continue
        shapes.extend(_call_form_shapes(perm, tool, names, globs, texts, decision, res))
    return shapes


def _tool_part(
    tool: ToolPattern, decision: str, res: Resolver
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    text = tool.text
    if text == "*" or has_wildcard(text):
        try:
            to_regex(text)  # errors located in the text as written
        except GlobError as exc:
            start = tool.span.start + exc.offset
            raise ExprError(f"invalid tool glob: {exc}", start, start + 1) from None
        folded = res.fold_name(text)  # tool names are case-folded the same way (ß -> ss)
        try:
            regex = to_regex(folded, fold=res.fold)
        except GlobError as exc:  # folding moved a class range's ends (`[L-[]` is `[l-[]`, empty)
            start = tool.span.start
            raise ExprError(
                f"invalid tool glob once case-folded (tool names are case-insensitive here): {exc}",
                start,
                start + max(1, len(text)),
            ) from None
        return (), (regex,), (folded,)
    literal = unescape(text)
    names = [res.canonical(literal), *res.covered_by(literal, decision)]
    if _MCP_SERVER.fullmatch(literal):  # Claude Code's `mcp__server`: every tool of that server too
        folded = res.fold_name(escape(literal) + "__*")
        return tuple(dict.fromkeys(names)), (to_regex(folded, fold=res.fold),), (folded,)
    return tuple(dict.fromkeys(names)), (), ()


_MCP_SERVER = re.compile(r"mcp__(?:(?!__).)+")  # a server's name alone (no `__TOOL` part)


def _colon_conds(perm: Permission, res: Resolver) -> tuple[Cond, ...]:
    seen: dict[str, Any] = {}
    conds: list[Cond] = []
    for cond in perm.conditions:
        if cond.key in seen:
            raise ExprError(
                f"condition key `{cond.key}` is repeated",
                cond.span.start,
                cond.span.end,
                help="conditions are ANDed: put both patterns in one glob, or use two rules",
            )
        seen[cond.key] = cond
        try:
            regex = to_regex(cond.value, fold=res.fold)
        except GlobError as exc:
            start = cond.value_span.start + exc.offset
            raise ExprError(f"invalid glob: {exc}", start, start + 1) from None
        conds.append(_cond(cond.key, regex, False, not has_wildcard(cond.value), cond.value))
    return tuple(conds)


def _call_form_shapes(
    perm: Permission,
    tool: ToolPattern,
    names: tuple[str, ...],
    globs: tuple[str, ...],
    texts: tuple[str, ...],
    decision: str,
    res: Resolver,
) -> list[RuleShape]:
    spec_node = perm.call_spec
    assert spec_node is not None  # INVARIANT: call form
    spec_text = spec_node.text
    if spec_text in ("", "*"):
        return [RuleShape(names, globs, texts, ())]
    if not names:  # a glob tool part: compile the specifier for every kind; each tool uses its own
        shapes = [
            RuleShape(
                names, globs, texts, (_kind_cond(kind, spec_text, spec_node.span.start, decision, res),)
            )
            for kind in KINDS
        ]
        m = _PARAM.match(spec_text)
        if m is not None:  # `mcp__db__*(sql:*DROP*)`: generic tools also read it as a parameter rule
            key, value = m.group(1), m.group(2)
            plain = _plain_cond(key, value, spec_node.span.start + len(key) + 1, res)
            shapes.append(RuleShape(names, globs, texts, (plain._replace(kind="generic"),)))
            # ... and so does a declared tool of another kind that takes that argument
            # (`Bas*(run_in_background:true)` is a rule on Bash's argument, as `Bash(...)` would be)
            takers = _declared_param_takers(globs[0], spec_text, res)
            if takers:
                shapes.append(RuleShape(takers, (), (), (plain,)))
        return shapes
    shapes = []
    named = res.spec(names[0]) or ToolSpec(names[0])
    named_param = _PARAM.match(spec_text) if param_reading(named, spec_text) == "param" else None
    for i, name in enumerate(names):  # covered tools may differ in kind and primary argument
        tspec = res.spec(name) or ToolSpec(name)
        if i and named_param is not None and named_param.group(1) != named.arg:
            # `Edit(old_string:*x*)` is a rule on `old_string` for every tool it covers, never a
            # pattern on their paths; one that lacks the argument is simply not matched
            key, value = named_param.group(1), named_param.group(2)
            cond = _plain_cond(key, value, spec_node.span.start + len(key) + 1, res)
        else:
            cond = _spec_cond(tspec, spec_text, spec_node.span.start, decision, res, warn=not i)
        shapes.append(RuleShape((name,), (), (), (cond,)))
        level = res.reader_level(name)
        if decision != "allow" and level and tspec.kind == "path" and cond.key is None:
            regex = path.reader_regex(spec_text, level, policy_dir=res.base_dir, fold=res.fold)
            if regex is not None:  # a search of a directory above a denied path reads it too
                shapes.append(RuleShape((name,), (), (), (Cond(None, regex, True, False, spec_text),)))
    return _merge_same(shapes)


def _merge_same(shapes: list[RuleShape]) -> list[RuleShape]:
    merged: dict[tuple[Cond, ...], list[str]] = {}
    for s in shapes:
        merged.setdefault(s.conds, []).extend(s.tools)
    return [RuleShape(tuple(t), (), (), c) for c, t in merged.items()]


def param_reading(tspec: ToolSpec, spec: str) -> str:
    """How `Tool(name:value)` is read for this tool, following Claude Code (SPEC 2.2):

    * `"shell"`: on a shell tool `name:*` is Claude's legacy prefix form: `Bash(timeout:*)` is the
      `timeout` command (`Bash(timeout *)`), never a rule on the `timeout` argument; other values
      on a declared argument (`Bash(run_in_background:true)`) are parameter rules;
    * `"param"`: a rule on the argument `name`: it is a declared argument of the tool, or the tool
      has no primary argument (an MCP or undeclared tool: `mcp__db__query(sql:*DROP*)`);
    * `"primary"`: otherwise (not `name:` shaped, `WebFetch(domain:...)`, an unknown name on a tool
      with a primary argument): the whole specifier is a pattern on the primary argument.
    """
    m = _PARAM.match(spec)
    if m is None:
        return "primary"
    key = m.group(1)
    if tspec.kind == "shell":
        return "param" if key in tspec.args and m.group(2) != "*" else "shell"
    if tspec.kind == "url" and key == "domain":
        return "primary"
    if key in tspec.args or (tspec.kind == "generic" and tspec.arg is None):
        return "param"
    return "primary"


def _spec_cond(
    tspec: ToolSpec, spec: str, offset: int, decision: str, res: Resolver, *, warn: bool = True
) -> Cond:
    m = _PARAM.match(spec)
    reading = param_reading(tspec, spec)
    if not warn:  # a tool covered by the named one: findings are about the named tool only
        pass
    elif m and reading == "param" and not _takes(tspec, m.group(1)) and tspec.args:
        key = m.group(1)
        res.warnings.append(
            ExprError(
                f"`{tspec.name}` has no argument `{key}`: `{tspec.name}({spec})` never matches",
                offset,
                offset + len(key),
                code="policy_param_unknown",
                help=f"its arguments are {', '.join(f'`{a}`' for a in tspec.args)}; "
                f"declare `{key}` under `tools: {{{tspec.name}: {{args: [...]}}}}` if the tool takes it",
            )
        )
    elif m and reading == "shell" and m.group(1) in tspec.args:
        key = m.group(1)
        res.warnings.append(
            ExprError(
                f"`{tspec.name}({spec})` is read as a command (`{key}`), not as a rule on the `{key}` argument",
                offset,
                offset + len(key),
                code="policy_shell_param",
                help=f"Claude Code reads `{tspec.name}({key}:*)` as the `{key}` command; "
                f"to match the argument write `{tspec.name}:{key}=GLOB`",
            )
        )
    elif m and reading == "primary" and tspec.args and not (tspec.kind == "url" and m.group(1) == "domain"):
        key = m.group(1)
        if len(key) > 1:  # `C:` is a drive letter, not a parameter
            res.warnings.append(
                ExprError(
                    f"`{tspec.name}` has no argument `{key}`: `{tspec.name}({spec})` is a pattern on `{tspec.arg}`",
                    offset,
                    offset + len(key),
                    code="policy_param_unknown",
                    help=f"its arguments are {', '.join(f'`{a}`' for a in tspec.args)}; "
                    f"declare `{key}` under `tools: {{{tspec.name}: {{args: [...]}}}}` if the tool takes it",
                )
            )
    if m and reading == "param":
        key, value = m.group(1), m.group(2)
        if key != tspec.arg:
            return _plain_cond(key, value, offset + len(key) + 1, res)
        res.warnings.append(
            ExprError(
                f"`{tspec.name}({key}:...)` names the primary argument: it is matched as `{tspec.name}(...)`",
                offset,
                offset + len(key),
                code=ErrorCode.PRIMARY_PARAM,
                help=f"write `{tspec.name}({value})`",
            )
        )
        spec, offset = value, offset + len(key) + 1
    if warn and tspec.arg is None and tspec.kind == "generic" and decision == "allow":
        res.warnings.append(
            ExprError(
                f"tool `{tspec.name}` has no known primary argument: this allow never matches",
                offset,
                offset + len(spec),
                code=ErrorCode.NO_PRIMARY_ARG,
                help=f"declare it under `tools: {{{tspec.name}: {{arg: NAME}}}}` or use `{tspec.name}:NAME=glob`",
            )
        )
    pattern = _kind_pattern(tspec, spec, offset, decision, res)
    return _cond(None, pattern.regex, tspec.kind != "generic", pattern.exact, spec)


def _takes(tspec: ToolSpec, key: str) -> bool:
    """Whether the tool is declared to take argument `key` (by name or as an alias)."""
    return key in tspec.args or key == tspec.arg or any(key in pair for pair in tspec.aliases)


def _declared_param_takers(tool_glob: str, spec: str, res: Resolver) -> tuple[str, ...]:
    """Declared tools of a non-generic kind, matched by `tool_glob`, that read `spec` as a
    parameter rule (they take the argument): a tool glob must not lose them."""
    import re2

    matcher = re2.compile(tool_glob)
    return tuple(
        res.canonical(name)
        for name, tspec in res.tools.items()
        if tspec.kind != "generic"
        and matcher.fullmatch(res.fold_name(name))
        and param_reading(tspec, spec) == "param"
    )


def _kind_cond(kind: str, spec: str, offset: int, decision: str, res: Resolver) -> Cond:
    """A specifier compiled as `kind` would read it; it applies only to tools of that kind."""
    pattern = _kind_pattern(ToolSpec("*", kind), spec, offset, decision, res)
    return _cond(None, pattern.regex, kind != "generic", pattern.exact, spec, kind)


def _kind_pattern(tspec: ToolSpec, spec: str, offset: int, decision: str, res: Resolver) -> CompiledPattern:
    kind = KINDS.get(tspec.kind, GENERIC)
    try:
        return kind.compile_spec(spec, fold=res.fold, policy_dir=res.base_dir, for_allow=decision == "allow")
    except GlobError as exc:
        raise ExprError(f"invalid pattern: {exc}", offset + exc.offset, offset + exc.offset + 1) from None
    except ValueError as exc:
        raise ExprError(f"invalid `{tspec.kind}` pattern: {exc}", offset, offset + len(spec)) from None


def _plain_cond(key: str | None, value: str, offset: int, res: Resolver) -> Cond:
    try:
        regex = to_regex(value, fold=res.fold)
    except GlobError as exc:
        raise ExprError(f"invalid glob: {exc}", offset + exc.offset, offset + exc.offset + 1) from None
    return _cond(key, regex, False, not has_wildcard(value), value)


def _cond(
    key: str | None, regex: str, kind_view: bool, exact: bool, source: str, kind: str | None = None
) -> Cond:
    """A `Cond` with its pattern-set form precomputed (so a hook's first decision does not)."""
    return Cond(key, regex, kind_view, exact, source, kind, nul_safe(regex))
