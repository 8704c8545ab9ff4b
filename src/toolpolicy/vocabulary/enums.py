"""The typed vocabulary: `StrEnum`s whose values are `toolpolicy.vocabulary`'s plain tuples, and `Settings`.

Imported by the compiler, the schema and the layers above; the runtime uses the plain values only.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from . import EFFECT_RANK

__all__ = [
    "POLICY_MODES",
    "DecisionSource",
    "Effect",
    "ErrorCode",
    "GlobCase",
    "Mode",
    "Settings",
    "Severity",
]


class Effect(StrEnum):
    """What a rule, a hook or the policy decides about a tool call."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def rank(self) -> int:
        """How restrictive: allow 1 < ask 2 < deny 3 (the most restrictive verdict wins)."""
        return EFFECT_RANK[self.value]


class Mode(StrEnum):
    """How an agent session runs (SPEC 4.2): what a final `ask` becomes."""

    DEFAULT = "default"
    YOLO = "yolo"  # ask -> allow (never a guard's ask)
    NON_INTERACTIVE = "non_interactive"  # ask -> deny
    AUTO_EDIT = "auto_edit"  # edits are allowed by the agent itself


# The modes a policy file may set as its `mode:` (a rule's `modes:` may also name `auto_edit`).
POLICY_MODES: tuple[Mode, ...] = (Mode.DEFAULT, Mode.YOLO, Mode.NON_INTERACTIVE)


class DecisionSource(StrEnum):
    """What produced a `Decision` (`Decision.source`)."""

    GUARD_HOOK = "guard_hook"
    RULE = "rule"
    PRE_TOOL_USE_HOOK = "pre_tool_use_hook"
    READ_ONLY_HINT = "read_only_hint"
    DEFAULT = "default"
    MODE = "mode"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class ErrorCode(StrEnum):
    """The stable codes of `PolicyError`s raised while loading, compiling or importing a policy."""

    ERROR = "policy_error"
    PARSE_ERROR = "policy_parse_error"
    SYNTAX_ERROR = "policy_syntax_error"
    SCHEMA_ERROR = "policy_schema_error"
    TYPE_ERROR = "policy_type_error"
    LIMIT_EXCEEDED = "policy_limit_exceeded"
    IO_ERROR = "policy_io_error"
    USAGE_ERROR = "policy_usage_error"
    FMT_ERROR = "policy_fmt_error"
    MODEL_ERROR = "policy_model_error"
    UNSUPPORTED = "policy_unsupported"
    UNKNOWN_EVENT = "policy_unknown_event"
    UNKNOWN_BUILTIN = "policy_unknown_builtin"
    BUILTIN_ARGS = "policy_builtin_args"
    PRIMARY_PARAM = "policy_primary_param"
    NO_PRIMARY_ARG = "policy_no_primary_arg"
    EXTENDS_CYCLE = "policy_extends_cycle"
    DUPLICATE_ID = "policy_duplicate_id"
    BUNDLE_ERROR = "policy_bundle_error"
    TEST_FAILED = "policy_test_failed"
    IMPORT_UNKNOWN_FORMAT = "import_unknown_format"
    IMPORT_PARSE_ERROR = "import_parse_error"
    IMPORT_UNSUPPORTED = "import_unsupported"
    IMPORT_SEMANTICS_DIFFER = "import_semantics_differ"

    @property
    def default_severity(self) -> Severity:
        """Importer findings about what a foreign format means are warnings; the rest stop a load."""
        return Severity.WARNING if self in _WARNINGS else Severity.ERROR


_WARNINGS = frozenset({ErrorCode.IMPORT_UNSUPPORTED, ErrorCode.IMPORT_SEMANTICS_DIFFER})


class GlobCase(StrEnum):
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


class Settings(NamedTuple):
    """A policy's resolved settings (the last of its `extends` chain wins), frozen.

    A NamedTuple, not a dataclass: the runtime may import it on the decide path.
    """

    name: str | None = None
    profile: str = "generic"
    default: Effect = Effect.ASK
    mode: Mode = Mode.DEFAULT
    glob_case: GlobCase = GlobCase.SENSITIVE

    @property
    def fold(self) -> bool:
        """Whether tool names and globs match case-insensitively."""
        return self.glob_case == GlobCase.INSENSITIVE
