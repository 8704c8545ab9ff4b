"""The bundled packs' stated intent, attacked from calls the packs' own lists do not spell (round 11e).

Every call here is decided by a policy that uses the packs as `docs/packs/README.md` documents:
`extends: ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]`, `default: ask`
(under the `claude-code` profile, and for R11e-F1 under the `codex` profile that `policy install
codex` and docs/agents.md pair with Codex CLI). Each strict xfail is a call that the engine decides
looser than the pack says it means (allow where the pack means deny or ask, ask where it means
deny); it passes once the engine or the pack is fixed. The passing tests pin variants that held.

What each call really does was checked with the real program where one is installed here (`ps`,
`pip`, `npm`), otherwise from the program's manual (kubectl, the AWS CLI and EC2 documentation).
"""

from __future__ import annotations

import json

import pytest

from shell_attacks import PACKS, decide
from toolpolicy import Engine, load_policy
from toolpolicy.adapters import HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

CODEX_PACKS = PACKS.replace("profile: claude-code", "profile: codex")


@pytest.fixture(scope="module")
def packs() -> Engine:
    return Engine(load_policy(text=PACKS), hooks=False)


@pytest.fixture(scope="module")
def codex_packs() -> Engine:
    return Engine(load_policy(text=CODEX_PACKS), hooks=False)


# -- R11e-F1: a codex-profile policy gets pack:read-only's allows but not pack:secrets' file denies ----
# pack:secrets says "shell commands that read, copy or upload those files are denied". Under
# `profile: claude-code` each of these is denied (`secrets.credential-files` reaches the shell's
# reads). Under `profile: codex` the packs' `Bash(...)` rules apply to Codex's shell tool (Bash is
# its alias), so `read-only.files-and-text` allows `cat`, while the pack's Read/Edit/... path rules
# have no tool to attach to and never reach the shell's reads: the secret is printed.
CODEX_SECRET_READS = [
    "cat ~/.vault-token",
    "cat ~/.pypirc",
    "cat server.key",
    "cat /run/secrets/db_password",
    "cat ~/.config/gcloud/application_default_credentials.json",
    "cat ~/.cargo/credentials.toml",
]


