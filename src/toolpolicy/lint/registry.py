"""The lint checks' catalogue: every finding code with its default severity, a title and a help text.

Place in the pipeline: data for `lint` (which emits findings) and for the SARIF renderer (which
describes each rule it reports). Codes are stable snake_case strings; never rename one.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URI = "https://github.com/toolpolicy/toolpolicy/blob/main/docs/checks.md"


@dataclass(frozen=True, slots=True)
class CheckInfo:
    code: str
    severity: str  # "error" | "warning" | "note"
    title: str
    help: str


def _c(code: str, severity: str, title: str, help: str) -> CheckInfo:
    return CheckInfo(code, severity, title, help)


CHECKS: dict[str, CheckInfo] = {
    c.code: c
    for c in (
        # names
        _c(
            "lint_unknown_tool",
            "warning",
            "tool not known to the profile",
            "a rule on a tool the agent never calls has no effect; fix the name or declare it under `tools:`",
        ),
        _c(
            "lint_unknown_argument",
            "warning",
            "argument not known for the tool",
            "a condition on an argument the tool never receives never holds; fix the name or list it in "
            "the tool's `args:`",
        ),
        # regexes
        _c(
            "lint_regex_fallback",
            "warning",
            "regex needs the backtracking engine",
            "RE2 (linear time) rejects this pattern, so it runs on the `regex` module under a timeout that "
            "fails closed; rewrite it without backreferences or lookaround",
        ),
        _c(
            "lint_regex_backtracking",
            "error",
            "regex with catastrophic backtracking",
            "nested or overlapping quantifiers take exponential time on the backtracking engine; rewrite it "
            "so that RE2 accepts it, or remove the nesting",
        ),
        # rules
        _c(
            "lint_rule_never_matches",
            "warning",
            "rule can never match",
            "the rule has no effect; fix its condition or remove it",
        ),
        _c(
            "lint_when_always_true",
            "warning",
            "`when` is always true",
            "a condition that cannot be false adds nothing; remove it or fix it",
        ),
        _c(
            "lint_when_always_fails",
            "warning",
            "`when` always fails",
            "a failing condition never allows and turns deny/ask into ask; fix the expression",
        ),
        _c(
            "lint_duplicate_rule",
            "warning",
            "duplicate rule",
            "the same rule is written twice; remove one of them",
        ),
        _c(
            "lint_contradictory_rules",
            "warning",
            "allow and deny/ask rules with the same match",
            "at the same priority the more restrictive rule always wins: the allow never applies",
        ),
        _c(
            "lint_allow_overridden",
            "warning",
            "allow rule overridden by deny/ask rules",
            "every call the allow matches is denied or asked by a rule of the same or a higher priority",
        ),
        _c(
            "lint_rule_shadowed",
            "warning",
            "rule shadowed by other rules",
            "removing the rule would not change any decision; remove it or narrow the other rules",
        ),
        _c(
            "lint_undecided",
            "note",
            "analysis could not decide",
            "the relation between these rules depends on `when` conditions, shell/path/URL semantics or "
            "analysis bounds, so no finding is reported",
        ),
        _c(
            "lint_when_unguarded",
            "warning",
            "field access without a `has()` guard",
            "if the argument is missing the condition fails: an allow rule then does not match and a "
            "deny/ask rule asks; guard it with `has(args.x) && ...`",
        ),
        # dangerous allows
        _c(
            "lint_dangerous_allow",
            "warning",
            "dangerously broad allow",
            "the rule allows arbitrary commands or every tool; narrow it to the commands you mean",
        ),
        _c(
            "lint_exec_prefix_allow",
            "warning",
            "prefix allow on an exec-capable command",
            "a prefix allow never covers exec-capable commands (sudo, xargs, env CMD, find -exec, "
            "bash -c...): they need an exact rule, so this rule does not do what it seems to",
        ),
        _c(
            "lint_chaining_allow",
            "warning",
            "plain-glob allow admits command chaining",
            "the tool is not shell-kind, so its globs see the raw text: `git *` also matches "
            "`git x; rm -rf ~`; declare the tool `kind: shell` or use exact values",
        ),
        # hooks
        _c(
            "lint_hook_command_missing",
            "warning",
            "hook command not found",
            "the hook's command does not exist (on PATH or relative to the policy), so every run fails",
        ),
        _c(
            "lint_hook_command_not_executable",
            "warning",
            "hook command not executable",
            "the hook's command exists but is not executable; `chmod +x` it",
        ),
        _c(
            "lint_hook_cannot_block",
            "warning",
            "blocking hook on an event that cannot block",
            "this event cannot block, so `on_error: block` is turned into a warning",
        ),
        _c(
            "lint_hook_on_error_ignored",
            "warning",
            "`on_error` cannot weaken a fail-closed event",
            "failures of hooks on this event always deny, whatever `on_error` says",
        ),
        _c(
            "lint_hook_timeout",
            "warning",
            "hook timeout too long",
            "a hook that may run for minutes blocks the agent; keep timeouts under 600 seconds",
        ),
        _c(
            "lint_hook_matcher_ignored",
            "warning",
            "matcher on an event without a tool",
            "only tool events select hook groups by tool name; the matcher is ignored",
        ),
        # authoring traps
        _c(
            "lint_url_without_domain",
            "warning",
            "URL pattern that names a host",
            "`WebFetch(host)` is matched against the whole URL; write `WebFetch(domain:host)`",
        ),
        _c(
            "lint_policy_relative_path",
            "warning",
            "system path written relative to the policy",
            "`/etc/**` is relative to the policy's directory; `//etc/**` is the absolute path",
        ),
        _c(
            "lint_colon_path",
            "warning",
            "colon-form glob on a path",
            "a colon-form glob sees the path as sent: `path=.env` misses `sub/.env`; use the call form `tool(.env)`",
        ),
        _c(
            "lint_clustered_flags",
            "warning",
            "deny or ask on clustered flags",
            "`rm -rf *` misses `rm -r -f` and `rm --recursive --force`; deny the command itself or each spelling",
        ),
        _c(
            "lint_exact_restriction",
            "warning",
            "deny or ask on an exact command",
            "`Bash(npm publish)` misses `npm publish --tag x`; add `Bash(npm publish *)`",
        ),
        _c(
            "lint_windows_path",
            "warning",
            "Windows path in a path pattern",
            "paths are POSIX; write `//c/Users/...` with forward slashes",
        ),
        _c(
            "lint_deny_unreachable",
            "warning",
            "deny or ask below a broader allow",
            "a higher-priority allow decides every call the deny would; raise the deny's priority or narrow the allow",
        ),
        _c(
            "lint_protected_allow",
            "warning",
            "allow covers the policy or its hook registration",
            "an agent that may write the policy file or the settings that register its hook (with a writing tool, or a shell command that writes, replaces or deletes it: `cp`, `mv`, `tee`, `rm`, a redirection) can turn it off; ask or deny those writes",
        ),
        _c(
            "lint_internal_error",
            "warning",
            "a lint check failed",
            "this is a bug in toolpolicy; please report it with the policy",
        ),
    )
}


def info(code: str) -> CheckInfo | None:
    return CHECKS.get(code)
