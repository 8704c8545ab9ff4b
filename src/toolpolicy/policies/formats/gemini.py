"""Gemini CLI importer: a policy TOML (`[[rule]]` entries) -> a native policy mapping.

Reproduces Gemini's policy engine (research: gemini-codex.md part A) with profile `gemini`:

* First match by priority: Gemini's final priority is `tier + priority/1000` with ties kept in
  file order. Natively the highest priority decides, so each rule gets
  `(tier * 1000 + priority) * 1000 - k`, where `k` is the rule's rank among the rules of the same
  Gemini priority: exact order, no tie left to the native deny > ask > allow.
* `toolName` (string or list) and `mcpName`: `*`, `mcp_*` and `mcp_<server>_*` are globs; any
  other `*` is literal in Gemini (e.g. `mcp_*_search` from `mcpName = "*"`) and stays literal.
* `commandPrefix` (literal text plus a word boundary) -> `run_shell_command(prefix *)`, or the
  colon form with escaped globs when the prefix holds glob or paren characters.
* `commandRegex` and `argsPattern` on `"command":"...` are translated into globs on the command
  (`_regex_glob`), so that they apply to each simple command as Gemini's shell splitting does.
  Other `argsPattern`s become `when: stable_json(args).matches(...)`: `stable_json()` is Gemini's
  stable stringify (sorted keys, no spaces, non-ASCII kept, each top-level `"key":value` wrapped
  in NUL bytes); JavaScript's NUL escapes (`\\0`, `\\u0000`) in a pattern become `\\x00`.
  An untranslatable command regex falls back to that whole-call `when`; on an allow rule it is
  also restricted to commands without shell operators (a whole-string match must not allow a
  chained command).
* `decision`: allow / deny / ask_user -> allow / deny / ask. `denyMessage` -> `reason`.
* `modes` (default, autoEdit, yolo; `plan` has no native mode) and `interactive` -> rule
  `modes` (`default` covers interactive and headless; headless is native `non_interactive`,
  which also turns Gemini's default ask and every ask into deny).
* `subagent` and `toolAnnotations` -> `when` on `context.subagent` / `context.annotations`.
* `allowRedirection` becomes the native rule field `allow_redirection`.
* Not expressible (warned): `[[safety_checker]]`, unknown keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import PolicyError, PolicyErrors
from ...source import Location, Source
from ._auto_approve import add_protected_paths
from ._common import (
    DIFFERS,
    PARSE_ERROR,
    DocBuilder,
    ImportResult,
    Located,
    cel_string,
    colon_value_ok,
    glob_escape,
    load_toml,
    locate_table_array,
    safe_value_glob,
)
from ._regex_glob import regex_to_globs

TIERS = {"default": 1, "extension": 2, "workspace": 3, "user": 4, "admin": 5}
DECISIONS = {"allow": "allow", "deny": "deny", "ask_user": "ask"}
RULE_KEYS = frozenset(
    {
        "toolName",
        "mcpName",
        "subagent",
        "argsPattern",
        "commandPrefix",
        "commandRegex",
        "toolAnnotations",
        "decision",
        "priority",
        "modes",
        "interactive",
        "allowRedirection",
        "allow_redirection",
        "denyMessage",
        "deny_message",
    }
)
NATIVE_MODES = ("default", "yolo", "non_interactive", "auto_edit")
GEMINI_MODES = {
    "default": {"default", "non_interactive"},
    "autoEdit": {"auto_edit"},
    "yolo": {"yolo"},
    "plan": set(),
}
SHELL_TOOLS = frozenset({"run_shell_command", "ShellTool"})
# What an allow must name to auto-approve a file write: every tool, a writer, or the shell.
WRITING_TOOLS = frozenset({"*", "write_file", "replace", *SHELL_TOOLS})
AUTO_MODES = {"autoEdit": "auto_edit", "yolo": "yolo"}
COMMAND_KEY = '"command":"'
SHELL_OPERATORS = r"[;&|<>()`$\n\r]"
_JS_NUL_ESCAPES = re.compile(r"\\u0000|\\0(?![0-7])")  # JavaScript spellings of NUL; RE2 wants \x00
# Gemini CLI 0.61's own ReDoS heuristic (`isSafeRegExp`, packages/core/src/policy/utils.ts).
_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")
# A command text Gemini's whole-text first match cannot allow by a rule on another program: a shell
# wrapper (`bash -c`), a subshell, a group or a negation. Gemini strips such wrappers only for the
# parts of a command, after the whole text was matched (and found no allow).
_WRAPPED_START = r"^\s*(?:[({!]|(?:\S*/)?(?:ba|da|k|z)?sh\s+-[A-Za-z]*c(?:\s|$))"
MAX_REGEX = 2048


@dataclass
class _Rule:
    """One `[[rule]]` being converted: its native pieces before they are emitted."""

    index: int
    data: dict[str, Any]
    path: tuple
    loc: Location
    located: Located
    decision: str = "ask"
    tools: list[str] = field(default_factory=list)
    modes: list[str] | None = None
    when: list[str] = field(default_factory=list)


def import_gemini(text: str, *, path: str | None = None, tier: str = "user") -> ImportResult:
    """Import a Gemini policy TOML text; `tier` is the policy directory it comes from."""
    located = load_toml(Source(str(path) if path else "policy.toml", text))
    locate_table_array(located, "rule")
    if tier not in TIERS:
        raise ValueError(f"unknown Gemini tier `{tier}`; one of {', '.join(TIERS)}")
    builder = DocBuilder(profile="gemini")
    _check_top_level(builder, located)
    rules = _collect(builder, located)
    ranks: dict[int, int] = {}
    for rule in rules:
        base = TIERS[tier] * 1000 + rule.data["priority"]
        rank = ranks.get(base, 0)
        ranks[base] = rank + 1
        if rank >= 1000:
            raise _invalid(
                "more than 1000 rules share one priority; toolpolicy cannot keep their order", rule.loc
            )
        _emit(builder, rule, base * 1000 - rank)
    return builder.result()


def _check_top_level(builder: DocBuilder, located: Located) -> None:
    for key in located.data:
        loc = located.key_loc((key,))
        if key == "safety_checker":
            builder.warn(
                "`[[safety_checker]]` entries (in-process or external checkers) are not supported", loc
            )
        elif key != "rule":
            builder.warn(f"`{key}` is ignored by Gemini CLI", loc)


def _collect(builder: DocBuilder, located: Located) -> list[_Rule]:
    """Validate every `[[rule]]` as Gemini's loader does; any schema error rejects the file."""
    raw = located.data.get("rule", [])
    if not isinstance(raw, list):
        raise _invalid("`rule` must be an array of tables (`[[rule]]`)", located.loc(("rule",)))
    errors: list[PolicyError] = []
    rules = []
    for i, data in enumerate(raw):
        path = ("rule", i)
        try:
            rules.append(_validate(builder, located, data, path, i))
        except PolicyError as exc:
            errors.append(exc)
    if errors:
        raise PolicyErrors(errors)
    return rules


