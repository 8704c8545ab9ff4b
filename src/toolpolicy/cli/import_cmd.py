"""`policy import FORMAT FILE [-o out.yaml|out.toml]`: an agent's own config as a native policy.

The native document is written with comments naming the source line of each construct, and it
is loaded back and compiled before anything is written, so an import never produces a file the
engine would reject. Importer warnings (semantics that cannot be expressed) go to stderr.
"""

from __future__ import annotations

import io
import sys
from typing import Any

import click

from ..errors import PolicyError
from .common import print_errors
from .exit_codes import ExitCode

FOREIGN = ["claude-code", "docker-agent", "gemini", "codex", "agent-code"]
FOREIGN += ["cursor", "copilot", "cline", "roo-code", "windsurf", "factory"]
ORDER = (
    "version",
    "name",
    "extends",
    "profile",
    "default",
    "mode",
    "glob",
    "tools",
    "permissions",
    "rules",
    "hooks",
    "tests",
)


def to_yaml(document: dict[str, Any], origins: dict[str, str], source: str) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def build(value: Any, path: str) -> Any:
        if isinstance(value, dict):
            cm = CommentedMap()
            keys = (
                [k for k in ORDER if k in value] + [k for k in value if k not in ORDER]
                if not path
                else list(value)
            )
            for key in keys:
                child = f"{path}.{key}" if path else key
                cm[key] = build(value[key], child)
                if child in origins:
                    cm.yaml_add_eol_comment(f"from {origins[child]}", key)
            return cm
        if isinstance(value, list):
            seq = CommentedSeq()
            for i, item in enumerate(value):
                child = f"{path}[{i}]"
                seq.append(build(item, child))
                if child in origins:
                    seq.yaml_add_eol_comment(f"from {origins[child]}", i)
            return seq
        return value

    yaml = YAML()
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    out.write(f"# imported from {source} by `policy import`\n")
    yaml.dump(build(document, ""), out)
    return out.getvalue()


def to_toml(document: dict[str, Any], origins: dict[str, str], source: str) -> str:
    import tomli_w

    header = [f"# imported from {source} by `policy import`"]
    header += [f"# {path}: from {where}" for path, where in sorted(origins.items())]
    ordered = {k: document[k] for k in ORDER if k in document} | {
        k: v for k, v in document.items() if k not in ORDER
    }
    return "\n".join(header) + "\n\n" + tomli_w.dumps(_drop_none(ordered))


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    return value


def run_import(fmt: str, path: str, output: str | None) -> tuple[str, list[PolicyError]]:
    from ..api import load_policy
    from ..policies.formats import import_document
    from ..policies.loader import read_source

    source = read_source(path)
    result = import_document(source.text, format=fmt, path=path)
    as_toml = bool(output and output.endswith(".toml"))
    text = (to_toml if as_toml else to_yaml)(result.document, result.origins, path)
    load_policy(
        text=text, name="imported.toml" if as_toml else "imported.yaml", base_dir=_dir_of(path)
    )  # never write what the engine would reject
    return text, list(result.warnings)


def _dir_of(path: str) -> str:
    import os

    return os.path.dirname(os.path.abspath(path))


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FOREIGN))
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="write here (.yaml or .toml); stdout (YAML) by default",
)
def import_command(fmt: str, path: str, output: str | None) -> None:
    """Convert an agent's permission config into a native policy."""
    try:
        text, warnings = run_import(fmt, path, output)
    except PolicyError as exc:
        print_errors(exc.errors)
        raise SystemExit(ExitCode.FINDINGS) from None
    print_errors(warnings)
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        click.echo(f"wrote {output}", err=True)
    else:
        sys.stdout.write(text)
    for line in next_steps(fmt, output):
        click.echo(line, err=True)


def next_steps(fmt: str, output: str | None) -> list[str]:
    """How to enforce the imported policy with the agent it came from (printed on stderr)."""
    import json
    import os
    from pathlib import Path

    from ..install import DEFAULT_SERVE_URL, INSTALLERS
    from ..install._common import hook_command

    if fmt not in INSTALLERS:
        return []
    target = os.path.abspath(output) if output else "/abs/path/policy.yaml"
    lines = [f"next: enforce it with `policy install {fmt} --policy {target}` (then `policy doctor {fmt}`)"]
    if fmt == "claude-code":
        command = {"type": "command", "command": hook_command(fmt, Path(target)), "onFailure": "block"}
        http = {"type": "http", "url": DEFAULT_SERVE_URL.format(protocol=fmt), "onFailure": "block"}
        lines.append(f"  it registers: {json.dumps({'matcher': '*', 'hooks': [command]})}")
        lines.append(
            f"  or, with --http (for `policy serve`): {json.dumps({'matcher': '*', 'hooks': [http]})}"
        )
    return lines