@pytest.mark.parametrize("command", CODEX_SECRET_READS)
def test_codex_profile_the_same_reads_are_denied_under_claude_code(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


@pytest.mark.parametrize("command", CODEX_SECRET_READS)
def test_codex_profile_shell_reads_of_credential_files_are_denied(codex_packs: Engine, command: str) -> None:
    assert decide(codex_packs, command) == "deny"


def test_codex_hook_objects_to_a_credential_read(tmp_path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(CODEX_PACKS)
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat ~/.vault-token"},
        "cwd": "/tmp",
        "session_id": "s",
        "turn_id": "t",
        "tool_use_id": "u",
        "permission_mode": "default",
        "model": "m",
    }
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    result = handle("codex", json.dumps(payload), factory, options=HookOptions(cwd="/tmp"))
    # an allow is exit 0 with empty stdout; a deny or an ask is a JSON deny
    assert result.stdout.strip() != ""


@pytest.mark.parametrize(
    "command", ["rm -rf /", "git reset --hard", "cat ~/.ssh/id_rsa", "curl http://169.254.169.254/"]
)
def test_codex_profile_pack_shell_rules_still_hold(codex_packs: Engine, command: str) -> None:
    # the packs' own Bash rules do reach Codex's shell tool
    assert decide(codex_packs, command) == "deny"


# -- R11e-F2: `ps` with BSD's `e` (print each process's environment) as a later word -----------------
# pack:read-only pins `ps auxe` as a near miss ("ps e prints environments"): the environment of
# every process holds tokens (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN ...). procps-ng ps takes `e` as a
# word of its own anywhere: `FOO_TOKEN=x sleep 30 & ps ax -o pid,args e` printed FOO_TOKEN=x here
# (also `ps x e`, `ps -fp PID e`, `ps --pid PID e`). The exclusion only reads the first word.
@pytest.mark.parametrize(
    "command", ["ps ax -o pid,args e", "ps x e", "ps -fp 1 e", "ps --pid 1 e", "ps -ww e -p 1"]
)
def test_ps_printing_environments_is_not_allowed(packs: Engine, command: str) -> None:
    assert decide(packs, command) != "allow"


@pytest.mark.parametrize("command", ["ps auxe", "ps e", "ps axe -o pid"])
def test_ps_e_as_the_first_word_is_not_allowed(packs: Engine, command: str) -> None:
    assert decide(packs, command) != "allow"


# -- R11e-F3: the AWS CLI's caches of live credentials ----------------------------------------------
# `aws sso login` caches the SSO access token in ~/.aws/sso/cache/*.json; an assumed role's
# temporary AccessKeyId/SecretAccessKey/SessionToken are cached in ~/.aws/cli/cache/*.json (AWS CLI
# user guide, "IAM Identity Center" and "Assume role" sections). pack:secrets denies
# ~/.aws/credentials and ~/.aws/config; these hold the same keys and read-only allows `cat`.
@pytest.mark.parametrize(
    "call",
    [
        ("Bash", {"command": "cat ~/.aws/sso/cache/0123abcd.json"}),
        ("Bash", {"command": "cat ~/.aws/cli/cache/0123abcd.json"}),
        ("Read", {"file_path": "~/.aws/sso/cache/0123abcd.json"}),
        ("Read", {"file_path": "~/.aws/cli/cache/0123abcd.json"}),
    ],
    ids=["cat-sso", "cat-cli", "read-sso", "read-cli"],
)
def test_aws_credential_caches_are_denied(packs: Engine, call: tuple[str, dict]) -> None:
    tool, args = call
    assert packs.decide(tool, args, context={"cwd": "/tmp"}).decision == "deny"


# -- R11e-F4: SSH private keys not named id_* ------------------------------------------------------
# `ssh-keygen -f ~/.ssh/github` writes the private key to ~/.ssh/github (ssh-keygen(1) -f); keys named
# for a host or a use (`deploy_key`, `github`, `aws-prod.pem` is caught by *.pem) are common and are
# used with `ssh -i` / IdentityFile. pack:secrets means private keys; only ~/.ssh/id_* is denied and
# read-only allows `cat` of the others.
@pytest.mark.parametrize(
    "call",
    [
        ("Bash", {"command": "cat ~/.ssh/github"}),
        ("Bash", {"command": "cat ~/.ssh/deploy_key"}),
        ("Read", {"file_path": "~/.ssh/deploy_key"}),
    ],
    ids=["cat-github", "cat-deploy", "read-deploy"],
)
def test_ssh_private_keys_by_any_name_are_denied(packs: Engine, call: tuple[str, dict]) -> None:
    tool, args = call
    assert packs.decide(tool, args, context={"cwd": "/tmp"}).decision == "deny"


@pytest.mark.parametrize(
    "command", ["cat ~/.ssh/id_ed25519", "cat ~/.ssh/id_ed25519-sk", "cat deploy/id_rsa"]
)
def test_ssh_keys_named_id_are_denied(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


# -- R11e-F5: .env files the list does not spell ---------------------------------------------------
# pack:secrets: "`.env.example` and `.env.sample` are templates, not secrets" -- every other .env
# file is meant to be denied. `.env~` (an editor's backup, a full copy) is allowed by read-only;
# `.env.dev`, `.env.bak`, `.env.docker` only reach the policy's default (ask).
@pytest.mark.parametrize("command", ["cat .env~", "cat .env.dev", "cat .env.bak", "cat .env.docker"])
def test_env_files_other_than_templates_are_denied(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


@pytest.mark.parametrize(
    "command", ["cat .env", "cat .env.local", "cat .env.production", "cat app/.env.staging", "sort .env"]
)
def test_listed_env_files_are_denied(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


# -- R11e-F6: `kubectl delete TYPE/NAME` with the type spelt as kubectl accepts it ---------------------
# kubectl takes `TYPE/NAME` with the type singular, plural or short (`kubectl delete pods/web`):
# `namespaces/prod` deletes the namespace and everything in it, `pv/x` a volume, `crd/x` every
# custom resource of that kind. destructive.kubectl-delete-broad denies `ns/prod`, `namespace/prod`
# and `pvc/x` only.
@pytest.mark.parametrize(
    "command",
    [
        "kubectl delete namespaces/prod",
        "kubectl delete pv/data-0",
        "kubectl delete persistentvolumeclaim/data-db-0",
        "kubectl delete crd/certificates.cert-manager.io",
        "kubectl delete node/worker-1",
    ],
)
def test_kubectl_delete_type_slash_name_is_denied(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


@pytest.mark.parametrize(
    "command", ["kubectl delete ns/prod", "kubectl delete pvc/data-db-0", "kubectl delete -n prod pvc data"]
)
def test_kubectl_delete_spelt_forms_are_denied(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


# -- R11e-F7: kubectl's and helm's global options before the subcommand --------------------------------
# `kubectl -n prod delete ...` / `kubectl --context prod delete ...` is how kubectl is usually run
# (kubectl options(1): global flags go anywhere). `Bash(kubectl delete *)` never matches them, so
# `kubectl --namespace=prod delete all --all` (every workload in prod) only asks. git's and docker's
# global options are read (pinned below); kubectl's are not.
@pytest.mark.parametrize(
    "command",
    [
        "kubectl --namespace=prod delete all --all",
        "kubectl -n prod delete pvc data",
        "kubectl --context prod delete namespace prod",
    ],
)
def test_kubectl_global_options_do_not_hide_a_delete(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "git -C repo reset --hard",
        "git --git-dir=.git push --force",
        "git -c core.x=y clean -fdx",
        "docker --context prod system prune -af",
        "docker -H tcp://x volume rm data",
    ],
)
def test_git_and_docker_global_options_do_not_hide_a_destroy(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


# -- R11e-F8: the EC2 metadata service by its host name --------------------------------------------
# On EC2 the Amazon-provided DNS resolves `instance-data` (and `instance-data.ec2.internal`) to
# 169.254.169.254; `curl http://instance-data/latest/meta-data/iam/security-credentials/ROLE`
# prints the role's keys. pack:network denies the metadata service by address and by GCP's names
# (`metadata`, `metadata.google.internal`) but not by this one, and read-only allows the curl.
@pytest.mark.parametrize(
    "call",
    [
        ("Bash", {"command": "curl http://instance-data/latest/meta-data/iam/security-credentials/"}),
        ("Bash", {"command": "curl -s http://instance-data.ec2.internal/latest/meta-data/"}),
        ("WebFetch", {"url": "http://instance-data/latest/meta-data/", "prompt": "x"}),
    ],
    ids=["curl-short", "curl-fqdn", "webfetch"],
)
def test_ec2_metadata_by_host_name_is_denied(packs: Engine, call: tuple[str, dict]) -> None:
    tool, args = call
    assert packs.decide(tool, args, context={"cwd": "/tmp"}).decision == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "curl -s http://metadata/computeMetadata/v1/",
        "wget -qO- http://metadata.google.internal./computeMetadata/v1/",
        "curl --resolve example.com:80:169.254.169.254 http://example.com/latest/meta-data/",
        "curl --connect-to ::169.254.169.254: http://example.com/latest/meta-data/",
        "curl -x http://169.254.169.254:80 http://example.com/",
        "curl http://169.254.170.23/v1/credentials",
        "http GET 169.254.169.254/latest",
    ],
)
def test_metadata_spellings_that_held(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "deny"


# -- R11e-F9: `pip config list` prints an index URL's credentials ------------------------------------
# A private index is configured as `index-url = https://user:TOKEN@host/simple`; `pip config list`
# (pip 23.2 here) printed `global.index-url='https://user:s3cr3tTOKEN@pypi.example.com/simple'`, and
# it prints every PIP_* variable (`:env:.index-url=...`). npm redacts the same thing
# (`//registry.npmjs.org/:_authToken = (protected)`, checked with npm 11); pip does not.
# read-only.package-queries allows it ("never reveal secrets" is the pack's promise).
@pytest.mark.parametrize("command", ["pip config list", "pip config list -v"])
def test_pip_config_list_is_not_allowed(packs: Engine, command: str) -> None:
    assert decide(packs, command) != "allow"


@pytest.mark.parametrize(
    "command",
    [
        "npm config get //registry.npmjs.org/:_authToken",
        "gh auth status -t",
        "gh auth status --show-token",
        "aws configure export-credentials",
        "az account get-access-token",
        "git config --get http.https://github.com/.extraheader",
        "tr '\\0' '\\n' < /proc/self/environ",
        "cat /proc/self/root/root/.npmrc",
    ],
)
def test_other_secret_printers_are_not_allowed(packs: Engine, command: str) -> None:
    assert decide(packs, command) != "allow"
