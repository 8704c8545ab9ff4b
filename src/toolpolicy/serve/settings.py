"""The decision server's options, and the checks made before anything binds.

`ServeSettings` holds what `policy serve` was given. It travels to worker processes as JSON in
an environment variable (the token itself never does: workers read the token file). The checks:
a bind address is `HOST:PORT` (`[::1]:8181` for IPv6); a non-loopback address needs a bearer
token unless `--insecure` says otherwise; a token file must exist, be readable and hold a token.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import stat
from dataclasses import dataclass
from typing import Any

SETTINGS_ENV = "TOOLPOLICY_SERVE_SETTINGS"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8181
MAX_BODY_BYTES = 16 * 1024 * 1024  # the same cap as `policy hook`'s stdin
MAX_BATCH = 1000
LOG_MAX_BYTES = 64 * 1024 * 1024
LOG_BACKUPS = 5
MAX_TOKEN_BYTES = 4096


class SettingsError(ValueError):
    """A bad option: the CLI prints it on one line and exits 2."""


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """What `policy serve` runs with (the CLI flags of the same names).

    `policy`: the policy file (absolute). `host`/`port`: where to listen (port 0: any free port).
    `workers`: server processes sharing the socket. `token_file`: the bearer token required on
    `/v1/*` and `/metrics`. `hooks`: run the policy's own hooks. `log`: the decision log, a path
    or `-` for stdout. `reload_interval`: seconds between checks of the policy files (0: only
    SIGHUP reloads). `cache`: use the per-user compiled-policy cache when loading.
    """

    policy: str
    format: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    workers: int = 1
    token_file: str | None = None
    insecure: bool = False
    hooks: bool = True
    log: str | None = None
    log_max_bytes: int = LOG_MAX_BYTES
    log_backups: int = LOG_BACKUPS
    max_body_bytes: int = MAX_BODY_BYTES
    max_batch: int = MAX_BATCH
    reload_interval: float = 1.0
    cache: bool = True

    def to_env(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_env(cls, text: str) -> ServeSettings:
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise SettingsError(f"${SETTINGS_ENV} must hold a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise SettingsError(f"${SETTINGS_ENV}: unknown setting `{unknown[0]}`")
        return cls(**data)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def parse_bind(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `[IPv6]:PORT`, or `:PORT` for the default host) -> (host, port)."""
    value = text.strip()
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise SettingsError(f"bad --bind `{text}`: expected `[IPV6]:PORT`, e.g. `[::1]:8181`")
        port_text = rest[1:]
    else:
        host, sep, port_text = value.rpartition(":")
        if not sep:
            raise SettingsError(f"bad --bind `{text}`: expected `HOST:PORT`, e.g. `127.0.0.1:8181`")
        if ":" in host:
            raise SettingsError(f"bad --bind `{text}`: write an IPv6 address in brackets, `[::1]:8181`")
    host = host or DEFAULT_HOST
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise SettingsError(f"bad --bind `{text}`: the port must be a number from 0 to 65535")
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback IP literals; any other name or address is not."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(settings: ServeSettings) -> None:
    """Refuse to listen beyond loopback without a token (unless `--insecure`)."""
    if is_loopback(settings.host) or settings.token_file or settings.insecure:
        return
    raise SettingsError(
        f"refusing to listen on non-loopback address `{settings.host}` without a bearer token: "
        "give --token-file FILE (or --insecure to serve anyone who can reach the port)"
    )


def read_token(path: str) -> bytes:
    """The bearer token in `path`: its first line, stripped; raises SettingsError when unusable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block us
    except OSError as exc:
        raise SettingsError(f"cannot read --token-file `{path}`: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SettingsError(f"--token-file `{path}` is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read(MAX_TOKEN_BYTES + 1)
        except OSError as exc:
            raise SettingsError(f"cannot read --token-file `{path}`: {exc.strerror or exc}") from None
    if len(raw) > MAX_TOKEN_BYTES:
        raise SettingsError(f"--token-file `{path}` is over {MAX_TOKEN_BYTES} bytes")
    lines = raw.strip().splitlines()
    token = lines[0].strip() if lines else b""
    if not token:
        raise SettingsError(f"--token-file `{path}` is empty")
    if len(token) < 16:
        raise SettingsError(f"--token-file `{path}`: the token is shorter than 16 characters")
    if any(b < 0x21 or b > 0x7E for b in token):
        raise SettingsError(f"--token-file `{path}`: the token must be printable ASCII without spaces")
    return token
