"""docker-agent importer: an agent YAML's `permissions` and per-agent `hooks` -> a native policy.

Reproduces docker-agent (2026-08 generation, research: docker-agent.md §1-2) with profile
`docker-agent` and `glob: {case: insensitive}`:

* Patterns are colon form `toolGlob(:key=valueGlob)*`; a repeated key keeps its last value (Go map
  overwrite). Globs are rewritten into the native dialect with the same meaning: a trailing lone
  `\\` and an unterminated `[` are literal there; a class docker-agent cannot compile (`[]...`,
  a reversed range) matches nothing, so its rule is dropped with a warning.
* Precedence inside one checker is deny > allow > ask, which native priorities express:
  deny rules get priority 2, allow 1, ask 0 (natively, equal priorities resolve deny > ask > allow).
* Argument texts follow SPEC 2.3, which differs on purpose from docker-agent's Go formatting:
  `null` never matches (Go prints `<nil>`), numbers are JSON text (`1000000`, not `1e+06`) and
  lists/maps compact JSON (not `[a b]`/`map[k:v]`); patterns that target Go's forms are warned.
* A user `config.yaml` is read too: its `settings.permissions` merge with the agent's (lists
  concatenate) and its `settings.hooks` follow the agent's hooks.
* Hooks come from `agents.<name>.hooks` (the `root` agent unless `agent=` names another). Tool
  events keep their anchored regex matchers (an invalid one drops its entry, as docker-agent does);
  flat events become one matcher-less group; `preempt_yolo: true` entries become `tool_guard`
  groups; `command`, `builtin` (`command` = builtin name) and `model` hooks map field for field.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...source import Location, Source
from ._common import (
    DIFFERS,
    UNSUPPORTED,
    DocBuilder,
    ImportResult,
    LocatedDoc,
    load_yaml,
    matcher_problem,
    parse_error,
    safe_value_glob,
    tool_glob_text,
)

PRIORITY = {"deny": 2, "allow": 1, "ask": 0}
_BOUNDARY = re.compile(r":(\w+)=", re.ASCII)
TOOL_EVENTS = frozenset(
    {"pre_tool_use", "post_tool_use", "permission_request", "tool_response_transform", "tool_guard"}
)
FLAT_EVENTS = frozenset(
    {
        "session_start",
        "user_prompt_submit",
        "turn_start",
        "turn_end",
        "before_llm_call",
        "after_llm_call",
        "session_end",
        "pre_compact",
        "subagent_stop",
        "on_user_input",
        "stop",
        "notification",
        "on_error",
        "on_max_iterations",
        "on_agent_switch",
        "on_session_resume",
        "on_tool_approval_decision",
        "before_compaction",
        "after_compaction",
    }
)
UNSUPPORTED_EVENTS = frozenset(
    {"user_steering_messages_submit", "user_followup_submit", "worktree_create", "tool_input_transform"}
)
HOOK_TYPES = ("command", "builtin", "model")
_GO_FORMS = re.compile(r"<nil>|map\[|^\[[^\]]* [^\]]*\]$")


def import_docker_agent(text: str, *, path: str | None = None, agent: str | None = None) -> ImportResult:
    """Import an agent YAML text; `agent` picks whose hooks to import (default: `root`)."""
    located = load_yaml(Source(str(path) if path else "agent.yaml", text))
    if located.data is None:
        located.data = {}
    if not isinstance(located.data, dict):
        raise parse_error("an agent config must be a YAML mapping", located.loc(()))
    builder = DocBuilder(profile="docker-agent")
    builder.set("glob", {"case": "insensitive"})
    _import_permissions(builder, located, ("permissions",))
    _import_permissions(builder, located, ("settings", "permissions"))  # the user config.yaml
    _import_agents(builder, located, agent)
    _import_hooks(builder, located, ("settings", "hooks"))  # global hooks run after the agent's
    return builder.result()


# ---- permissions


def _import_permissions(builder: DocBuilder, located: LocatedDoc, path: tuple) -> None:
    perms = _get(located.data, path)
    if perms is None:
        return
    if not isinstance(perms, dict):
        builder.warn("`permissions` is not a mapping and is ignored", located.loc(path))
        return
    for key in perms:
        if key not in PRIORITY:
            builder.warn(f"unknown permissions key `{key}` is ignored", located.key_loc((*path, key)))
    for decision in ("deny", "allow", "ask"):
        items = perms.get(decision)
        if items is None:
            continue
        if not isinstance(items, list):
            builder.warn(
                f"`permissions.{decision}` is not a list and is ignored", located.loc((*path, decision))
            )
            continue
        for i, item in enumerate(items):
            _import_pattern(builder, located, decision, item, (*path, decision, i))


def _import_pattern(builder: DocBuilder, located: LocatedDoc, decision: str, item: Any, path: tuple) -> None:
    loc = located.loc(path)
    if not isinstance(item, str):
        builder.warn(f"permission pattern is a {type(item).__name__}, not a string; ignored", loc)
        return
    expr, problems = convert_pattern(item)
    for message, code in problems:
        builder.warn(message, loc, code=code)
    if expr is None:
        return
    rule = {"decision": decision, "match": expr, "priority": PRIORITY[decision]}
    builder.add_rule(rule, loc)


def split_pattern(pattern: str) -> tuple[str, list[tuple[str, str]]]:
    """docker-agent's split: the tool glob, then `(key, value)` at each `:word=` boundary."""
    bounds = list(_BOUNDARY.finditer(pattern))
    if not bounds:
        return pattern, []
    conds = []
    for i, m in enumerate(bounds):
        end = bounds[i + 1].start() if i + 1 < len(bounds) else len(pattern)
        conds.append((m.group(1), pattern[m.end() : end]))
    return pattern[: bounds[0].start()], conds


