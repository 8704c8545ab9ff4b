"""Could a shell glob name a path a path rule matches? (`runtime/glob_overlap.py`)

The search is checked against brute force: over a small alphabet, every path up to a length is
tried against the glob (bash's pathname expansion: `*`, `?` and classes never match `/`, and a
name's leading `.` only by a leading literal `.`) and against the rule's regular expression,
compiled by the path kind from a glob as every path rule is. Then the shell commands the review
found reading secrets through a glob ask under the four packs, and their near misses stay allowed.
"""

from __future__ import annotations

import fnmatch
import itertools
import random
import re
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.glob_overlap import overlaps
from toolpolicy.runtime.kinds import path as path_kind

ALPHABET = "a.b/"
GLOB_PIECES = ["a", "b", ".", "/", "*", "?", "[ab]", "[!a]", "[.]"]
RULE_PIECES = ["a", "b", ".", "/", "*", "?", "**/", "[ab]"]
MAX_LEN = 7


def _bash_matches(glob: str, path: str) -> bool:
    """Reference pathname expansion: per name, fnmatch, and the leading-dot rule."""
    gparts, pparts = glob.split("/"), path.split("/")
    if len(gparts) != len(pparts):
        return False
    for g, p in zip(gparts, pparts):
        if p.startswith(".") and not g.startswith("."):
            return False
        if not fnmatch.fnmatchcase(p, g):
            return False
    return True


def _paths() -> list[str]:
    out = []
    for n in range(0, MAX_LEN):
        out.extend("/" + "".join(t) for t in itertools.product(ALPHABET, repeat=n))
    return out


PATHS = _paths()


def _spelled_witness(glob: str, rule: re.Pattern[str], path: str) -> bool:
    return _bash_matches(glob, path) and rule.fullmatch(path) is not None


def _cases(seed: int, n: int) -> list[tuple[str, str]]:
    rnd = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        glob = ("/" + "".join(rnd.choice(GLOB_PIECES) for _ in range(rnd.randint(1, 4)))).replace("//", "/")
        rule = ("/" + "".join(rnd.choice(RULE_PIECES) for _ in range(rnd.randint(1, 4)))).replace("//", "/")
        try:
            path_kind.compile_spec(rule, policy_dir="/", home="/h")
        except ValueError:
            continue  # generated nonsense the path kind refuses (a policy could not hold it)
        out.append((glob, rule))
    return out


def test_the_generated_pairs_include_both_answers() -> None:
    answers = [
        overlaps(glob, path_kind.compile_spec(rule, policy_dir="/", home="/h").regex)
        for glob, rule in _cases(20261124, 400)
    ]
    assert 40 <= sum(answers) <= 360  # the brute-force comparison sees overlaps and misses


@pytest.mark.parametrize(("glob", "rule_glob"), _cases(20261124, 400))
def test_overlap_is_exactly_the_brute_force_answer(glob: str, rule_glob: str) -> None:
    compiled = path_kind.compile_spec(rule_glob, policy_dir="/", home="/h")
    regex = re.compile(compiled.regex)
    expected = any(_spelled_witness(glob, regex, p) for p in PATHS)
    got = overlaps(glob, compiled.regex)
    if expected:
        assert got, (glob, rule_glob, compiled.regex)  # never a miss: a miss would allow
    else:
        # no witness this short; the glob's own length bounds the shortest one for these shapes
        short = len(glob) + len(rule_glob) <= MAX_LEN
        assert not (got and short), (glob, rule_glob, compiled.regex)


@pytest.mark.parametrize(
    ("glob", "regex", "expected"),
    [
        ("/root/.ssh/id*", r"(?s)/root/\.ssh/id_[^/]*(?:/.*)?", True),
        ("/root/.ssh/*", r"(?s)/root/\.ssh/id_[^/]*(?:/.*)?", True),
        ("/root/.[s]sh/id_rsa", r"(?s)/root/\.ssh/id_[^/]*(?:/.*)?", True),
        ("/root/.ss?/id_rsa", r"(?s)/root/\.ssh/id_[^/]*(?:/.*)?", True),
        ("/root/*/id_rsa", r"(?s)/root/\.ssh/id_[^/]*(?:/.*)?", False),  # `*` never starts a dotfile
        ("/w/*.env", r"(?s)(?:|.*/)\.env(?:/.*)?", False),
        ("/w/.e*", r"(?s)(?:|.*/)\.env(?:/.*)?", True),
        ("/w/[.]env", r"(?s)(?:|.*/)\.env(?:/.*)?", False),
        ("/w/.GNUPG/x", r"(?is)/w/\.gnupg(?:/.*)?", True),  # a case-insensitive policy
        ("/w/x", r"(?s)/w/\d", True),  # a construct the module does not model: it fails closed
    ],
)
def test_known_pairs(glob: str, regex: str, expected: bool) -> None:
    assert overlaps(glob, regex) is expected


