"""The hostile-input corpus of tests/security/*.yaml: loading cases and turning them into real calls.

A case file is YAML: `topic`, optional `kind` (`decision` (default), `model_reply` or
`policy_file`) and `cases`. A decision case has `note`, `policy` (a native policy mapping, or
`policy_text`), `call` (`tool`, `args`, optional `context`, `read_only`), `want` (the safe
decision, or a list of acceptable ones) and optional `mode`, `setup`, `hooks` (run hooks for
real), `env` (variables set in this process while deciding), `absent` (files that must not exist
afterwards: a hook must not have run injected code), `want_in` (a mapping mode -> the decision(s)
wanted when the case is replayed in that mode, by both evaluators), `want_rule`, `max_seconds`,
`internal_error_ok` and `engines` (default both; `[indexed]` only for inputs far beyond what the
reference interpreter, a test oracle, is built for).

Values that YAML cannot spell are written as generators, mappings with a `$gen` key:

* `{$gen: repeat, text: "a", times: 5242880, prefix: "", suffix: ""}`: a long string;
* `{$gen: nest, depth: 10000, kind: list|dict, key: "a", leaf: ...}`: a deeply nested value;
* `{$gen: bigint, digits: 5000}`, `{$gen: float, value: nan|inf|-inf}`, `{$gen: bytes, text: ...}`,
  `{$gen: tuple|set, items: [...]}`, `{$gen: object}`: values that are not JSON at all;
* `{$gen: json, text: '"\\ud800"'}`: anything JSON can spell (lone surrogates included).

Strings may use `@TMP@` (the case's temporary directory), `@HOME@` (the real home directory,
which is what `~` means in policies) and `@PYTHON@` (this interpreter, for hook commands).
`policy_name` (default `policy.yaml`) names the policy file, so a foreign config (`.claude/settings.json`)
is imported by its format.
`setup` entries create real files before the call:
`{dir: rel}`, `{file: rel, content: text, mode: 0o755}`, `{symlink: rel, to: target}`,
`{fifo: rel}`; relative paths are inside the temporary directory.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
DECISIONS = ("allow", "ask", "deny")


def case_files() -> list[Path]:
    return sorted(HERE.glob("*.yaml"))


def load_file(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("cases"), list), f"{path}: no `cases` list"
    return data


def iter_cases(kind: str = "decision") -> Iterator[tuple[str, dict[str, Any]]]:
    """(topic, case) for every case of the given kind, in file order."""
    for path in case_files():
        data = load_file(path)
        if data.get("kind", "decision") != kind:
            continue
        for case in data["cases"]:
            yield data.get("topic", path.stem), case


def case_id(topic: str, case: dict[str, Any]) -> str:
    return f"{topic}: {case['note']}"


def wanted(case: dict[str, Any]) -> tuple[str, ...]:
    want = case["want"]
    out = (want,) if isinstance(want, str) else tuple(want)
    assert out and all(w in DECISIONS for w in out), f"bad `want` in {case['note']!r}: {want!r}"
    return out


# --------------------------------------------------------------------------- values


def materialise(value: Any, tmp: Path | str) -> Any:
    """Expand `$gen` generators and the `@TMP@` / `@HOME@` placeholders, recursively."""
    if isinstance(value, str):
        return (
            value.replace("@TMP@", str(tmp))
            .replace("@HOME@", os.path.expanduser("~"))
            .replace("@PYTHON@", sys.executable)
        )
    if isinstance(value, list):
        return [materialise(v, tmp) for v in value]
    if isinstance(value, dict):
        if "$gen" in value:
            return _generate(value, tmp)
        return {materialise(k, tmp): materialise(v, tmp) for k, v in value.items()}
    return value


def _generate(spec: dict[str, Any], tmp: Path | str) -> Any:
    kind = spec["$gen"]
    if kind == "repeat":
        body = materialise(spec.get("text", "a"), tmp) * int(spec["times"])
        return materialise(spec.get("prefix", ""), tmp) + body + materialise(spec.get("suffix", ""), tmp)
    if kind == "nest":
        return nest(
            int(spec["depth"]),
            spec.get("kind", "list"),
            materialise(spec.get("leaf"), tmp),
            spec.get("key", "a"),
        )
    if kind == "bigint":
        return 10 ** int(spec["digits"]) + 7
    if kind == "float":
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[spec["value"]]
    if kind == "bytes":
        return materialise(spec["text"], tmp).encode("utf-8", "surrogatepass")
    if kind == "tuple":
        return tuple(materialise(spec.get("items", []), tmp))
    if kind == "set":
        return set(materialise(spec.get("items", []), tmp))
    if kind == "object":
        return object()
    if kind == "json":
        return json.loads(spec["text"])
    raise AssertionError(f"unknown generator {kind!r}")


def nest(depth: int, kind: str, leaf: Any, key: str = "a") -> Any:
    """A value nested `depth` levels deep, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {key: value}
    return value


# --------------------------------------------------------------------------- files


def run_setup(entries: list[dict[str, Any]], tmp: Path) -> None:
    for entry in entries:
        if "dir" in entry:
            (tmp / entry["dir"]).mkdir(parents=True, exist_ok=True)
        elif "file" in entry:
            target = tmp / entry["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(materialise(entry.get("content", ""), tmp))
            if "mode" in entry:
                target.chmod(int(entry["mode"]))
        elif "symlink" in entry:
            link = tmp / entry["symlink"]
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(materialise(entry["to"], tmp), link)
        elif "fifo" in entry:
            fifo = tmp / entry["fifo"]
            fifo.parent.mkdir(parents=True, exist_ok=True)
            os.mkfifo(fifo)
        else:
            raise AssertionError(f"unknown setup entry {entry!r}")


def policy_text(case: dict[str, Any], tmp: Path) -> str:
    """The case's policy as YAML text (`policy_text` verbatim, else the mapping dumped)."""
    if "policy_text" in case:
        return materialise(case["policy_text"], tmp)
    return yaml.safe_dump(materialise(case["policy"], tmp), sort_keys=False, allow_unicode=True)
