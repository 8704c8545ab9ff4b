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
    "severity_of",
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
    UNKNOWN_PACK = "policy_unknown_pack"
    # compile warnings: the policy loads, `policy check` reports them
    SHELL_PARAM = "policy_shell_param"
    PARAM_UNKNOWN = "policy_param_unknown"
    LINT = "policy_lint"
    # `policy check`'s lint findings (lint/registry.py describes each)
    LINT_UNKNOWN_TOOL = "lint_unknown_tool"
    LINT_UNKNOWN_ARGUMENT = "lint_unknown_argument"
    LINT_REGEX_FALLBACK = "lint_regex_fallback"
    LINT_REGEX_BACKTRACKING = "lint_regex_backtracking"
    LINT_RULE_NEVER_MATCHES = "lint_rule_never_matches"
    LINT_WHEN_ALWAYS_TRUE = "lint_when_always_true"
    LINT_WHEN_ALWAYS_FAILS = "lint_when_always_fails"
    LINT_DUPLICATE_RULE = "lint_duplicate_rule"
    LINT_CONTRADICTORY_RULES = "lint_contradictory_rules"
    LINT_ALLOW_OVERRIDDEN = "lint_allow_overridden"
    LINT_RULE_SHADOWED = "lint_rule_shadowed"
    LINT_UNDECIDED = "lint_undecided"
    LINT_WHEN_UNGUARDED = "lint_when_unguarded"
    LINT_DANGEROUS_ALLOW = "lint_dangerous_allow"
    LINT_EXEC_PREFIX_ALLOW = "lint_exec_prefix_allow"
    LINT_CHAINING_ALLOW = "lint_chaining_allow"
    LINT_HOOK_COMMAND_MISSING = "lint_hook_command_missing"
    LINT_HOOK_COMMAND_NOT_EXECUTABLE = "lint_hook_command_not_executable"
    LINT_HOOK_CANNOT_BLOCK = "lint_hook_cannot_block"
    LINT_HOOK_ON_ERROR_IGNORED = "lint_hook_on_error_ignored"
    LINT_HOOK_TIMEOUT = "lint_hook_timeout"
    LINT_HOOK_MATCHER_IGNORED = "lint_hook_matcher_ignored"
    LINT_URL_WITHOUT_DOMAIN = "lint_url_without_domain"
    LINT_POLICY_RELATIVE_PATH = "lint_policy_relative_path"
    LINT_COLON_PATH = "lint_colon_path"
    LINT_CLUSTERED_FLAGS = "lint_clustered_flags"
    LINT_EXACT_RESTRICTION = "lint_exact_restriction"
    LINT_WINDOWS_PATH = "lint_windows_path"
    LINT_ENV_VAR_PATH = "lint_env_var_path"
    LINT_PADDED_PATTERN = "lint_padded_pattern"
    LINT_DENY_UNREACHABLE = "lint_deny_unreachable"
    LINT_PROTECTED_ALLOW = "lint_protected_allow"
    LINT_INTERNAL_ERROR = "lint_internal_error"

    @property
    def default_severity(self) -> Severity:
        """Compile warnings, importer findings about what a foreign format means and most lint
        findings are warnings (`lint_undecided` a note); the rest stop a load."""
        return _SEVERITY.get(self, Severity.ERROR)


def severity_of(code: str) -> Severity:
    """The default severity of any code (one that is not an `ErrorCode` is an error)."""
    try:
        return ErrorCode(code).default_severity
    except ValueError:
        return Severity.ERROR


_SEVERITY: dict[ErrorCode, Severity] = {
    **dict.fromkeys(
        (
            ErrorCode.IMPORT_UNSUPPORTED,
            ErrorCode.IMPORT_SEMANTICS_DIFFER,
            ErrorCode.PRIMARY_PARAM,
            ErrorCode.NO_PRIMARY_ARG,
            ErrorCode.SHELL_PARAM,
            ErrorCode.PARAM_UNKNOWN,
            ErrorCode.LINT,
            ErrorCode.LINT_UNKNOWN_TOOL,
            ErrorCode.LINT_UNKNOWN_ARGUMENT,
            ErrorCode.LINT_REGEX_FALLBACK,
            ErrorCode.LINT_RULE_NEVER_MATCHES,
            ErrorCode.LINT_WHEN_ALWAYS_TRUE,
            ErrorCode.LINT_WHEN_ALWAYS_FAILS,
            ErrorCode.LINT_DUPLICATE_RULE,
            ErrorCode.LINT_CONTRADICTORY_RULES,
            ErrorCode.LINT_ALLOW_OVERRIDDEN,
            ErrorCode.LINT_RULE_SHADOWED,
            ErrorCode.LINT_WHEN_UNGUARDED,
            ErrorCode.LINT_DANGEROUS_ALLOW,
            ErrorCode.LINT_EXEC_PREFIX_ALLOW,
            ErrorCode.LINT_CHAINING_ALLOW,
            ErrorCode.LINT_HOOK_COMMAND_MISSING,
            ErrorCode.LINT_HOOK_COMMAND_NOT_EXECUTABLE,
            ErrorCode.LINT_HOOK_CANNOT_BLOCK,
            ErrorCode.LINT_HOOK_ON_ERROR_IGNORED,
            ErrorCode.LINT_HOOK_TIMEOUT,
            ErrorCode.LINT_HOOK_MATCHER_IGNORED,
            ErrorCode.LINT_URL_WITHOUT_DOMAIN,
            ErrorCode.LINT_POLICY_RELATIVE_PATH,
            ErrorCode.LINT_COLON_PATH,
            ErrorCode.LINT_CLUSTERED_FLAGS,
            ErrorCode.LINT_EXACT_RESTRICTION,
            ErrorCode.LINT_WINDOWS_PATH,
            ErrorCode.LINT_ENV_VAR_PATH,
            ErrorCode.LINT_PADDED_PATTERN,
            ErrorCode.LINT_DENY_UNREACHABLE,
            ErrorCode.LINT_PROTECTED_ALLOW,
            ErrorCode.LINT_INTERNAL_ERROR,
        ),
        Severity.WARNING,
    ),
    ErrorCode.LINT_UNDECIDED: Severity.NOTE,
    ErrorCode.LINT_REGEX_BACKTRACKING: Severity.ERROR,
}


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
