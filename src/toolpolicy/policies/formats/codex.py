"""Codex importer: `.rules` files (`prefix_rule(...)`, Starlark subset) -> a native policy mapping.

The file is parsed with the Lark grammar `grammar/codex_rules.lark` and interpreted as data (never
evaluated). Reproduces Codex's execpolicy (research: gemini-codex.md part B) with profile `codex`,
whose `shell` and `exec` tools take argv lists (joined with POSIX quoting before matching):

* `prefix_rule(pattern, decision, justification, match, not_match)` -> one native rule on
  `shell|exec`. A pattern is a token prefix: every combination of its alternatives becomes
  `shell|exec(tok1 tok2 *)` (a word-boundary prefix), or the colon form with escaped globs when a
  token holds characters the call form would read as syntax.
* decision allow / prompt / forbidden -> allow / ask / deny; all matching rules count and the
  strictest wins, which is the native order among equal priorities. `justification` -> `reason`.
* Codex tries rules whose first token is the exact program path before falling back to the
  basename: rules whose first token is a path get priority 1 (the rest 0), so they decide first.
  Natively deny and ask rules also see a path's basename; an allow rule does only through a
  `host_executable(name, paths)` entry, whose paths are added to the allow rules for `name`.
* `match` / `not_match` examples are validated like Codex does (a failing example rejects the
  file) and become inline `tests`, with an expectation where the native decision is certain.
* `network_rule(host, protocol, decision)` governs Codex's sandbox network proxy, which sees
  connections, not tool calls. Validated as Codex does; a `deny`/`prompt` rule becomes a deny/ask
  rule on shell commands whose text names the host (a text approximation, on the safe side for
  deny and ask), an `allow` rule has no native counterpart (warned).
* `config.toml`, `requirements.toml` and `hooks.json` are read by `codex_config` (see there).
Anything Codex rejects is an import error.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from ...errors import PolicyError, PolicyErrors
from ...source import Location, Source, Span
from ._common import DIFFERS, PARSE_ERROR, DocBuilder, ImportResult, glob_escape, safe_value_glob

TOOLS = "shell|exec"
DECISIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
SEVERITY = {"allow": 1, "prompt": 2, "forbidden": 3}
PREFIX_RULE_ARGS = ("pattern", "decision", "justification", "match", "not_match")
NETWORK_RULE_ARGS = ("host", "protocol", "decision", "justification")
NETWORK_PROTOCOLS = frozenset({"http", "https", "https_connect", "http-connect", "socks5_tcp", "socks5_udp"})
NETWORK_DECISIONS = {"allow": "allow", "prompt": "ask", "deny": "deny", "forbidden": "deny"}
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\]")
MAX_EXPANSIONS = 256
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9_./=@%+,-]+")
# Codex approves a shell script by its allow rules only when the script is *plain*: commands of
# bare or quoted words (no expansion, assignment, glob, redirection, comment) joined by `&&`,
# `||`, `;`, `|` or newlines (recorded with Codex 0.169: tests/cases/vendor/codex.yaml). Anything
# else is checked as one `bash -lc` argv, which an allow rule on the program never matches.
_PROGRAM = r"[A-Za-z0-9_./@%+,:~-]+"
_ARG = r"(?:[A-Za-z0-9_./@%+,:~=-]|'[^'\n]*'|\"[^\"$`\\\n]*\")+"
_COMMAND = _PROGRAM + r"(?:[ \t]+" + _ARG + r")*"
PLAIN_SCRIPT = r"^[ \t]*" + _COMMAND + r"(?:[ \t]*(?:&&|\|\||;|\||\n)[ \t\n]*" + _COMMAND + r")*[ \t]*$"
PLAIN_WHEN = (
    '!has(args.command) || json(args.command).startsWith("[") || args.command.matches('
    + json.dumps(PLAIN_SCRIPT)
    + ")"
)
# A `sh -c SCRIPT` command is the argv [sh, -c, SCRIPT] to Codex: only a rule on the shell covers it
# (toolpolicy would look inside the script), so an allow on another program does not.
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_WRAPPED = r"(?:^|[;&|\n])[ \t\n]*(?:\S*/)?(?:ba|da|k|z)?sh[ \t]+-[A-Za-z]*c(?:[ \t]|$)"
NO_SHELL_WRAPPER_WHEN = (
    '!has(args.command) || json(args.command).startsWith("[") || !args.command.matches('
    + json.dumps(_WRAPPED)
    + ")"
)
_PLAIN_PROGRAM = re.compile(r"[A-Za-z0-9_.+-]+")
# Programs whose examples the native engine decides differently on purpose (SPEC 3 wrappers).
_UNCERTAIN_PROGRAMS = frozenset(
    {
        "bash",
        "sh",
        "zsh",
        "dash",
        "env",
        "sudo",
        "doas",
        "xargs",
        "find",
        "watch",
        "setsid",
        "ionice",
        "flock",
        "timeout",
        "time",
        "nice",
        "nohup",
        "stdbuf",
        "command",
        "builtin",
        "noglob",
        "exec",
        "eval",
    }
)


@dataclass(frozen=True, slots=True)
class Value:
    """An interpreted expression and where it was written."""

    data: Any
    span: Span


@dataclass
class PrefixRule:
    patterns: list[list[str]]  # every combination of the pattern's alternatives
    decision: str
    justification: str | None
    match: list[Value]
    not_match: list[Value]
    span: Span
    examples: list[tuple[str, list[str], Span]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NetworkRule:
    host: str
    protocol: str
    decision: str  # allow | ask | deny
    justification: str | None
    span: Span


@dataclass
class Program:
    """What a `.rules` file declares."""

    rules: list[PrefixRule] = field(default_factory=list)
    hosts: dict[str, list[str]] = field(default_factory=dict)
    network: list[NetworkRule] = field(default_factory=list)
    warnings: list[tuple[str, Span]] = field(default_factory=list)


def import_rules(text: str, *, path: str | None = None) -> ImportResult:
    """Import a Codex `.rules` text (`codex_config.import_codex` picks the importer by file name)."""
    builder = DocBuilder(profile="codex")
    add_rules_file(builder, Source(str(path) if path else "default.rules", text))
    return builder.result()


def add_rules_file(builder: DocBuilder, source: Source, hosts: dict[str, list[str]] | None = None) -> Program:
    """Interpret one `.rules` file and add its rules and tests to `builder`.

    `hosts` carries `host_executable` entries from files read before (Codex lets a later
    definition replace an earlier one, across files too).
    """
    program = Interpreter(source).run()
    if hosts:
        program.hosts = {**hosts, **program.hosts}
    for message, span in program.warnings:
        builder.warn(message, Location(source, span))
    for rule in program.rules:
        emit_rule(builder, Location(source, rule.span), program, rule)
    for net in program.network:
        emit_network_rule(builder, Location(source, net.span), net)
    seen: set[str] = set()
    for rule in program.rules:
        _emit_tests(builder, source, program, rule, seen)
    return program


# ---- parsing and interpreting


class Interpreter:
    """Walks the Lark tree of a `.rules` file: constants, `prefix_rule`, `host_executable`."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.env: dict[str, Value] = {}
        self.program = Program()
        self.errors: list[PolicyError] = []

    def run(self) -> Program:
        tree = self._parse()
        for stmt in tree.children:
            try:
                self._stmt(stmt)
            except PolicyError as exc:
                self.errors.append(exc)
        if self.errors:
            raise PolicyErrors(self.errors)
        return self.program

    def _parse(self) -> Any:
        from ...grammar import ExprError, parse

        try:
            return parse("codex_rules.lark", self.source.text, what="rules file", syntax_error=_syntax_error)
        except ExprError as exc:
            raise self.error(exc.message, Span(exc.start, exc.end)) from None

    def error(self, message: str, span: Span, help: str | None = None) -> PolicyError:
        return PolicyError(message, code=PARSE_ERROR, location=Location(self.source, span), help=help)

    def _stmt(self, node: Any) -> None:
        if node.data == "assign":
            name, expr = node.children
            self.env[str(name)] = self.expr(expr)
            return
        name = str(node.children[0])
        args = [c for c in node.children[1:] if c is not None]
        span = _span(node)
        if name == "prefix_rule":
            self.program.rules.append(self._prefix_rule(self._kwargs(name, args, span), span))
        elif name == "host_executable":
            self._host_executable(self._kwargs(name, args, span), span)
        elif name == "network_rule":
            self.program.network.append(self._network_rule(self._kwargs(name, args, span), span))
        else:
            raise self.error(
                f"unknown function `{name}`",
                span,
                help="Codex rules files call `prefix_rule`, `host_executable` or `network_rule`",
            )

    def _kwargs(self, name: str, args: list, span: Span) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for arg in args:
            if arg.data == "posarg":
                raise self.error(
                    f"`{name}` takes keyword arguments only", _span(arg), help="write `pattern = [...]`"
                )
            key = str(arg.children[0])
            if key in out:
                raise self.error(f"argument `{key}` given twice", _span(arg))
            out[key] = self.expr(arg.children[1])
        return out

    # -- expressions

    def expr(self, node: Any) -> Value:
        kind = node.data
        span = _span(node)
        if kind == "string":
            return Value(_decode_string(str(node.children[0]), span, self), span)
        if kind == "number":
            return Value(ast.literal_eval(str(node.children[0])), span)
        if kind == "list":
            return Value([self.expr(c) for c in node.children if c is not None], span)
        if kind == "name":
            return self._name(str(node.children[0]), span)
        if kind == "concat":
            return self._concat([self.expr(c) for c in node.children], span)
        raise self.error(f"unsupported expression `{kind}`", span)  # pragma: no cover - grammar bound

    def _name(self, name: str, span: Span) -> Value:
        constants = {"True": True, "False": False, "None": None}
        if name in constants:
            return Value(constants[name], span)
        if name not in self.env:
            raise self.error(f"`{name}` is not defined", span)
        return Value(self.env[name].data, span)

    def _concat(self, parts: list[Value], span: Span) -> Value:
        if len(parts) == 1:  # a lone term (e.g. a number) the grammar still wraps
            return parts[0]
        first = parts[0].data
        if not all(type(p.data) is type(first) and isinstance(first, str | list) for p in parts):
            raise self.error("`+` joins two strings or two lists", span)
        if isinstance(first, str):
            return Value("".join(p.data for p in parts), span)
        return Value([item for p in parts for item in p.data], span)

    # -- builtins

    def _prefix_rule(self, kwargs: dict[str, Value], span: Span) -> PrefixRule:
        for key, value in kwargs.items():
            if key not in PREFIX_RULE_ARGS:
                raise self.error(f"`prefix_rule` has no argument `{key}`", value.span)
        if "pattern" not in kwargs:
            raise self.error("`prefix_rule` needs `pattern`", span)
        patterns = self._pattern(kwargs["pattern"])
        decision = _plain(kwargs.get("decision")) if "decision" in kwargs else "allow"
        if decision not in DECISIONS:
            raise self.error(
                f"invalid decision `{decision}`",
                kwargs["decision"].span,
                help="use `allow`, `prompt` or `forbidden`",
            )
        justification = self._justification(kwargs.get("justification"))
        match = self._examples(kwargs.get("match"))
        not_match = self._examples(kwargs.get("not_match"))
        return PrefixRule(patterns, decision, justification, match, not_match, span)

    def _pattern(self, value: Value) -> list[list[str]]:
        if not isinstance(value.data, list) or not value.data:
            raise self.error("`pattern` must be a non-empty list", value.span)
        positions: list[list[str]] = []
        for item in value.data:
            if isinstance(item.data, str):
                positions.append([item.data])
            elif (
                isinstance(item.data, list) and item.data and all(isinstance(a.data, str) for a in item.data)
            ):
                positions.append([a.data for a in item.data])
            else:
                raise self.error("a pattern token must be a string or a non-empty list of strings", item.span)
        combos = 1
        for alts in positions:
            combos *= len(alts)
        if combos > MAX_EXPANSIONS:
            raise self.error(f"pattern expands to {combos} prefixes, over {MAX_EXPANSIONS}", value.span)
        return [list(p) for p in itertools.product(*positions)]

    def _justification(self, value: Value | None) -> str | None:
        if value is None or value.data is None:
            return None
        if not isinstance(value.data, str) or not value.data.strip():
            raise self.error("`justification` must be a non-blank string", value.span)
        return value.data

    def _examples(self, value: Value | None) -> list[Value]:
        if value is None or value.data is None:
            return []
        if not isinstance(value.data, list):
            raise self.error("examples must be a list of strings or argv lists", value.span)
        out = []
        for item in value.data:
            argv = self._argv(item)
            out.append(Value(argv, item.span))
        return out

    def _argv(self, item: Value) -> list[str]:
        if isinstance(item.data, str):
            try:
                argv = shlex.split(item.data)
            except ValueError as exc:
                raise self.error(f"cannot split example `{item.data}`: {exc}", item.span) from None
        elif isinstance(item.data, list) and all(isinstance(w.data, str) for w in item.data):
            argv = [w.data for w in item.data]
        else:
            raise self.error("an example is a command string or a list of strings", item.span)
        if not argv:
            raise self.error("an example must not be empty", item.span)
        return argv

    def _network_rule(self, kwargs: dict[str, Value], span: Span) -> NetworkRule:
        for key, value in kwargs.items():
            if key not in NETWORK_RULE_ARGS:
                raise self.error(f"`network_rule` has no argument `{key}`", value.span)
        for key in ("host", "protocol", "decision"):
            if key not in kwargs or not isinstance(kwargs[key].data, str):
                raise self.error(
                    f"`network_rule` needs `{key}`, a string", kwargs.get(key, Value(None, span)).span
                )
        host = kwargs["host"].data.strip().lower().rstrip(".")
        host = re.sub(r":[0-9]+$", "", host) if not host.startswith("[") else host
        if not _HOST.fullmatch(host):
            raise self.error(
                f"invalid host `{kwargs['host'].data}`",
                kwargs["host"].span,
                help="a bare host name: no scheme, path or wildcard",
            )
        protocol = kwargs["protocol"].data
        if protocol not in NETWORK_PROTOCOLS:
            raise self.error(
                f"invalid protocol `{protocol}`",
                kwargs["protocol"].span,
                help="use `http`, `https`, `socks5_tcp` or `socks5_udp`",
            )
        decision = kwargs["decision"].data
        if decision not in NETWORK_DECISIONS:
            raise self.error(
                f"invalid decision `{decision}`",
                kwargs["decision"].span,
                help="use `allow`, `prompt` or `deny`",
            )
        justification = self._justification(kwargs.get("justification"))
        return NetworkRule(host, protocol, NETWORK_DECISIONS[decision], justification, span)

    def _host_executable(self, kwargs: dict[str, Value], span: Span) -> None:
        name, paths = kwargs.get("name"), kwargs.get("paths")
        if name is None or not isinstance(name.data, str) or not name.data or "/" in name.data:
            raise self.error("`host_executable` needs `name`, a bare program name", span)
        if paths is None or not isinstance(paths.data, list):
            raise self.error("`host_executable` needs `paths`, a list of absolute paths", span)
        out: list[str] = []
        for p in paths.data:
            text = p.data
            if not isinstance(text, str) or not (text.startswith("/") or text.startswith("~/")):
                raise self.error("a host executable path must be absolute (or start with `~/`)", p.span)
            if text.rsplit("/", 1)[-1] != name.data:
                raise self.error(f"`{text}` is not named `{name.data}`", p.span)
            text = os.path.expanduser(text)  # Codex expands `~/` when it loads the file
            if text not in out:
                out.append(text)
        self.program.hosts[name.data] = out  # a later definition replaces an earlier one


