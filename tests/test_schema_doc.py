"""The JSON Schema committed for editors (docs/policy.schema.json) is what `policy schema` prints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml
from click.testing import CliRunner

from toolpolicy.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def test_committed_schema_is_current() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads((ROOT / "docs" / "policy.schema.json").read_text())


def test_examples_validate_against_the_schema() -> None:
    schema = json.loads((ROOT / "docs" / "policy.schema.json").read_text())
    for path in (ROOT / "examples").glob("*.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)


def test_schema_rejects_unknown_keys() -> None:
    schema = json.loads((ROOT / "docs" / "policy.schema.json").read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors({"version": 1, "permisions": {}}))
    assert errors


def test_committed_check_catalogue_is_current() -> None:
    from toolpolicy.lint.docs import render_markdown

    assert (ROOT / "docs" / "checks.md").read_text() == render_markdown()
