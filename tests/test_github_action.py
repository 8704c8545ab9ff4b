"""`action.yml`: the composite GitHub Action runs, step by step, the commands GitHub would run.

The test reads `action.yml`, substitutes the `${{ ... }}` expressions the way the runner does
(inputs, step outputs, `github.action_path`), and runs every `run:` step with bash in a scratch
repository holding policies and agent configs, with `GITHUB_OUTPUT`, `GITHUB_ACTION_PATH` and
`RUNNER_TEMP` set. The install step really builds and installs toolpolicy from this checkout (into
a `--target` folder, which the later steps import). The two `uses:` steps (actions/setup-python,
github/codeql-action/upload-sarif) are GitHub's own and are only checked to be there and fed the
SARIF file the check step wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
STEP_TIMEOUT = 300
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

CLAUDE = {"permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Bash(sudo *)", "Write(/etc/**)"]}}
CODEX_RULES = 'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
GEMINI = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git log"\ndecision = "allow"\npriority = 100\n'
DOCKER_AGENT = "agents:\n  root:\n    model: openai/gpt-5\n    instruction: hi\n"
BAD_NATIVE = "version: 1\ndefault: ask\npermissions:\n  allow: ['Bash(git status']\n"


def action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    return data


def repository(folder: Path, *, broken: bool) -> Path:
    repo = folder / "repo"
    (repo / ".claude").mkdir(parents=True)
    (repo / ".claude" / "settings.json").write_text(json.dumps(CLAUDE))
    (repo / ".codex" / "rules").mkdir(parents=True)
    (repo / ".codex" / "rules" / "default.rules").write_text(CODEX_RULES)
    (repo / ".gemini" / "policies").mkdir(parents=True)
    (repo / ".gemini" / "policies" / "team.toml").write_text(GEMINI)
    (repo / "agents").mkdir()
    (repo / "agents" / "reviewer.yaml").write_text(DOCKER_AGENT)
    (repo / "node_modules" / "x" / ".claude").mkdir(parents=True)  # vendored: never scanned
    (repo / "node_modules" / "x" / ".claude" / "settings.json").write_text("{broken")
    (repo / "README.md").write_text("# not a policy\n")
    if broken:
        (repo / "team.policy.yaml").write_text(BAD_NATIVE)
    return repo


def evaluate(expr: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]], action_path: str) -> Any:
    """The small part of GitHub's expression language action.yml uses."""
    expr = expr.strip()
    if " && " in expr:
        return all(evaluate(part, inputs, outputs, action_path) for part in expr.split(" && "))
    if " != " in expr or " == " in expr:
        op = " != " if " != " in expr else " == "
        left, right = (evaluate(side, inputs, outputs, action_path) for side in expr.split(op))
        return (left != right) if op == " != " else (left == right)
    if expr == "always()":
        return True
    if expr.startswith("'") and expr.endswith("'"):
        return expr[1:-1]
    if expr.startswith("inputs."):
        return inputs[expr.removeprefix("inputs.")]
    if expr.startswith("steps."):
        _, step, _, name = expr.split(".")
        return outputs.get(step, {}).get(name, "")
    if expr == "github.action_path":
        return action_path
    raise AssertionError(f"expression not understood by the test: {expr}")


def substitute(text: str, *context: Any) -> str:
    return _EXPR.sub(lambda m: str(evaluate(m.group(1), *context)), text)


def run_action(
    repo: Path, tmp: Path, target: Path, *, install: bool = True, **given: str
) -> tuple[dict[str, dict[str, str]], list[dict[str, Any]], int]:
    """Run the action's steps in `repo` (all of them; `install=False` skips the install step when
    `target` already holds what it installed); returns the step outputs, the `uses:` steps (with
    their substituted `with:`) and the exit status of the last step."""
    spec = action()
    inputs = {name: str(decl.get("default", "")) for name, decl in spec["inputs"].items()}
    inputs.update({"pip-args": f"--no-deps --target {target}", **given})
    outputs: dict[str, dict[str, str]] = {}
    used: list[dict[str, Any]] = []
    context = (inputs, outputs, str(ROOT))
    env = {
        **os.environ,
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(tmp / "runner"),
        "PYTHONPATH": str(target),  # what the install step installed
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "TOOLPOLICY_CACHE_DIR": str(tmp / "cache"),
    }
    (tmp / "runner").mkdir(exist_ok=True)
    status = 0
    for step in spec["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None and not evaluate(_EXPR.sub(r"\1", condition), *context):
            continue
        if step["name"] == "Install toolpolicy" and not install:
            continue
        if "uses" in step:
            used.append(
                {
                    "uses": step["uses"],
                    "with": {k: substitute(str(v), *context) for k, v in step.get("with", {}).items()},
                }
            )
            continue
        output_file = tmp / f"output-{len(outputs)}"
        output_file.write_text("")
        step_env = {k: substitute(str(v), *context) for k, v in step.get("env", {}).items()}
        proc = subprocess.run(
            [
                shutil.which(step["shell"]) or "/bin/bash",
                "--noprofile",
                "--norc",
                "-eo",
                "pipefail",
                "-c",
                substitute(step["run"], *context),
            ],
            cwd=repo,
            env={**env, **step_env, "GITHUB_OUTPUT": str(output_file)},
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
        status = proc.returncode
        if step.get("id"):
            pairs = (line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
            outputs[step["id"]] = dict(pairs)
        if status != 0:
            assert step["name"] == "Fail on findings", (step["name"], proc.stdout, proc.stderr)
            break
    return outputs, used, status


def test_the_action_declares_its_steps() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    uses = [s["uses"].split("@")[0] for s in spec["runs"]["steps"] if "uses" in s]
    assert uses == ["actions/setup-python", "github/codeql-action/upload-sarif"]
    assert {"paths", "strict", "upload", "fail-on-findings"} <= set(spec["inputs"])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the action's install step installs toolpolicy (shared: the build takes seconds)."""
    return tmp_path_factory.mktemp("site")


def test_findings_become_sarif_and_fail_the_job(tmp_path, site) -> None:
    repo = repository(tmp_path, broken=True)
    outputs, used, status = run_action(repo, tmp_path, site)
    assert (site / "toolpolicy" / "__init__.py").is_file()  # the install step built this checkout
    check = outputs["check"]
    assert check["exit-code"] == "1" and status == 1  # the last step fails the job ...
    sarif = json.loads(Path(check["sarif-file"]).read_text())
    assert used[-1]["with"]["sarif_file"] == check["sarif-file"]  # ... after the upload got the report
    results = sarif["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "team.policy.yaml" in uris  # the broken native policy is reported
    assert not any("node_modules" in uri for uri in uris)
    checked = (tmp_path / "runner" / "toolpolicy-paths.txt").read_text().split()
    assert checked == [
        ".claude/settings.json",
        ".codex/rules/default.rules",
        ".gemini/policies/team.toml",
        "agents/reviewer.yaml",
        "team.policy.yaml",
    ]


def test_a_clean_repository_passes(tmp_path, site) -> None:
    if not (site / "toolpolicy").is_dir():  # run alone: install first
        run_action(repository(tmp_path / "first", broken=False), tmp_path / "first", site)
    repo = repository(tmp_path, broken=False)
    paths = ".claude/settings.json .gemini/policies/team.toml"
    outputs, _, status = run_action(repo, tmp_path, site, install=False, paths=paths)
    assert outputs["check"]["exit-code"] == "0" and status == 0
    sarif = json.loads(Path(outputs["check"]["sarif-file"]).read_text())
    assert sarif["version"] == "2.1.0" and not any(r["level"] == "error" for r in sarif["runs"][0]["results"])
