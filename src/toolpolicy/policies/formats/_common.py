"""Shared plumbing of the importers: located foreign documents and the native document builder.

An importer reads a foreign config into a `LocatedDoc` (the one located-document type: plain data
plus a path -> `Location` map), walks it, and feeds a `DocBuilder` that assembles the native policy
mapping, its located warnings and where each native value came from: `locations` (native path ->
the `Location` of the line of the construct, in whichever file it was) and, for display only,
`origins` (`permissions.allow[0]` -> `settings.json:4`, the comments of `policy import`).
Nothing here decides a call: the output is a plain dict the native loader validates and compiles.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import PolicyError
from ...runtime.kinds.glob import escape as glob_escape  # noqa: F401 - the importers' name for it
from ...source import DocPath, Location, Source, Span, whole
from ...vocabulary import ErrorCode
from ..located import LocatedDoc
from ..matchers import matcher_problem as check_matcher

Path = tuple[str | int, ...]
PARSE_ERROR = ErrorCode.IMPORT_PARSE_ERROR
UNSUPPORTED = ErrorCode.IMPORT_UNSUPPORTED
DIFFERS = ErrorCode.IMPORT_SEMANTICS_DIFFER


@dataclass(frozen=True, slots=True)
class ImportResult:
    """A foreign config as a native policy mapping, with what could not be carried over.

    `locations` maps native paths (`("permissions", "allow", 0)`) to where they came from (a
    location on the line of the foreign construct); `origins` is the same as display text."""

    document: dict[str, Any]
    warnings: list[PolicyError]
    origins: dict[str, str]
    locations: dict[DocPath, Location] = field(default_factory=dict)


def source_of(text: str, path: str | None, default_name: str) -> Source:
    return Source(str(path) if path else default_name, text)


def parse_error(message: str, location: Location, help: str | None = None) -> PolicyError:
    return PolicyError(message, code=PARSE_ERROR, location=location, help=help)


def load_json(source: Source) -> LocatedDoc:
    """Strict JSON (what Claude Code reads), positions recovered through ruamel.yaml."""
    try:
        data = json.loads(source.text)
    except json.JSONDecodeError as exc:
        span = Span(exc.pos, exc.pos + 1)
        raise parse_error(f"invalid JSON: {exc.msg.lower()}", Location(source, span)) from None
    except RecursionError:
        raise parse_error("JSON nested too deeply", whole(source)) from None
    located = LocatedDoc(source, data)
    try:
        from ..located import load_yaml

        positions = load_yaml(source)
    except (PolicyError, RecursionError):
        return located  # e.g. duplicate keys (JSON keeps the last one): positions are a nicety
    located.values, located.keys = dict(positions.values), dict(positions.keys)
    return located


def load_yaml(source: Source) -> LocatedDoc:
    """YAML with every scalar's position (ruamel.yaml marks)."""
    from ..located import load_yaml as native_yaml

    try:
        return native_yaml(source)
    except PolicyError as exc:
        raise _as_parse_error(exc, source) from None


def load_toml(source: Source) -> LocatedDoc:
    """TOML (tomllib); the line of each key is found by a search of the text."""
    from ..located import load_toml as native_toml

    try:
        return native_toml(source)
    except PolicyError as exc:
        raise _as_parse_error(exc, source) from None


def _as_parse_error(exc: PolicyError, source: Source) -> PolicyError:
    return PolicyError(exc.message, code=PARSE_ERROR, location=exc.location or whole(source), help=exc.help)


def locate_table_array(located: LocatedDoc, name: str) -> None:
    """Exact locations for the entries of a TOML array of tables `[[name]]` and their keys.

    The generic TOML locator only searches forward for key names; headers are unambiguous, so
    entry `i` is the `i`-th `[[name]]` header, and its keys are searched up to the next header.
    """
    text = located.source.text
    headers = list(re.finditer(r"(?m)^[ \t]*\[\[[ \t]*" + re.escape(name) + r"[ \t]*\]\]", text))
    entries = _get_path(located.data, tuple(name.split(".")))
    if not isinstance(entries, list) or len(headers) != len(entries):
        return
    base = tuple(name.split("."))
    for i, (header, entry) in enumerate(zip(headers, entries)):
        start = header.start() + len(header.group(0)) - len(header.group(0).lstrip())
        located.values[(*base, i)] = Location(located.source, Span(start, header.end()))
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        for key in entry if isinstance(entry, dict) else ():
            key_re = re.escape(str(key))
            sub = r"\[[ \t]*" + re.escape(name) + r"[ \t]*\.[ \t]*" + key_re + r"[ \t]*\]"
            m = re.compile(r"(?m)^[ \t]*(?:" + key_re + r"[ \t]*=|" + sub + ")").search(
                text, header.end(), end
            )
            if m is not None:
                kstart = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
                loc = Location(located.source, Span(kstart, m.end()))
                located.keys[(*base, i, key)] = loc
                located.values[(*base, i, key)] = loc


