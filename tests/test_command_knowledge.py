"""Command knowledge in the policy language (issue 14 item 2): `commands:` entries are validated
with located errors, compiled with the bundled knowledge, used by shell views, and shown by
`--explain`; the bundled data file is itself a valid policy document."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from toolpolicy import Engine, load_policy
from toolpolicy.errors import PolicyError
from toolpolicy.policies.schema import PolicyDocument
from toolpolicy.runtime.kinds import shell_knowledge
from toolpolicy.runtime.kinds.shell_knowledge import analyse, build_table, bundled


def _policy(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "policy.yaml"
    p.write_text("version: 1\nprofile: claude-code\ndefault: ask\n" + body)
    return p


def test_bundled_knowledge_is_a_valid_policy_document() -> None:
    data = yaml.safe_load(Path(shell_knowledge.BUNDLED_FILE).read_text())
    doc = PolicyDocument.model_validate(data, strict=False)
    assert "sort" in " ".join(doc.commands)


def test_bundled_file_loads_as_a_policy() -> None:
    policy = load_policy(shell_knowledge.BUNDLED_FILE)
    assert policy.commands is not None and policy.commands.get("env") is not None


@pytest.mark.parametrize(
    ("words", "field", "want"),
    [
        (["env", "-iS", "rm -rf x"], "scripts", ((2, 0),)),
        (["env", "-iSrm x"], "scripts", ((1, 3),)),
        (["env", "--s=rm x"], "scripts", ((1, 4),)),
        (["env", "--split-str=rm x"], "scripts", ((1, 12),)),
        (["env", "-C", "/tmp", "-S", "rm x"], "scripts", ((4, 0),)),
        (["env", "-u", "HOME", "rm", "x"], "commands", ((3, 5),)),
        (["sort", "-o", "out.txt", "a"], "writes", ((2, 0),)),
        (["sort", "--out=o.txt", "a"], "writes", ((1, 6),)),
        (["sed", "-n", "-i", "s/a/b/", "f"], "writes", ((4, 0),)),
        (["sed", "-n", "p", ".env"], "reads", ((3, 0),)),
        (["sed", "-e", "p", ".env"], "reads", ((3, 0),)),
        (["cp", "a", "b", "dir"], "into", ((3, 0, True, False, (1, 2)),)),
        (["cp", "-r", "a", "dir"], "into", ((3, 0, True, True, (2,)),)),
        (["rsync", "-a", "a/", "dir"], "trees", ((3, 0, True),)),
        (["cp", "-t", "dir", "a", "b"], "reads", ((3, 0), (4, 0))),
        (["dd", "if=/dev/zero", "of=disk.img"], "writes", ((2, 3),)),
        (["git", "-C", ".", "push", "origin"], "normal", (0, 3, 4)),
        (["git", "--no-pager", "-c", "a=b", "log"], "normal", (0, 4)),
        (["kubectl", "-n", "x", "delete", "pod", "p"], "normal", (0, 3, 4, 5)),
        (["find", ".", "-exec", "rm", "{}", ";"], "commands", ((3, 5),)),
        (["fd", "-x", "rm"], "commands", ((2, 3),)),
    ],
)
def test_argv_is_read_the_way_the_program_reads_it(words: list[str], field: str, want: object) -> None:
    assert getattr(analyse(words, bundled()), field) == want


@pytest.mark.parametrize(
    ("words", "effect"),
    [
        (["kubectl", "get", "secret", "db", "-o", "yaml"], "secret"),
        (["tar", "-xzf", "a.tgz"], "write"),
        (["awk", 'BEGIN{system("id")}'], "exec"),
        (["sed", "1e id", "f"], "exec"),
        (["git", "-c", "core.pager=x", "log"], "exec"),
        (["python3", "-c", "print(1)"], "exec"),
        (["unshare", "-r", "rm", "x"], "exec"),
    ],
)
def test_effects(words: list[str], effect: str) -> None:
    assert effect in analyse(words, bundled()).effects


@pytest.mark.parametrize(
    "words",
    [
        ["sort", "-n", "a"],
        ["sed", "-n", "1,5p", "f"],
        ["awk", "{print $1}", "f"],
        ["tar", "-tzf", "a.tgz"],
        ["kubectl", "get", "pods"],
        ["grep", "rm -rf", "notes.md"],
        ["git", "commit", "-m", "drop table"],
    ],
)
def test_data_is_not_code(words: list[str]) -> None:
    a = analyse(words, bundled())
    assert not (a.effects & {"exec", "secret", "write"}) and not a.commands and not a.scripts


def test_an_ambiguous_abbreviation_names_no_option() -> None:
    table = build_table({"x": {"options": {"--alpha": "write", "--alps": "write"}}}, "t")
    assert analyse(["x", "--al=f"], table).writes == ()
    assert analyse(["x", "--alph=f"], table).writes == ((1, 7),)


def test_a_policy_entry_teaches_a_command(tmp_path: Path) -> None:
    p = _policy(
        tmp_path,
        'commands:\n  mytool:\n    options:\n      "-r --run": {value: command}\n      "-o": write\n'
        'permissions:\n  allow: ["Bash(mytool *)"]\n  deny: ["Bash(rm *)"]\n',
    )
    engine = Engine(load_policy(p))
    ctx = {"cwd": str(tmp_path)}
    assert engine.decide("Bash", {"command": "mytool -r rm x"}, context=ctx).decision == "deny"
    assert engine.decide("Bash", {"command": "mytool -o out"}, context=ctx).decision == "ask"
    assert engine.decide("Bash", {"command": "mytool list"}, context=ctx).decision == "allow"


def test_a_policy_entry_adds_options_to_the_bundled_entry(tmp_path: Path) -> None:
    p = _policy(
        tmp_path,
        'commands:\n  sort:\n    options:\n      "--dump": write\npermissions:\n  allow: ["Bash(sort *)"]\n',
    )
    engine = Engine(load_policy(p))
    ctx = {"cwd": str(tmp_path)}
    assert engine.decide("Bash", {"command": "sort --dump x a"}, context=ctx).decision == "ask"
    assert engine.decide("Bash", {"command": "sort -o x a"}, context=ctx).decision == "ask"  # bundled -o kept


def test_explain_names_the_option_that_writes(tmp_path: Path) -> None:
    p = _policy(tmp_path, 'permissions:\n  allow: ["Bash(sort *)"]\n')
    d = Engine(load_policy(p), explain=True).decide(
        "Bash", {"command": "sort -o out.txt a"}, context={"cwd": str(tmp_path)}
    )
    assert any("`-o` writes a file" in line for line in d.trace), d.trace


@pytest.mark.parametrize(
    ("body", "where", "text"),
    [
        ('commands:\n  sort:\n    options:\n      "-o": {value: wrtie}\n', ":7:", "wrtie"),
        ("commands:\n  sort:\n    operandz: [read]\n", ":6:5", "operands"),
        ("commands:\n  sort:\n    effects: [explode]\n", ":6:", "explode"),
    ],
)
def test_schema_errors_are_located(tmp_path: Path, body: str, where: str, text: str) -> None:
    p = _policy(tmp_path, body)
    with pytest.raises(PolicyError) as info:
        load_policy(p)
    message = info.value.render()  # type: ignore[attr-defined]
    assert f"{p}{where}" in message, message
    assert "^" in message and text in message, message


@pytest.mark.parametrize(
    ("command", "decision", "why"),
    [
        ("uniq -d ids.txt", "allow", "one operand: uniq reads it and prints"),
        ("uniq -d ids.txt dupes.txt", "ask", "the second operand is uniq's output file (role output)"),
        ("xxd firmware.bin", "allow", "one operand: read"),
        ("xxd firmware.bin out.hex", "ask", "xxd writes its output to the second operand"),
        ("sed '1r header.txt' body.txt", "allow", "sed `r` reads header.txt: no path rule objects"),
        ("sed '1r ~/.ssh/id_rsa' body.txt", "deny", "sed `r` reads a file the Read rules deny"),
        ("sed '$R ~/.ssh/id_rsa' body.txt", "deny", "`R` reads a line of it"),
        ("awk -f prog.awk data.csv", "ask", "the awk program comes from a file: exec-capable"),
        ("gawk -i inplace '{print}' f.txt", "ask", "`-i inplace` loads code that edits the files"),
        ("awk '{print $1}' f.txt", "allow", "an awk program that only prints"),
    ],
)
def test_output_operands_and_named_reads(tmp_path: Path, command: str, decision: str, why: str) -> None:
    path = _policy(
        tmp_path,
        'permissions:\n  allow: ["Bash(uniq *)", "Bash(xxd *)", "Bash(sed *)", "Bash(awk *)", "Bash(gawk *)"]\n'
        '  deny: ["Read(~/.ssh/**)"]\n',
    )
    got = Engine(load_policy(path), hooks=False).decide(
        "Bash", {"command": command}, context={"cwd": str(tmp_path)}
    )
    assert got.decision == decision, why


def test_a_name_prefix_meets_the_deny_of_an_existing_file_it_extends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`split ... ~/.bashr` with a suffix writes ~/.bashrc: PREFIX* expands to the existing file."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("")
    monkeypatch.setenv("HOME", str(home))
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n"
        '  allow: ["Bash(split *)", "Bash(csplit *)", "Bash(echo *)"]\n  deny: ["Edit(~/.bashrc)"]\n'
    )
    engine = Engine(load_policy(str(policy)), hooks=False)
    for command in (
        "echo x | split -a1 -l1 --additional-suffix=c - ~/.bashr",
        "csplit -f ~/.bashr in.txt /x/",
    ):
        assert engine.decide("Bash", {"command": command}, context={"cwd": str(tmp_path)}).decision == "deny"
    near = engine.decide("Bash", {"command": "split -l 10 big.txt part_"}, context={"cwd": str(tmp_path)})
    assert near.decision == "allow"


def test_perldoc_and_yq_options_from_their_manuals() -> None:
    """`perldoc -d FILE` writes FILE, `-n PROG` runs PROG, `-F` reads its operands; mikefarah's
    `yq -s EXPR` writes a file per document (review 10a notes)."""

    from toolpolicy.runtime.kinds import shell as shell_kind

    def unit(command: str) -> object:
        return shell_kind.view(command).units[0]

    assert unit("perldoc -d out.txt -f open").writes == ("out.txt",)  # type: ignore[attr-defined]
    assert unit("perldoc -n evil -f open").exec_capable  # type: ignore[attr-defined]
    assert unit("perldoc -F .env").reads == (".env",)  # type: ignore[attr-defined]
    assert not unit("perldoc -f open").writes  # type: ignore[attr-defined]
    assert unit("yq -s .a f.yaml").writes  # type: ignore[attr-defined]
    assert unit("yq -i .a=1 f.yaml").writes == ("f.yaml",)  # type: ignore[attr-defined]
    assert unit("jq -s . a b").reads == ("a", "b")  # type: ignore[attr-defined]
