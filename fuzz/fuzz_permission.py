"""Atheris target: permission expressions, parsed and compiled against every built-in profile.

Run with `fuzz/run.sh` (or `python fuzz/fuzz_permission.py CORPUS_DIR -max_total_time=60`).
`check(data)` is the whole target and needs no atheris, so tests/fuzz replays the seed corpus
through it in CI. A crash is any exception other than `ExprError`, or a compiled pattern that
RE2 rejects (the evaluator would then fail at decide time).
"""

from __future__ import annotations

import sys
from typing import Any

if __name__ == "__main__":  # instrument our code and the Lark parser for coverage guidance
    import atheris

    with atheris.instrument_imports(include=["toolpolicy", "lark"]):
        import lark  # noqa: F401 - imported here so that the parser itself is instrumented
        import re2

        from toolpolicy.compiler.rules import Resolver, compile_permission
        from toolpolicy.grammar import ExprError
        from toolpolicy.grammar.permission import parse_permission
        from toolpolicy.policies.profiles import PROFILES
        from toolpolicy.runtime.compiled import ToolSpec
else:
    import re2

    from toolpolicy.compiler.rules import Resolver, compile_permission
    from toolpolicy.grammar import ExprError
    from toolpolicy.grammar.permission import parse_permission
    from toolpolicy.policies.profiles import PROFILES
    from toolpolicy.runtime.compiled import ToolSpec

DECISIONS = ("allow", "ask", "deny")


def _tools(profile: Any) -> dict[str, ToolSpec]:
    out = {}
    for name, decl in profile.tools.items():
        aliases = tuple(sorted(decl.get("aliases", {}).items()))
        out[name] = ToolSpec(
            name,
            decl.get("kind", "generic"),
            decl.get("arg"),
            aliases,
            bool(decl.get("read_only")),
            tuple(decl.get("args", ())),
        )
    return out


_RESOLVERS = [
    Resolver(_tools(p), p, fold, "/srv/project", [])
    for p in (PROFILES["claude-code"], PROFILES["generic"], PROFILES["gemini"])
    for fold in (False, True)
]


def check(data: bytes) -> None:
    """Parse `data` as an expression; if it parses, compile it for every profile and decision."""
    text = data.decode("utf-8", errors="replace")
    try:
        perm = parse_permission(text)
    except ExprError as exc:
        assert 0 <= exc.start <= exc.end <= len(text) + 1, (exc.start, exc.end, text)
        return
    for res in _RESOLVERS:
        res.warnings.clear()
        for decision in DECISIONS:
            try:
                shapes = compile_permission(perm, decision, res)
            except ExprError:
                continue
            for shape in shapes:
                for regex in (*shape.tool_globs, *(c.regex for c in shape.conds)):
                    re2.compile(regex)


def TestOneInput(data: bytes) -> None:  # noqa: N802 - atheris's name
    check(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