def _span(node: Any) -> Span:
    meta = getattr(node, "meta", None)
    if meta is None or getattr(meta, "empty", True):
        return Span(0, 0)
    return Span(meta.start_pos, meta.end_pos)


def _plain(value: Value | None) -> Any:
    return None if value is None else value.data


def _decode_string(token: str, span: Span, interp: Interpreter) -> str:
    """A Starlark string literal's value (Python literal syntax for the quoted forms used here)."""
    try:
        value = ast.literal_eval(token)  # a single string token, never code
    except (ValueError, SyntaxError) as exc:
        raise interp.error(
            f"invalid string literal: {exc.msg if isinstance(exc, SyntaxError) else exc}", span
        ) from None
    if not isinstance(value, str):  # pragma: no cover - the grammar admits string tokens only
        raise interp.error("expected a string", span)
    return value


# ---- native rules


def emit_rule(builder: DocBuilder, loc: Location, program: Program, rule: PrefixRule) -> None:
    """One native rule per priority level: patterns naming a program path (priority 1) are tried
    before basename rules (priority 0), as Codex tries exact program rules first."""
    levels: dict[int, list[str]] = {}
    for tokens in rule.patterns:
        if any(re.search(r"\s", t) for t in tokens):
            builder.warn(
                f"token with a blank in `{' '.join(tokens)}`: toolpolicy matches words joined by "
                "spaces, so it also matches the split words",
                loc,
                code=DIFFERS,
            )
        level = levels.setdefault(1 if "/" in tokens[0] else 0, [])
        level.extend(token_expressions(tokens))
        if rule.decision == "allow":
            for host in program.hosts.get(tokens[0], []):
                level.extend(token_expressions([host, *tokens[1:]]))
    for priority, matches in sorted(levels.items(), reverse=True):
        unique = list(dict.fromkeys(matches))
        builder.add_rule(
            {
                "decision": DECISIONS[rule.decision],
                "match": unique if len(unique) > 1 else unique[0],
                "priority": priority or None,
                "when": _allow_when(rule) if rule.decision == "allow" else None,
                "reason": rule.justification,
            },
            loc,
        )


