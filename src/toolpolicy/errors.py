"""Policy errors: one located error type, a sorted multi-error, and the stable error codes.

Messages follow Cedar's style guide: lower-case, no final period, user input in backticks,
advice in a separate `help`. Every layer may import this module.
"""

from __future__ import annotations

from collections.abc import Iterable

from .source import Location


class PolicyError(Exception):
    """A located problem in a policy (or a foreign config) that makes it unusable.

    `code` is a stable snake_case string (`policy_parse_error`, `policy_schema_error`, ...);
    `severity` is `error` or `warning` (warnings never stop a load).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str = "policy_error",
        location: Location | None = None,
        help: str | None = None,
        severity: str = "error",
        file: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.location = location
        self.help = help
        self.severity = severity
        self.file = file if file is not None else (location.source.name if location else None)

    @property
    def errors(self) -> tuple[PolicyError, ...]:
        return (self,)

    def where(self) -> str:
        if self.location is not None:
            return str(self.location)
        return self.file or "<policy>"

    def __str__(self) -> str:
        return f"{self.where()}: {self.code}: {self.message}"

    def render(self) -> str:
        """The one-line form, the source excerpt with a caret, and the help line."""
        parts = [str(self)]
        if self.location is not None and self.location.source.text:
            parts.append(self.location.excerpt())
        if self.location is not None and self.location.path:
            parts.append(f"  at: {self.location.path}")
        if self.help:
            parts.append(f"help: {self.help}")
        return "\n".join(parts)

    def to_json(self) -> dict[str, object]:
        loc = self.location
        return {
            "file": self.file,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "path": loc.path if loc else None,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
        }

    def sort_key(self) -> tuple[str, int, int, str]:
        if self.location is None:
            return (self.file or "", -1, -1, self.message)
        name, start, end = self.location.sort_key()
        return (name, start, end, self.message)


class PolicyErrors(PolicyError):
    """Several errors at once, sorted by location then message (OPA `Errors.Sort`)."""

    def __init__(self, errors: Iterable[PolicyError]) -> None:
        flat: list[PolicyError] = []
        for err in errors:
            flat.extend(err.errors)
        if not flat:
            raise ValueError("PolicyErrors needs at least one error")
        flat.sort(key=PolicyError.sort_key)
        first = flat[0]
        super().__init__(first.message, code=first.code, location=first.location, help=first.help)
        self._errors = tuple(flat)

    @property
    def errors(self) -> tuple[PolicyError, ...]:
        return self._errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self._errors)

    def render(self) -> str:
        return "\n".join(e.render() for e in self._errors)


class ErrorCollector:
    """Collects errors across compiler stages; raises them together (capped) at `check()`."""

    def __init__(self, limit: int = 100) -> None:
        self.items: list[PolicyError] = []
        self.warnings: list[PolicyError] = []
        self.limit = limit

    def add(self, err: PolicyError) -> None:
        for e in err.errors:
            (self.warnings if e.severity == "warning" else self.items).append(e)

    def __bool__(self) -> bool:
        return bool(self.items)

    def check(self) -> None:
        if self.items:
            raise PolicyErrors(sorted(self.items, key=PolicyError.sort_key)[: self.limit])


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A `did you mean ...?` help text for a misspelt key, tool or event, if one is close."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
