"""Every field of the shell view stays what it was: the committed views of ~8,500 commands.

`tests/fixtures/shell_views.json.gz` holds the view (`shell._view_uncached`, the bundled command
knowledge) of every text of `shell_view_texts.texts()`: the labelled corpus, the benchmark's agent
commands and seeded variants (chains, pipes, wrappers, `$(...)`, here-documents, redirections, `cd`
then relative paths, `find -exec`, `xargs`, `bash -c`, loops, unparseable texts). A change that
makes the view cheaper to build must leave every one of them equal, unit by unit and field by
field; a change meant to alter views regenerates the file (`python tests/shell_view_texts.py
--write`) and shows the difference in review.
"""

from __future__ import annotations

from shell_view_texts import load_fixture, record, texts
from toolpolicy.runtime.kinds import shell


def test_the_fixture_holds_the_current_texts() -> None:
    assert [text for text, _ in load_fixture()] == texts()


def test_every_view_is_field_by_field_the_committed_one() -> None:
    rows = load_fixture()
    differ = [text for text, want in rows if record(shell._view_uncached(text)) != want]
    assert not differ, f"{len(differ)} views changed, first: {differ[:3]!r}"
    assert sum(1 for _, v in rows if v[2]) > 200  # unparseable texts are among them (opaque views)
    assert sum(len(v[0]) for _, v in rows) > 2 * len(rows) - 2000  # and many multi-unit commands


def test_the_memoised_view_is_the_uncached_one() -> None:
    for text, want in load_fixture()[::17]:
        assert record(shell.view(text)) == want, text
