"""Factory importer: Droid's `permissionRules` and its legacy command lists (`~/.factory/settings.json`).

Droid decides shell commands (its `Execute` tool, `command`) from permission rules
(https://docs.factory.ai/autonomy-and-safety/permission-rules): each rule names an ordered
command prefix and a decision, `allow` (runs without the approval prompt), `ask` (always asks,
even at high autonomy) or `block` (rejected with no approval path). The deprecated lists still
apply: `commandAllowlist` (allow), `commandDenylist` (always asks), `commandBlocklist` (block).

Natively each prefix allows, asks or denies the commands it starts, word by word (`git push`
covers `git push origin`, not `git pushx`), per simple command; when several match, the
strictest wins (block > ask > allow, the native order at equal priority). Default ask.

A rule is read as `{"prefix": [...words] or "words", "decision": ..., "examples"?, "description"?}`
(`command` is accepted for `prefix`). Any other key is an error, so a rule whose meaning the
importer does not know is never silently widened. `examples` (`{"match": [...], "notMatch":
[...]}` or a list of commands) become inline tests when the native decision is certain.
"""

from __future__ import annotations

import shlex
from typing import Any

from ...source import Location
from ._common import DocBuilder, ImportResult, source_of
from ._lists import Reader, load_jsonc, prefix_expressions, root_object

TOOL = "Execute"
DECISIONS = {"allow": "allow", "ask": "ask", "block": "deny", "deny": "deny"}
LEGACY = (("commandBlocklist", "deny"), ("commandDenylist", "ask"), ("commandAllowlist", "allow"))
RULE_KEYS = frozenset({"prefix", "command", "decision", "examples", "description", "id", "name"})


def import_factory(text: str, *, path: str | None = None) -> ImportResult:
    """Import Droid's permission rules and legacy command lists."""
    doc = load_jsonc(source_of(text, path, "settings.json"))
    data = root_object(doc)
    reader = Reader(doc)
    builder = DocBuilder(profile="generic")
    builder.set("default", "ask")
    builder.add_tool(TOOL, {"kind": "shell", "arg": "command", "args": ["command", "timeout", "riskLevel"]})
    for key, decision in LEGACY:
        for prefix, loc, where in reader.strings((key,), "command prefixes"):
            _prefix_rule(builder, reader, decision, prefix, loc, where, None)
    rules = data.get("permissionRules")
    if rules is not None and not isinstance(rules, list):
        reader.error("`permissionRules` must be a list of rules", ("permissionRules",))
        rules = None
    for i, rule in enumerate(rules or []):
        _rule(builder, reader, rule, ("permissionRules", i))
    reader.raise_errors()
    return builder.result()


def _rule(builder: DocBuilder, reader: Reader, rule: Any, where: tuple[str | int, ...]) -> None:
    if not isinstance(rule, dict):
        reader.error("a permission rule must be an object", where)
        return
    for key in rule:
        if key not in RULE_KEYS:
            reader.error(
                f"unknown permission-rule field `{key}`",
                (*where, key),
                help="toolpolicy reads prefix, decision, examples and description",
            )
            return
    decision = rule.get("decision")
    if decision not in DECISIONS:
        reader.error(f"invalid decision `{decision}`", (*where, "decision"), help="use allow, ask or block")
        return
    key = "prefix" if "prefix" in rule else "command"
    prefix = rule.get(key)
    if isinstance(prefix, list) and prefix and all(isinstance(w, str) and w for w in prefix):
        words = " ".join(shlex.quote(w) if any(c.isspace() for c in w) else w for w in prefix)
    elif isinstance(prefix, str) and prefix.strip():
        words = prefix
    else:
        reader.error("a rule needs `prefix`: a non-empty list of words or a string", (*where, key))
        return
    native = _prefix_rule(builder, reader, DECISIONS[decision], words, reader.doc.loc(where), where, rule)
    if native:
        _examples(builder, reader, rule.get("examples"), where, DECISIONS[decision], words)


def _prefix_rule(
    builder: DocBuilder,
    reader: Reader,
    decision: str,
    prefix: str,
    loc: Location,
    where: tuple[str | int, ...],
    rule: dict[str, Any] | None,
) -> bool:
    if not prefix.strip():
        reader.error("an empty command prefix", where)
        return False
    matches = prefix_expressions(TOOL, "command", prefix, word=True)
    reason = rule.get("description") if rule and isinstance(rule.get("description"), str) else None
    builder.add_rule(
        {"decision": decision, "match": matches if len(matches) > 1 else matches[0], "reason": reason}, loc
    )
    return True


def _examples(
    builder: DocBuilder,
    reader: Reader,
    examples: Any,
    where: tuple[str | int, ...],
    decision: str,
    prefix: str,
) -> None:
    if examples is None:
        return
    groups: dict[str, Any]
    if isinstance(examples, list):
        groups = {"match": examples}
    elif isinstance(examples, dict):
        groups = examples
    else:
        reader.error("`examples` must be a list of commands or {match, notMatch}", (*where, "examples"))
        return
    for kind, items in groups.items():
        if kind not in ("match", "notMatch") or not isinstance(items, list):
            reader.error(
                "`examples` holds `match` and `notMatch` lists of commands", (*where, "examples", kind)
            )
            continue
        for j, command in enumerate(items):
            if not isinstance(command, str) or not command.strip():
                reader.error("an example must be a command string", (*where, "examples", kind, j))
                continue
            words, head = command.split(), prefix.split()
            matched = words[: len(head)] == head
            if matched != (kind == "match"):
                reader.error(
                    f"example `{command}` {'does not match' if kind == 'match' else 'matches'} its rule",
                    (*where, "examples", kind, j),
                    help="Droid rejects a rules file whose examples fail",
                )
            elif kind == "match" and decision == "deny":  # a deny of a matching command is certain
                builder.add_test(
                    {
                        "name": f"factory example: {command}",
                        "call": {"tool": TOOL, "args": {"command": command}},
                        "expect": "deny",
                    },
                    reader.doc.loc((*where, "examples", kind, j)),
                )