def _allow_when(rule: PrefixRule) -> str:
    """What else an allow needs: a plain script, and no shell wrapper unless the rule is on a shell."""
    if any(os.path.basename(p[0]) in SHELLS for p in rule.patterns):
        return PLAIN_WHEN
    return f"({PLAIN_WHEN}) && ({NO_SHELL_WRAPPER_WHEN})"


def emit_network_rule(builder: DocBuilder, loc: Location, rule: NetworkRule) -> None:
    """A network rule as a rule on shell commands that name its host (deny and ask only)."""
    if rule.decision == "allow":
        builder.warn(
            f"`network_rule` allowing `{rule.host}` governs Codex's sandbox network proxy; toolpolicy "
            "decides tool calls, not connections, so nothing is imported for it",
            loc,
        )
        return
    builder.add_rule(
        {
            "decision": rule.decision,
            "match": f"{TOOLS}:command=*{glob_escape(rule.host)}*",
            "reason": rule.justification or f"network access to {rule.host} ({rule.protocol})",
        },
        loc,
    )
    builder.warn(
        f"`network_rule` for `{rule.host}` is imported as a {rule.decision} rule on shell commands whose "
        "text names the host: Codex checks connections in its network proxy, toolpolicy the command text",
        loc,
        code=DIFFERS,
    )


