"""The front door: `load_policy(path | text=...)` -> a compiled policy (SPEC 9).

Native policies go loader -> compiler; the other formats (Claude Code settings, docker-agent
YAML, Gemini TOML, Codex rules, agent-code TOML) are first imported into a native document.
"""

from __future__ import annotations

import os
from typing import Any

from .compiler import compile_policy
from .errors import PolicyError, PolicyErrors
from .policies.formats import FORMATS, NATIVE  # noqa: F401 - re-exported (the CLI's --format choices)
from .policies.loader import LoadedPolicy, load_native, read_source, syntax_of, validate
from .policies.located import LocatedDoc, check_nesting, load_text
from .runtime.compiled import CompiledPolicy
from .source import Source
from .vocabulary import ErrorCode


def load_policy(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    format: str | None = None,
    name: str | None = None,
    base_dir: str | None = None,
    import_options: dict[str, Any] | None = None,
) -> CompiledPolicy:
    """Parse, validate and compile a policy file (or `text`); raises `PolicyError` (with `.errors`).

    Args:
        path: the policy file. Its directory anchors `/`-relative path patterns and `extends`.
        text: the policy text instead of a file (`name` is its display name, e.g. `policy.yaml`).
        format: `toolpolicy` (native) or a foreign format; detected from the name and content if None.
        import_options: options of a foreign format's importer (`scope=` for claude-code, `agent=`
            for docker-agent, `tier=` for gemini).

    Raises:
        PolicyError: every problem of the file, located (`.errors` lists them, sorted).
    """
    return compile_policy(
        load_document(
            path, text=text, format=format, name=name, base_dir=base_dir, import_options=import_options
        )
    )


def load_document(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    format: str | None = None,
    name: str | None = None,
    base_dir: str | None = None,
    import_options: dict[str, Any] | None = None,
) -> LoadedPolicy:
    """Load and validate (without compiling): the native document, whatever the input format."""
    source = _source(path, text, name)
    check_nesting(source)
    fmt = format or detect_format(source)
    if fmt not in FORMATS:
        raise PolicyError(
            f"unknown policy format `{fmt}`", code=ErrorCode.USAGE_ERROR, help="one of: " + ", ".join(FORMATS)
        )
    if base_dir is None and path is None:
        base_dir = os.getcwd()
    try:
        if fmt == NATIVE:
            return load_native(source, base_dir=base_dir)
        return _load_foreign(source, fmt, base_dir, import_options or {})
    except PolicyErrors as exc:
        raise _with_expression_errors(exc) from None


def _with_expression_errors(exc: PolicyErrors) -> PolicyErrors:
    """Schema errors stop validation; still report the expressions' own syntax errors with them."""
    from .compiler.syntax import expression_errors

    docs = {id(e.location.source): e.location.source for e in exc.errors if e.location is not None}
    extra: list[PolicyError] = []
    for source in docs.values():
        try:
            extra.extend(expression_errors(load_text(source, syntax_of(source.name))))
        except PolicyError:
            continue
    return PolicyErrors([*exc.errors, *extra]) if extra else exc


def _source(path: Any, text: str | None, name: str | None) -> Source:
    if text is not None:
        return Source(name or (str(path) if path is not None else "<text>.yaml"), text)
    if path is None:
        raise PolicyError("load_policy needs a path or `text=`", code=ErrorCode.USAGE_ERROR)
    return read_source(path)


def detect_format(source: Source) -> str:
    base = os.path.basename(source.name).lower()
    try:
        from .policies.formats import detect_format as detect_foreign

        found = detect_foreign(source.name, source.text)
    except ImportError:
        found = None
    if found and found != NATIVE:
        return found
    if base.endswith((".yaml", ".yml", ".toml")) or base.startswith("<"):
        return NATIVE
    return found or NATIVE


def _load_foreign(source: Source, fmt: str, base_dir: str | None, options: dict[str, Any]) -> LoadedPolicy:
    from .policies.formats import import_document

    result = import_document(source.text, format=fmt, path=source.name, **options)
    # the native document's values sit where the importer found them (in this file or another)
    located = LocatedDoc(source, result.document, values=dict(result.locations))
    document = validate(located)
    base = base_dir or os.path.dirname(os.path.abspath(source.name))
    loaded = LoadedPolicy(document, located, base, warnings=list(result.warnings))
    loaded.origins = dict(result.origins)
    return loaded


def native_syntax(path: str) -> str:
    return syntax_of(path)
