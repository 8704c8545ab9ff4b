"""Load native policy files: text -> located document -> validated `PolicyDocument`, `extends` merged.

All problems of a file are collected and raised together as `PolicyErrors`, each located at the
key or value it is about (`file:line:col`), with a did-you-mean help for misspelt keys.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import PolicyError, PolicyErrors, did_you_mean
from ..source import Location, Source, Span
from ..vocabulary import ErrorCode
from .located import LocatedDoc, load_text
from .packs import PREFIX as PACK_PREFIX
from .packs import is_pack_ref, known_packs, pack_path
from .schema import PolicyDocument

MAX_EXTENDS_DEPTH = 16
MAX_FILE_BYTES = 4 << 20


@dataclass
class LoadedPolicy:
    """A validated document, the located text(s) it came from and the directory it is anchored at."""

    document: PolicyDocument
    located: LocatedDoc
    base_dir: str
    parents: list[LoadedPolicy] = field(default_factory=list)
    warnings: list[PolicyError] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)


def syntax_of(name: str) -> str:
    lower = name.lower()
    if lower.endswith(".toml"):
        return "toml"
    if lower.endswith(".json"):
        return "json"
    return "yaml"


def read_source(path: str | os.PathLike[str]) -> Source:
    p = Path(path)
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            raise PolicyError(f"`{path}` is not a regular file", code=ErrorCode.IO_ERROR, file=str(path))
        size = st.st_size
        if size > MAX_FILE_BYTES:
            raise PolicyError(
                f"policy file is {size} bytes, over the {MAX_FILE_BYTES} byte limit",
                code=ErrorCode.LIMIT_EXCEEDED,
                file=str(path),
            )
        raw = p.read_bytes()
    except OSError as exc:
        raise PolicyError(
            f"cannot read `{path}`: {exc.strerror or exc}", code=ErrorCode.IO_ERROR, file=str(path)
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PolicyError(
            f"`{path}` is not UTF-8 text (byte {exc.start})", code=ErrorCode.IO_ERROR, file=str(path)
        ) from None
    return Source(str(path), text)


def load_native(
    source: Source, *, base_dir: str | None = None, _chain: tuple[str, ...] = (), _as_pack: bool = False
) -> LoadedPolicy:
    """Parse and validate one native policy text, then load and merge what it `extends`.

    A bundled pack loaded through `extends: ["pack:NAME"]` keeps its rules but not its `tests:`:
    they describe the pack alone (checked by the project's suite and `policy packs NAME --test`),
    and would fail under the extending policy's own rules and default.
    """
    located = load_text(source, syntax_of(source.name))
    document = validate(located)
    if _as_pack and document.tests:
        document = document.model_copy(update={"tests": []})
    base = (
        base_dir or os.path.dirname(os.path.abspath(source.name))
        if source.name[:1] != "<"
        else (base_dir or os.getcwd())
    )
    loaded = LoadedPolicy(document, located, base)
    loaded.parents = _load_extends(loaded, (*_chain, os.path.abspath(source.name)))
    return loaded


def validate(located: LocatedDoc) -> PolicyDocument:
    data = located.data
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        raise PolicyError(
            f"a policy must be a mapping, this document is {kind}",
            code=ErrorCode.SCHEMA_ERROR,
            location=Location(located.source, Span(0, 0)),
            help="start with `version: 1`",
        )
    try:
        return PolicyDocument.model_validate(data)
    except ValidationError as exc:
        raise PolicyErrors(_schema_errors(exc, located)) from None


def _schema_errors(exc: ValidationError, located: LocatedDoc) -> list[PolicyError]:
    out: list[PolicyError] = []
    seen: set[tuple[Any, ...]] = set()
    for err in exc.errors(include_url=False):
        path = _data_path(err["loc"], located.data)
        message, help_, key = _describe(err, path, located)
        if (path, message) in seen:
            continue
        seen.add((path, message))
        loc = located.key_loc(path) if key else located.loc(path)
        out.append(PolicyError(message, code=ErrorCode.SCHEMA_ERROR, location=loc, help=help_))
    return out


def _data_path(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """Drop the union-tag parts pydantic puts in `loc` (they are not keys of the document)."""
    out: list[Any] = []
    node = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and part < len(node)
        ):
            node = node[part]
        elif not last:
            continue
        out.append(part)
    return tuple(out)


def _describe(err: Any, path: tuple[Any, ...], located: LocatedDoc) -> tuple[str, str | None, bool]:
    kind = err["type"]
    where = _dotted(path)
    if kind == "extra_forbidden":
        key = str(path[-1])
        return f"unknown key `{key}`", did_you_mean(key, _allowed_keys(path, located)), True
    if kind == "missing" and path == ("version",):
        spelling = {"json": '"version": 1', "toml": "version = 1"}.get(
            syntax_of(located.source.name), "version: 1"
        )
        return (
            "missing required key `version`",
            f"a toolpolicy policy starts with `{spelling}` (SPEC 1); without it the file is not "
            "recognised as one and may be read as another agent's settings",
            False,
        )
    if kind == "missing":
        return f"missing required key `{path[-1]}`", None, False
    if kind == "union_tag_invalid":
        tag = err.get("ctx", {}).get("tag")
        return (
            f"unknown hook type `{tag}` at `{where}`",
            "a hook's `type` is `command`, `builtin` or `model`",
            False,
        )
    if kind == "union_tag_not_found":
        return f"hook at `{where}` has no `type`", "add `type: command`, `builtin` or `model`", False
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        got = err.get("input")
        return f"`{where}` is `{got}`, expected {expected}", _literal_hint(got, expected), False
    return f"`{where}`: {err['msg'][0].lower()}{err['msg'][1:]}", None, False


def _literal_hint(got: Any, expected: str) -> str | None:
    choices = [c.strip().strip("'") for c in expected.replace(" or ", ",").split(",") if c.strip()]
    return did_you_mean(str(got), choices) if isinstance(got, str) else None


def _allowed_keys(path: tuple[Any, ...], located: LocatedDoc) -> list[str]:
    from . import schema

    model: Any = schema.PolicyDocument
    node: Any = located.data
    keyed = False  # the previous field is a mapping: this part is one of its keys
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(part, int) or keyed:
            keyed = False
            continue
        field_ = model.model_fields.get(part) if model else None
        model = _model_of(field_.annotation, node) if field_ else None
        keyed = field_ is not None and str(field_.annotation).startswith("dict[")
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_of(annotation: Any, node: Any) -> Any:
    import typing

    from pydantic import BaseModel

    from . import schema

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(node, dict) and "type" in node and annotation is not None:
        by_type = {"command": schema.CommandHook, "builtin": schema.BuiltinHook, "model": schema.ModelHook}
        if node.get("type") in by_type and "Hook" in str(annotation):
            return by_type[node["type"]]
    for arg in typing.get_args(annotation):
        found = _model_of(arg, node)
        if found is not None:
            return found
    return None


def _dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<document>"


def _load_extends(loaded: LoadedPolicy, chain: tuple[str, ...]) -> list[LoadedPolicy]:
    parents: list[LoadedPolicy] = []
    errors: list[PolicyError] = []
    for i, ref in enumerate(loaded.document.extends):
        loc = loaded.located.loc(("extends", i))
        as_pack = is_pack_ref(ref)
        if as_pack:
            found = pack_path(ref[len(PACK_PREFIX) :])
            if found is None:
                names = [f"{PACK_PREFIX}{p.name}" for p in known_packs()]
                hint = did_you_mean(ref, names)
                listing = "the bundled packs are " + ", ".join(f"`{n}`" for n in names)
                errors.append(
                    PolicyError(
                        f"unknown pack `{ref}`",
                        code="policy_unknown_pack",
                        location=loc,
                        help=f"{hint + ' ' if hint else ''}{listing} (`policy packs` describes them)",
                    )
                )
                continue
            target = str(found)
        else:
            target = os.path.abspath(os.path.join(loaded.base_dir, os.path.expanduser(ref)))
        if target in chain:
            errors.append(
                PolicyError(
                    f"`extends` cycle: `{ref}` is already being loaded",
                    code=ErrorCode.EXTENDS_CYCLE,
                    location=loc,
                )
            )
            continue
        if len(chain) >= MAX_EXTENDS_DEPTH:
            errors.append(
                PolicyError(
                    f"`extends` nested deeper than {MAX_EXTENDS_DEPTH} files",
                    code=ErrorCode.LIMIT_EXCEEDED,
                    location=loc,
                )
            )
            continue
        try:
            parents.append(load_native(read_source(target), _chain=chain, _as_pack=as_pack))
        except PolicyError as exc:
            if exc.code == "policy_io_error":
                errors.append(PolicyError(exc.message, code=exc.code, location=loc))
            else:
                errors.append(exc)
    if errors:
        raise PolicyErrors(errors)
    return parents
