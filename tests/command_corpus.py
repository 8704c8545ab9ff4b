"""The labelled shell-command corpus (`tests/corpus/commands/*.yaml`): a typed, located loader.

The corpus is ground truth for the command packs of issue 14: each entry is one bash command an
agent might run, one of four labels, why it has that label (naming the flag or subcommand that
decides it) and where that behaviour is documented. Tests and benchmarks load it through
`load_corpus()`; nothing under `src/` imports this module. Problems in a file are reported as
`toolpolicy.errors.PolicyError`s located at `file:line:col` with a caret excerpt.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from enum import StrEnum
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from toolpolicy.errors import PolicyError, PolicyErrors
from toolpolicy.source import Location, Source, Span

CORPUS_DIR = Path(__file__).parent / "corpus" / "commands"


class Label(StrEnum):
    """What running the command does, which fixes what the engine may decide for it."""

    DESTRUCTIVE = "destructive"  # loses data or breaks things irreversibly: deny (or at least ask)
    CONFIRM = "confirm"  # effects a human should approve: never allow
    READ_ONLY = "read-only"  # only reads, lists, queries: should be allowed
    SAFE = "safe"  # ordinary development action: must not be denied, asking is acceptable


class Entry(BaseModel):
    """One labelled command, as written in a corpus file (no other keys are accepted)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cmd: str = Field(min_length=1)
    label: Label
    why: str = Field(min_length=1)
    source: str = Field(min_length=1)

    _domain: str = PrivateAttr(default="")
    _location: Location | None = PrivateAttr(default=None)

    @field_validator("cmd")
    @classmethod
    def _no_outer_space(cls, value: str) -> str:
        if value != value.strip():
            raise ValueError("`cmd` must not start or end with whitespace")
        return value

    @field_validator("why", "source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @property
    def domain(self) -> str:
        """The file stem the entry comes from (`git`, `filesystem`, ...)."""
        return self._domain

    @property
    def location(self) -> Location | None:
        """Where the entry's `cmd` is written."""
        return self._location

    def where(self) -> str:
        return str(self._location) if self._location is not None else f"<{self._domain}>"


def _span(node: yaml.Node) -> Span:
    return Span(node.start_mark.index, max(node.end_mark.index, node.start_mark.index + 1))


def _error(
    source: Source, node: yaml.Node | None, code: str, message: str, help: str | None = None
) -> PolicyError:
    span = _span(node) if node is not None else Span(0, 0)
    return PolicyError(message, code=code, location=Location(source, span), help=help)


def _value_node(item: yaml.MappingNode, key: str) -> yaml.Node:
    for k, v in item.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return item


def _parse_file(path: Path, errors: list[PolicyError]) -> list[Entry]:
    text = path.read_text(encoding="utf-8")
    source = Source(str(path), text)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        offset = mark.index if mark is not None else 0
        errors.append(
            PolicyError(
                str(exc.problem or exc),
                code="corpus_parse_error",
                location=Location(source, Span(offset, offset + 1)),
            )
        )
        return []
    if root is None:
        errors.append(
            _error(source, None, "corpus_schema_error", "the file is empty", "write a list of entries")
        )
        return []
    if not isinstance(root, yaml.SequenceNode):
        errors.append(
            _error(
                source,
                root,
                "corpus_schema_error",
                "a corpus file must be a list of entries",
                "each item: {cmd, label, why, source}",
            )
        )
        return []
    entries: list[Entry] = []
    for item in root.value:
        if not isinstance(item, yaml.MappingNode):
            errors.append(_error(source, item, "corpus_schema_error", "an entry must be a mapping"))
            continue
        data = yaml.SafeLoader(text).construct_document(item)
        try:
            entry = Entry.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                key = str(err["loc"][0]) if err["loc"] else ""
                node = _value_node(item, key) if key else item
                if err["type"] == "extra_forbidden":
                    node = next((k for k, _ in item.value if getattr(k, "value", None) == key), item)
                    message = f"unknown key `{key}`"
                    help_text: str | None = "the keys are cmd, label, why, source"
                elif err["type"] == "missing":
                    message = f"missing key `{key}`"
                    help_text = "every entry needs cmd, label, why and source"
                elif key == "label":
                    message = f"unknown label `{data.get('label')}`"
                    help_text = "one of: " + ", ".join(label.value for label in Label)
                else:
                    message = f"`{key}`: {err['msg']}"
                    help_text = None
                errors.append(_error(source, node, "corpus_schema_error", message, help_text))
            continue
        entry._domain = path.stem
        entry._location = Location(source, _span(_value_node(item, "cmd")))
        entries.append(entry)
    return entries


def load_corpus(directory: Path = CORPUS_DIR) -> list[Entry]:
    """Every entry of every `*.yaml` file under `directory`, in file then document order.

    Raises `PolicyErrors` (all problems at once, located) on a YAML error, a schema error or a
    command written twice (anywhere in the corpus).
    """
    errors: list[PolicyError] = []
    entries: list[Entry] = []
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise PolicyError(f"no corpus files (*.yaml) in `{directory}`", code="corpus_empty")
    for path in files:
        entries.extend(_parse_file(path, errors))
    first_seen: dict[str, Entry] = {}
    for entry in entries:
        earlier = first_seen.setdefault(entry.cmd, entry)
        if earlier is not entry:
            errors.append(
                PolicyError(
                    f"duplicate command `{entry.cmd}`",
                    code="corpus_duplicate",
                    location=entry.location,
                    help=f"first written at {earlier.where()}",
                )
            )
    if errors:
        raise PolicyErrors(errors)
    return entries


def counts(entries: Iterable[Entry]) -> dict[str, dict[Label, int]]:
    """Entries per domain and label (the table `python tests/command_corpus.py` prints)."""
    table: dict[str, dict[Label, int]] = {}
    for entry in entries:
        row = table.setdefault(entry.domain, dict.fromkeys(Label, 0))
        row[entry.label] += 1
    return table


def _print_counts(entries: list[Entry]) -> None:
    table = counts(entries)
    labels = list(Label)
    print(f"{'domain':<12}" + "".join(f"{label.value:>13}" for label in labels) + f"{'total':>8}")
    for domain, row in sorted(table.items()):
        print(f"{domain:<12}" + "".join(f"{row[label]:>13}" for label in labels) + f"{sum(row.values()):>8}")
    totals = {label: sum(row[label] for row in table.values()) for label in labels}
    print(f"{'total':<12}" + "".join(f"{totals[label]:>13}" for label in labels) + f"{len(entries):>8}")


def _bash_error(entry: Entry, bash: str) -> PolicyError | None:
    proc = subprocess.run(
        [bash, "-n", "-c", entry.cmd],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    if proc.returncode == 0:
        return None
    detail = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
    return PolicyError(
        f"`cmd` is not valid bash: {detail}", code="corpus_bash_syntax", location=entry.location
    )


def bash_syntax_errors(entries: Iterable[Entry], bash: str = "bash", workers: int = 4) -> list[PolicyError]:
    """A located error for each entry whose `cmd` bash refuses to parse (`bash -n -c`: parsed, never run)."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda entry: _bash_error(entry, bash), entries))
    return [err for err in results if err is not None]


if __name__ == "__main__":
    _print_counts(load_corpus())