def test_spelled_needs_the_glob_to_spell_part_of_the_rule() -> None:
    pem = path_kind.compile_spec("*.pem", policy_dir="/", home="/h").regex
    keys = path_kind.compile_spec("~/.ssh/id_*", policy_dir="/", home="/h").regex
    assert overlaps("/w/dist/*", pem)  # `dist/x.pem`, produced by the wildcard alone ...
    assert not overlaps("/w/dist/*", pem, spelled=True)  # ... is not what the glob spells
    assert overlaps("/w/dist/*.pe?", pem, spelled=True)
    assert overlaps("/h/.ssh/*", keys, spelled=True)  # it spells the guarded directory


PACKS = 'version: 1\nprofile: claude-code\nextends: ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]\ndefault: ask\n'
GUARDED = [
    "cat ~/.ssh/id*",
    "head ~/.ssh/*",
    "od -c ~/.ssh/id*",
    "cat ~/.[s]sh/id_rsa",
    "cat ~/.ss?/id_rsa",
    "cat $HOME/.ssh/id*",
    "cat .env*",
    "cat .e*",
    "cat .en?",
    "cat ~/.aws/*",
    "cat ~/.aws/cred*",
    "cat ~/.git-cred*",
    "cd ~/.ssh && cat id*",
    "cd ~/.ssh && cat *",
    "cat ~/.ssh/known*",  # (round 11: pack:secrets denies every file in ~/.ssh but the public ones)
]
NEAR_MISSES = [
    "cat *.py",
    "grep foo *.md",
    "cat src/*.py",
    "head -n 3 *.csv",
    "cat ?env",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, str]:
    d = tmp_path_factory.mktemp("packs")
    (d / "ws").mkdir()
    (d / "p.yaml").write_text(PACKS)
    return Engine(load_policy(str(d / "p.yaml")), hooks=False), str(d)


@pytest.mark.parametrize("command", GUARDED)
def test_a_glob_that_may_name_a_secret_asks(engine: tuple[Engine, str], command: str) -> None:
    e, d = engine
    ctx = {"cwd": str(Path(d) / "ws")}
    decision = e.decide("Bash", {"command": command}, context=ctx)
    # deny where the file exists here (the expansion names it), else ask: the glob may name it
    assert decision.decision in ("ask", "deny"), decision
    assert decision.decision == "deny" or any("may name a file" in x for x in decision.diagnostics)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_glob_that_cannot_is_decided_as_before(engine: tuple[Engine, str], command: str) -> None:
    e, d = engine
    ctx = {"cwd": str(Path(d) / "ws")}
    assert e.decide("Bash", {"command": command}, context=ctx).decision == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "cat /*/*/*/*/*/*/*/*/*",  # too deep to expand against the filesystem (it could walk all of it)
        "cat ~/" + "?" * 4000,  # more to search than a decision may spend: the check fails closed
        "cat " + "*a" * 2000,
    ],
)
def test_a_glob_too_costly_to_decide_asks(engine: tuple[Engine, str], command: str) -> None:
    e, d = engine
    decision = e.decide("Bash", {"command": command}, context={"cwd": str(Path(d) / "ws")})
    assert decision.decision == "ask", decision


def test_the_search_budget_fails_closed() -> None:
    from toolpolicy.runtime.glob_overlap import Budget

    regex = path_kind.compile_spec("*.pem", policy_dir="/", home="/h").regex
    assert not overlaps("/w/" + "?" * 50, regex, spelled=True)  # no overlap when searched whole
    assert overlaps("/w/" + "?" * 50, regex, spelled=True, budget=Budget(10))  # cut short: True
