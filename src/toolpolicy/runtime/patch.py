"""The files a patch names, read the way the agents that apply it read them (one reader for the
protected-path floor, the path rules of a patch tool and `policy replay`).

Codex's envelope (`codex-rs/apply-patch/src/parser.rs`): the text is split at `\\n` (a trailing `\\r`
dropped), and each hunk header is trimmed of Unicode white space (Rust's `str::trim`) before its
marker is read, so `  *** Add File: x`, `\\t*** Delete File: x` and `\\u3000*** Update File: x` name
`x`; the path is the rest of the trimmed line. `*** Move to: ` is read on the line as it is (not
trimmed). Unified diff headers (`--- a/x`, `+++ b/x`; Cline and others) name files too.

The reader over-approximates: every line that reads as a header names a file, wherever it stands
(a header the agent would reject as misplaced names a file it does not write, which only makes the
decision stricter). An envelope (`*** Begin Patch`) whose files cannot be read counts as unreadable:
it may write any file.
"""

from __future__ import annotations

# Unicode White_Space, which Rust's `str::trim` removes (Python's `str.strip()` also removes
# U+001C..U+001F, which Rust keeps: a header spelled with them is not one for Codex).
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
BEGIN = "*** Begin Patch"
_HEADERS = (("*** Add File: ", "add"), ("*** Update File: ", "update"), ("*** Delete File: ", "delete"))
_MOVE = "*** Move to: "
_DIFF = ("+++ ", "--- ")


def patch_files(text: str) -> tuple[list[tuple[str, str]], bool]:
    """The files `text` names as `(operation, path)` pairs (`add`, `update`, `delete`, `move`: the
    destination of a move, or `diff`: a unified diff header), and whether the text could be read:
    False for an envelope that names no file (it may write any)."""
    files: list[tuple[str, str]] = []
    envelope = False
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line.startswith(_MOVE):
            files.append(("move", line[len(_MOVE) :]))
            continue
        trimmed = line.strip(WHITE_SPACE)
        if trimmed == BEGIN:
            envelope = True
            continue
        for marker, op in _HEADERS:
            if trimmed.startswith(marker):
                files.append((op, trimmed[len(marker) :]))
                break
        else:
            if line.startswith(_DIFF):
                path = line[4:].strip(WHITE_SPACE)
                if path.startswith(("a/", "b/")):
                    path = path[2:]
                if path and path != "/dev/null":
                    files.append(("diff", path))
    return files, bool(files) or not envelope
