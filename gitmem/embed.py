"""Embedders: fastembed behind a lazy import, and a deterministic fake for tests.

An Embedder turns texts into L2-normalised float32 vectors. `load_embedder(config)`
returns None (never raises, never retries a download) when no model can be loaded, so
callers degrade to BM25 only."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

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

    def __init__(self, model: str, path: str | None = None, threads: int | None = None):
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
            self._model = TextEmbedding(model, threads=threads)
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


def load_embedder(config) -> tuple[Embedder | None, str | None]:
    """(embedder, None) or (None, reason). Process-wide cache; a failure is remembered
    so a command never stalls retrying a download."""
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
        try:
            if path and not Path(path).is_dir():
                raise FileNotFoundError(f"model path {path} does not exist")
            # Never let the hub client hang on a closed network.
            os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "3")
            os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "10")
            threads = config.get("embed", "threads", None)
            emb = FastEmbedder(model, path, threads=int(threads) if threads else None)
        except Exception as e:  # any load failure means "BM25 only", reported once
            reason = f"embedding model {model!r} unavailable: {type(e).__name__}: {str(e)[:200]}"
            _FAILED[key] = reason
            return None, reason
    _CACHE[key] = emb
    return emb, None
