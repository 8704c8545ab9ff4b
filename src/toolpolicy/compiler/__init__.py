"""The compiler: validated policy documents -> an immutable, indexed `CompiledPolicy`.

`compile_policy` runs the stage table of `passes.py`; all located errors of all stages are
collected and raised together as `PolicyErrors`; warnings travel on the compiled policy.
The stage modules are imported on first use (importing the package costs nothing). The compiler
never writes runtime state: derived structures (the index, `when` closures) are built by the
runtime on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..errors import PolicyError
    from ..policies.loader import LoadedPolicy
    from ..runtime.compiled import CompiledPolicy
    from .passes import Work


def compile_policy(loaded: LoadedPolicy, *, error_limit: int = 100) -> CompiledPolicy:
    """Compile a loaded native policy; raises `PolicyErrors` (every error, sorted)."""
    return compile_checked(loaded, error_limit=error_limit)[0]


def compile_checked(
    loaded: LoadedPolicy, *, error_limit: int = 100
) -> tuple[CompiledPolicy, list[PolicyError]]:
    """Compile once and return the policy with the compiler's own warnings, as located
    `PolicyError`s (not the loader's `loaded.warnings`): what `policy check` reports."""
    from ..errors import ErrorCollector
    from .passes import STAGES, Work

    work = Work(loaded, ErrorCollector(error_limit))
    for err in loaded.warnings:
        work.errors.add(err)
    before = len(work.errors.warnings)
    for _name, stage in STAGES:
        stage(work)
    work.errors.check()
    return _build(work), list(work.errors.warnings[before:])


def compile_warnings(loaded: LoadedPolicy) -> list[PolicyError]:
    """The compiler's warnings only (errors raise as usual); `compile_checked` gives both."""
    return compile_checked(loaded)[1]


def _build(work: Work) -> CompiledPolicy:
    from ..runtime.compiled import CompiledPolicy
    from ..runtime.source_map import SourceMap
    from .passes import digest_of

    settings = work.settings
    fold = settings.fold
    aliases = {
        (k.casefold() if fold else k): (v.casefold() if fold else v)
        for k, v in work.profile.tool_aliases.items()
    }
    return CompiledPolicy(
        name=settings.name,
        digest=digest_of(work),
        default=settings.default.value,
        mode=settings.mode.value,
        fold=fold,
        profile=work.profile.name,
        tools=work.tools,
        tool_aliases=aliases,
        rules=tuple(work.rules),
        hooks=work.hooks,
        write_tool=work.profile.write_tool,
        base_dir=work.loaded.base_dir,
        tests=tuple(work.tests),
        warnings=tuple(work.errors.warnings),
        source_map=SourceMap(tuple(work.sources), work.origins, documents=len(work.chain)),
        commands=_commands(work),
    )


def _commands(work: Work) -> object:
    """The command knowledge: the bundled entries, then each document's (parents first) on top.

    A policy's entry for a program adds options to the bundled entry (its spellings win) and
    replaces the other keys it sets.
    """
    import hashlib
    import json

    from ..runtime.kinds.shell_knowledge import build_table, bundled, bundled_entries

    own: dict[str, dict[str, object]] = {}
    for lp in work.chain:
        for names, decl in lp.document.commands.items():
            body = decl.model_dump(exclude_unset=True)
            for name in names.replace(",", " ").split():
                own[name] = body
    if not own:
        return bundled()
    entries = {name: dict(body) for name, body in _flat(bundled_entries()).items()}
    for name, body in own.items():
        base = entries.get(name, {})
        merged = {**base, **body}
        if "options" in base and "options" in body:
            merged["options"] = {**base["options"], **body["options"]}  # type: ignore[dict-item]
        entries[name] = merged
    digest = hashlib.sha256(json.dumps(own, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return build_table(entries, digest)


def _flat(entries: dict[str, object]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for names, body in entries.items():
        for name in names.replace(",", " ").split():
            out[name] = body  # type: ignore[assignment]
    return out
