"""Words typed without their vowels ("thrst", "hvy") read as the books' words, on a starship game's hangar list
laid out as tables, not the SRD's bullet lists."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval.unvowelled import bones, is_unvowelled, unvowelled
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

HANGAR = """# Hangar

## Heavy Corvette

*Warship of the Outer Rim*

| Stat | Value |
|------|-------|
| Hull | 60 |
| Thrust | 4 |

The heavy corvette carries twin plasma lances.

## Light Corvette

*Scout of the Outer Rim*

| Stat | Value |
|------|-------|
| Hull | 25 |
| Thrust | 9 |

The light corvette outruns anything it cannot outgun.
"""


def test_a_words_bones_are_its_first_letter_and_its_consonants_in_order() -> None:
    assert bones("speed") == "spd"
    assert bones("heavy") == "hvy"
    assert bones("attack") == "atck"  # a doubled letter once
    assert bones("people") == "ppl"  # letters apart are two


def test_only_a_short_word_without_a_vowel_is_read_as_unvowelled() -> None:
    assert is_unvowelled("thrst") and is_unvowelled("hvy")
    assert not is_unvowelled("hul")  # a vowel typed: a slip, not a word without vowels
    assert not is_unvowelled("zz") and not is_unvowelled("hmm")  # too short once a letter repeated is one
    assert not is_unvowelled("thrstng")  # too long to be sure of
    assert not is_unvowelled("2nd")


def test_the_heading_word_alone_or_the_clearly_most_used_word_is_read() -> None:
    headings = ["corvette", "heavy", "light", "thrust", "hull"]
    assert unvowelled("hvy", headings, None) == "heavy"
    assert unvowelled("thrst", headings, {"thrust": 3}) == "thrust"
    # No heading fits: the word the books use most, when clearly more than any other fitting word.
    assert unvowelled("rng", headings, {"range": 40, "ring": 3, "rung": 1}) == "range"
    # Two words as often used: which was meant is not known.
    assert unvowelled("rng", headings, {"range": 5, "ring": 4}) is None
    # No word fits, or the books are too large to read whole and no heading fits.
    assert unvowelled("qzx", headings, {"range": 5}) is None
    assert unvowelled("rng", headings, None) is None


async def test_a_field_and_a_name_typed_without_vowels_are_answered(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Outer Rim")
    await service.import_bytes(campaign, "hangar.md", HANGAR.encode())
    answer = await service.ask(campaign, "hvy corvette thrst", viewer=Viewer.PLAYER)
    assert answer.trace.corrections == {"hvy": "heavy", "thrst": "thrust"}
    assert answer.reply is not None and answer.reply.known
    assert "4" in answer.reply.text and "9" not in answer.reply.text
    # A word of the books typed whole is never read otherwise; an unknown word with vowels is no abbreviation.
    answer = await service.ask(campaign, "light corvette hull", viewer=Viewer.PLAYER)
    assert answer.trace.corrections == {}
    assert answer.reply is not None and "25" in answer.reply.text
