"""Render the check catalogue as Markdown (docs/checks.md, which SARIF `helpUri`s point into)."""

from __future__ import annotations

from .registry import CHECKS

LOAD_CODES = {
    "policy_syntax_error": "the file is not valid YAML, TOML or JSON (duplicate keys included)",
    "policy_schema_error": "a key is unknown, missing or of the wrong type (with a did-you-mean); a native policy without `version:` is this error, not another agent's settings",
    "policy_parse_error": "a permission expression, `when` condition, glob, matcher or template does not parse",
    "policy_type_error": "a `when` condition names an unknown field, function or method, or is not a bool",
    "policy_limit_exceeded": "a size or depth limit was exceeded (expression length, nesting, rules, files)",
    "policy_extends_cycle": "`extends` files include each other",
    "policy_unknown_pack": "`extends` names a `pack:NAME` that is not a bundled pack (the known ones are listed)",
    "policy_io_error": "a file cannot be read or is not UTF-8",
    "policy_duplicate_id": "two rules share an `id`",
    "policy_unknown_event": "a hook event that does not exist",
    "policy_unknown_builtin": "a builtin hook that does not exist",
    "policy_builtin_args": "a builtin hook's `args` do not suit it",
    "policy_model_error": "a model hook names an unknown provider or schema",
    "policy_primary_param": "`Tool(arg:value)` names the primary argument (matched as `Tool(value)`)",
    "policy_no_primary_arg": "a call-form allow on a tool with no known primary argument never matches",
    "policy_shell_param": "`Bash(x:*)` is a command prefix (Claude's legacy form), not a rule on Bash's `x` argument",
    "policy_param_unknown": "`Tool(x:value)` where the tool is declared without argument `x`: read as a pattern on its primary argument, or never matching on a tool without one",
    "policy_test_failed": "an inline or file policy test got another decision",
    "import_parse_error": "a foreign config (Claude, docker-agent, Gemini, Codex, agent-code) does not parse",
    "import_unsupported": "a foreign construct that cannot be expressed natively (dropped, never guessed)",
    "import_semantics_differ": "a foreign construct expressed with slightly different semantics",
}


def render_markdown() -> str:
    lines = [
        "# `policy check` codes",
        "",
        "Every finding has a stable code, a severity and a location (`file:line:col`). Errors fail the",
        "check; warnings fail it with `--strict`; notes (what the analysis could not decide) never do.",
        "",
        "## Loading and compiling",
        "",
        "| code | meaning |",
        "|---|---|",
    ]
    lines += [f"| `{code}` | {text} |" for code, text in LOAD_CODES.items()]
    lines += ["", "## Lint", ""]
    for info in CHECKS.values():
        lines += [f"### {info.code}", "", f"**{info.severity}**: {info.title}.", "", info.help, ""]
    return "\n".join(lines)
