"""Embedders: fastembed behind a lazy import, and a deterministic fake for tests.

An Embedder turns texts into L2-normalised float32 vectors. `load_embedder(config)`
returns None (never raises, never retries a download) when no model can be loaded, so
callers degrade to BM25 only."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from gitmem.core import paths

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
LOCAL_MODEL_NAME = "local/all-MiniLM-L6-v2"


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class FakeEmbedder:
    """Deterministic bag-of-hashed-words vectors: similar words -> similar vectors.

    Used by unit tests (GITMEM_EMBED_MODEL=fake). Paraphrases with no shared words do
    not match; tests needing that use the real model (marker `model`)."""

    def __init__(self, dim: int = 64, synonyms: dict[str, str] | None = None):
        self.dim = dim
        self.model_id = f"fake-{dim}"
        self.synonyms = synonyms or {}

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in re.findall(r"\w+", text.lower()):
            w = self.synonyms.get(w, w)
            h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vec(t) for t in texts])


class FastEmbedder:
    """fastembed TextEmbedding, imported on first use (the import costs ~1.7 s)."""

    def __init__(self, model: str, path: str | None = None, threads: int | None = None,
                 local_files_only: bool = False):
        from fastembed import TextEmbedding

        if path:
            from fastembed.common.model_description import ModelSource, PoolingType

            name = LOCAL_MODEL_NAME if model in (DEFAULT_MODEL, LOCAL_MODEL_NAME) else model
            known = {m["model"] for m in TextEmbedding.list_supported_models()}
            if name not in known:
                TextEmbedding.add_custom_model(
                    model=name, pooling=PoolingType.MEAN, normalization=True,
                    sources=ModelSource(hf="local/unused"), dim=_dim_from_config(path),
                    model_file=_model_file(path),
                )
            self._model = TextEmbedding(name, specific_model_path=path, threads=threads)
            # Thresholds are per model: the local copy is the default model, so share its id.
            self.model_id = DEFAULT_MODEL if name == LOCAL_MODEL_NAME else name
        else:
            kw = {"local_files_only": True} if local_files_only else {}
            self._model = TextEmbedding(model, threads=threads, **kw)
            self.model_id = model
        self.dim = int(self._model.embedding_size) if hasattr(self._model, "embedding_size") else len(
            next(iter(self._model.embed(["x"]))))
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = list(self._model.embed(list(texts), batch_size=64))
        arr = np.asarray(vecs, dtype=np.float32)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return arr / norms


def _model_file(path: str) -> str:
    p = Path(path)
    for name in ("model.onnx", "model_optimized.onnx", "onnx/model.onnx"):
        if (p / name).exists():
            return name
    found = sorted(p.rglob("*.onnx"))
    return str(found[0].relative_to(p)) if found else "model.onnx"


def _dim_from_config(path: str) -> int:
    import json

    try:
        cfg = json.loads((Path(path) / "config.json").read_text())
        return int(cfg.get("hidden_size") or cfg.get("dim") or 384)
    except (OSError, ValueError):
        return 384


_CACHE: dict[tuple[str, str | None], object] = {}
_FAILED: dict[tuple[str, str | None], str] = {}

FAILURE_FILE = "embed-failure.json"
# Seconds a hub metadata request may take during a download attempt.
HUB_ETAG_TIMEOUT = 3

# A multilingual choice for Chinese (and other non-English) users: set
# `[embed] model = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"`
# (384-d like the default, 0.22 GB, matches Chinese to English), or GITMEM_EMBED_MODEL.
# Chinese only: "BAAI/bge-small-zh-v1.5" (512-d). Changing the model re-embeds on the
# next command; vectors of each model stay cached side by side.
MULTILINGUAL_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


def _failure_path(config) -> Path:
    return paths.state_file(config.home, FAILURE_FILE)


def recorded_failure(config, model: str, path: str | None) -> str | None:
    """The reason of a recent failed load of this model, if still within retry_after."""
    import json
    import time

    try:
        rec = json.loads(_failure_path(config).read_text())
    except (OSError, ValueError):
        return None
    if rec.get("model") != model or rec.get("path") != path:
        return None
    wait = float(config.get("embed", "retry_after"))
    if time.time() - float(rec.get("time", 0)) > wait:
        return None
    return str(rec.get("reason") or "embedding model unavailable")


def _record_failure(config, model: str, path: str | None, reason: str) -> None:
    import json
    import time

    from gitmem.core.fsutil import atomic_write

    try:
        atomic_write(_failure_path(config), json.dumps(
            {"model": model, "path": path, "reason": reason, "time": time.time()}).encode())
    except OSError:
        pass  # a read-only home just means we try again next time


def forget_failures() -> None:
    """Forget this process's failed loads (the record under state/ stays): the next
    load_embedder tries again, as a new process would."""
    _FAILED.clear()


def clear_failure(config) -> None:
    """Forget a recorded failure (e.g. `reindex`, or the model was installed)."""
    try:
        _failure_path(config).unlink()
    except OSError:
        pass


def _load_bounded(model: str, path: str | None, threads: int | None, timeout: float) -> "FastEmbedder":
    """Load from the local cache first (no network); only then try a download, in a
    thread bounded by `timeout`, because fastembed retries a failed download with
    sleeps of 3 s and 9 s (~40 s in all on a closed network)."""
    if path:
        return FastEmbedder(model, path, threads=threads)
    try:
        return FastEmbedder(model, None, threads=threads, local_files_only=True)
    except Exception:
        pass
    box: dict[str, object] = {}

    def attempt() -> None:
        try:
            _download_once(model)
            box["emb"] = FastEmbedder(model, None, threads=threads, local_files_only=True)
        except BaseException as e:  # noqa: BLE001 - reported to the caller below
            box["err"] = e

    t = threading.Thread(target=attempt, name="gitmem-model-download", daemon=True)
    t.start()
    t.join(timeout)
    if "emb" in box:
        return box["emb"]  # type: ignore[return-value]
    if "err" in box:
        raise box["err"]  # type: ignore[misc]
    raise TimeoutError(f"model download did not finish within {timeout:g} s")


def _download_once(model: str) -> None:
    """One download attempt (fastembed's own loop would retry with long sleeps)."""
    from fastembed import TextEmbedding
    from fastembed.common.utils import define_cache_dir

    for cls in TextEmbedding.EMBEDDINGS_REGISTRY:
        for desc in cls._list_supported_models():
            if desc.model.lower() == model.lower():
                cache = str(define_cache_dir(None))
                if desc.sources.hf:
                    # One hub request, no sleep: download_model would wait 3 s even
                    # after its last attempt. A short metadata timeout keeps a closed
                    # network from holding the attempt (passed here, not through
                    # os.environ: library code leaves the process environment alone).
                    cls.download_files_from_huggingface(
                        desc.sources.hf, cache_dir=cache,
                        extra_patterns=[desc.model_file, *desc.additional_files],
                        etag_timeout=HUB_ETAG_TIMEOUT)
                else:
                    cls.download_model(desc, cache, retries=1)
                return
    raise ValueError(f"fastembed does not know the model {model!r}")


def _quiet_fastembed() -> None:
    """fastembed logs every failed attempt through loguru; gitmem reports once itself."""
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:
        pass


def load_embedder(config) -> tuple[Embedder | None, str | None]:
    """(embedder, None) or (None, reason). Process-wide cache; a failure is remembered
    in-process and under state/ (for `embed.retry_after` seconds) so no command stalls
    retrying a download."""
    model = str(config.get("embed", "model", DEFAULT_MODEL) or DEFAULT_MODEL)
    path = config.get("embed", "path", None) or None
    if model == "none":
        return None, "embeddings disabled (embed.model = none)"
    key = (model, path)
    if key in _CACHE:
        return _CACHE[key], None  # type: ignore[return-value]
    if key in _FAILED:
        return None, _FAILED[key]
    if model.startswith("fake"):
        dim = int(model.split("-", 1)[1]) if "-" in model else 64
        emb: Embedder = FakeEmbedder(dim)
    else:
        if path and not Path(path).is_dir():
            reason = f"embedding model path {path} does not exist"
            _FAILED[key] = reason
            return None, reason
        earlier = None if path else recorded_failure(config, model, path)
        if earlier:
            _FAILED[key] = earlier
            return None, earlier
        try:
            threads = config.get("embed", "threads", None)
            timeout = float(config.get("embed", "download_timeout"))
            _quiet_fastembed()
            emb = _load_bounded(model, path, int(threads) if threads else None, timeout)
        except Exception as e:  # any load failure means "BM25 only", reported once
            reason = f"embedding model {model!r} unavailable: {type(e).__name__}: {str(e)[:200]}"
            _FAILED[key] = reason
            if not path:
                _record_failure(config, model, path, reason)
            return None, reason
    _CACHE[key] = emb
    return emb, None


def get_embedder(config) -> tuple[Embedder | None, str | None]:
    """(embedder, its model id), or (None, None) when no model loads (load_embedder
    says why): for callers that work without vectors, such as dream (then exact
    duplicates only) and an index rebuild."""
    emb, _ = load_embedder(config)
    return emb, (emb.model_id if emb is not None else None)
