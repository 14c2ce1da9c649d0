"""A campaign's own words: typos read as the word meant, and how telling each word is (another game's book)."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval import SearchConfig
from memory.knowledge.retrieval.vocabulary import Vocabulary, words_of
from memory.knowledge.retrieval.words import TypoFixer
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

# A starship game's field manual: numbered sections, prose first, a hazard table; no stat blocks, no kind lines.
MANUAL = """# Starfall Codex: Field Manual

## 1. Hazards

### 1.1 Gravel Storms

Storms of grit that strip a hull to bare metal within an hour. A grave danger to any crew caught in the open;
pilots call them the sandpaper sky.

### 1.2 Quarantine Drift

| Hazard | Effect |
|---|---|
| Spore bloom | The ship is sealed; nobody leaves until the medic clears the crew |

A derelict carrying spores is towed to the drift and left under quarantine for forty days.

## 2. Crew

### 2.1 Seraph

The seraph is the ship's navigator, a winged pilot who reads the stars.
"""

# What the crew may not know: a GM-only file.
SECRET = """# Secrets

## The Veiled Fleet

The fleet hides behind the moon of Oskarra, waiting.
"""


def test_the_closest_word_is_one_edit_away_with_the_same_first_letter() -> None:
    vocabulary = Vocabulary.of_texts(
        ["the poison burns", "a dragon sleeps", "a dragoon rides", "treat treat"]
    )
    assert vocabulary.closest("posion") == "poison"  # two letters swapped: one edit
    assert vocabulary.closest("drangon") == "dragon"
    assert vocabulary.closest("poison") is None  # a word of the campaign is no typo
    assert vocabulary.closest("xposion") is None  # the first letter must agree
    assert vocabulary.closest("paisan") is None  # two edits: too far
    assert vocabulary.closest("dragonnes") is None  # two edits even in a long word
    # The caller's rule for which slips are typos is kept: here, no letter added or dropped.
    assert vocabulary.closest("drangon", fits=lambda word, known: len(word) == len(known)) is None


def test_short_words_and_non_words_are_never_corrected() -> None:
    vocabulary = Vocabulary.of_texts(["pets and more pets", "a post"])
    # "pest" is one swap from "pets", but one edit from a short word is too often another real word.
    assert vocabulary.closest("pest") is None
    assert vocabulary.closest("") is None
    assert vocabulary.closest("p0sts") is None


def test_among_equally_close_words_the_same_length_then_the_more_frequent_wins() -> None:
    vocabulary = Vocabulary.of_texts(["treat", "treat", "treat", "treant"])
    # "trenat": one swap from "treant", one deletion from the more frequent "treat".
    assert vocabulary.closest("trenat") == "treant"
    frequent = Vocabulary.of_texts(["corvette", "corvette", "corvetta"])
    assert frequent.closest("corvettx") == "corvette"


def test_rarer_words_weigh_more_and_unknown_ones_most() -> None:
    vocabulary = Vocabulary.of_texts(["the ship", "the crew", "the seraph", "the ship and the crew"])
    assert vocabulary.chunks == 4
    assert vocabulary.weight("seraph") > vocabulary.weight("ship") > vocabulary.weight("the")
    assert vocabulary.weight("oskarra") > vocabulary.weight("seraph")
    assert words_of("The Seraph’s 2 wings") == ["the", "seraph", "s", "wings"]


async def test_a_misspelt_word_of_the_text_is_searched_as_the_word_meant(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    await service.import_bytes(campaign, "manual.md", MANUAL.encode())
    # "derelcit": no heading word is close and the word itself is nowhere; the text says "derelict".
    answer = await service.ask(campaign, "what is done with a derelcit", viewer=Viewer.PLAYER, record=False)
    assert answer.trace.corrections == {"derelcit": "derelict"}
    assert "derelict" in (answer.trace.lexical_query or "")
    assert "forty days" in answer.results[0].text
    # A letter changed is no slip read against the text's words (it too often makes another word), a swap is.
    changed = await service.ask(campaign, "why the sandpapir sky", viewer=Viewer.PLAYER, record=False)
    assert changed.trace.corrections == {} and "sandpapir" in changed.trace.unknown_words
    swapped = await service.ask(campaign, "why the sandpapre sky", viewer=Viewer.PLAYER, record=False)
    assert swapped.trace.corrections == {"sandpapre": "sandpaper"}
    # A heading word is preferred to an equally close word of the text: "gravle" is "gravel", not "grave".
    storms = await service.ask(campaign, "what do gravle storms do", viewer=Viewer.PLAYER, record=False)
    assert storms.trace.corrections == {"gravle": "gravel"}
    # Two neighbouring letters swapped in a heading word count as one edit (rapidfuzz's ratio says 83).
    pilot = await service.ask(campaign, "who is the serpah", viewer=Viewer.PLAYER, record=False)
    assert pilot.trace.corrections == {"serpah": "seraph"}
    assert "navigator" in pilot.results[0].text
    off = await service.ask(
        campaign, "who is the serpah", viewer=Viewer.PLAYER, config=SearchConfig(typo_cutoff=0), record=False
    )
    assert off.trace.corrections == {} and off.results == []


async def test_no_typo_is_corrected_towards_a_word_only_a_hidden_source_holds(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    await service.import_bytes(campaign, "manual.md", MANUAL.encode())
    await service.import_bytes(campaign, "secrets.md", SECRET.encode(), hidden=True)
    asked = "where is the moon of oskarar"
    player = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    assert "oskarra" not in player.trace.corrections.values()
    assert all("Oskarra" not in r.text for r in player.results)
    gm = await service.ask(campaign, asked, viewer=Viewer.GM, record=False)
    assert gm.trace.corrections == {"oskarar": "oskarra"}


async def test_a_large_campaign_is_corrected_towards_its_heading_words_only(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    await service.import_bytes(campaign, "manual.md", MANUAL.encode())
    await service.import_bytes(campaign, "log.md", b"# Ship's Log\n\nDay one: the crew woke.")
    large = SearchConfig(large_campaign_chunks=1)  # two chunks: past it
    answer = await service.ask(campaign, "what is done with a derelcit", config=large, record=False)
    assert answer.trace.corrections == {}
    heading = await service.ask(campaign, "who is the serpah", config=large, record=False)
    assert heading.trace.corrections == {"serpah": "seraph"}


def test_a_common_word_is_in_a_share_of_the_chunks_and_in_enough_of_them() -> None:
    texts = [f"log {n}: the crew checks the seals" for n in range(12)] + ["the seraph flies"] * 1988
    vocabulary = Vocabulary.of_texts(texts)
    # "crew" is in 12 of 2,000 chunks: at least ten, but under one in a hundred.
    assert vocabulary.common(["the", "crew", "seraph", "oskarra"]) == ["the", "seraph"]
    small = Vocabulary.of_texts(["the crew"] * 9 + ["a ship"])
    assert small.common(["the", "crew", "ship"]) == []  # fewer than ten chunks hold any of them


async def test_words_common_only_in_a_hidden_source_are_not_common_to_a_player(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    public = "\n\n".join(f"## Bay {n}\n\nThe crew keeps bay {n} sealed." for n in range(12))
    secret = "\n\n".join(f"## Cell {n}\n\nThe oskarra spores grow in cell {n}." for n in range(12))
    await service.import_bytes(campaign, "bays.md", f"# Bays\n\n{public}".encode())
    await service.import_bytes(campaign, "cells.md", f"# Cells\n\n{secret}".encode(), hidden=True)
    asked = "does the crew see oskarra spores"
    player = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    gm = await service.ask(campaign, asked, viewer=Viewer.GM, record=True)
    assert "crew" in player.trace.common_words and "oskarra" not in player.trace.common_words
    assert {"crew", "oskarra", "spores"} <= set(gm.trace.common_words)
    # A GM's answer shown to a player says nothing of what the GM's search counted.
    assert gm.retrieval_id is not None
    shown = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.PLAYER)
    assert shown.trace.common_words == []


async def test_a_heading_word_a_new_import_brings_is_known_to_the_next_question(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    await service.import_bytes(campaign, "manual.md", MANUAL.encode())
    before = await service.ask(campaign, "what does a quillmaw eat", viewer=Viewer.PLAYER, record=False)
    assert "quillmaw" in before.trace.unknown_words
    await service.import_bytes(campaign, "fauna.md", b"# Fauna\n\n## Quillmaw\n\nIt eats hull rivets.\n")
    # The campaign's heading words are read again for the sources as they are now, not kept from before.
    after = await service.ask(campaign, "what does a quillmaw eat", viewer=Viewer.PLAYER, record=False)
    assert "quillmaw" not in after.trace.unknown_words
    assert "rivets" in after.results[0].text


def test_a_kept_vocabulary_is_read_as_the_set_of_that_very_vocabulary() -> None:
    typos = TypoFixer()
    first, second = ["gravel", "seraph"], ["gravel", "quillmaw", "seraph"]
    assert typos._as_set(first) == {"gravel", "seraph"}
    assert typos._as_set(second) == {"gravel", "quillmaw", "seraph"}  # a vocabulary read anew: its own set
    assert typos._as_set(first) is typos._as_set(first)  # made once while the vocabulary is kept
