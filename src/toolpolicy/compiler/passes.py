"""The compiler's stages as a table (OPA's `NewCompiler` idea): flatten -> tools -> rules -> hooks -> tests.

Each stage reads and extends a `Unit` of work and reports located errors into one collector, so
that one run reports every problem of a policy (not just the first). Ordering constraints are
noted beside the table; `compile_policy()` in `__init__` runs it and builds the `CompiledPolicy`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ast import ExprError
from ..ast.when import Node as WhenNode
from ..errors import ErrorCollector, PolicyError, did_you_mean
from ..grammar.permission import parse_permission
from ..policies.loader import LoadedPolicy
from ..policies.located import LocatedDoc
from ..policies.matchers import matcher_problem
from ..policies.profiles import PROFILES, Profile
from ..runtime.compiled import CompiledRule, PolicyTestCase, ToolSpec
from ..runtime.hooks.types import BuiltinHookSpec, CommandHookSpec, HookGroup, ModelHookSpec
from ..source import DocPath, Source, origin_of
from ..vocabulary import Effect, ErrorCode, GlobCase, Mode, Settings
from ..vocabulary.enums import severity_of
from .rules import Resolver, compile_permission
from .walk import chain, id_prefix, rule_entries, rule_id

MAX_RULES = 100_000


@dataclass
class SourceRule:
    """One rule as written, with where it came from (its document, `document` its index in the
    chain, and its path in it)."""

    id: str
    decision: str
    matches: list[tuple[str, DocPath]]
    when: str | None
    priority: int
    reason: str | None
    modes: tuple[str, ...] | None
    doc: LocatedDoc
    path: DocPath
    allow_redirection: bool = False
    document: int = 0


@dataclass
class Work:
    loaded: LoadedPolicy
    errors: ErrorCollector
    chain: list[LoadedPolicy] = field(default_factory=list)  # parents first, the root last
    settings: Settings = field(default_factory=Settings)
    profile: Profile = PROFILES["generic"]
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    source_rules: list[SourceRule] = field(default_factory=list)
    rules: list[CompiledRule] = field(default_factory=list)
    origins: list[tuple[int, int, DocPath, int, int]] = field(default_factory=list)  # per rule
    sources: list[Source] = field(default_factory=list)  # the chain's documents, then other texts
    hooks: dict[str, tuple[HookGroup, ...]] = field(default_factory=dict)
    tests: list[PolicyTestCase] = field(default_factory=list)


def error_at(doc: LocatedDoc, path: tuple[Any, ...], exc: ExprError) -> PolicyError:
    origin, exact = doc.origin(path)
    err = exc.locate(origin, exact=exact)
    err.severity = severity_of(exc.code)  # compile warnings (`policy_shell_param`...) do not stop a load
    return err


# -- stage: flatten (extends) ------------------------------------------------------------------
def flatten(work: Work) -> None:
    """Order the documents parents-first and merge the scalar settings (the root wins)."""
    work.chain = chain(work.loaded)
    work.sources = [lp.located.source for lp in work.chain]
    merged: dict[str, Any] = {}
    for lp in work.chain:
        doc = lp.document
        for key in ("name", "profile", "default", "mode", "glob"):
            if key in doc.model_fields_set or key not in merged:
                merged[key] = getattr(doc, key)
    work.settings = Settings(
        name=merged["name"],
        profile=merged["profile"],
        default=Effect(merged["default"]),
        mode=Mode(merged["mode"]),
        glob_case=GlobCase(merged["glob"].case),
    )


# -- stage: tools (needs flatten) ------------------------------------------------------------------
def _files(decl: dict[str, Any], profile: Any) -> tuple[tuple[str, ...], ...]:
    """A tool's file arguments (`ToolSpec.files`); a patch's with the profile's write and edit
    tools (`Profile.operations`), which decide the files it adds and changes; a URL's with the
    profile's fetch tool."""
    out: list[tuple[str, ...]] = []
    for arg, role, *rest in decl.get("files") or ():
        if role == "patch":
            ops = profile.operations
            write = (ops.get("write") or ops.get("edit") or (profile.write_tool,))[0]
            edit = (ops.get("edit") or (write,))[0]
            out.append((arg, role, *((write, edit) if write else ())))
        elif role == "fetch":
            fetch = profile.operations.get("fetch")
            out.append((arg, role, *((fetch[0],) if fetch else ())))
        else:
            out.append((arg, role, *rest))  # `globs`: the argument holding their base directory
    return tuple(out)


