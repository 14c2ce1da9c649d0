"""The embedding model's version kept in a note (`MiniLMEmbedder(version_note=...)`): read back for the very same
file without hashing it, hashed again for any other file, and never in the way when unreadable or unwritable."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from memory import embedding
from memory.embedding import MiniLMEmbedder, ModelFiles


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(embedding, "_versions", {})  # this process's own memory of versions, empty
    path = tmp_path / "model.onnx"
    path.write_bytes(b"weights one")
    return path


def version(model: Path, note: Path | None) -> str:
    embedding._versions.clear()
    files = ModelFiles(model=model, tokenizer=model.with_name("tokenizer.json"))
    return MiniLMEmbedder(files=files, version_note=note).model_version


def expected(content: bytes) -> str:
    return f"onnx-int8-{hashlib.sha256(content).hexdigest()[:12]}"


def test_the_note_gives_the_hashed_version_without_hashing_again(
    model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "note.json"
    assert version(model, note) == version(model, None) == expected(b"weights one")
    saved = json.loads(note.read_text(encoding="utf-8"))
    assert saved["version"] == expected(b"weights one") and saved["size"] == len(b"weights one")

    def no_hashing(*_: object) -> None:
        raise AssertionError("hashed although the note says the version")

    wanted = expected(b"weights one")
    monkeypatch.setattr(embedding.hashlib, "sha256", no_hashing)
    assert version(model, note) == wanted


def test_another_file_at_the_same_path_is_hashed_again(model: Path, tmp_path: Path) -> None:
    note = tmp_path / "note.json"
    version(model, note)
    replaced = tmp_path / "new.onnx"
    replaced.write_bytes(b"weights two, longer")
    os.replace(replaced, model)  # a new file (inode, size, time), as an upgrade installs one
    assert version(model, note) == expected(b"weights two, longer")
    assert json.loads(note.read_text(encoding="utf-8"))["version"] == expected(b"weights two, longer")
    # Same size, another time: hashed again too.
    model.write_bytes(b"weights six, longer")
    os.utime(model, ns=(1, 1))
    assert version(model, note) == expected(b"weights six, longer")


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        "[1, 2]",
        '{"version": 3}',
        '{"model": "elsewhere", "version": "onnx-int8-000000000000"}',
    ],
)
def test_a_note_that_does_not_fit_is_ignored_and_rewritten(model: Path, tmp_path: Path, content: str) -> None:
    note = tmp_path / "note.json"
    note.write_text(content, encoding="utf-8")
    assert version(model, note) == expected(b"weights one")
    assert json.loads(note.read_text(encoding="utf-8"))["version"] == expected(b"weights one")


def test_a_note_that_cannot_be_written_leaves_the_version_as_it_is(model: Path, tmp_path: Path) -> None:
    note = tmp_path / "missing folder" / "note.json"
    assert version(model, note) == expected(b"weights one")
    assert not note.parent.exists()
    folder = tmp_path / "a folder named like the note"
    folder.mkdir()
    assert version(model, folder) == expected(b"weights one")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["a folder named like the note", "model.onnx"]
    )


def test_an_unreadable_model_is_still_unavailable(tmp_path: Path) -> None:
    embedding._versions.clear()
    with pytest.raises(embedding.EmbeddingUnavailable):
        version(tmp_path / "gone.onnx", tmp_path / "note.json")