def _invalid(message: str, loc: Location, help: str | None = None) -> PolicyError:
    return PolicyError(message, code=PARSE_ERROR, location=loc, help=help)


def _validate(builder: DocBuilder, located: Located, data: Any, path: tuple, index: int) -> _Rule:
    loc = located.loc(path)
    if not isinstance(data, dict):
        raise _invalid("a `[[rule]]` entry must be a table", loc)
    for key in data:
        if key not in RULE_KEYS:
            builder.warn(f"`{key}` is not a Gemini rule key and is ignored", located.key_loc((*path, key)))
    decision = data.get("decision")
    if decision not in DECISIONS:
        raise _invalid(
            f"`decision` is `{decision}`, expected allow, deny or ask_user",
            located.loc((*path, "decision")) if "decision" in data else loc,
        )
    priority = data.get("priority")
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 999:
        raise _invalid(
            f"`priority` is `{priority}`, expected an integer from 0 to 999",
            located.loc((*path, "priority")) if "priority" in data else loc,
        )
    names = data.get("toolName")
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise _invalid(
            "`toolName` must be a tool name or a list of names",
            located.loc((*path, "toolName")) if "toolName" in data else loc,
            help='use `toolName = "*"` for every tool',
        )
    return _Rule(index, data, path, loc, located, DECISIONS[decision], [str(n) for n in names])


# ---- emitting one rule