def resolve_tools(work: Work) -> None:
    work.profile = PROFILES[work.settings.profile]
    fold = work.settings.fold
    declared: dict[str, dict[str, Any]] = {k: dict(v) for k, v in work.profile.tools.items()}
    for lp in work.chain:
        for name, tool_decl in lp.document.tools.items():
            base = declared.get(name, {})
            declared[name] = {**base, **tool_decl.model_dump(exclude_unset=True)}
    for name, decl in declared.items():
        key = name.casefold() if fold else name
        workdir = tuple(dict.fromkeys(decl.get("workdir") or ()))
        args = tuple(
            dict.fromkeys([*(decl.get("args") or ()), *([decl["arg"]] if decl.get("arg") else []), *workdir])
        )
        work.tools[key] = ToolSpec(
            key,
            decl.get("kind", "generic"),
            decl.get("arg"),
            tuple(sorted((decl.get("aliases") or {}).items())),
            bool(decl.get("read_only", False)),
            args,
            workdir,
            _files(decl, work.profile),
            # the profile's own tools read `~` and argument names as its agent does; a tool the
            # policy adds is not known: `~` both ways, names as sent
            work.profile.tilde if name in work.profile.tools else "both",
            work.profile.fold_keys and name in work.profile.tools,
            str(decl.get("dialect", "bash")),
        )
        if workdir and decl.get("kind", "generic") != "shell":
            work.errors.add(
                PolicyError(
                    f"tool `{name}` has a `workdir`, which only a shell tool takes (the directory its command runs in)",
                    code=ErrorCode.SCHEMA_ERROR,
                    location=work.loaded.located.loc(("tools", name, "workdir")),
                    help="remove `workdir`, or declare the tool `kind: shell`",
                )
            )
        if decl.get("kind", "generic") != "generic" and not decl.get("arg"):
            work.errors.add(
                PolicyError(
                    f"tool `{name}` of kind `{decl.get('kind')}` needs an `arg` (its primary argument)",
                    code=ErrorCode.SCHEMA_ERROR,
                    location=work.loaded.located.loc(("tools", name)),
                )
            )


# -- stage: collect rules (needs flatten) ---------------------------------------------------------
def collect_rules(work: Work) -> None:
    for index, lp in enumerate(work.chain):
        prefix = id_prefix(lp, work.loaded)
        data = lp.located.data
        for entry in rule_entries(data):
            rid = rule_id(entry, data, prefix)
            if entry.is_permission:
                decision = str(entry.path[1])
                sr = SourceRule(
                    rid, decision, list(entry.matches), None, 0, None, None, lp.located, entry.path
                )
            else:
                rule = lp.document.rules[int(entry.path[1])]
                sr = SourceRule(
                    rid,
                    rule.decision,
                    list(entry.matches),
                    rule.when,
                    rule.priority,
                    rule.reason,
                    tuple(rule.modes) if rule.modes is not None else None,
                    lp.located,
                    entry.path,
                    rule.allow_redirection,
                )
            sr.document = index
            work.source_rules.append(sr)
    _check_duplicate_ids(work)


def _check_duplicate_ids(work: Work) -> None:
    seen: dict[str, SourceRule] = {}
    for sr in work.source_rules:
        if sr.id in seen and sr.path[0] == "rules":
            work.errors.add(
                PolicyError(
                    f"rule id `{sr.id}` is used twice",
                    code=ErrorCode.DUPLICATE_ID,
                    location=sr.doc.loc((*sr.path, "id")),
                    help="rule ids must be unique: tests and decisions refer to them",
                )
            )
        seen.setdefault(sr.id, sr)


# -- stage: compile rules (needs tools, collect_rules) -------------------------------------------------
def compile_rules(work: Work) -> None:
    fold = work.settings.fold
    for sr in work.source_rules:
        res = Resolver(work.tools, work.profile, fold, work.chain[sr.document].base_dir, [])
        when_ast = _compile_when(work, sr) if sr.when is not None else None
        if sr.when is not None and when_ast is None:
            continue
        for expr, path in sr.matches:
            try:
                shapes = compile_permission(parse_permission(expr), sr.decision, res)
            except ExprError as exc:
                work.errors.add(error_at(sr.doc, path, exc))
                continue
            for w in res.warnings:
                work.errors.add(error_at(sr.doc, path, w))
            res.warnings.clear()
            loc = sr.doc.loc(path)
            origin = (sr.document, _source_index(work, loc.source), path, loc.span.start, loc.span.end)
            for shape in shapes:
                index = len(work.rules)
                work.rules.append(
                    CompiledRule(
                        index,
                        sr.id,
                        sr.decision,
                        sr.priority,
                        shape.tools,
                        shape.tool_globs,
                        shape.tool_glob_texts,
                        shape.conds,
                        when_ast,
                        sr.when,
                        sr.modes,
                        sr.reason,
                        str(loc),
                        expr,
                        sr.allow_redirection and sr.decision == "allow",
                    )
                )
                work.origins.append(origin)
        if len(work.rules) > MAX_RULES:
            work.errors.add(
                PolicyError(
                    f"policy has more than {MAX_RULES} rules",
                    code=ErrorCode.LIMIT_EXCEEDED,
                    location=sr.doc.loc(sr.path),
                )
            )
            return


