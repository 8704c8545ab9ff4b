"""`policy check`'s static analysis: located findings (warnings, some errors, notes) about a compiled policy.

Place in the pipeline: after `compile_policy` succeeded, `lint_policy(loaded, policy)` runs every
check family over the loaded documents (for locations) and the compiled policy (for semantics),
and returns `PolicyError`s with stable codes (see `registry.CHECKS`). Families, one module each:
`names` (unknown tools and arguments), `regexes` (backtracking `matches()` patterns), `when`
(unguarded field accesses, constant conditions), `rules` (never-matching, duplicate,
contradictory, shadowed and overridden rules; built on `toolpolicy.analysis`), `dangerous`
(broad or misleading allows), `authoring` (rules that miss what they mean, allows of the
policy's own files) and `hooks` (commands, timeouts, blocking on events that cannot).
A family that fails is reported as `lint_internal_error` rather than crashing the check.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import PolicyError
from ..policies.loader import LoadedPolicy
from ..runtime.compiled import CompiledPolicy
from .authoring import check_authoring
from .context import LintContext
from .dangerous import check_dangerous
from .hooks import check_hooks
from .names import check_names
from .regexes import check_regexes
from .registry import CHECKS, CheckInfo
from .rules import check_rules
from .when import check_when

FAMILIES: tuple[tuple[str, Callable[[LintContext], None]], ...] = (
    ("names", check_names),
    ("regexes", check_regexes),
    ("when", check_when),
    ("rules", check_rules),
    ("dangerous", check_dangerous),
    ("hooks", check_hooks),
    ("authoring", check_authoring),
)

__all__ = ["CHECKS", "CheckInfo", "lint_policy"]


def lint_policy(loaded: LoadedPolicy, policy: CompiledPolicy) -> list[PolicyError]:
    """Every lint finding for a compiled policy, sorted by location."""
    ctx = LintContext(loaded, policy)
    for name, family in FAMILIES:
        try:
            family(ctx)
        except Exception as exc:  # noqa: BLE001 - a lint bug must not hide the other findings
            ctx.add("lint_internal_error", f"the `{name}` checks failed: {type(exc).__name__}: {exc}", None)
    findings = [f for f in ctx.findings if not _in_bundled_pack(f)]
    return sorted(findings, key=PolicyError.sort_key)


def _in_bundled_pack(finding: PolicyError) -> bool:
    """A finding inside a bundled pack (`extends: ["pack:NAME"]`) is not the user's to fix: the packs'
    own tests (`policy packs NAME --test`, tests/test_packs.py) pin what each of their rules covers."""
    import os

    from ..policies.packs import PACK_DIR

    where = finding.file
    return bool(where) and os.path.dirname(os.path.abspath(str(where))) == os.path.abspath(PACK_DIR)
