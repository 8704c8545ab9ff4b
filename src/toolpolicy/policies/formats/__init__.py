"""Importers: other agents' configs -> native policy mappings (SPEC 7), and format detection.

Place in the pipeline: `policies` layer, before validation. Each importer reads one foreign
format and returns an `ImportResult`: a plain dict in the native schema (SPEC 1) that the native
loader validates and compiles like any policy file, the located warnings about what could not be
carried over, and `origins` (native path -> `file:line`) for comments in `policy import` output.

| format         | file                                  | importer                          |
|----------------|---------------------------------------|-----------------------------------|
| `claude-code`  | `settings.json` (permissions, hooks)  | `claude_code.import_claude`       |
| `docker-agent` | agent YAML (permissions, agent hooks) | `docker_agent.import_docker_agent`|
| `gemini`       | policy TOML (`[[rule]]`)              | `gemini.import_gemini`            |
| `codex`        | `.rules`, `config.toml`, `requirements.toml`, `hooks.json` | `codex_config.import_codex` |
| `agent-code`   | settings TOML (`[[hooks]]`)           | `agent_code.import_agent_code`    |
| `cursor`       | CLI `permissions`, `permissions.json` | `cursor.import_cursor`            |
| `copilot`      | `--allow-tool`/`--deny-tool`, config  | `copilot.import_copilot`          |
| `cline`        | `autoApprovalSettings`                | `cline.import_cline`              |
| `roo-code`     | `allowedCommands`/`deniedCommands`    | `roo_code.import_roo_code`        |
| `windsurf`     | Cascade command allow/deny lists      | `windsurf.import_windsurf`        |
| `factory`      | Droid `permissionRules`, legacy lists | `factory.import_factory`          |
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable
from typing import Any

from ...errors import PolicyError, did_you_mean
from ...source import Source, whole
from ...vocabulary import ErrorCode
from ._common import PARSE_ERROR, ImportResult

NATIVE = "toolpolicy"
FORMATS: tuple[str, ...] = (NATIVE, "claude-code", "docker-agent", "gemini", "codex", "agent-code")
# The allow/deny-list importers: format -> (module, function, default file name).
LIST_IMPORTERS = {
    "cursor": ("cursor", "import_cursor", "cli-config.json"),
    "copilot": ("copilot", "import_copilot", "copilot-flags.txt"),
    "cline": ("cline", "import_cline", "cline-settings.json"),
    "roo-code": ("roo_code", "import_roo_code", "settings.json"),
    "windsurf": ("windsurf", "import_windsurf", "settings.json"),
    "factory": ("factory", "import_factory", "settings.json"),
}
FORMATS += tuple(LIST_IMPORTERS)
DEFAULT_NAMES = {
    NATIVE: "policy.yaml",
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
    "agent-code": "settings.toml",
    **{fmt: name for fmt, (_, _, name) in LIST_IMPORTERS.items()},
}
_CLAUDE_NAMES = frozenset({"settings.json", "settings.local.json", "managed-settings.json"})
_YAML_KEY = re.compile(r"(?m)^([A-Za-z_][\w-]*)\s*:")


def importer(fmt: str) -> Callable[..., ImportResult]:
    """The import function of a foreign format."""
    if fmt == "claude-code":
        from .claude_code import import_claude

        return import_claude
    if fmt == "docker-agent":
        from .docker_agent import import_docker_agent

        return import_docker_agent
    if fmt == "gemini":
        from .gemini import import_gemini

        return import_gemini
    if fmt == "codex":
        from .codex_config import import_codex

        return import_codex
    if fmt == "agent-code":
        from .agent_code import import_agent_code

        return import_agent_code
    if fmt in LIST_IMPORTERS:
        import importlib

        module, function, _ = LIST_IMPORTERS[fmt]
        imported: Callable[..., ImportResult] = getattr(
            importlib.import_module(f".{module}", __name__), function
        )
        return imported
    raise _unknown_format(fmt)


def import_document(
    text: str, *, format: str, path: str | os.PathLike[str] | None = None, **options: Any
) -> ImportResult:
    """Import `text` written in `format`; `path` names it in locations (and anchors Claude paths).

    Malformed input raises `PolicyError` (code `import_parse_error`, located); semantics that
    cannot be expressed natively come back as `ImportResult.warnings`. `options` are passed to the
    format's importer (`scope=` for claude-code, `agent=` for docker-agent, `tier=` for gemini).
    `format="toolpolicy"` returns the native document as it is.
    """
    name = os.fspath(path) if path is not None else None
    if format == NATIVE:
        return _native(text, name)
    return importer(format)(text, path=name, **options)


def _native(text: str, path: str | None) -> ImportResult:
    from ._common import load_toml, load_yaml

    name = path or DEFAULT_NAMES[NATIVE]
    source = Source(name, text)
    located = load_toml(source) if name.lower().endswith(".toml") else load_yaml(source)
    if not isinstance(located.data, dict):
        raise PolicyError("a policy must be a mapping", code=PARSE_ERROR, location=whole(source))
    return ImportResult(located.data, [], {})


def _unknown_format(fmt: str) -> PolicyError:
    return PolicyError(
        f"unknown policy format `{fmt}`",
        code=ErrorCode.IMPORT_UNKNOWN_FORMAT,
        help=did_you_mean(fmt, FORMATS) or f"formats: {', '.join(FORMATS)}",
    )


# ---- detection


def detect_format(path: str | os.PathLike[str] | None, text: str) -> str:
    """The format of a policy file, from its name first and its content second.

    Returns one of `FORMATS`; `toolpolicy` (native) when nothing points elsewhere, so that the
    native loader reports what is wrong with the file.
    """
    name = os.path.basename(os.fspath(path)).lower() if path is not None else ""
    ext = os.path.splitext(name)[1]
    if ext in (".rules", ".codexpolicy") or _codex_layer_file(path, name):
        return "codex"
    if ext == ".json" or name in _CLAUDE_NAMES:
        return _detect_json(text)
    if ext == ".toml":
        return _detect_toml(text)
    if ext in (".yaml", ".yml"):
        return _detect_yaml(text)
    return _sniff(text)


def _codex_layer_file(path: str | os.PathLike[str] | None, name: str) -> bool:
    """A Codex config layer's `config.toml`, `hooks.json` (under `.codex/`) or `requirements.toml`."""
    if path is None:
        return False
    parent = os.path.basename(os.path.dirname(os.path.abspath(os.fspath(path))))
    in_layer = parent in (".codex", "codex")  # ~/.codex, <repo>/.codex, /etc/codex
    return (name == "requirements.toml" and in_layer) or (in_layer and name in ("config.toml", "hooks.json"))


