"""The labelled command corpus: every file loads, no command is written twice, counts meet issue 14,
every command parses as bash, and the loader reports bad files with located errors."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from command_corpus import CORPUS_DIR, Entry, Label, bash_syntax_errors, load_corpus
from toolpolicy.errors import PolicyError

MIN_DESTRUCTIVE = 500
MIN_NOT_DESTRUCTIVE = 1000
MIN_READ_ONLY = 500
MIN_CONFIRM = 200


@pytest.fixture(scope="module")
def corpus() -> list[Entry]:
    return load_corpus()


def test_every_file_loads_with_the_schema(corpus: list[Entry]) -> None:
    files = sorted(p.stem for p in CORPUS_DIR.glob("*.yaml"))
    assert sorted({e.domain for e in corpus}) == files
    for entry in corpus:
        assert isinstance(entry.label, Label)
        assert entry.why.strip() and entry.source.strip(), entry.where()
        assert entry.location is not None and entry.location.line >= 1


def test_no_command_is_written_twice(corpus: list[Entry]) -> None:
    counts = Counter(e.cmd for e in corpus)
    assert [cmd for cmd, n in counts.items() if n > 1] == []


def test_minimum_counts_per_label(corpus: list[Entry]) -> None:
    counts = Counter(e.label for e in corpus)
    assert counts[Label.DESTRUCTIVE] >= MIN_DESTRUCTIVE, counts
    assert len(corpus) - counts[Label.DESTRUCTIVE] >= MIN_NOT_DESTRUCTIVE, counts
    assert counts[Label.READ_ONLY] >= MIN_READ_ONLY, counts
    assert counts[Label.CONFIRM] >= MIN_CONFIRM, counts
    assert counts[Label.SAFE] > 0, counts


def test_every_domain_has_near_misses(corpus: list[Entry]) -> None:
    """Each file mixes labels, so a rule that matches a program by name alone fails somewhere."""
    labels: dict[str, set[Label]] = {}
    for entry in corpus:
        labels.setdefault(entry.domain, set()).add(entry.label)
    assert {domain: sorted(ls) for domain, ls in labels.items() if len(ls) < 3} == {}


def test_every_program_with_a_destructive_form_also_has_a_harmless_one(corpus: list[Entry]) -> None:
    """Near misses: the first word of every destructive command (wrappers aside) appears with another label."""
    wrappers = {"sudo", "env", "timeout", "nice", "nohup", "bash", "sh", "cd", "xargs", "doas", "command"}
    by_program: dict[str, set[Label]] = {}
    for entry in corpus:
        words = entry.cmd.split()
        first = next((w for w in words if w not in wrappers and "=" not in w), words[0])
        by_program.setdefault(first, set()).add(entry.label)
    core = [
        "git",
        "rm",
        "find",
        "sed",
        "awk",
        "tar",
        "docker",
        "kubectl",
        "terraform",
        "aws",
        "gcloud",
        "psql",
    ]
    lonely = [p for p in core if by_program.get(p, set()) <= {Label.DESTRUCTIVE}]
    assert lonely == []


def test_every_command_parses_as_bash(corpus: list[Entry]) -> None:
    bash = shutil.which("bash")
    assert bash is not None, "bash is required to check the corpus"
    errors = bash_syntax_errors(corpus, bash=bash)
    assert errors == [], "\n".join(e.render() for e in errors)


def test_bash_syntax_check_reports_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "- cmd: echo ok\n  label: read-only\n  why: prints\n  source: echo(1)\n"
        '- cmd: "echo \'unterminated"\n  label: read-only\n  why: prints\n  source: echo(1)\n'
    )
    entries = load_corpus(tmp_path)
    errors = bash_syntax_errors(entries)
    assert len(errors) == 1
    assert errors[0].code == "corpus_bash_syntax"
    assert str(errors[0]).startswith(f"{tmp_path / 'bad.yaml'}:5:8: corpus_bash_syntax:")


ENTRY = "  label: safe\n  why: w\n  source: s\n"


@pytest.mark.parametrize(
    ("text", "code", "line", "message"),
    [
        (
            "- cmd: ls\n  label: maybe\n  why: w\n  source: s\n",
            "corpus_schema_error",
            2,
            "unknown label `maybe`",
        ),
        ("- cmd: ls\n" + ENTRY + "  note: x\n", "corpus_schema_error", 5, "unknown key `note`"),
        ("- cmd: ls\n  label: safe\n  source: s\n", "corpus_schema_error", 1, "missing key `why`"),
        ("- cmd: ls\n  label: safe\n  why: '  '\n  source: s\n", "corpus_schema_error", 3, "`why`: "),
        ("- cmd: ' ls'\n" + ENTRY, "corpus_schema_error", 1, "`cmd`: "),
        ("- cmd: ls\n" + ENTRY + "- cmd: ls\n" + ENTRY, "corpus_duplicate", 5, "duplicate command `ls`"),
        ("cmd: ls\n", "corpus_schema_error", 1, "a corpus file must be a list of entries"),
        ("- ls\n", "corpus_schema_error", 1, "an entry must be a mapping"),
        ("- cmd: [ls\n", "corpus_parse_error", 2, ""),
        ("", "corpus_schema_error", 1, "the file is empty"),
    ],
)
def test_bad_files_give_located_errors(tmp_path: Path, text: str, code: str, line: int, message: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    with pytest.raises(PolicyError) as info:
        load_corpus(tmp_path)
    errors = info.value.errors
    assert len(errors) == 1, [str(e) for e in errors]
    err = errors[0]
    assert err.code == code
    assert err.location is not None and err.location.line == line, str(err)
    assert err.message.startswith(message)
    assert str(err).startswith(f"{path}:{line}:")
    if text:
        assert "^" in err.render()


def test_all_errors_are_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("- cmd: ls\n  label: nope\n  why: w\n  source: s\n")
    (tmp_path / "b.yaml").write_text("- cmd: pwd\n  label: safe\n  why: w\n")
    with pytest.raises(PolicyError) as info:
        load_corpus(tmp_path)
    assert [e.message for e in info.value.errors] == ["unknown label `nope`", "missing key `source`"]


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="no corpus files"):
        load_corpus(tmp_path)
