"""The decision corpus (tests/cases/conformance and tests/cases/extra): one typed model, one loader.

Each YAML file is a `CaseFile` (`format` + `cases`); each case a `Case`: the policy in that format,
one call, the expected decision and optionally the mode. Models forbid unknown keys, so a misspelt
key in a case file fails loudly. `write_policy` writes a case's policy under the file name the
conformance README gives for its format. Used by tests/test_decision_corpus.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

CASES = Path(__file__).parent / "cases"
SETS = ("conformance", "extra")  # folders of `CaseFile`s under tests/cases
FILES = {  # the file name each format's policy is written as
    "toolpolicy": "policy.yaml",
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
    "cursor": "cli-config.json",
    "copilot": "copilot-flags.txt",
    "cline": "cline-settings.json",
    "roo-code": "settings.json",
    "windsurf": "settings.json",
    "factory": "settings.json",
}
# Cases an implementation cannot pass yet, by note (strict: the day one passes, drop it from here).
KNOWN_GAPS: dict[str, str] = {}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(_Strict):
    tool: str
    args: Any = None


class Case(_Strict):
    note: str
    source: str
    policy: Any  # a mapping for YAML/JSON formats, the file text for the others
    call: Call
    want: Literal["allow", "ask", "deny"]
    mode: Literal["default", "yolo", "non_interactive"] | None = None


class CaseFile(_Strict):
    format: str
    cases: list[Case]


class Item(BaseModel):
    """One case with where it comes from (`set`: conformance or extra)."""

    model_config = ConfigDict(frozen=True)
    set: str
    format: str
    index: int
    case: Case

    @property
    def id(self) -> str:
        return f"{self.set}/{self.format}-{self.index:03d}"


def load(path: Path) -> CaseFile:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    parsed = CaseFile.model_validate(data)
    if parsed.format not in FILES:
        raise ValueError(f"{path}: unknown format `{parsed.format}`")
    return parsed


def items() -> list[Item]:
    out: list[Item] = []
    for name in SETS:
        for path in sorted((CASES / name).glob("*.yaml")):
            parsed = load(path)
            out += [Item(set=name, format=parsed.format, index=i, case=c) for i, c in enumerate(parsed.cases)]
    return out


def write_policy(folder: Path, fmt: str, policy: object) -> Path:
    path = folder / FILES[fmt]
    if fmt == "claude-code":
        path.write_text(json.dumps(policy, indent=2), encoding="utf-8")
    elif fmt in ("docker-agent", "toolpolicy"):
        path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    else:
        path.write_text(str(policy or ""), encoding="utf-8")
    return path
