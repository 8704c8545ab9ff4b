"""`policy schema`: print the JSON Schema of the native policy format (for editors)."""

from __future__ import annotations

import json

import click


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of the native policy format."""
    from ..policies.schema import json_schema

    click.echo(json.dumps(json_schema(), indent=2, sort_keys=True))