def _emit(builder: DocBuilder, rule: _Rule, priority: int) -> None:
    located_warn = _Warner(builder, rule)
    rule.modes = _modes(rule, located_warn)
    if rule.modes == []:
        return
    tools = [_tool_pattern(t, rule.data.get("mcpName"), located_warn) for t in rule.tools]
    _filters(rule, located_warn)
    allow_redirection = any(rule.data.get(k) for k in ("allowRedirection", "allow_redirection"))
    groups = _match_groups(rule, tools, located_warn)
    for matches, extra_when in groups:
        when = [*rule.when, *extra_when]
        matches = _with_subagents(matches, rule)
        shell_allow = rule.decision == "allow" and any(t in SHELL_TOOLS for t in rule.tools)
        if shell_allow and not allow_redirection:
            # Gemini downgrades an allowed command with any redirection, `> /dev/null` and input
            # redirections (`<`, `<<`, `<<<`) included; a `<` or `>` in quotes is also kept from the allow
            when.append('!(has(args.command) && args.command.matches("[<>]"))')
        if shell_allow and not _starts_wrapped(rule):
            when.append(f"!(has(args.command) && args.command.matches({cel_string(_WRAPPED_START)}))")
        native = {
            "decision": rule.decision,
            "match": matches if len(matches) > 1 else matches[0],
            "priority": priority,
            "when": (when[0] if len(when) == 1 else " && ".join(f"({w})" for w in when)) if when else None,
            "reason": _reason(rule),
            "modes": rule.modes,
            "allow_redirection": True if allow_redirection and rule.decision == "allow" else None,
        }
        builder.add_rule(native, rule.loc)
    _protect_auto_modes(builder, rule, priority)


def _protect_auto_modes(builder: DocBuilder, rule: _Rule, priority: int) -> None:
    """An allow that Gemini applies in `autoEdit` or `yolo` and that may write files gets the
    protected-path ask at its own priority, in those modes (`_auto_approve.py`)."""
    named = rule.data.get("modes")
    auto = [m for m in named if m in AUTO_MODES] if isinstance(named, list) else []
    modes = [AUTO_MODES[m] for m in auto if rule.modes is None or AUTO_MODES[m] in rule.modes]
    if rule.decision != "allow" or not modes or not WRITING_TOOLS & set(rule.tools):
        return
    setting = "modes = [" + ", ".join(auto) + "]"
    add_protected_paths(
        builder, rule.loc, setting=setting, agent="Gemini CLI", priority=priority, modes=modes
    )


def _starts_wrapped(rule: _Rule) -> bool:
    """Whether the rule's own prefix or regex starts with a shell wrapper (it then may allow one)."""
    texts = rule.data.get("commandPrefix") or rule.data.get("commandRegex") or []
    return any(
        isinstance(t, str) and re.match(_WRAPPED_START, t)
        for t in ([texts] if isinstance(texts, str) else texts)
    )


class _Warner:
    """Warns at a rule's key (`key`, else the key being converted, `focus`), else at its header."""

    def __init__(self, builder: DocBuilder, rule: _Rule) -> None:
        self.builder, self.rule = builder, rule
        self.focus: str | None = None

    def __call__(self, message: str, code: str = "import_unsupported", key: str | None = None) -> None:
        loc = self.rule.loc
        key = key or self.focus
        if key is not None and key in self.rule.data:
            loc = self.rule.located.key_loc((*self.rule.path, key))
        self.builder.warn(message, loc, code=code)


def _reason(rule: _Rule) -> str | None:
    msg = rule.data.get("denyMessage", rule.data.get("deny_message"))
    return str(msg) if isinstance(msg, str) and msg else None


def _modes(rule: _Rule, warn: _Warner) -> list[str] | None:
    allowed = set(NATIVE_MODES)
    modes = rule.data.get("modes")
    if isinstance(modes, list) and modes:
        allowed = set()
        for mode in modes:
            if mode not in GEMINI_MODES:
                warn(f"unknown mode `{mode}` is ignored", key="modes")
            elif mode == "plan":
                warn(
                    "plan mode has no toolpolicy equivalent: this rule's plan-mode part is dropped",
                    key="modes",
                )
            allowed |= GEMINI_MODES.get(mode, set())
    interactive = rule.data.get("interactive")
    if interactive is True:
        allowed.discard("non_interactive")
    elif interactive is False:
        allowed &= {"non_interactive"}
    if not allowed:
        warn(
            "this rule applies in no toolpolicy mode (plan-only, or headless with a non-default mode); dropped"
        )
        return []
    return None if allowed == set(NATIVE_MODES) else [m for m in NATIVE_MODES if m in allowed]


