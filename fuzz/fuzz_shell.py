"""Atheris target: the shell kind, `shell.view(command)` and `shell.compile_spec(specifier)`.

Run with `fuzz/run.sh` (or `python fuzz/fuzz_shell.py CORPUS_DIR -max_total_time=60`).
`check(data)` is the whole target and needs no atheris, so tests/fuzz replays the seed corpus
through it in CI. A crash is any exception (neither function may raise), a view without units,
a pattern RE2 rejects, or a plain `rm` command (simple words and separators only) that no deny
text shows.
"""

from __future__ import annotations

import re
import sys

if __name__ == "__main__":  # instrument our code and bashlex for coverage guidance
    import atheris

    with atheris.instrument_imports(include=["toolpolicy", "bashlex"]):
        import re2

        from toolpolicy.runtime.kinds import shell
else:
    import re2

    from toolpolicy.runtime.kinds import shell


_PLAIN = re.compile(r"[A-Za-z0-9 _./=:+,-]*")
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n]")


def _runs_rm(text: str) -> bool:
    """Plain words and separators only (no quotes, expansions, comments, redirections), and a
    command whose first word is `rm`: bash certainly runs rm."""
    segments = _SEPARATORS.split(text)
    if not all(_PLAIN.fullmatch(seg) for seg in segments):
        return False
    return any(seg.split()[:1] == ["rm"] for seg in segments)


def check(data: bytes) -> None:
    """View `data` as a command, compile it as a specifier, and match the one against the other."""
    text = data.decode("utf-8", errors="replace")
    view = shell.view(text)
    assert view.units, text
    for unit in view.units:
        assert all(isinstance(t, str) for t in (*unit.allow_texts, *unit.deny_texts)), unit
    if _runs_rm(text):  # a plain `rm` command must stay visible to a deny, however the rest parses
        assert any(t == "rm" or t.startswith("rm ") for u in view.units for t in u.deny_texts), text
    for fold in (False, True):
        pattern = shell.compile_spec(text[:200], fold=fold)
        compiled = re2.compile(pattern.regex)
        for unit in view.units[:8]:
            for t in unit.allow_texts[:4]:
                compiled.fullmatch(t)


def TestOneInput(data: bytes) -> None:  # noqa: N802 - atheris's name
    check(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