def _get_path(data: Any, path: Path) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


@dataclass
class DocBuilder:
    """Assembles a native policy mapping, its warnings and origins, from one or more sources."""

    profile: str = "generic"
    document: dict[str, Any] = field(default_factory=dict)
    warnings: list[PolicyError] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    locations: dict[DocPath, Location] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.document = {"version": 1, "profile": self.profile, **self.document}

    # ---- diagnostics

    def warn(
        self, message: str, location: Location | None, *, code: str = UNSUPPORTED, help: str | None = None
    ) -> None:
        self.warnings.append(
            PolicyError(message, code=code, location=location, help=help, severity="warning")
        )

    def note_origin(self, path: DocPath, location: Location | None) -> str:
        """Record that the native value at `path` came from the line of `location`; returns the
        path as text (`permissions.allow[0]`)."""
        native = _dotted(path)
        if location is not None:
            line_start = location.source.offset_of(location.line, 1)
            self.locations[path] = Location(location.source, Span(line_start, line_start + 1))
            self.origins[native] = f"{location.source.name}:{location.line}"
        return native

    # ---- content

    def set(self, key: str, value: Any, location: Location | None = None) -> None:
        self.document[key] = value
        self.note_origin((key,), location)

    def add_permission(self, decision: str, expr: str, location: Location | None) -> str:
        perms = self.document.setdefault("permissions", {})
        items = perms.setdefault(decision, [])
        items.append(expr)
        return self.note_origin(("permissions", decision, len(items) - 1), location)

    def add_rule(self, rule: dict[str, Any], location: Location | None) -> str:
        rules = self.document.setdefault("rules", [])
        rules.append({k: v for k, v in rule.items() if v is not None})
        return self.note_origin(("rules", len(rules) - 1), location)

    def add_hook_group(self, event: str, group: dict[str, Any], location: Location | None) -> str:
        groups = self.document.setdefault("hooks", {}).setdefault(event, [])
        groups.append(group)
        return self.note_origin(("hooks", event, len(groups) - 1), location)

    def add_tool(self, name: str, decl: dict[str, Any]) -> None:
        self.document.setdefault("tools", {})[name] = decl

    def add_test(self, test: dict[str, Any], location: Location | None) -> str:
        tests = self.document.setdefault("tests", [])
        tests.append(test)
        return self.note_origin(("tests", len(tests) - 1), location)

    def result(self) -> ImportResult:
        return ImportResult(self.document, self.warnings, self.origins, self.locations)


def _dotted(path: DocPath) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


# ---- text helpers shared by several importers


def safe_value_glob(glob: str) -> str:
    """A colon-form value with no leading/trailing blanks (the expression grammar trims none)."""
    if glob[:1].isspace():
        glob = f"[{glob[0]}]{glob[1:]}"
    if glob[-1:].isspace():
        body = glob[:-1]
        slashes = len(body) - len(body.rstrip("\\"))
        if slashes % 2:  # an escaped blank: the class replaces the escape
            body = body[:-1]
        glob = f"{body}[{glob[-1]}]"
    return glob


def tool_glob_text(glob: str) -> tuple[str, bool]:
    """A tool glob the native grammar can read: blanks, parens and `|` become `?` (any one char).

    Returns the glob and whether it had to be widened that way.
    """
    text = re.sub(r"[\s()|]", "?", glob)
    return text, text != glob


_CONDITION_BOUNDARY = re.compile(r":[A-Za-z0-9_]+=")


def colon_value_ok(value: str) -> bool:
    """A colon-form value cannot contain `:word=` (it would start a new condition)."""
    return not _CONDITION_BOUNDARY.search(value)


def cel_string(text: str) -> str:
    """A CEL string literal for `text` (raw when possible, so regexes read as written)."""
    if "\n" not in text and "\r" not in text:
        if "'" not in text:
            return f"r'{text}'"
        if '"' not in text:
            return f'r"{text}"'
    return json.dumps(text, ensure_ascii=False)


def matcher_problem(pattern: str) -> str | None:
    """Why a hook matcher regex cannot be used natively (it must suit `re` and linear-time RE2)."""
    problem = check_matcher(pattern)
    if problem is None:
        return None
    if not problem.linear:
        return f"invalid regex ({problem.message})"
    return "it needs backreferences or lookaround, which the linear-time engine lacks"


def anchored_exact(names: list[str]) -> str:
    """An anchored hook matcher (native matchers match the whole name) for exact tool names."""
    return "|".join(re.escape(n) for n in names)
