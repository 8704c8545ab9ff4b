"""The lint checks' catalogue: every finding code with a title and a help text.

Place in the pipeline: data for `lint` (which emits findings) and for the SARIF renderer (which
describes each rule it reports). The codes and their default severities are `ErrorCode`s (the one
enum of codes, `toolpolicy.vocabulary`); codes are stable snake_case strings: never rename one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocabulary import ErrorCode

DOCS_URI = "https://github.com/toolpolicy/toolpolicy/blob/main/docs/checks.md"


@dataclass(frozen=True, slots=True)
class CheckInfo:
    code: ErrorCode
    severity: str  # its default severity: "error" | "warning" | "note"
    title: str
    help: str


def _c(code: ErrorCode, title: str, help: str) -> CheckInfo:
    return CheckInfo(code, code.default_severity, title, help)


CHECKS: dict[str, CheckInfo] = {
    c.code: c
    for c in (
        # names
        _c(
            ErrorCode.LINT_UNKNOWN_TOOL,
            "tool not known to the profile",
            "a rule on a tool the agent never calls has no effect; fix the name or declare it under `tools:`",
        ),
        _c(
            ErrorCode.LINT_UNKNOWN_ARGUMENT,
            "argument not known for the tool",
            "a condition on an argument the tool never receives never holds; fix the name or list it in "
            "the tool's `args:`",
        ),
        # regexes
        _c(
            ErrorCode.LINT_REGEX_FALLBACK,
            "regex needs the backtracking engine",
            "RE2 (linear time) rejects this pattern, so it runs on the `regex` module under a timeout that "
            "fails closed; rewrite it without backreferences or lookaround",
        ),
        _c(
            ErrorCode.LINT_REGEX_BACKTRACKING,
            "regex with catastrophic backtracking",
            "nested or overlapping quantifiers take exponential time on the backtracking engine; rewrite it "
            "so that RE2 accepts it, or remove the nesting",
        ),
        # rules
        _c(
            ErrorCode.LINT_RULE_NEVER_MATCHES,
            "rule can never match",
            "the rule has no effect; fix its condition or remove it",
        ),
        _c(
            ErrorCode.LINT_WHEN_ALWAYS_TRUE,
            "`when` is always true",
            "a condition that cannot be false adds nothing; remove it or fix it",
        ),
        _c(
            ErrorCode.LINT_WHEN_ALWAYS_FAILS,
            "`when` always fails",
            "a failing condition never allows and turns deny/ask into ask; fix the expression",
        ),
        _c(
            ErrorCode.LINT_DUPLICATE_RULE,
            "duplicate rule",
            "the same rule is written twice; remove one of them",
        ),
        _c(
            ErrorCode.LINT_CONTRADICTORY_RULES,
            "allow and deny/ask rules with the same match",
            "at the same priority the more restrictive rule always wins: the allow never applies",
        ),
        _c(
            ErrorCode.LINT_ALLOW_OVERRIDDEN,
            "allow rule overridden by deny/ask rules",
            "every call the allow matches is denied or asked by a rule of the same or a higher priority",
        ),
        _c(
            ErrorCode.LINT_RULE_SHADOWED,
            "rule shadowed by other rules",
            "removing the rule would not change any decision; remove it or narrow the other rules",
        ),
        _c(
            ErrorCode.LINT_UNDECIDED,
            "analysis could not decide",
            "the relation between these rules depends on `when` conditions, shell/path/URL semantics or "
            "analysis bounds, so no finding is reported",
        ),
        _c(
            ErrorCode.LINT_WHEN_UNGUARDED,
            "field access without a `has()` guard",
            "if the argument is missing the condition fails: an allow rule then does not match and a "
            "deny/ask rule asks; guard it with `has(args.x) && ...`",
        ),
        # dangerous allows
        _c(
            ErrorCode.LINT_DANGEROUS_ALLOW,
            "dangerously broad allow",
            "the rule allows arbitrary commands or every tool; narrow it to the commands you mean",
        ),
        _c(
            ErrorCode.LINT_EXEC_PREFIX_ALLOW,
            "prefix allow on an exec-capable command",
            "a prefix allow never covers exec-capable commands (sudo, xargs, env CMD, find -exec, "
            "bash -c...): they need an exact rule, so this rule does not do what it seems to",
        ),
        _c(
            ErrorCode.LINT_CHAINING_ALLOW,
            "plain-glob allow admits command chaining",
            "the tool is not shell-kind, so its globs see the raw text: `git *` also matches "
            "`git x; rm -rf ~`; declare the tool `kind: shell` or use exact values",
        ),
        # hooks
        _c(
            ErrorCode.LINT_HOOK_COMMAND_MISSING,
            "hook command not found",
            "the hook's command does not exist (on PATH or relative to the policy), so every run fails",
        ),
        _c(
            ErrorCode.LINT_HOOK_COMMAND_NOT_EXECUTABLE,
            "hook command not executable",
            "the hook's command exists but is not executable; `chmod +x` it",
        ),
        _c(
            ErrorCode.LINT_HOOK_CANNOT_BLOCK,
            "blocking hook on an event that cannot block",
            "this event cannot block, so `on_error: block` is turned into a warning",
        ),
        _c(
            ErrorCode.LINT_HOOK_ON_ERROR_IGNORED,
            "`on_error` cannot weaken a fail-closed event",
            "failures of hooks on this event always deny, whatever `on_error` says",
        ),
        _c(
            ErrorCode.LINT_HOOK_TIMEOUT,
            "hook timeout too long",
            "a hook that may run for minutes blocks the agent; keep timeouts under 600 seconds",
        ),
        _c(
            ErrorCode.LINT_HOOK_MATCHER_IGNORED,
            "matcher on an event without a tool",
            "only tool events select hook groups by tool name; the matcher is ignored",
        ),
        # authoring traps
        _c(
            ErrorCode.LINT_URL_WITHOUT_DOMAIN,
            "URL pattern that names a host",
            "`WebFetch(host)` is matched against the whole URL; write `WebFetch(domain:host)`",
        ),
        _c(
            ErrorCode.LINT_POLICY_RELATIVE_PATH,
            "system path written relative to the policy",
            "`/etc/**` is relative to the policy's directory; `//etc/**` is the absolute path",
        ),
        _c(
            ErrorCode.LINT_COLON_PATH,
            "colon-form glob on a path",
            "a colon-form glob sees the path as sent: `path=.env` misses `sub/.env`; use the call form `tool(.env)`",
        ),
        _c(
            ErrorCode.LINT_CLUSTERED_FLAGS,
            "deny or ask on clustered flags",
            "`rm -rf *` misses `rm -r -f` and `rm --recursive --force`; deny the command itself or each spelling",
        ),
        _c(
            ErrorCode.LINT_EXACT_RESTRICTION,
            "deny or ask on an exact command",
            "`Bash(npm publish)` misses `npm publish --tag x`; add `Bash(npm publish *)`",
        ),
        _c(
            ErrorCode.LINT_WINDOWS_PATH,
            "Windows path in a path pattern",
            "paths are POSIX; write `//c/Users/...` with forward slashes",
        ),
        _c(
            ErrorCode.LINT_ENV_VAR_PATH,
            "environment variable in a path pattern",
            "`$HOME`, `${HOME}` and `%USERPROFILE%` are never expanded in patterns: `Read($HOME/.netrc)` names a directory called `$HOME`; write `Read(~/.netrc)`",
        ),
        _c(
            ErrorCode.LINT_PADDED_PATTERN,
            "leading or trailing blank in a pattern",
            "a path or argument pattern is matched as written: `Read(~/.aws/credentials )` misses the file; remove the blank",
        ),
        _c(
            ErrorCode.LINT_DENY_UNREACHABLE,
            "deny or ask below a broader allow",
            "a higher-priority allow decides every call the deny would; raise the deny's priority or narrow the allow",
        ),
        _c(
            ErrorCode.LINT_PROTECTED_ALLOW,
            "allow covers the policy or its hook registration",
            "an agent that may write the policy file or the settings that register its hook (with a writing tool, or a shell command that writes, replaces or deletes it: `cp`, `mv`, `tee`, `rm`, a redirection) can turn it off; ask or deny those writes",
        ),
        _c(
            ErrorCode.LINT_INTERNAL_ERROR,
            "a lint check failed",
            "this is a bug in toolpolicy; please report it with the policy",
        ),
    )
}


def info(code: str) -> CheckInfo | None:
    return CHECKS.get(code)
