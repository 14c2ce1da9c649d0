"""What an import reports, in the words a GM reads: types as nouns, zeros left out, no storage words."""

from __future__ import annotations

from canon.structured.reports import ChangeCounts, FileReport, IngestReport, kinds_in_words

COUNTS = {"Era": 2, "Event": 7, "Location": 6, "NPC": 6, "Person": 6, "Region": 1, "MagicSystem": 1}


def _report(entities: ChangeCounts, statements: ChangeCounts) -> IngestReport:
    return IngestReport(
        campaign_id=1,
        status="ingested",
        changeset_id=4,
        counts=COUNTS,
        entities=entities,
        statements=statements,
        files=(
            FileReport(
                file="saltmarch/people.yaml",
                kind="family_tree",
                status="created",
                content_hash="x",
                entries=29,
            ),
        ),
    )


def test_types_read_as_nouns_and_every_kind_of_person_counts_as_people() -> None:
    assert kinds_in_words(COUNTS) == [
        "2 eras",
        "7 events",
        "6 places",
        "1 magic system",
        "12 people",
        "1 region",
    ]
    assert kinds_in_words({"NPC": 1}) == ["1 person"]
    assert kinds_in_words({"PC": 2, "Faction": 1}) == ["1 faction", "2 people"]


def test_a_first_import_says_all_new_and_no_storage_words() -> None:
    text = _report(ChangeCounts(created=29), ChangeCounts(created=142)).summary()
    assert text.splitlines()[:2] == [
        "Imported saltmarch/people.yaml: 2 eras, 7 events, 6 places, 1 magic system, 12 people and 1 region.",
        "In all: 29 entities (all new) and 142 facts (all new).",
    ]
    assert "saltmarch/people.yaml (family tree): 29 entries, a new file" in text
    for jargon in ("changeset", "adopted", "carried over", "NPC", "0 "):
        assert jargon not in text, jargon


def test_a_second_import_names_only_what_changed() -> None:
    report = _report(
        ChangeCounts(created=1, changed=2, unchanged=26, retconned=1),
        ChangeCounts(created=3, unchanged=130, retconned=2, carried_over=4),
    )
    assert report.changes_text() == (
        "In all: 29 entities (1 new, 2 replaced, 26 unchanged, 1 retconned) and 133 facts (3 new, 130 unchanged, "
        "2 retconned). 4 facts of replaced entries moved to what replaced them."
    )
    assert (
        report.written()
        == "2 eras, 7 events, 6 places, 1 magic system, 12 people and 1 region from 1 YAML file"
    )
