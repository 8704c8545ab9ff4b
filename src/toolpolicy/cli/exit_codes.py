"""Exit codes of the `policy` command, in one place (Cedar's `CedarExitCode`, Black's report)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """0 success; 1 findings (policy errors, failed tests, a denied call with --exit-code);
    2 usage error (click's own); 3/4 `eval --exit-code` deny/ask; 123 internal error."""

    OK = 0
    FINDINGS = 1
    USAGE = 2
    DENY = 3
    ASK = 4
    INTERNAL = 123
