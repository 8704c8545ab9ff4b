"""A real `policy serve` process on a free loopback port, for the server tests.

`ServeProcess(policy, *args)` starts `python -m toolpolicy serve --bind 127.0.0.1:0 ...` in its
own process group, reads the port from its "listening on" line, and keeps draining its stderr
(so the pipe never fills). `request()` and `post_json()` talk to it with `http.client`; `stop()`
sends SIGTERM to the process we started (by its id) and waits, killing it if it does not exit.
Every wait is bounded.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

START_TIMEOUT = 60.0
LISTENING = re.compile(r"listening on (http://[^\s]+) ")


class ServeProcess:
    def __init__(
        self, policy: Path | str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ):
        self.policy = str(policy)
        self.args = list(args)
        self.env = {**os.environ, **(env or {})}
        self.env.setdefault("TOOLPOLICY_NO_CACHE", "1")
        self.cwd = str(cwd) if cwd else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.host = "127.0.0.1"
        self.port = 0
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self, *, ready: bool = True) -> ServeProcess:
        argv = [sys.executable, "-m", "toolpolicy", "serve", "--policy", self.policy, "--bind", "127.0.0.1:0"]
        self.proc = subprocess.Popen(
            argv + self.args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        threading.Thread(target=self._drain_stdout, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            match = next((m for m in map(LISTENING.search, self.lines()) if m), None)
            if match:
                self.url = match.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"policy serve exited with {self.proc.returncode}:\n{self.stderr()}")
            time.sleep(0.02)
        else:
            self.stop()
            raise RuntimeError(f"policy serve did not announce its port:\n{self.stderr()}")
        if ready:
            self.wait_for(lambda: self.status("/readyz") in (200, 503), what="the server to answer /readyz")
        return self

    def stop(self) -> int | None:
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self._reader is not None:
            self._reader.join(timeout=5)
        return proc.returncode

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- output ----------------------------------------------------------------------------------
    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self._lock:
                self._lines.append(raw.decode("utf-8", "replace"))

    def _drain_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        self.stdout_lines: list[str] = []
        for raw in self.proc.stdout:
            self.stdout_lines.append(raw.decode("utf-8", "replace"))

    def lines(self) -> list[str]:
        with self._lock:
            return list(self._lines)

    def stderr(self) -> str:
        return "".join(self.lines())

    # -- requests --------------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def post_json(
        self, path: str, obj: Any, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], Any]:
        body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        status, hdrs, data = self.request(
            "POST", path, body, {"Content-Type": "application/json", **(headers or {})}
        )
        return status, hdrs, json.loads(data) if data.strip() else None

    def get_json(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        status, _, data = self.request("GET", path, headers=headers)
        return status, json.loads(data)

    def status(self, path: str) -> int | None:
        try:
            return self.request("GET", path, timeout=5)[0]
        except OSError:
            return None

    def wait_for(self, predicate: Any, *, what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"policy serve exited while waiting for {what}:\n{self.stderr()}")
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}:\n{self.stderr()}")
