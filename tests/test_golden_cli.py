"""Golden CLI transcripts (Black's style): tests/golden/cli/*.txt.

A transcript is `# args: ...`, `# exit: N`, then `# stdout` and `# stderr` sections. The command
runs with tests/golden/cli as the working directory. `pytest --update-golden` rewrites them.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolpolicy.cli import cli

GOLDEN = Path(__file__).parent / "golden" / "cli"


def _parse(text: str) -> tuple[list[str], int, str, str]:
    args: list[str] = []
    code = 0
    sections: dict[str, list[str]] = {"stdout": [], "stderr": []}
    current = None
    for line in text.splitlines(keepends=True):
        if line.startswith("# args:"):
            args = shlex.split(line[len("# args:") :])
        elif line.startswith("# exit:"):
            code = int(line[len("# exit:") :])
        elif line.rstrip("\n") in ("# stdout", "# stderr"):
            current = line.strip()[2:]
        elif current is not None:
            sections[current].append(line)
    return args, code, "".join(sections["stdout"]), "".join(sections["stderr"])


def _render(args: list[str], code: int, out: str, err: str) -> str:
    return f"# args: {shlex.join(args)}\n# exit: {code}\n# stdout\n{out}# stderr\n{err}"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.txt")), ids=lambda p: p.stem)
def test_golden(path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    args, _code, _out, _err = _parse(path.read_text())
    monkeypatch.chdir(GOLDEN)
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    actual = _render(args, result.exit_code, result.stdout, result.stderr)
    if request.config.getoption("--update-golden"):
        path.write_text(actual)
        return
    assert actual == path.read_text(), f"\n--- expected\n{path.read_text()}\n--- actual\n{actual}"