def convert_pattern(pattern: str) -> tuple[str | None, list[tuple[str, str]]]:
    """A docker-agent pattern -> (native colon-form expression or None, [(warning, code)])."""
    tool, conds = split_pattern(pattern)
    problems: list[tuple[str, str]] = []
    last: dict[str, str] = {}
    for key, value in conds:
        if key in last:
            problems.append(
                (f"key `{key}` repeats in `{pattern}`: docker-agent keeps only the last condition", DIFFERS)
            )
        last[key] = value
    native_tool = native_glob(tool) if tool else None
    if native_tool is None:
        problems.append(
            (f"tool glob `{tool}` matches no tool in docker-agent; `{pattern}` is dropped", UNSUPPORTED)
        )
        return None, problems
    tool_text, widened = tool_glob_text(native_tool)
    parts = [tool_text]
    if widened:
        problems.append(
            (
                f"blanks, parens and `|` cannot appear in a native tool glob; each became `?` in `{tool}`",
                DIFFERS,
            )
        )
    for key, value in last.items():
        native = native_glob(value)
        if native is None:
            problems.append(
                (
                    f"value glob `{value}` cannot compile in docker-agent and matches nothing; "
                    f"`{pattern}` is dropped",
                    UNSUPPORTED,
                )
            )
            return None, problems
        if _GO_FORMS.search(value):
            problems.append(
                (f"`{value}` targets Go's formatting of null, lists or maps; SPEC 2.3 texts differ", DIFFERS)
            )
        parts.append(f":{key}={safe_value_glob(native)}")
    return "".join(parts), problems


