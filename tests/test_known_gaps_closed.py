"""Round 12, area D: three gaps SECURITY.md listed as known and left (round 11), closed as classes.

R12d-F1 Docker's host paths: `docker run -v HOST:CTR[:OPTS]` (`--volume=`), `--mount
type=bind,source=HOST,...` (`src=`, `readonly`), `docker create`, `docker container run`, podman,
`docker compose run -v`, `docker build --secret src=F` / `-o type=local,dest=D` and a volume bound
to a host directory (`--opt device=D`, `volume-opt=device=D`): the container reads everything under
HOST and, unless the mount is read-only, writes there. docker-run(1) "-v|--volume
[HOST-DIR:]CONTAINER-DIR[:OPTIONS]" ("If you supply a HOST-DIR that is an absolute path, Docker
bind-mounts to the path you specify. If you supply a name, Docker creates a named volume");
docs.docker.com "Bind mounts" (`--mount type=bind,source=,target=,readonly`, `src`/`dst`
aliases, `ro`); "Volumes" (`type=volume` with `volume-opt=type=none,volume-opt=o=bind,
volume-opt=device=PATH` binds a host directory through the local driver); `docker build
--secret id=ID,src=PATH`, `--output type=local,dest=PATH`; `docker compose run -v`.
R12d-F2 `uv pip` (and `uv run`, `uv tool run`/`uvx`, `uv add -r`...): uv's pip interface reads
requirement, constraint and override files (`-r/--requirements`, `-c/--constraints`,
`--overrides`, `-b/--build-constraints`; docs.astral.sh/uv/reference/cli `uv pip install`),
writes `-o/--output-file` (`uv pip compile`) and installs into `--target`/`--prefix`; `uv run
CMD` runs CMD ("uv run file.py is equivalent to uv run python file.py"), `uvx PKG` = `uv tool run
PKG` fetches a package and runs it (exec-capable, as `npx`); `--env-file`, `--with-requirements`
read files.
R12d-F3 Gemini CLI's `read_many_files` globs each `include` entry with `glob(..., {nocase: true,
dot: true})` (packages/core/src/tools/read-many-files.ts; an existing path is escaped and still
matched case-insensitively), and its `glob` tool matches case-insensitively unless
`case_sensitive` is true: `include: [".ENV"]` read `.env` past `read_file(.env)`.

Each finding was a strict xfail until its fix; the other tests pin the edges of each fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shell_attacks import engines, workspace
from toolpolicy import Engine

_DENIES = (
    '"Read(./.env)", "Read(~/.ssh/**)", "Read(~/.aws/**)", "Edit(./.git/**)", "Edit(~/.ssh/**)", "Bash(rm *)"'
)
# D: everything allowed but the denies; P: the packs with the programs allowed by prefix rules
D = f"version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: [{_DENIES}]\n"
P = (
    'version: 1\nprofile: claude-code\nextends: ["pack:secrets", "pack:read-only"]\ndefault: ask\n'
    'permissions:\n  allow: ["Bash(docker *)", "Bash(docker run *)", "Bash(podman *)", "Bash(uv *)",'
    ' "Bash(uvx *)", "Bash(pip *)"]\n'
)
# Y: yolo, which lifts every ask but a protected write's (`.git/`, `.claude/`...)
Y = 'version: 1\nprofile: claude-code\ndefault: ask\nmode: yolo\npermissions:\n  deny: ["Read(~/.ssh/**)"]\n'
G = (
    "version: 1\nprofile: gemini\ndefault: allow\npermissions:\n"
    '  deny: ["read_file(.env)", "read_file(~/.ssh/**)"]\n  ask: ["read_file(./secrets/**)"]\n'
)

Where = tuple[Path, Path, dict[str, Engine]]


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("r12d"))
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "secrets").mkdir()
    (ws / "secrets" / "db.txt").write_text("pw\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\n")
    return ws, home, engines(home, D=D, P=P, Y=Y, G=G)


def _decide(where: Where, policy: str, tool: str, args: dict[str, object]) -> str:
    ws, home, engine = where
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine[policy].decide(tool, args, context=context).decision)


def _bash(where: Where, policy: str, command: str) -> str:
    return _decide(where, policy, "Bash", {"command": command})


# ------------------------------------------------------------------ R12d-F1: docker's host paths

# each reads a denied file (or a tree holding one) from the host, or writes under `.git/`
DOCKER_OPEN = [
    "docker run -v ~:/h alpine cat /h/.ssh/id_rsa",
    "docker run -v ~/.aws:/a alpine cat /a/credentials",
    "docker run --volume=$HOME/.ssh:/k:ro alpine sh",
    'docker run --volume "$HOME":/h alpine sh',
    'docker run -v "$HOME/.ssh:/k" alpine sh',
    "docker run -it -v ~/.ssh:/k:ro,z alpine sh",
    "docker run --mount type=bind,source=$HOME/.ssh,target=/k alpine sh",
    "docker run --mount=type=bind,src=$HOME,dst=/h,readonly alpine sh",
    "docker run --mount type=volume,dst=/k,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=$HOME/.ssh alpine sh",
    "docker create -v ~:/h alpine",
    "docker container run -v ~/.ssh:/k alpine sh",
    "docker container create --mount type=bind,src=$HOME,dst=/h alpine",
    "podman run -v ~/.ssh:/k alpine sh",
    "podman create --volume ~/.ssh:/k:O alpine",
    "docker compose run -v ~/.ssh:/k svc sh",
    "docker compose run --volume=$HOME:/h svc",
    "docker -H unix:///x.sock run -v ~:/h alpine",
    "docker run -v .:/src alpine sh",
    "docker run --mount type=bind,src=.git,dst=/g alpine sh",
    "docker build --secret id=k,src=$HOME/.ssh/id_rsa .",
    "docker buildx build --secret=id=k,src=.env .",
    "docker build -o type=local,dest=.git/hooks .",
    "docker buildx build --output=type=local,dest=.git .",
    "docker volume create --opt type=none --opt o=bind --opt device=$HOME/.ssh keys",
    "docker volume create -o device=$HOME -o o=bind -o type=none home",
]


@pytest.mark.parametrize("command", DOCKER_OPEN)
def test_docker_host_paths_meet_the_path_denies(where: Where, command: str) -> None:
    """R12d-F1 (fixed): a host directory a container mounts (`-v HOST:CTR`, `--mount
    type=bind,source=HOST`, a volume bound to `device=HOST`), a build's `--secret src=F` and its
    `-o type=local,dest=D` are read (and, unless read-only, written) with everything under them:
    the path denies hold (the default-allow policy denies each)."""
    assert _bash(where, "D", command) == "deny"


def test_docker_mount_of_an_unknown_directory_asks(where: Where) -> None:
    """R12d-F1's edge: a mount of a directory the command does not spell (`$PWD`, `$(pwd)`) may
    hold a denied path: it asks, as `grep -r x "$DIR"` does."""
    assert _bash(where, "D", "docker run -v $PWD:/src -w /src alpine sh") == "ask"
    assert _bash(where, "D", 'docker run -v "$(pwd)":/src alpine sh') == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "docker run -v ~/.aws:/a alpine ls /a",
        "docker run --mount type=bind,src=$HOME/.aws,dst=/a,ro alpine ls /a",
        "podman run -v ~/.aws:/a alpine ls /a",
    ],
)
def test_docker_run_prefix_allow_with_the_secrets_pack(where: Where, command: str) -> None:
    """R12d-F1 (fixed): under `Bash(docker run *)` and pack:secrets a container that mounts the
    AWS credentials directory is denied (it was asked about only as an exec-capable command)."""
    assert _bash(where, "P", command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "docker run -v .:/src alpine sh",
        "docker run --mount type=bind,source=.,target=/src alpine sh",
        "docker run -v $PWD:/src:rw alpine sh",
    ],
)
def test_docker_writable_mount_of_the_repository_asks_in_yolo(where: Where, command: str) -> None:
    """R12d-F1 (fixed): a writable mount of the cwd writes `.git/` (hooks) as `cp -r evil/. .`
    does: yolo asks, as for every protected write."""
    assert _bash(where, "Y", command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "docker run --rm alpine echo hi",
        "docker run -v myvol:/data alpine ls /data",  # a named volume, not a host path
        "docker run -v /data alpine ls",  # an anonymous volume
        "docker run --mount type=volume,src=myvol,dst=/d alpine ls",
        "docker run --mount type=tmpfs,dst=/t alpine ls",
        "docker run -v .:/src:ro alpine ls /src",  # read-only: nothing under .git written
        "docker run --mount type=bind,src=.,dst=/src,readonly alpine ls",
        "docker run --mount type=bind,src=.,dst=/src,ro=true alpine ls",
        "docker run -v ./src:/src alpine ls",
        "docker run -e A=B:C -p 8080:80 --name web nginx",
        "docker build -t app:1 .",
        "docker build -o type=local,dest=out .",
        "docker volume create data",
        "docker ps -a",
    ],
)
def test_docker_ordinary_runs_stay_allowed(where: Where, command: str) -> None:
    """R12d-F1's edges: named and anonymous volumes, tmpfs, read-only mounts of the project,
    ports and environment values are not host paths read or written under a denied path."""
    assert _bash(where, "D", command) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "docker run -v .:/src:ro alpine ls /src",
        "docker run --mount type=bind,src=.,dst=/src,readonly alpine ls",
        "docker run -v ./build:/out alpine sh",
    ],
)
def test_docker_read_only_mount_of_the_repository_in_yolo(where: Where, command: str) -> None:
    """R12d-F1's edges: a read-only mount of the project, or a writable one of a directory that
    holds no protected path, is not a protected write: yolo allows it."""
    assert _bash(where, "Y", command) == "allow"


def test_docker_mount_readonly_false_is_writable(where: Where) -> None:
    """R12d-F1's edge: `readonly=false` (`ro=0`) is a writable bind mount (docs: the option takes
    `true`/`1` or `false`/`0`)."""
    assert _bash(where, "D", "docker run --mount type=bind,src=.,dst=/s,readonly=false alpine sh") == "deny"
    assert _bash(where, "D", "docker run --mount type=bind,src=.,dst=/s,ro=0 alpine sh") == "deny"


# ------------------------------------------------------------------ R12d-F2: uv

UV_OPEN = [
    "uv pip install -r.env",
    "uv pip install -c.env x",
    "uv pip install -r ~/.ssh/id_rsa --dry-run",
    "uv pip install --requirements=.env",
    "uv pip install --overrides .env x",
    "uv pip install -b .env x",
    "uv pip install --target .git/hooks x",
    "uv pip compile -o .git/hooks/pre-commit requirements.in",
    "uv pip compile .env",
    "uv pip sync .env",
    "uv pip uninstall -r .env",
    "uv run --env-file .env python x.py",
    "uv run --with-requirements=.env pytest",
    "uvx --with-requirements .env ruff",
    "uv tool run --constraints .env ruff",
    "uv add -r .env",
    "uv export -o .git/hooks/pre-commit",
    "uv export --output-file=.git/hooks/pre-commit",
    "uv build -o .git/hooks",
    "uv venv .git/hooks",
    "uv publish ~/.ssh/id_rsa",
    "uv --directory ~/.ssh run cat id_rsa",
    "uv run -- rm -rf x",
    "uv run --python 3.12 rm -rf x",
    "uvx --from rm rm -rf x",
    "python -m pip install -r.env",
]


@pytest.mark.parametrize("command", UV_OPEN)
def test_uv_reads_and_writes_meet_the_path_denies(where: Where, command: str) -> None:
    """R12d-F2 (fixed): uv's files (requirement, constraint and override files, `--env-file`,
    `--with-requirements`, `-o`, `--target`, a venv's directory, what it publishes) and the
    commands `uv run` and `uvx` run meet the denies, whatever their spelling (`-r.env`)."""
    assert _bash(where, "D", command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "uv run script.py",
        "uv run pytest -q",
        "uv run -m http.server",
        "uvx cowsay -t hello",
        "uvx --from git+https://github.com/example/tool tool",
        "uv tool run ruff check",
        "uv run --with rich python -c 'print(1)'",
    ],
)
def test_uv_run_and_uvx_run_code(where: Where, command: str) -> None:
    """R12d-F2 (fixed): `uv run` runs a command or script and `uvx`/`uv tool run` a package's
    entry point: exec-capable, so a prefix allow (`Bash(uv *)`, `Bash(uvx *)`) does not cover them."""
    assert _bash(where, "P", command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "uv pip list",
        "uv pip show httpx",
        "uv pip freeze",
        "uv tree",
        "uv python list",
        "uv --version",
        "uv pip install -r requirements.txt",
        "uv sync --all-extras --dev",
        "uv lock",
        "uv venv",
        "uv build",
    ],
)
def test_uv_ordinary_commands_stay_allowed(where: Where, command: str) -> None:
    """R12d-F2's edges: uv's queries, and installs from the project's own files, are allowed by
    `Bash(uv *)` as before (what the packs and the command corpus expect)."""
    assert _bash(where, "P", command) == "allow"


# ------------------------------------------------------------------ R12d-F3: Gemini's case-insensitive globs


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_many_files", {"include": [".ENV"]}),
        ("read_many_files", {"include": [".Env"]}),
        ("read_many_files", {"include": ["**/.Env*"]}),
        ("read_many_files", {"include": ["**/.env*"]}),
        ("read_many_files", {"include": [".E*"]}),
        ("read_many_files", {"include": ["sub/.ENV"]}),
        ("read_many_files", {"include": ["README.md", ".ENV"]}),
        ("read_many_files", {"paths": [".ENV"]}),
        ("read_many_files", {"include": ["~/.SSH/id_rsa"]}),
        ("read_many_files", {"include": ["~/.Ssh/*"]}),
        ("glob", {"pattern": "**/.ENV"}),
        ("glob", {"pattern": ".EN?"}),
        ("glob", {"pattern": ".ENV", "dir_path": "sub/.."}),
        ("read_many_files", {"include": [".{ENV,x}"]}),
        ("read_many_files", {"include": ["SUB\\..\\.ENV"]}),  # a backslash is a `/`
    ],
)
def test_gemini_globs_are_case_insensitive(where: Where, tool: str, args: dict[str, object]) -> None:
    """R12d-F3 (fixed): Gemini CLI globs `read_many_files`' `include` entries (and `glob`'s
    pattern, unless `case_sensitive`) case-insensitively, dotfiles included: an entry that may
    name a denied file in any case is denied."""
    assert _decide(where, "G", tool, args) == "deny"


def test_gemini_case_insensitive_ask(where: Where) -> None:
    """R12d-F3 (fixed): an ask rule holds the same way (`SECRETS/**` reads `./secrets/`)."""
    assert _decide(where, "G", "read_many_files", {"include": ["SECRETS/**"]}) == "ask"
    assert _decide(where, "G", "read_many_files", {"include": ["Secrets/db.txt"]}) == "ask"


@pytest.mark.parametrize(
    "args",
    [
        {"include": ["README.md"]},
        {"include": ["src/**/*.ts", "docs/"]},
        {"include": [".envrc"]},
        {"include": [".ENVRC"]},
        {"include": ["*.md"]},
        {"include": ["src/**"]},
        {"include": ["**/*.py", "docs/**/*.MD"]},
        # a glob that spells nothing of the denied name is a search of the project, as Grep's path
        # is: a cwd-relative or floating rule covers the paths it names, not the searches above
        # them (SECURITY.md), even where `dot: true` lets `*` name `.env`
        {"include": ["*"]},
        {"include": ["**"]},
    ],
)
def test_gemini_ordinary_reads_stay_allowed(where: Where, args: dict[str, object]) -> None:
    """R12d-F3's edges: entries that spell nothing of a denied name, in any case, stay allowed."""
    assert _decide(where, "G", "read_many_files", args) == "allow"