def _detect_json(text: str) -> str:
    from ._detect_more import detect_json, sniff

    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        more = sniff(text)
        if more:
            return more
        return "claude-code" if re.search(r'"(permissions|hooks)"\s*:', text) else NATIVE
    if native_document(data):
        return NATIVE  # decided on the parsed keys, before any importer's sniffing
    more = detect_json(data)
    if more:
        return more
    # Claude Code settings never carry `version`, which a native policy requires.
    return "claude-code" if isinstance(data, dict) and "version" not in data else NATIVE


def native_document(data: Any) -> bool:
    """Whether a parsed document is a native policy, whatever its syntax or key quoting: it has a
    native-only top-level key with a native value (`default: deny`, `profile: claude-code`,
    `rules: [...]`, ...) and either only native top-level keys or `version: 1`. Detection asks this
    before any importer looks at the document: a native policy read as another agent's settings
    would lose its `default`, `profile` and rules silently (R12e-F1). A document with `version: 1`,
    a native-only key and a foreign key goes to the native loader, which reports the unknown key."""
    if not isinstance(data, dict) or not any(
        key in data and shape(data[key]) for key, shape in _NATIVE_ONLY.items()
    ):
        return False
    version = data.get("version")
    return _native_keys(set(data)) or (type(version) is int and version == 1)


def _native_keys(keys: set[Any]) -> bool:
    """Only native top-level keys, and one of them native-only (keys alone: a YAML text)."""
    from ..schema import TOP_LEVEL_KEYS

    return bool(keys) and keys <= set(TOP_LEVEL_KEYS) and bool(keys & set(_NATIVE_ONLY))


def _profile_name(value: Any) -> bool:
    from ..profiles import PROFILES

    return isinstance(value, str) and value in PROFILES


# Top-level keys no foreign format detected here uses with these values (Codex's `profile` names
# one of its own profiles, its requirements' `rules` is a table).
_NATIVE_ONLY: dict[str, Callable[[Any], bool]] = {
    "default": lambda v: v in ("allow", "ask", "deny"),
    "profile": _profile_name,
    "mode": lambda v: v in ("default", "yolo", "non_interactive"),
    "rules": lambda v: isinstance(v, list),
    "tests": lambda v: isinstance(v, list),
    "extends": lambda v: isinstance(v, list | str),
    "glob": lambda v: isinstance(v, dict),
    "commands": lambda v: isinstance(v, dict),
    "tools": lambda v: isinstance(v, dict),
}


def _detect_toml(text: str) -> str:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return _sniff(text)
    if "version" in data or native_document(data):
        return NATIVE
    if not data or isinstance(data.get("rule"), list) or "safety_checker" in data:
        return "gemini"  # an empty Gemini policy is valid, an empty native one is not
    hooks = data.get("hooks")
    if isinstance(hooks, dict) or {"approval_policy", "sandbox_mode", "model_provider"} & set(data):
        return "codex"  # a Codex config.toml (agent-code's hooks are an array of tables)
    perms = data.get("permissions")
    if isinstance(hooks, list) or (isinstance(perms, dict) and ({"default_mode", "rules"} & set(perms))):
        return "agent-code"
    return NATIVE


def _detect_yaml(text: str) -> str:
    data = _yaml_data(text)
    keys = {str(key) for key in data} if isinstance(data, dict) else set(_YAML_KEY.findall(text))
    if native_document(data) or "version" in keys or _native_keys(keys):
        return NATIVE
    if keys & {"agents", "permissions", "models", "settings"}:
        return "docker-agent"
    return NATIVE


def _yaml_data(text: str) -> Any:
    """A YAML text as the parser reads it (quoted keys, flow style, JSON alike); None when it does
    not parse (the top-level keys are then found on line starts, and the loader reports why)."""
    from ..located import load_yaml

    try:
        return load_yaml(Source("<detect>.yaml", text)).data
    except PolicyError:
        return None


def _sniff(text: str) -> str:
    """Content-only detection for files with an unknown extension."""
    from ._detect_more import sniff

    stripped = text.lstrip()
    if re.search(r"(?m)^\s*(prefix_rule|host_executable|network_rule)\s*\(", text):
        return "codex"
    if not stripped.startswith("{") and sniff(text) == "copilot":
        return "copilot"
    if stripped.startswith("{"):
        return _detect_json(text)
    if re.search(r"(?m)^\s*\[\[\s*rule\b", text):
        return "gemini"
    if re.search(r"(?m)^\s*\[\[\s*hooks\b", text):
        return "agent-code"
    return _detect_yaml(text)


__all__ = [
    "DEFAULT_NAMES",
    "FORMATS",
    "LIST_IMPORTERS",
    "ImportResult",
    "detect_format",
    "import_document",
    "importer",
]