def token_expressions(tokens: list[str]) -> list[str]:
    """A token prefix as native expressions: the words exactly, or followed by more words."""
    if all(_PLAIN_TOKEN.fullmatch(t) for t in tokens) and not tokens[-1].endswith(":"):
        return [f"{TOOLS}({' '.join(tokens)} *)"]
    # a token holding blanks is one argv word: the shell view re-quotes such words the same way
    text = glob_escape(" ".join(shlex.quote(t) if (not t or re.search(r"\s", t)) else t for t in tokens))
    return [f"{TOOLS}:command={safe_value_glob(text)}", f"{TOOLS}:command={text} *"]


# ---- examples -> tests


def rule_matches(rule: PrefixRule, argv: list[str], hosts: dict[str, list[str]]) -> bool:
    """Codex's token-prefix match, with its host-executable fallback for an absolute argv[0]."""
    if _prefix_match(rule, argv):
        return True
    program = argv[0]
    if not program.startswith("/"):
        return False
    base = program.rsplit("/", 1)[-1]
    if base in hosts and program not in hosts[base]:
        return False
    return _prefix_match(rule, [base, *argv[1:]])


def _prefix_match(rule: PrefixRule, argv: list[str]) -> bool:
    return any(len(argv) >= len(p) and argv[: len(p)] == p for p in rule.patterns)


