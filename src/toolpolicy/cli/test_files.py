"""Finding and loading policy tests: inline `tests:` of policies and standalone `*_test.yaml|toml` files.

Place in the pipeline: the front half of `policy test`. A standalone test file names the policy
it tests (relative to itself) and holds cases in the same schema as inline tests:

    policy: ../policy.yaml
    tests:
      - {name: sudo is denied, call: {tool: Bash, args: {command: sudo ls}}, expect: deny}

`collect()` turns paths (files or directories) into `Suite`s: a compiled policy, its cases (each
located in the file that wrote it) and the errors met on the way, all located.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import PolicyError, did_you_mean
from ..policies.schema import PolicyTest, TestCall
from ..runtime.compiled import CompiledPolicy, PolicyTestCase
from ..source import Location, Origin, Span, origin_of
from ..vocabulary import ErrorCode

TEST_SUFFIXES = ("_test.yaml", "_test.yml", "_test.toml")
POLICY_SUFFIXES = (".yaml", ".yml", ".toml")


class TestFile(BaseModel):
    """A standalone policy test file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    __test__ = False

    version: Literal[1] | None = None
    policy: str = Field(description="the policy under test, relative to this file")
    tests: list[PolicyTest] = Field(default_factory=list)


@dataclass
class Suite:
    """The cases of one file (a policy's inline tests, or a test file) against one compiled policy."""

    __test__ = False

    file: str
    policy_path: str | None = None
    policy: CompiledPolicy | None = None
    cases: list[PolicyTestCase] = field(default_factory=list)
    errors: list[PolicyError] = field(default_factory=list)


def is_test_file(path: str) -> bool:
    return os.path.basename(path).lower().endswith(TEST_SUFFIXES)


def expand(paths: list[str]) -> list[tuple[str, bool]]:
    """(file, given explicitly) for every file to look at; directories are walked (hidden ones skipped)."""
    out: list[tuple[str, bool]] = []
    for p in paths:
        if not os.path.isdir(p):
            out.append((p, True))
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            out.extend(
                (os.path.normpath(os.path.join(root, f)), False)
                for f in sorted(files)
                if f.lower().endswith(POLICY_SUFFIXES) and not f.startswith(".")
            )
    return out


def collect(paths: list[str], *, fmt: str | None = None) -> list[Suite]:
    suites = []
    for path, explicit in expand(paths):
        suite = load_test_file(path) if is_test_file(path) else _inline_suite(path, explicit, fmt)
        if suite is not None:
            suites.append(suite)
    return suites


def _inline_suite(path: str, explicit: bool, fmt: str | None) -> Suite | None:
    from ..api import load_policy

    if not explicit and not _looks_like_tested_policy(path):
        return None
    suite = Suite(path, policy_path=path)
    try:
        suite.policy = load_policy(path, format=fmt)
    except PolicyError as exc:
        suite.errors.extend(exc.errors)
        return suite
    suite.cases = list(suite.policy.tests)
    return suite


def _looks_like_tested_policy(path: str) -> bool:
    """In a directory walk, only native policies with inline tests count (other YAML is not ours)."""
    from ..policies.loader import read_source, syntax_of
    from ..policies.located import load_text

    try:
        data = load_text(read_source(path), syntax_of(path)).data
    except PolicyError:
        return False
    return isinstance(data, dict) and "version" in data and bool(data.get("tests"))


def load_test_file(path: str) -> Suite:
    """Load a `*_test` file and the policy it names; every problem becomes a located error."""
    from ..policies.loader import read_source, syntax_of
    from ..policies.located import load_text

    suite = Suite(path)
    try:
        located = load_text(read_source(path), syntax_of(path))
        model = _validate(located)
    except PolicyError as exc:
        suite.errors.extend(exc.errors)
        return suite
    suite.cases = [
        _case(t, origin_of(located.loc(("tests", i)), ("tests", i))) for i, t in enumerate(model.tests)
    ]
    _load_policy(suite, model.policy, located.loc(("policy",)))
    return suite


def _load_policy(suite: Suite, ref: str, where: Location) -> None:
    from ..api import load_policy

    target = os.path.join(os.path.dirname(os.path.abspath(suite.file)), os.path.expanduser(ref))
    suite.policy_path = os.path.relpath(target) if not os.path.isabs(ref) else target
    if not os.path.isfile(target):
        suite.errors.append(
            PolicyError(
                f"policy `{ref}` not found (looked for `{suite.policy_path}`)",
                code=ErrorCode.IO_ERROR,
                location=where,
                help="`policy:` is relative to the test file",
            )
        )
        return
    try:
        suite.policy = load_policy(target)
    except PolicyError as exc:
        suite.errors.extend(exc.errors)


def _case(t: PolicyTest, origin: Origin) -> PolicyTestCase:
    return PolicyTestCase(
        t.name,
        t.call.tool,
        t.call.args,
        t.expect,
        tuple(sorted(t.call.context.items())),
        t.rule,
        t.reason_contains,
        t.mode,
        str(origin),
        origin,
    )


def _validate(located: Any) -> TestFile:
    if not isinstance(located.data, dict):
        raise PolicyError(
            "a test file must be a mapping with `policy:` and `tests:`",
            code=ErrorCode.SCHEMA_ERROR,
            location=Location(located.source, Span(0, 0)),
        )
    try:
        return TestFile.model_validate(located.data)
    except ValidationError as exc:
        raise _errors(exc, located) from None


def _errors(exc: ValidationError, located: Any) -> PolicyError:
    from ..errors import PolicyErrors

    out = []
    for err in exc.errors(include_url=False):
        path = tuple(p for p in err["loc"] if isinstance(p, int | str))
        if err["type"] == "extra_forbidden":
            key = str(path[-1])
            out.append(
                PolicyError(
                    f"unknown key `{key}`",
                    code=ErrorCode.SCHEMA_ERROR,
                    location=located.key_loc(path),
                    help=did_you_mean(key, _keys_at(path)),
                )
            )
        elif err["type"] == "missing":
            out.append(
                PolicyError(
                    f"missing required key `{path[-1]}`",
                    code=ErrorCode.SCHEMA_ERROR,
                    location=located.loc(path[:-1]),
                )
            )
        else:
            where = ".".join(str(p) for p in path) or "<document>"
            out.append(
                PolicyError(
                    f"`{where}`: {err['msg'][0].lower()}{err['msg'][1:]}",
                    code=ErrorCode.SCHEMA_ERROR,
                    location=located.loc(path),
                )
            )
    return PolicyErrors(out)


def _keys_at(path: tuple[Any, ...]) -> list[str]:
    names = [p for p in path[:-1] if isinstance(p, str)]
    model: Any = {(): TestFile, ("tests",): PolicyTest, ("tests", "call"): TestCall}.get(tuple(names))
    return list(model.model_fields) if model is not None else []