def _tool_pattern(name: str, server: Any, warn: _Warner) -> str:
    """Gemini's tool-name rule as a native tool glob."""
    if isinstance(server, str) and server:
        if server == "*":
            name = "mcp_*" if name == "*" else f"mcp_*_{name}"
        else:
            name = f"mcp_{server}_*" if name == "*" else f"mcp_{server}_{name}"
    if name in ("*", "mcp_*"):
        return name
    m = re.fullmatch(r"mcp_([^*]+)_\*", name)
    if m:
        return f"mcp_{glob_escape(m.group(1))}_*"
    if "*" in name:
        warn(
            f"Gemini compares `{name}` literally (only `*`, `mcp_*` and `mcp_<server>_*` are wildcards)",
            DIFFERS,
        )
    escaped = glob_escape(name)
    if re.search(r"[\s()|]", escaped):
        warn(
            f"tool name `{name}` holds blanks, parens or `|`, which a native tool glob cannot; each became `?`",
            DIFFERS,
        )
        escaped = re.sub(r"[\s()|]", "?", escaped)
    return escaped


def _filters(rule: _Rule, warn: _Warner) -> None:
    subagent = rule.data.get("subagent")
    if isinstance(subagent, str) and subagent:
        rule.when.append(f"has(context.subagent) && context.subagent == {cel_string(subagent)}")
        warn(
            "`subagent`: the rule applies only when the call's context carries `subagent`",
            DIFFERS,
            "subagent",
        )
    annotations = rule.data.get("toolAnnotations")
    if isinstance(annotations, dict) and annotations:
        rule.when.append(_annotations_when(annotations, warn))
        warn(
            "`toolAnnotations`: the rule applies only when the call's context carries `annotations`",
            DIFFERS,
            "toolAnnotations",
        )


def _annotations_when(annotations: dict, warn: _Warner) -> str:
    parts = ["has(context.annotations)"]
    for key, value in annotations.items():
        literal = _cel_literal(value)
        if literal is None:
            warn(f"annotation `{key}` has a value toolpolicy cannot compare; the rule never matches")
            return "false"
        k = cel_string(str(key))
        parts.append(f"{k} in context.annotations && context.annotations[{k}] == {literal}")
    return " && ".join(parts)


