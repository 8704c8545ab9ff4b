"""`deploy/`: the Kubernetes manifest and the Dockerfile of the decision service.

The manifest is validated against the Kubernetes JSON schemas (kubernetes-validate, offline;
`kubectl --dry-run=client` still needs an API server for discovery, so it is not used), then
checked for what the service relies on: the Service reaches the pods, the probes hit `/readyz`
and `/healthz`, the container's arguments are ones `policy serve` accepts, the policy and token
paths are the mounted ConfigMap and Secret, and the ConfigMap's policy loads and passes its own
tests. The Dockerfile's entry point and default arguments are checked the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import kubernetes_validate
import pytest
import yaml
from click.testing import CliRunner

from toolpolicy import load_policy
from toolpolicy.cli import cli
from toolpolicy.cli.serve_cmd import serve_command

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "deploy" / "kubernetes.yaml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
K8S_VERSION = "1.32"


def documents() -> dict[str, dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]
    return {d["kind"]: d for d in docs}


def serve_options(args: list[str]) -> dict[str, Any]:
    """The options `policy serve` parses from `args` (a usage error fails the test)."""
    ctx = serve_command.make_context("serve", list(args), resilient_parsing=False)
    return dict(ctx.params)


def test_the_manifest_is_valid_kubernetes() -> None:
    docs = documents()
    assert set(docs) == {"ConfigMap", "Deployment", "Service"}
    for doc in docs.values():
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_an_invalid_manifest_is_caught() -> None:
    deployment = documents()["Deployment"]
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/x"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)


def test_the_service_reaches_the_pods_and_the_probes_the_endpoints() -> None:
    docs = documents()
    pod = docs["Deployment"]["spec"]["template"]
    container = pod["spec"]["containers"][0]
    selector = docs["Service"]["spec"]["selector"]
    assert selector.items() <= pod["metadata"]["labels"].items()
    assert docs["Deployment"]["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert docs["Service"]["spec"]["ports"][0]["targetPort"] in ports
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    options = serve_options(container["args"])
    host, port = options["bind"].rsplit(":", 1)
    assert int(port) == ports["http"] and host == "0.0.0.0"
    assert options["token_file"]  # a non-loopback bind needs it (the server refuses to start otherwise)
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_policy_and_token_come_from_the_configmap_and_the_secret(tmp_path: Path) -> None:
    docs = documents()
    spec = docs["Deployment"]["spec"]["template"]["spec"]
    container = spec["containers"][0]
    options = serve_options(container["args"])
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    policy_dir, policy_name = options["policy_path"].rsplit("/", 1)
    policy_volume = next(n for n, p in mounts.items() if p == policy_dir)
    assert volumes[policy_volume]["configMap"]["name"] == docs["ConfigMap"]["metadata"]["name"]
    assert not any("subPath" in m for m in container["volumeMounts"])  # a subPath mount never updates
    token_dir = options["token_file"].rsplit("/", 1)[0]
    assert "secret" in volumes[next(n for n, p in mounts.items() if p == token_dir)]
    # the ConfigMap's policy loads, and its inline tests pass
    path = tmp_path / policy_name
    path.write_text(docs["ConfigMap"]["data"][policy_name])
    assert load_policy(path).tests
    result = CliRunner().invoke(cli, ["test", str(path)])
    assert result.exit_code == 0, result.output


def test_the_dockerfile_serves_what_the_manifest_expects() -> None:
    instructions = _dockerfile(DOCKERFILE.read_text())
    final = instructions[[i for i, (op, _) in enumerate(instructions) if op == "FROM"][-1] :]
    ops = dict(final)
    assert json.loads(ops["ENTRYPOINT"]) == ["policy", "serve"]
    options = serve_options(json.loads(ops["CMD"]))
    assert options["bind"] == "0.0.0.0:8181" and options["token_file"] and options["workers"] == 2
    assert ops["EXPOSE"] == "8181"
    user = ops["USER"].split(":")[0]
    assert user not in ("root", "0")
    assert "/healthz" in ops["HEALTHCHECK"]
    assert any(
        '".[serve]"' in args for op, args in instructions if op == "RUN"
    )  # the server's extra is built


def _dockerfile(text: str) -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        op, _, args = line.partition(" ")
        out.append((op.upper(), args.strip()))
    return out


def test_serve_options_reject_a_bad_argument() -> None:
    with pytest.raises(click.UsageError):
        serve_options(["--policy", "p.yaml", "--wokers", "2"])
