"""The JavaScript the report inlines: Vega, Vega-Lite and vega-embed in one bundle (vl-convert).

Place in the pipeline: `html.py` puts the bundle in a `<script>` once per page. vl-convert builds
it from the libraries it ships (no network); building takes a few seconds, so the result is kept
in memory and in the user cache directory, keyed by the library versions.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path


def _cache_dir() -> Path:
    base = os.environ.get("TOOLPOLICY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "toolpolicy"
    )
    return Path(base)


@functools.cache
def vega_bundle() -> str:
    """The bundle's JavaScript, safe to put inside `<script>...</script>`."""
    import vl_convert as vlc

    versions = f"{vlc.get_vega_version()}-{vlc.get_vegalite_versions()[-1]}-{vlc.get_vega_embed_version()}"
    name = "vega-bundle-" + hashlib.sha256(versions.encode()).hexdigest()[:16] + ".js"
    path = _cache_dir() / name
    try:
        st = path.stat()
        if st.st_uid == os.getuid() and not st.st_mode & 0o022:  # ours, and nobody else may write it
            return path.read_text(encoding="utf-8")
    except OSError:
        pass
    bundle = vlc.javascript_bundle()  # type: ignore[call-arg]  # the stub wants a snippet; the default one sets the globals.replace("</script", "<\\/script").replace("<!--", "<\\!--")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(bundle, encoding="utf-8")
        tmp.chmod(0o600)
        tmp.replace(path)
    except OSError:
        pass  # no cache: built again next time
    return bundle
