"""Codex importer, part two: `config.toml`, `requirements.toml` and `hooks.json` -> native policy.

`policy import codex FILE` reads `.rules` files in `codex.py`; the other files of a Codex config
layer come here (chosen by the file name, see `config_kind`):

* `config.toml` (user `~/.codex/`, project `.codex/`, system `/etc/codex/`): its inline `[hooks]`
  tables; `approval_policy = "never"` -> mode `non_interactive` (Codex then rejects whatever would
  prompt); `[mcp_servers.NAME]` `enabled = false` and `disabled_tools` -> deny rules on
  `mcp__NAME__*`. Codex loads a layer's `rules/*.rules` and `hooks.json` together with its
  `config.toml`, so those files, when they sit beside the imported one, are imported too.
* `requirements.toml` (admin-enforced): `[rules] prefix_rules` (`prompt` / `forbidden` only, as
  Codex requires) and its managed `[hooks]`.
* `hooks.json`: hook groups in the Claude Code shape.

Hooks: `PreToolUse` -> `tool_guard` (Codex runs them on every shell, patch and MCP call, and a
deny beats its rules; their allow and rewrites do not count natively), `PermissionRequest`,
`PostToolUse` and the session events -> their native events. Codex's tool names in matchers
become the `codex` profile's (`Bash` -> `shell`, `apply_patch` and its aliases `Edit`/`Write` ->
`apply_patch`). A hook that is toolpolicy itself (`policy hook ...`) is left out.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from typing import Any

from ...source import Location, Source, Span
from ._common import (
    DIFFERS,
    DocBuilder,
    ImportResult,
    LocatedDoc,
    anchored_exact,
    load_json,
    load_toml,
    matcher_problem,
    parse_error,
)
from .codex import DECISIONS, MAX_EXPANSIONS, PrefixRule, Program, add_rules_file, emit_rule, import_rules

EVENTS = {
    "PreToolUse": "tool_guard",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "SubagentStop": "subagent_stop",
    "PreCompact": "pre_compact",
    "PostCompact": "after_compaction",
}
TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})
TOOL_NAMES = {"Bash": "shell", "apply_patch": "apply_patch", "Edit": "apply_patch", "Write": "apply_patch"}
DEFAULT_TIMEOUT = 600.0  # seconds; Codex's default for a command hook
_EXACT_MATCHER = re.compile(r"[A-Za-z0-9_\-|]*")
_OWN_HOOK = re.compile(r"(?:^|[\s/])(?:policy|toolpolicy)\s+hook\b")


def import_codex(text: str, *, path: str | None = None) -> ImportResult:
    """Import a Codex config file: `.rules`, `config.toml`, `requirements.toml` or `hooks.json`."""
    kind = config_kind(path, text)
    if kind is None:
        return import_rules(text, path=path)
    return import_codex_config(text, path=path, kind=kind)


def config_kind(path: str | None, text: str) -> str | None:
    """`config`, `requirements` or `hooks` for the non-`.rules` files of a Codex layer, else None."""
    name = os.path.basename(path).lower() if path else ""
    if name.endswith(".json") or (not name and text.lstrip().startswith("{")):
        return "hooks"
    if name.endswith("requirements.toml"):
        return "requirements"
    if name.endswith(".toml"):
        return "config"
    return None


def import_codex_config(text: str, *, path: str | None, kind: str) -> ImportResult:
    """Import one `config.toml`, `requirements.toml` or `hooks.json` text."""
    default_name = {"hooks": "hooks.json", "requirements": "requirements.toml"}.get(kind, "config.toml")
    source = Source(str(path) if path else default_name, text)
    builder = DocBuilder(profile="codex")
    located = load_json(source) if kind == "hooks" else load_toml(source)
    if not isinstance(located.data, dict):
        raise parse_error(f"a Codex `{default_name}` must be an object", located.loc(()))
    if kind == "config":
        _config(builder, located, path)
    elif kind == "requirements":
        _requirements(builder, located)
    else:
        _hooks(builder, located, ("hooks",), managed=False)
    return builder.result()


# ---- config.toml


def _config(builder: DocBuilder, located: LocatedDoc, path: str | None) -> None:
    data = located.data
    hosts: dict[str, list[str]] = {}
    if path:  # the rest of the layer: rules/*.rules, then hooks.json (Codex merges both)
        layer = os.path.dirname(os.path.abspath(path))
        # the layer's folder is a literal name (`codex [old]/`), not part of the pattern
        for rules in sorted(glob.glob(os.path.join(glob.escape(layer), "rules", "*.rules"))):
            with open(rules, encoding="utf-8") as fh:
                hosts.update(add_rules_file(builder, Source(rules, fh.read()), hosts).hosts)
        hooks_json = os.path.join(layer, "hooks.json")
        if os.path.isfile(hooks_json):
            with open(hooks_json, encoding="utf-8") as fh:
                _hooks(builder, load_json(Source(hooks_json, fh.read())), ("hooks",), managed=False)
    _hooks(builder, located, ("hooks",), managed=False)
    _features(builder, located)
    policy = data.get("approval_policy")
    loc = located.loc(("approval_policy",))
    if policy == "never":
        builder.set("mode", "non_interactive", loc)
        builder.warn(
            "`approval_policy = never`: Codex rejects what would prompt and runs unmatched commands in its "
            "sandbox; toolpolicy's `non_interactive` mode denies both",
            loc,
            code=DIFFERS,
        )
    elif isinstance(policy, str) and policy != "untrusted":
        builder.warn(
            f"`approval_policy = {policy}`: Codex runs commands no rule matches inside its sandbox without "
            "asking; toolpolicy leaves them to the policy default (ask)",
            loc,
            code=DIFFERS,
        )
    if "sandbox_mode" in data:
        builder.warn(
            "`sandbox_mode` is Codex's OS sandbox; toolpolicy decides tool calls and is no sandbox: keep it",
            located.loc(("sandbox_mode",)),
        )
    _mcp_servers(builder, located)


def _mcp_servers(builder: DocBuilder, located: LocatedDoc) -> None:
    servers = located.data.get("mcp_servers")
    if not isinstance(servers, dict):
        return
    for name, server in servers.items():
        if not isinstance(server, dict):
            continue
        path = ("mcp_servers", name)
        if server.get("enabled") is False:
            builder.add_rule(
                {
                    "decision": "deny",
                    "match": f"mcp__{name}__*",
                    "reason": f"the MCP server `{name}` is disabled in the Codex config",
                },
                located.loc((*path, "enabled")),
            )
        disabled = server.get("disabled_tools")
        if isinstance(disabled, list) and disabled:
            tools = [f"mcp__{name}__{tool}" for tool in disabled if isinstance(tool, str) and tool]
            builder.add_rule(
                {
                    "decision": "deny",
                    "match": tools if len(tools) > 1 else tools[0],
                    "reason": f"disabled for the MCP server `{name}` in the Codex config",
                },
                located.loc((*path, "disabled_tools")),
            )
        if "enabled_tools" in server:
            builder.warn(
                f"`enabled_tools` of `{name}` hides the other tools from the model; toolpolicy does not "
                "import this allowlist (those tools fall to the policy default)",
                located.loc((*path, "enabled_tools")),
            )


def _features(builder: DocBuilder, located: LocatedDoc) -> None:
    features = located.data.get("features")
    if isinstance(features, dict) and (
        features.get("hooks") is False or features.get("codex_hooks") is False
    ):
        builder.warn(
            "`[features] hooks = false`: Codex runs no hook at all, so `policy hook codex` would never be asked",
            located.loc(("features",)),
        )


# ---- requirements.toml


def _requirements(builder: DocBuilder, located: LocatedDoc) -> None:
    data = located.data
    rules = data.get("rules")
    if rules is not None:
        if not isinstance(rules, dict):
            raise parse_error("`rules` must be a table with `prefix_rules`", located.loc(("rules",)))
        entries = rules.get("prefix_rules", [])
        if not isinstance(entries, list):
            raise parse_error("`rules.prefix_rules` must be an array", located.loc(("rules", "prefix_rules")))
        program = Program()
        for i, entry in enumerate(entries):
            path = ("rules", "prefix_rules", i)
            emit_rule(builder, located.loc(path), program, _requirement_rule(located, entry, path))
    _hooks(builder, located, ("hooks",), managed=True)
    _features(builder, located)
    if data.get("allow_managed_hooks_only") is True:
        builder.warn(
            "`allow_managed_hooks_only`: Codex ignores user and project hooks; register `policy hook codex` "
            "in this file's `[hooks]` (see `policy install codex --managed`)",
            located.loc(("allow_managed_hooks_only",)),
        )


def _requirement_rule(located: LocatedDoc, entry: Any, path: tuple[str | int, ...]) -> PrefixRule:
    loc = located.loc(path)
    if not isinstance(entry, dict):
        raise parse_error("a prefix rule is a table with `pattern` and `decision`", loc)
    unknown = set(entry) - {"pattern", "decision", "justification"}
    if unknown:
        raise parse_error(f"unknown key `{sorted(unknown)[0]}` in a prefix rule", loc)
    decision = entry.get("decision")
    if decision not in ("prompt", "forbidden"):
        raise parse_error(
            f"`decision` must be `prompt` or `forbidden`, not `{decision}`",
            located.loc((*path, "decision")),
            help="requirements merge with the strictest decision winning, so Codex refuses `allow` here",
        )
    pattern = entry.get("pattern")
    if not isinstance(pattern, list) or not pattern:
        raise parse_error("`pattern` must be a non-empty array", located.loc((*path, "pattern")))
    positions: list[list[str]] = []
    for i, token in enumerate(pattern):
        tloc = located.loc((*path, "pattern", i))
        if not isinstance(token, dict) or len(token) != 1 or not ({"token", "any_of"} & set(token)):
            raise parse_error('each pattern position is `{ token = "x" }` or `{ any_of = [...] }`', tloc)
        value = token.get("token", token.get("any_of"))
        alts = [value] if "token" in token else value
        if not isinstance(alts, list) or not alts or not all(isinstance(a, str) and a for a in alts):
            raise parse_error(
                "a pattern token must be a non-empty string (or a non-empty array of them)", tloc
            )
        positions.append(list(alts))
    combos = 1
    for alts in positions:
        combos *= len(alts)
    if combos > MAX_EXPANSIONS:
        raise parse_error(f"pattern expands to {combos} prefixes, over {MAX_EXPANSIONS}", loc)
    justification = entry.get("justification")
    if justification is not None and (not isinstance(justification, str) or not justification.strip()):
        raise parse_error("`justification` must be a non-blank string", located.loc((*path, "justification")))
    assert decision in DECISIONS
    return PrefixRule(
        [list(p) for p in itertools.product(*positions)], decision, justification, [], [], Span(0, 0)
    )


# ---- hooks


def _hooks(builder: DocBuilder, located: LocatedDoc, path: tuple[str, ...], *, managed: bool) -> None:
    hooks = located.data.get(path[0])
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        builder.warn("`hooks` is not a table of events; ignored", located.loc(path))
        return
    for event, groups in hooks.items():
        if event == "state":  # [hooks.state."<key>"] trusted_hash: Codex's trust records, not hooks
            continue
        loc = located.key_loc((*path, event))
        native = EVENTS.get(event)
        if native is None:
            builder.warn(
                f"hook event `{event}` has no toolpolicy equivalent; its hooks are not imported", loc
            )
            continue
        if not isinstance(groups, list):
            builder.warn(f"`hooks.{event}` is not an array of groups; ignored", loc)
            continue
        for i, group in enumerate(groups):
            _group(builder, located, event, native, group, (*path, event, i), managed)


def _group(
    builder: DocBuilder,
    located: LocatedDoc,
    event: str,
    native: str,
    group: Any,
    path: tuple[str | int, ...],
    managed: bool,
) -> None:
    loc = located.loc(path)
    if not isinstance(group, dict):
        builder.warn("a hook group must be a table with `matcher` and `hooks`", loc)
        return
    matcher = _matcher(builder, event, group.get("matcher"), located.loc((*path, "matcher")))
    if matcher is False:
        return
    handlers = group.get("hooks")
    out = []
    for i, handler in enumerate(handlers if isinstance(handlers, list) else []):
        converted = _handler(builder, event, handler, located.loc((*path, "hooks", i)), managed)
        if converted is not None:
            out.append(converted)
    if not out:
        return
    native_group: dict[str, Any] = {"hooks": out}
    if matcher is not None:
        native_group["matcher"] = matcher
    builder.add_hook_group(native, native_group, loc)


def _matcher(builder: DocBuilder, event: str, matcher: Any, loc: Location) -> str | bool | None:
    """The native matcher (None: every tool), or False when the group cannot be imported."""
    if matcher is None:
        return None
    if not isinstance(matcher, str):
        builder.warn("`matcher` is not a string; the group is not imported", loc)
        return False
    text = matcher.strip()
    if text in ("", "*"):
        return None
    if event not in TOOL_EVENTS:
        builder.warn(
            f"`{event}` matchers filter on the event's source, which toolpolicy does not; the hooks run "
            "for every source",
            loc,
            code=DIFFERS,
        )
        return None
    if _EXACT_MATCHER.fullmatch(text):
        names = list(dict.fromkeys(TOOL_NAMES.get(n, n) for n in text.split("|") if n))
        return anchored_exact(names) if names else None
    problem = matcher_problem(text)
    if problem is not None:
        builder.warn(f"matcher `{matcher}` cannot be used: {problem}; its hooks are not imported", loc)
        return False
    builder.warn(
        f"matcher `{matcher}` is a regex over Codex's tool names; in a `codex`-profile policy the shell "
        "tool is `shell` and patches are `apply_patch`, so check that it still selects the same tools",
        loc,
        code=DIFFERS,
    )
    return f".*(?:{text}).*"


def _handler(
    builder: DocBuilder, event: str, hook: Any, loc: Location, managed: bool
) -> dict[str, Any] | None:
    if not isinstance(hook, dict):
        builder.warn("a hook must be a table with a `type`", loc)
        return None
    kind = hook.get("type", "command")
    if kind != "command":
        builder.warn(f"`{kind}` hooks are not supported by toolpolicy; this hook is not imported", loc)
        return None
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        builder.warn("command hook without a `command`; not imported", loc)
        return None
    if _OWN_HOOK.search(command):
        builder.warn("this hook is toolpolicy itself (`policy hook`); not imported", loc)
        return None
    timeout = hook.get("timeout")
    seconds = (
        float(timeout)
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0
        else DEFAULT_TIMEOUT
    )
    if hook.get("async"):
        builder.warn(
            "`async` hooks never block in Codex; toolpolicy runs this one synchronously", loc, code=DIFFERS
        )
    if event == "PreToolUse":
        who = "managed " if managed else ""
        builder.warn(
            f"Codex lets a {who}PreToolUse hook that crashes, times out or answers malformed JSON pass; "
            "toolpolicy denies the call (fail closed). It runs as a `tool_guard` hook: its deny counts, "
            "its allow and `updatedInput` do not",
            loc,
            code=DIFFERS,
        )
    return {"type": "command", "command": command, "timeout": seconds}
