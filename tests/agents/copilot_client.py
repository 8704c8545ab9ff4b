"""The real GitHub Copilot CLI against a fake model on 127.0.0.1, offline, to check a hook end to end.

(`FakeModel` also serves the Cline CLI: tests/agents/cline_client.py.)

GitHub Copilot CLI (npm `@github/copilot`, a native binary) has a bring-your-own-key mode:
`COPILOT_PROVIDER_BASE_URL` points it at any OpenAI-compatible endpoint and `COPILOT_OFFLINE=true`
turns off GitHub authentication, telemetry, update checks and every other network access
(`copilot help providers`, `copilot help environment`). This harness:

1. installs the CLI with npm into the system temp dir (cached, pinned version);
2. serves `POST /chat/completions` on 127.0.0.1: the first turn answers with one call of the
   CLI's shell tool (`bash`, `touch MARKER`), every later turn with plain text;
3. writes `.github/hooks/policy.json` in a fresh project (the hook under test, plus a capture
   hook that saves the payload), runs `copilot -p ... --allow-all-tools` there, and reports
   whether the command ran (the marker exists), what the hook received and what the model was
   told (the tool result).

Only the standard library is needed, plus `node`/`npm` to install the CLI. Run it by hand:
`python tests/agents/copilot_client.py --hook-command "/abs/policy hook copilot --policy P"`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

COPILOT_VERSION = os.environ.get("COPILOT_CLIENT_VERSION", "1.0.102")
MODEL = "gpt-4.1"


def cache_root() -> Path:
    return Path(tempfile.gettempdir()) / "copilot_client"


def install(version: str = COPILOT_VERSION, timeout: float = 600) -> Path:
    """The `copilot` launcher of an npm install of `@github/copilot@version` (cached)."""
    prefix = cache_root() / f"copilot-{version}"
    launcher = prefix / "node_modules" / ".bin" / "copilot"
    if launcher.exists():
        return launcher
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"@github/copilot@{version}"],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    if not launcher.exists():
        raise RuntimeError(f"npm installed no launcher at {launcher}")
    return launcher


# -- the fake model -----------------------------------------------------------------------------------
@dataclass
class FakeModel:
    """OpenAI chat completions: a shell tool call first, then text; records every request."""

    command: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[str] = field(default_factory=list)
    shell_tool: str | None = None
    _httpd: ThreadingHTTPServer | None = None

    def start(self) -> FakeModel:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)
        messages = body.get("messages") or []
        results = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        if results:
            self.tool_results = [_text(m.get("content")) for m in results]
            return {"content": "done"}
        tools = [t.get("function", {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        self.shell_tool = next(
            (t for t in ("bash", "shell", "powershell", "run_commands") if t in tools), None
        )
        if self.shell_tool is None:
            return {"content": "no shell tool offered"}
        args: dict[str, Any] = {"command": self.command, "description": "Run the test command"}
        if self.shell_tool == "run_commands":  # Cline CLI 3
            args = {"commands": [self.command]}
        return {"tool": self.shell_tool, "arguments": json.dumps(args)}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def _handler(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "bad json"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            answer = model.reply(body)
            if body.get("stream"):
                self._stream(answer)
            else:
                self._json(200, _completion(answer))

        def _json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, answer: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for chunk in _chunks(answer):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


def _completion(answer: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.get("content")}
    finish = "stop"
    if "tool" in answer:
        message["content"] = None
        message["tool_calls"] = [_tool_call(answer)]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _tool_call(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "call_fake_1",
        "type": "function",
        "function": {"name": answer["tool"], "arguments": answer["arguments"]},
    }


def _chunks(answer: dict[str, Any]) -> list[dict[str, Any]]:
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
    }
    if "tool" in answer:
        call = {"index": 0, **_tool_call(answer)}
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": answer.get("content") or ""}, "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
    ]


# -- one run ------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    ran: bool
    created: list[str]
    hook_payload: dict[str, Any] | None
    tool_results: list[str]
    shell_tool: str | None
    exit_code: int
    stdout: str
    stderr: str


def run(
    hook_command: str | None,
    *,
    marker: str = "MARKER_FILE",
    hook_event: str = "preToolUse",
    timeout_sec: int = 30,
    extra_args: tuple[str, ...] = ("--allow-all-tools",),
    timeout: float = 120,
    keep: bool = False,
) -> Outcome:
    """Run the CLI once on `touch <marker>` with `hook_command` registered; report what happened."""
    launcher = install()
    root = Path(tempfile.mkdtemp(prefix="run-copilot-", dir=cache_root()))
    project, home, capture = root / "proj", root / "home", root / "capture.json"
    (project / ".github" / "hooks").mkdir(parents=True)
    (home / ".copilot").mkdir(parents=True)
    # project hooks load only in a trusted folder
    trust = {"trustedFolders": [str(project)], "trusted_folders": [str(project)]}
    (home / ".copilot" / "config.json").write_text(json.dumps(trust))
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    hooks: list[dict[str, Any]] = [
        {"type": "command", "bash": f"cat > {capture}", "timeoutSec": 10},
    ]
    if hook_command:
        hooks.append({"type": "command", "bash": hook_command, "timeoutSec": timeout_sec})
    config = {"version": 1, "hooks": {hook_event: hooks}}
    (project / ".github" / "hooks" / "policy.json").write_text(json.dumps(config, indent=2))
    model = FakeModel(f"touch {marker}").start()
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TERM", "TZ") if k in os.environ}
    env.update(
        {
            "HOME": str(home),
            "COPILOT_HOME": str(home / ".copilot"),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": model.url,
            "COPILOT_PROVIDER_API_KEY": "test",
            "COPILOT_MODEL": MODEL,
            "COPILOT_AUTO_UPDATE": "false",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "CLAUDE_CLIENT_CWD": os.getcwd(),
        }
    )
    args = [str(launcher), "-p", f"Run `touch {marker}` in the shell.", *extra_args, "--no-color"]
    proc = subprocess.Popen(
        args, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    finally:
        model.stop()
    payload = json.loads(capture.read_text()) if capture.exists() and capture.read_text().strip() else None
    outcome = Outcome(
        ran=(project / marker).exists(),
        created=sorted(p.name for p in project.iterdir() if p.is_file()),
        hook_payload=payload,
        tool_results=model.tool_results,
        shell_tool=model.shell_tool,
        exit_code=proc.returncode,
        stdout=out.decode(errors="replace"),
        stderr=err.decode(errors="replace"),
    )
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hook-command", default=None)
    parser.add_argument("--hook-event", default="preToolUse")
    parser.add_argument("--timeout-sec", type=int, default=30)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-allow-all", action="store_true")
    ns = parser.parse_args()
    extra = () if ns.no_allow_all else ("--allow-all-tools",)
    outcome = run(
        ns.hook_command, hook_event=ns.hook_event, timeout_sec=ns.timeout_sec, extra_args=extra, keep=ns.keep
    )
    print(json.dumps(outcome.__dict__, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
