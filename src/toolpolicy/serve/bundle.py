"""A policy served over HTTP (a "bundle URL"): `policy serve --policy https://host/policy.yaml`.

Replicas that read their policy from one URL need no shared disk: each fetches it at startup and
polls it at every reload interval with a conditional GET (`If-None-Match` with the last ETag,
`If-Modified-Since` with the last `Last-Modified`), so an unchanged bundle costs a 304. A bundle
is one self-contained policy document in any format `load_policy` reads (chosen from the URL's
file name, or `--format`); its `extends`, if any, are read relative to the server's working
directory.

Any failure to get it (unreachable, a status other than 200/304, over the size cap, not UTF-8)
is a `PolicyError` with code `policy_bundle_error`: the store treats it as a policy that does not
load (the previous policy keeps serving; with none, every call is denied with that reason).
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from ..errors import PolicyError
from ..vocabulary import ErrorCode

FETCH_TIMEOUT_S = 10.0
MAX_BUNDLE_BYTES = 16 * 1024 * 1024


def is_url(policy: str) -> bool:
    return policy.startswith(("http://", "https://"))


@dataclass
class Bundle:
    """The last fetched state of one bundle URL."""

    url: str
    etag: str | None = None
    last_modified: str | None = None
    text: str | None = None

    @property
    def name(self) -> str:
        """The document's display name (errors read `URL:line:col`); the path's suffix picks the format."""
        parts = urllib.parse.urlsplit(self.url)
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))

    def fetch(self, *, timeout: float = FETCH_TIMEOUT_S, max_bytes: int = MAX_BUNDLE_BYTES) -> str:
        """The bundle's text (the cached text after a 304); raises PolicyError when it cannot be had."""
        request = urllib.request.Request(
            self.url, headers={"Accept": "*/*", "User-Agent": "toolpolicy-serve"}
        )
        if self.text is not None and self.etag:
            request.add_header("If-None-Match", self.etag)
        if self.text is not None and self.last_modified:
            request.add_header("If-Modified-Since", self.last_modified)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read(max_bytes + 1)
                etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
        except urllib.error.HTTPError as exc:
            if exc.code == 304 and self.text is not None:
                return self.text
            raise self._error(f"HTTP {exc.code} {exc.reason}") from None
        except (OSError, ValueError) as exc:  # URLError, timeouts, refused connections, bad URLs
            reason = getattr(exc, "reason", None) or exc
            raise self._error(str(reason)) from None
        if len(raw) > max_bytes:
            raise self._error(f"over the {max_bytes}-byte limit")
        try:
            text = raw.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise self._error(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
        self.text, self.etag, self.last_modified = text, etag, modified
        return text

    def _error(self, why: str) -> PolicyError:
        return PolicyError(
            f"cannot fetch the policy bundle `{self.url}`: {why}",
            code=ErrorCode.BUNDLE_ERROR,
            file=self.name,
            help="check that the bundle server is up and the URL is right; the previous policy keeps serving",
        )