def codex_decision(program: Program, argv: list[str]) -> str | None:
    """Codex's decision for argv: the strictest matching rule (exact program rules first)."""
    exact = [r for r in program.rules if _prefix_match(r, argv)]
    found = exact or [r for r in program.rules if rule_matches(r, argv, program.hosts)]
    if not found:
        return None
    return max((r.decision for r in found), key=SEVERITY.__getitem__)


def _emit_tests(
    builder: DocBuilder, source: Source, program: Program, rule: PrefixRule, seen: set[str]
) -> None:
    errors: list[PolicyError] = []
    for kind, examples in (("match", rule.match), ("not_match", rule.not_match)):
        for example in examples:
            argv = example.data
            matched = rule_matches(rule, argv, program.hosts)
            loc = Location(source, example.span)
            if matched != (kind == "match"):
                errors.append(
                    PolicyError(
                        f"example `{shlex.join(argv)}` {'does not match' if kind == 'match' else 'matches'} its rule",
                        code=PARSE_ERROR,
                        location=loc,
                        help="Codex rejects a rules file whose examples fail",
                    )
                )
                continue
            test = _test(kind, argv, program)
            if test is not None and test["name"] not in seen:
                seen.add(test["name"])
                builder.add_test(test, loc)
    if errors:
        raise PolicyErrors(errors)


