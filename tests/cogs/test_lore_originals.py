"""What `/lore source original:true` says: the original attached, too large to attach (and where it is), or lost."""

from __future__ import annotations

from cogs.lore_originals import original_file, original_note
from memory.knowledge.source_models import OriginalFile

WHERE = "the bucket “lorekeeper-vault” of the file store at http://minio:9000"


def test_an_original_too_large_says_where_it_is_and_how_to_copy_it_out() -> None:
    found = OriginalFile(
        title="Basic Rules", filename="books/basic_rules.pdf", size_bytes=25 << 20, where=WHERE
    )
    note = original_note(found, campaign="Westhaven", limit=10 << 20)
    assert note.startswith("The original of **Basic Rules** (books/basic\\_rules.pdf) is 25.0 MB")
    assert "more than Discord lets me attach here (10.0 MB)" in note and WHERE in note
    assert 'lorekeeper vault copy "books/basic\\_rules.pdf" --campaign "Westhaven" --to FILE' in note
    assert original_file(found) is None


def test_an_original_sent_keeps_its_name_and_a_lost_one_says_what_to_do() -> None:
    sent = OriginalFile(title="Rules", filename="books/rules.md", size_bytes=5, where=WHERE, data=b"hello")
    attached = original_file(sent)
    assert attached is not None and attached.filename == "rules.md"
    assert (
        original_note(sent, campaign="W", limit=10)
        == "The original of **Rules** (books/rules.md), as it was imported (5 bytes)."
    )
    lost = sent.model_copy(update={"data": None, "missing": True})
    assert "no longer in the vault" in original_note(lost, campaign="W", limit=10)
