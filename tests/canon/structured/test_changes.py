"""What a file imported again changed, said in sentences (`canon.structured.changes.file_changes`)."""

from __future__ import annotations

from canon.structured.changes import ADDED, file_changes


def test_facts_past_the_sixth_are_counted_as_more_in_plain_english() -> None:
    names = {f"keeper_{i}": f"Keeper {i}" for i in range(12)}
    changes = [(ADDED, f"attr|keeper_{i}|description") for i in range(12)]
    said = file_changes("weir/folk.yaml", changes, names)
    assert said.startswith("In weir/folk.yaml, 12 facts new: Keeper 0's description"), said
    assert said.endswith("and 6 more."), said
    assert "mores" not in said
    one_more = file_changes("weir/folk.yaml", changes[:7], names)
    assert one_more.endswith("and 1 more."), one_more