def _test(kind: str, argv: list[str], program: Program) -> dict[str, Any] | None:
    """An inline test for an example, when the native decision is certain to equal Codex's."""
    decision = codex_decision(program, argv)
    if not _certain(argv, decision):
        return None
    return {
        "name": f"codex {kind.replace('_', ' ')} example: {shlex.join(argv)}",
        "call": {"tool": "shell", "args": {"command": argv}},
        "expect": DECISIONS[decision] if decision else "ask",
    }


def _certain(argv: list[str], decision: str | None) -> bool:
    """Whether the native engine surely decides this argv as Codex does.

    Wrappers and shells (SPEC 3 looks through or inside them), program paths (basename fallback
    differs) and, for allows, words that are not plain are left without an expectation.
    """
    program = argv[0]
    if not _PLAIN_PROGRAM.fullmatch(program) or program in _UNCERTAIN_PROGRAMS:
        return False
    if any("\n" in word for word in argv):
        return False
    return decision != "allow" or all(_PLAIN_TOKEN.fullmatch(word) for word in argv)


def _syntax_error(exc: Any, text: str) -> Any:
    """Lark's located exception -> an `ExprError` (for `grammar.parse`): the character or token."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    from ...grammar import ExprError

    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        return ExprError(f"unexpected character `{text[at]}`", at, at + 1)
    if isinstance(exc, UnexpectedToken):
        pos = exc.token.start_pos if exc.token.start_pos is not None else len(text)
        what = "end of file" if exc.token.type == "$END" else f"`{exc.token}`"
        return ExprError(f"unexpected {what}", pos, pos + 1)
    return ExprError("unexpected end of file", len(text), len(text) + 1)