def native_glob(glob: str) -> str | None:
    """docker-agent glob -> native glob with the same meaning; None when it matches nothing."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if ch == "\\":
            out.append("\\\\" if i + 1 >= n else glob[i : i + 2])
            i += 2
        elif ch == "[":
            cls, i = _native_class(glob, i)
            if cls == "":
                return None
            out.append(cls)
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _native_class(glob: str, start: int) -> tuple[str, int]:
    """One `[...]` class: (text, next index); `\\[` if unterminated; `""` if it cannot compile."""
    i, n = start + 1, len(glob)
    if i < n and glob[i] == "^":
        i += 1
    if i < n and glob[i] == "]":
        return "", n
    members: list[str] = []
    while i < n and glob[i] != "]":
        step = 2 if glob[i] == "\\" and i + 1 < n else 1
        members.append(glob[i : i + step])
        i += step
    if i >= n:
        return "\\[", start + 1
    if _reversed_range(members):
        return "", n
    return glob[start : i + 1], i + 1


def _reversed_range(members: list[str]) -> bool:
    chars = [m[-1] for m in members]
    kinds = [len(m) == 1 and m == "-" for m in members]
    return any(kinds[j] and 0 < j < len(chars) - 1 and chars[j + 1] < chars[j - 1] for j in range(len(chars)))


# ---- hooks


def _import_agents(builder: DocBuilder, located: LocatedDoc, wanted: str | None) -> None:
    agents = located.data.get("agents")
    if agents is None:
        return
    if not isinstance(agents, dict):
        builder.warn("`agents` is not a mapping; no hooks imported", located.loc(("agents",)))
        return
    chosen = _choose_agent(builder, located, agents, wanted)
    for name, agent in agents.items():
        if isinstance(agent, dict) and "permissions" in agent:
            builder.warn(
                "docker-agent reads `permissions` only at the top level; this one is ignored",
                located.key_loc(("agents", name, "permissions")),
            )
    if chosen is not None:
        _import_hooks(builder, located, ("agents", chosen, "hooks"))


def _choose_agent(builder: DocBuilder, located: LocatedDoc, agents: dict, wanted: str | None) -> str | None:
    with_hooks = [n for n, a in agents.items() if isinstance(a, dict) and a.get("hooks")]
    if wanted is not None:
        if wanted not in agents:
            builder.warn(f"agent `{wanted}` is not defined; no hooks imported", located.loc(("agents",)))
            return None
        chosen = wanted
    elif not with_hooks:
        return None
    else:
        chosen = "root" if "root" in with_hooks else with_hooks[0]
    for other in with_hooks:
        if other != chosen:
            builder.warn(
                f"hooks of agent `{other}` are not imported (a policy serves one agent: `{chosen}`)",
                located.key_loc(("agents", other, "hooks")),
                help=f"import with agent=`{other}`",
            )
    return chosen


def _import_hooks(builder: DocBuilder, located: LocatedDoc, path: tuple) -> None:
    hooks = _get(located.data, path)
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        builder.warn("`hooks` is not a mapping and is ignored", located.loc(path))
        return
    for event, entries in hooks.items():
        epath = (*path, event)
        loc = located.key_loc(epath)
        if event in UNSUPPORTED_EVENTS or (event not in TOOL_EVENTS and event not in FLAT_EVENTS):
            builder.warn(
                f"hook event `{event}` has no toolpolicy equivalent; its hooks are not imported", loc
            )
        elif event in TOOL_EVENTS:
            for i, entry in _as_list(entries):
                _import_matcher_entry(builder, located, event, entry, epath if i is None else (*epath, i))
        else:
            hooks_out = _definitions(builder, located, entries, epath)
            if hooks_out:
                builder.add_hook_group(event, {"hooks": hooks_out}, loc)


def _import_matcher_entry(
    builder: DocBuilder, located: LocatedDoc, event: str, entry: Any, path: tuple
) -> None:
    loc = located.loc(path)
    if not isinstance(entry, dict):
        builder.warn("a hook entry must be a mapping with `matcher` and `hooks`", loc)
        return
    matcher = entry.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        builder.warn("`matcher` is not a string; the entry is not imported", loc)
        return
    problem = matcher_problem(matcher) if matcher and matcher != "*" else None
    if problem is not None:
        builder.warn(
            f"matcher `{matcher}` cannot be used: {problem}; docker-agent drops an invalid one too", loc
        )
        return
    hooks_out = _definitions(builder, located, entry.get("hooks"), (*path, "hooks"))
    if not hooks_out:
        return
    if entry.get("preempt_yolo") is True and event == "pre_tool_use":
        event = "tool_guard"
        builder.warn(
            "`preempt_yolo` hooks run before the rules: imported as `tool_guard` hooks, which can "
            "deny or ask but never allow",
            loc,
            code=DIFFERS,
        )
    group: dict[str, Any] = {"hooks": hooks_out}
    if matcher and matcher != "*":
        group["matcher"] = matcher
    builder.add_hook_group(event, group, loc)


def _definitions(builder: DocBuilder, located: LocatedDoc, entries: Any, path: tuple) -> list[dict[str, Any]]:
    out = []
    for i, hook in _as_list(entries):
        loc = located.loc(path if i is None else (*path, i))

        def warn(message: str, loc: Location = loc) -> None:
            builder.warn(message, loc)

        converted = convert_hook(hook, warn)
        if converted is not None:
            out.append(converted)
    return out


def convert_hook(hook: Any, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """One docker-agent hook definition -> a native hook mapping (None: not importable)."""
    if not isinstance(hook, dict):
        warn("a hook definition must be a mapping")
        return None
    kind = hook.get("type")
    if kind not in HOOK_TYPES:
        warn(
            f"hook type `{kind}` is not one of command, builtin, model; docker-agent rejects it"
            if kind
            else "hook without `type`; docker-agent rejects it"
        )
        return None
    if "strict_output" in hook:
        warn("`strict_output` is not supported; the hook's output is validated as usual")
    out = _fields(kind, hook, warn)
    if out is None:
        return None
    if isinstance(hook.get("name"), str) and hook["name"]:
        out["name"] = hook["name"]
    on_error = hook.get("on_error")
    if on_error in ("warn", "ignore", "block"):
        out["on_error"] = on_error
    elif on_error is not None:
        warn(f"`on_error: {on_error}` is not one of warn, ignore, block; the default `warn` applies")
    timeout = hook.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        out["timeout"] = timeout
    return out


def _fields(kind: str, hook: dict, warn: Callable[[str], None]) -> dict[str, Any] | None:
    if kind == "model":
        if not hook.get("model") or not hook.get("prompt"):
            warn("model hook needs `model` and `prompt`; docker-agent rejects it")
            return None
        out: dict[str, Any] = {"type": "model", "model": str(hook["model"]), "prompt": str(hook["prompt"])}
        if hook.get("schema"):
            out["schema"] = str(hook["schema"])
        return out
    command = hook.get("command")
    if not isinstance(command, str) or not command:
        warn(f"{kind} hook needs `command`; docker-agent rejects it")
        return None
    out = (
        {"type": "command", "command": command}
        if kind == "command"
        else {"type": "builtin", "builtin": command}
    )
    if kind == "builtin" and isinstance(hook.get("args"), list):
        out["args"] = [str(a) for a in hook["args"]]
    if isinstance(hook.get("env"), dict):
        out["env"] = {str(k): str(v) for k, v in hook["env"].items()}
    if isinstance(hook.get("working_dir"), str) and hook["working_dir"]:
        out["working_dir"] = hook["working_dir"]
    return out


def _as_list(value: Any) -> list[tuple[int | None, Any]]:
    """docker-agent sugar: one mapping stands for a one-element list."""
    if isinstance(value, list):
        return list(enumerate(value))
    if isinstance(value, dict):
        return [(None, value)]
    return []


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


__all__ = ["convert_hook", "convert_pattern", "import_docker_agent", "native_glob", "split_pattern"]
