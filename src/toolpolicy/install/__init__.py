"""`policy install` and `policy doctor`: register `policy hook` in an agent's own settings, and check it.

Sits on top (beside `cli`): it uses the policy loader, the engine and the hook adapters, and
knows each agent's settings files through one installer module per agent (`registry.py` says
what such a module provides). `plan_install` computes the changes without touching anything;
`apply` writes one (backup first, atomic replace); `doctor.run_doctor` checks an installation end
to end, running the registered hook command for real.
"""

from __future__ import annotations

from pathlib import Path

from ._common import Change, HookSpec, InstallError, Scope, apply, hook_command
from .registry import INSTALLERS, Registration, get_installer

DEFAULT_SERVE_URL = "http://127.0.0.1:8181/v1/hooks/{protocol}"


def plan_install(
    agent: str,
    scope: Scope,
    policy: Path,
    *,
    events: tuple[str, ...] = (),
    http_url: str | None = None,
    hook_args: tuple[str, ...] = (),
) -> list[Change]:
    """The changes that register `policy hook` for `policy` with `agent` in `scope` (nothing written)."""
    installer = get_installer(agent)
    if scope.kind not in installer.SCOPES:
        raise InstallError(f"{agent} has no {scope.kind} settings; use {' or '.join(installer.SCOPES)}")
    spec = HookSpec(
        installer.PROTOCOL,
        hook_command(installer.PROTOCOL, policy, hook_args),
        policy.absolute(),
        events or installer.DEFAULT_EVENTS,
        http_url.format(protocol=installer.PROTOCOL) if http_url else None,
    )
    changes: list[Change] = installer.plan(spec, scope)
    return changes


__all__ = [
    "DEFAULT_SERVE_URL",
    "INSTALLERS",
    "Change",
    "HookSpec",
    "InstallError",
    "Registration",
    "Scope",
    "apply",
    "get_installer",
    "plan_install",
]