def test_gemini_glob_under_home_still_meets_anchored_rules(where: Where) -> None:
    """R12d-F3's edge: a search of a directory above an anchored deny (`~/**`) is denied as
    before (the tree reader's rule), and in any case (`~/.SS*/*`)."""
    assert _decide(where, "G", "read_many_files", {"include": ["~/**"]}) == "deny"
    assert _decide(where, "G", "read_many_files", {"include": ["~/.SS*/*"]}) == "deny"
    assert _decide(where, "G", "glob", {"pattern": ".SSH/ID_*", "dir_path": "~"}) == "deny"
    # the base directory is opened as given (case-sensitive here): only the pattern is folded
    assert _decide(where, "G", "glob", {"pattern": "ID_*", "dir_path": "~/.SSH"}) == "allow"


def test_gemini_odd_globs_ask(where: Where) -> None:
    """R12d-F3's edge: an entry the check cannot read (minimatch's extglob `!(x)`, a control
    character) or a value that is not a list of strings asks instead of passing unweighed."""
    assert _decide(where, "G", "read_many_files", {"include": ["!(README.md)"]}) == "ask"
    assert _decide(where, "G", "read_many_files", {"include": ["a\x1ab"]}) in ("ask", "deny")
    assert _decide(where, "G", "read_many_files", {"include": [{"x": 1}]}) in ("ask", "deny")


def test_claude_read_stays_case_sensitive(where: Where) -> None:
    """R12d-F3's edge: Claude Code's `Read` opens the path it is given (a case-sensitive
    filesystem: `.ENV` is another file), so its case-sensitive rules are unchanged."""
    assert _decide(where, "D", "Read", {"file_path": ".ENV"}) == "allow"
