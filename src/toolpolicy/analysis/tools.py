"""The tool names an analysis must consider: named tools, plus one class per tool-glob combination.

Place in the pipeline: feeds `lint` and `diff` with the tools to analyse one by one. Named tools
are the profile's and `tools:` declarations and every exact name in a rule. Tools nobody names
but that tool globs (`mcp__*`, `read_*`, `*`) match are infinitely many, yet they fall into
finitely many classes: those matched by the same set of globs (and, being undeclared, with the
same generic spec) are decided alike. `glob_lang.explore` over the globs plus the named tools
as literal globs enumerates these classes with a witness name each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..runtime.compiled import CompiledPolicy
from .glob_lang import Glob, NameSet, explore


@dataclass(frozen=True, slots=True)
class ToolClass:
    """A tool to analyse: a real name, or a witness standing for the unnamed tools matched by `globs`."""

    name: str
    named: bool
    globs: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.named:
            return f"`{self.name}`"
        if not self.globs:
            return f"any other tool (e.g. `{self.name}`)"
        matched = ", ".join(f"`{g}`" for g in self.globs)
        return f"other tools matching {matched} (e.g. `{self.name}`)"


def named_tools(policies: Sequence[CompiledPolicy]) -> list[str]:
    names: set[str] = set()
    for policy in policies:
        names.update(policy.tools)
        for rule in policy.rules:
            names.update(rule.tools)
    return sorted(names)


def tool_classes(policies: Sequence[CompiledPolicy], *, include_unmatched: bool = True) -> list[ToolClass]:
    """Named tools first (sorted), then the unnamed classes (raises `Undecided` past the bounds)."""
    fold = any(p.fold for p in policies)
    names = named_tools(policies)
    out = [ToolClass(n, True) for n in names]
    texts = sorted({(t, p.fold) for p in policies for r in p.rules for t in r.tool_glob_texts})
    globs = [Glob(t, f) for t, f in texts]
    named = NameSet(names, fold)
    exp = explore(globs, extra=[named])  # signature index len(globs): "is a named tool"
    for sig, word in sorted(exp.witnesses.items(), key=lambda kv: (len(kv[0]), kv[1])):
        if len(globs) in sig or (not sig and not include_unmatched):
            continue
        word = _readable(word, sig, globs, named)
        out.append(ToolClass(word or "x", False, tuple(dict.fromkeys(globs[i].text for i in sorted(sig)))))
    return out


def _readable(word: str, sig: frozenset[int], globs: list[Glob], named: NameSet) -> str:
    """A witness that reads well (`mcp__github__x`, `other_tool`), if one is in the same class."""
    cands = ("other_tool", "some_other_tool", "unknown_tool_x") if not sig else (word + "x", word + "_x")
    for cand in cands:
        in_class = frozenset(i for i, g in enumerate(globs) if g.matches(cand)) == sig
        if in_class and not named.accepts(named.key(cand)):
            return cand
    return word
