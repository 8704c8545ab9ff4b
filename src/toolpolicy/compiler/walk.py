"""The one walk over policy documents: the `extends` chain, and the rules each document writes.

Place in the pipeline: the compiler's stages (`passes.flatten`, `passes.collect_rules`), the syntax
check of documents the schema rejected (`compiler/syntax.py`) and the linter (`lint/context.py`)
all see documents through here, so they agree on order, ids and paths. `rule_entries` reads the
plain data of a located document, validated or not: it skips what has the wrong shape (the
schema reports that) and yields what it can.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from ..source import DocPath

if TYPE_CHECKING:
    from ..policies.loader import LoadedPolicy

DECISIONS = ("deny", "ask", "allow")  # the order permissions compile in (rule indexes follow it)


class RuleEntry(NamedTuple):
    """One rule as written: a `permissions` list item or a `rules` item.

    `path` is the rule's (`("permissions", "deny", 0)`, `("rules", 3)`); `matches` pairs each
    expression as written (a `str` in a valid document) with its path; `when` likewise, or None.
    """

    path: DocPath
    matches: tuple[tuple[Any, DocPath], ...]
    when: tuple[Any, DocPath] | None

    @property
    def is_permission(self) -> bool:
        return self.path[0] == "permissions"


def chain(loaded: LoadedPolicy) -> list[LoadedPolicy]:
    """The documents of a policy, parents first (depth first through `extends`), the root last."""
    out: list[LoadedPolicy] = []

    def walk(lp: LoadedPolicy) -> None:
        for parent in lp.parents:
            walk(parent)
        out.append(lp)

    walk(loaded)
    return out


def id_prefix(lp: LoadedPolicy, root: LoadedPolicy) -> str:
    """What the generated ids of a parent's rules start with (`base.yaml#permissions.deny[0]`)."""
    import os

    return "" if lp is root else f"{os.path.basename(lp.located.source.name)}#"


def rule_id(entry: RuleEntry, data: Any, prefix: str) -> str:
    """A rule's id: its own `id:`, else one made from its path (`permissions.allow[2]`, `rules[0]`)."""
    if entry.is_permission:
        return f"{prefix}permissions.{entry.path[1]}[{entry.path[2]}]"
    own = data["rules"][entry.path[1]].get("id") if isinstance(data, dict) else None
    return own if isinstance(own, str) and own else f"{prefix}rules[{entry.path[1]}]"


def rule_entries(data: Any) -> Iterator[RuleEntry]:
    """Every rule a document's data writes: the deny, ask and allow lists, then `rules`."""
    if not isinstance(data, dict):
        return
    perms = data.get("permissions")
    if isinstance(perms, dict):
        others = [k for k in perms if k not in DECISIONS]  # only in documents the schema rejects
        for decision in (*DECISIONS, *others):
            items = perms.get(decision)
            for i, expr in enumerate(items if isinstance(items, list) else ()):
                path: DocPath = ("permissions", decision, i)
                yield RuleEntry(path, ((expr, path),), None)
    rules = data.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else ()):
        if not isinstance(rule, dict):
            continue
        path = ("rules", i)
        match = rule.get("match")
        matches: tuple[tuple[Any, DocPath], ...]
        if isinstance(match, list):
            matches = tuple((expr, (*path, "match", j)) for j, expr in enumerate(match))
        else:
            matches = ((match, (*path, "match")),)
        when = (rule["when"], (*path, "when")) if rule.get("when") is not None else None
        yield RuleEntry(path, matches, when)