def _cel_literal(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return cel_string(value)
    return None


# ---- argument conditions


def _match_groups(rule: _Rule, tools: list[str], warn: _Warner) -> list[tuple[list[str], list[str]]]:
    """Split the rule into (match expressions, extra `when` parts) groups."""
    data = rule.data
    prefix, regex, args = data.get("commandPrefix"), data.get("commandRegex"), data.get("argsPattern")
    if prefix is not None or regex is not None:
        if [prefix is not None, regex is not None, args is not None].count(True) > 1:
            warn(
                "Gemini rejects combining commandPrefix, commandRegex and argsPattern; the rule is kept "
                "with its first condition only"
            )
        if any(t not in SHELL_TOOLS for t in rule.tools):
            warn("commandPrefix and commandRegex apply to `run_shell_command` only (Gemini reports an error)")
        shell = [t for t in tools if t in SHELL_TOOLS] or ["run_shell_command"]
        if prefix is not None:
            warn.focus = "commandPrefix"
            matches = _prefix_matches(shell, prefix, warn)
            return [(matches, _prefix_text_guard(prefix, rule.decision))] if matches else []
        warn.focus = "commandRegex"
        return _regex_groups(rule, shell, COMMAND_KEY + str(regex), warn)
    if args is not None:
        warn.focus = "argsPattern"
        return _args_groups(rule, tools, args, warn)
    return [(tools, [])]


def _with_subagents(matches: list[str], rule: _Rule) -> list[str]:
    """Gemini also tries `invoke_agent`'s `agent_name` as a tool name (research A.4 step 2)."""
    plain = rule.data.get("argsPattern") is None and rule.data.get("commandPrefix") is None
    extra = [
        f"invoke_agent:agent_name={glob_escape(m)}"
        for m in matches
        if plain
        and re.fullmatch(r"[A-Za-z0-9_.-]+", m)
        and not m.startswith("mcp_")
        and m not in SHELL_TOOLS
        and m != "invoke_agent"
    ]
    return [*matches, *extra]


def _prefix_text_guard(prefix: Any, decision: str) -> list[str]:
    """Gemini compares a prefix with the raw command text, where the shell view normalises blanks.

    So an allow also requires that the raw text does not spell the prefix with other blanks
    (leading blanks, a tab or several spaces between its words): Gemini would ask for those.
    The guard only ever removes an allow (compound commands keep their per-command matching).
    """
    prefixes = [p for p in (prefix if isinstance(prefix, list) else [prefix]) if isinstance(p, str) and p]
    if decision != "allow" or not prefixes:
        return []
    odd = ["^\\s"]
    for p in prefixes:
        words = p.split()
        if len(words) > 1:
            odd.append("(?:^|[;&|(`$]\\s*)" + "(?: {2,}|[^\\S ]\\s*)".join(re.escape(w) for w in words))
    return [f"!(has(args.command) && args.command.matches({cel_string('|'.join(odd))}))"]


def _prefix_matches(tools: list[str], prefix: Any, warn: _Warner) -> list[str]:
    prefixes = prefix if isinstance(prefix, list) else [prefix]
    out: list[str] = []
    for p in prefixes:
        if not isinstance(p, str) or not p:
            warn("`commandPrefix` entries must be non-empty strings; ignored", key="commandPrefix")
            continue
        for tool in tools:
            out.extend(prefix_expressions(tool, p))
    return out


def prefix_expressions(tool: str, prefix: str) -> list[str]:
    """Gemini's prefix (literal text, then a blank or the end) as native expressions."""
    if re.fullmatch(r"[^\s*?\[\]\\()]+(?: [^\s*?\[\]\\()]+)*", prefix) and not prefix.endswith(":"):
        return [f"{tool}({prefix} *)"]
    literal = glob_escape(prefix)
    if not colon_value_ok(literal):
        return [f"{tool}:command={safe_value_glob(literal)}"]  # pragma: no cover - needs `:word=` in a prefix
    return [f"{tool}:command={safe_value_glob(literal)}", f"{tool}:command={literal} *"]


def _regex_groups(
    rule: _Rule, tools: list[str], pattern: str, warn: _Warner
) -> list[tuple[list[str], list[str]]]:
    """A regex over `"command":"...` on the shell tool: globs per simple command when possible."""
    cleaned = _clean_regex(pattern, warn)
    if cleaned is None:
        return []
    pattern = cleaned
    if pattern.startswith(COMMAND_KEY + "^"):
        warn(
            "in Gemini `^` anchors at the start of the arguments' JSON text, so this regex never matches; "
            "the rule is dropped",
            DIFFERS,
        )
        return []
    translated = regex_to_globs(pattern[len(COMMAND_KEY) :]) if pattern.startswith(COMMAND_KEY) else None
    if translated is not None and (translated.exact or rule.decision != "allow"):
        if not translated.exact:
            warn("the command regex is approximated by wider globs (safe for deny and ask)", DIFFERS)
        globs = [g for g in translated.globs if colon_value_ok(g)]
        if len(globs) == len(translated.globs):
            return [([f"{t}:command={safe_value_glob(g)}" for t in tools for g in globs], [])]
    warn(
        "this command regex cannot be applied to each simple command; it is tested on the whole call", DIFFERS
    )
    whole = f"args != null && stable_json(args).matches({cel_string(pattern)})"
    if rule.decision == "allow":
        return [
            (tools, [whole, f"has(args.command) && !args.command.matches({cel_string(SHELL_OPERATORS)})"])
        ]
    # Gemini applies a deny or ask regex to each part of a compound command too: search the
    # command text anywhere (wider than each part's start, which is the safe side for deny and ask)
    body = pattern[len(COMMAND_KEY) :] if pattern.startswith(COMMAND_KEY) else None
    if body is None:
        return [(tools, [whole])]
    return [(tools, [f"({whole}) || (has(args.command) && args.command.matches({cel_string(body)}))"])]


def _args_groups(
    rule: _Rule, tools: list[str], pattern: Any, warn: _Warner
) -> list[tuple[list[str], list[str]]]:
    if not isinstance(pattern, str):
        warn("`argsPattern` must be a string; the rule is dropped", key="argsPattern")
        return []
    shell = [t for t in tools if t in SHELL_TOOLS]
    other = [t for t in tools if t not in SHELL_TOOLS]
    groups: list[tuple[list[str], list[str]]] = []
    if shell and COMMAND_KEY in pattern:
        groups.extend(_regex_groups(rule, shell, pattern, warn))
    elif shell:
        other = tools
    if other:
        cleaned = _clean_regex(pattern, warn)
        if cleaned is not None:
            groups.append((other, [f"args != null && stable_json(args).matches({cel_string(cleaned)})"]))
    return groups


def _clean_regex(pattern: str, warn: _Warner) -> str | None:
    """Gemini drops a rule whose regex is invalid or fails its ReDoS heuristic."""
    pattern = _JS_NUL_ESCAPES.sub(lambda m: "\\x00", pattern)
    if len(pattern) > MAX_REGEX or _NESTED_QUANTIFIER.search(pattern):
        warn("Gemini drops this rule: its regex is too long or has nested quantifiers (ReDoS heuristic)")
        return None
    try:
        re.compile(pattern)
    except re.error as exc:
        warn(f"Gemini drops this rule: invalid regex ({exc.msg})")
        return None
    return pattern