def _source_index(work: Work, source: Source) -> int:
    """Where `source` is in the source map: a document of the chain, or a text an importer read
    beside it (a Codex layer's `rules/*.rules`), added on first use."""
    for i, known in enumerate(work.sources):
        if known is source:
            return i
    work.sources.append(source)
    return len(work.sources) - 1


def _compile_when(work: Work, sr: SourceRule) -> WhenNode | None:
    """Parse and check a rule's `when`; None (the error recorded) when it is invalid."""
    from ..grammar.when_parse import parse_when
    from .when import check_when

    path = (*sr.path, "when")
    try:
        node = parse_when(sr.when or "")
        check_when(node, glob_fold=work.settings.fold)
        return node
    except ExprError as exc:
        work.errors.add(error_at(sr.doc, path, exc))
        return None


# -- stage: hooks -----------------------------------------------------------------------------------
def compile_hooks(work: Work) -> None:
    from ..runtime.hooks.events import EVENTS

    groups: dict[str, list[HookGroup]] = {}
    for lp in work.chain:
        for event, entries in lp.document.hooks.items():
            if event not in EVENTS:
                work.errors.add(
                    PolicyError(
                        f"unknown hook event `{event}`",
                        code=ErrorCode.UNKNOWN_EVENT,
                        location=lp.located.key_loc(("hooks", event)),
                        help=did_you_mean(event, EVENTS) or "see SPEC 5.1 for the events",
                    )
                )
                continue
            for i, entry in enumerate(entries):
                group = _hook_group(work, lp, event, i, entry)
                if group is not None:
                    groups.setdefault(event, []).append(group)
    work.hooks = {k: tuple(v) for k, v in groups.items()}


def _hook_group(work: Work, lp: LoadedPolicy, event: str, i: int, entry: Any) -> HookGroup | None:
    path = ("hooks", event, i)
    matcher = entry.matcher
    if matcher in (None, "", "*"):
        matcher = None
    else:
        err = _check_regex(matcher)
        if err is not None:
            work.errors.add(error_at(lp.located, (*path, "matcher"), err))
            return None
    hooks = []
    for j, hook in enumerate(entry.hooks):
        spec = _hook_spec(work, lp, (*path, "hooks", j), hook)
        if spec is not None:
            hooks.append(spec)
    if matcher is not None:  # matchers see a tool under its canonical name and its aliases alike
        from ..runtime.hooks.dispatch import with_aliases

        matcher = with_aliases(matcher, work.profile.tool_aliases)
    return HookGroup(matcher, tuple(hooks), origin_of(lp.located.loc(path), path)) if hooks else None


def _check_regex(pattern: str) -> ExprError | None:
    """A matcher must be a valid regex that RE2 (linear time) accepts."""
    problem = matcher_problem(pattern)
    if problem is None:
        return None
    if not problem.linear:
        return ExprError(f"invalid regular expression: {problem.message}", problem.offset, problem.offset + 1)
    return ExprError(
        "regular expression uses a feature the linear-time engine lacks (backreferences or lookaround)",
        0,
        len(pattern),
        help="rewrite it without backreferences and lookaround",
    )


def _hook_spec(work: Work, lp: LoadedPolicy, path: tuple[Any, ...], hook: Any) -> Any:
    loc = str(lp.located.loc(path))
    env = tuple(sorted(getattr(hook, "env", {}).items()))
    if hook.type == "command":
        return CommandHookSpec(
            hook.command,
            float(hook.timeout),
            hook.on_error,
            env,
            _working_dir(hook.working_dir, lp),
            hook.name,
            loc,
        )
    if hook.type == "builtin":
        return _builtin_spec(work, lp, path, hook, env, loc)
    return _model_spec(work, lp, path, hook, loc)


