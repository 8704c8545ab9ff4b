"""Text dumps of a compiled policy (for `policy compile` and golden tests): rules, index, hooks."""

from __future__ import annotations

from ..runtime.compiled import CompiledPolicy


def dump_policy(policy: CompiledPolicy) -> str:
    lines = [
        f"policy {policy.name or '<unnamed>'} {policy.digest}",
        f"  profile={policy.profile} default={policy.default} mode={policy.mode} "
        f"glob={'insensitive' if policy.fold else 'sensitive'}",
        f"  rules: {len(policy.rules)}",
    ]
    exact: dict[str, list[int]] = {}
    globbed: list[int] = []
    for rule in policy.rules:
        for name in rule.tools:
            exact.setdefault(name, []).append(rule.index)
        if rule.tool_globs:
            globbed.append(rule.index)
        conds = " ".join(f"{c.key or '<primary>'}~/{c.regex}/" + ("=" if c.exact else "") for c in rule.conds)
        when = f" when {rule.when_text!r}" if rule.when_text else ""
        modes = f" modes={','.join(rule.modes)}" if rule.modes else ""
        lines.append(
            f"  [{rule.index}] {rule.id} {rule.decision} p={rule.priority} "
            f"tools={','.join(rule.tools) or '-'} globs={','.join(rule.tool_glob_texts) or '-'} "
            f"{conds}{when}{modes}".rstrip()
        )
    lines.append("  index:")
    for name in sorted(exact):
        lines.append(f"    {name!r} -> {exact[name]}")
    lines.append(f"    <tool globs> -> {globbed}")
    for event, groups in sorted(policy.hooks.items()):
        for group in groups:
            labels = ", ".join(
                f"{h.type}:{getattr(h, 'command', None) or getattr(h, 'builtin', None) or getattr(h, 'model', None)}"
                for h in group.hooks
            )
            lines.append(f"  hook {event} matcher={group.matcher or '*'}: {labels}")
    return "\n".join(lines) + "\n"