def _working_dir(wd: str | None, lp: LoadedPolicy) -> str | None:
    if wd is None:
        return None
    wd = os.path.expanduser(wd)
    return wd if os.path.isabs(wd) else os.path.join(lp.base_dir, wd)


def _builtin_spec(work: Work, lp: LoadedPolicy, path: tuple[Any, ...], hook: Any, env: Any, loc: str) -> Any:
    from ..runtime.hooks.builtins import check_builtin_args, known_builtins

    name = hook.builtin or hook.command
    if not name:
        work.errors.add(
            PolicyError(
                "builtin hook needs `builtin: NAME`",
                code=ErrorCode.SCHEMA_ERROR,
                location=lp.located.loc(path),
            )
        )
        return None
    if name not in known_builtins():
        key = "builtin" if hook.builtin else "command"
        work.errors.add(
            PolicyError(
                f"unknown builtin hook `{name}`",
                code=ErrorCode.UNKNOWN_BUILTIN,
                location=lp.located.loc((*path, key)),
                help=did_you_mean(name, known_builtins()),
            )
        )
        return None
    problem = check_builtin_args(name, hook.args)
    if problem:
        work.errors.add(
            PolicyError(problem, code=ErrorCode.BUILTIN_ARGS, location=lp.located.loc((*path, "args")))
        )
        return None
    return BuiltinHookSpec(
        name,
        tuple(hook.args),
        float(hook.timeout),
        hook.on_error,
        env,
        _working_dir(hook.working_dir, lp),
        hook.name,
        loc,
    )


def _model_spec(work: Work, lp: LoadedPolicy, path: tuple[Any, ...], hook: Any, loc: str) -> Any:
    from ..grammar.template_parse import parse_template
    from ..runtime.hooks.model import KNOWN_SCHEMAS

    ok = True
    if "/" not in hook.model or hook.model.split("/", 1)[0] not in ("openai", "anthropic", "local"):
        work.errors.add(
            PolicyError(
                f"unknown model `{hook.model}`",
                code=ErrorCode.MODEL_ERROR,
                location=lp.located.loc((*path, "model")),
                help="write `openai/<model>`, `anthropic/<model>` or `local/<name-or-path>`",
            )
        )
        ok = False
    if hook.schema_ is not None and hook.schema_ not in KNOWN_SCHEMAS:
        work.errors.add(
            PolicyError(
                f"unknown model hook schema `{hook.schema_}`",
                code=ErrorCode.MODEL_ERROR,
                location=lp.located.loc((*path, "schema")),
                help=did_you_mean(hook.schema_, KNOWN_SCHEMAS),
            )
        )
        ok = False
    try:
        template = parse_template(hook.prompt)
    except ExprError as exc:
        work.errors.add(error_at(lp.located, (*path, "prompt"), exc))
        return None
    if not ok:
        return None
    return ModelHookSpec(
        hook.model,
        hook.prompt,
        template,
        hook.schema_,
        float(hook.timeout),
        hook.on_error,
        tuple(sorted(hook.options.items())),
        hook.name,
        loc,
    )


# -- stage: tests -------------------------------------------------------------------------------------
def collect_tests(work: Work) -> None:
    for lp in work.chain:
        for i, t in enumerate(lp.document.tests):
            loc = lp.located.loc(("tests", i))
            work.tests.append(
                PolicyTestCase(
                    t.name,
                    t.call.tool,
                    t.call.args,
                    t.expect,
                    tuple(sorted(t.call.context.items())),
                    t.rule,
                    t.reason_contains,
                    t.mode,
                    str(loc),
                    origin_of(loc, ("tests", i)),
                )
            )


STAGES: list[tuple[str, Callable[[Work], None]]] = [
    ("flatten", flatten),  # first: every later stage reads the merged settings
    ("resolve_tools", resolve_tools),  # after flatten: the profile comes from the merged settings
    ("collect_rules", collect_rules),  # after flatten: walks the documents parents-first
    ("compile_rules", compile_rules),  # after resolve_tools and collect_rules: kinds decide patterns
    ("compile_hooks", compile_hooks),
    ("collect_tests", collect_tests),
]


def digest_of(work: Work) -> str:
    h = hashlib.sha256()
    for lp in work.chain:
        h.update(lp.located.source.name.encode())
        h.update(b"\0")
        h.update(lp.located.source.text.encode())
        h.update(b"\0")
    return "sha256:" + h.hexdigest()[:32]
