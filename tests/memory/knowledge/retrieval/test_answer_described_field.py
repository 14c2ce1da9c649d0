"""A field asked of a thing the question describes instead of naming: the field of the passage both searches agree on.

The book here is a fenland bestiary whose entries are bold-led lines with its own labels ("Armour", "Vigour",
"Pace"): a layout unlike the reference books the answer step was tuned on. The wordings are made up for these tests.
"""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_described_field import described_field
from memory.knowledge.retrieval.answer_step import reply
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage
from tests.memory.knowledge.retrieval.test_answer_described import ranked

BOGWARDEN = passage(
    "*Large beast, unaligned*\n\n**Armour** 15\n\n**Vigour** 52\n\n**Pace** 20 ft., swim 40 ft.\n\n"
    "**Shell Ram.** The bogwarden lowers its mossy shell and charges, sinking small boats and rafts.\n\n"
    "**Claw.** Melee: +6 to hit, one target. Hit: 11 (2d6 + 4) slashing damage, and the target is grappled.",
    "Fenland Beasts",
    "Bogwarden",
    chunk_id=1,
)
REEDCAT = passage(
    "*Small beast, unaligned*\n\n**Armour** 12\n\n**Vigour** 9\n\n**Pace** 40 ft.\n\n"
    "**Bite.** Melee: +4 to hit, one target. Hit: 4 (1d4 + 2) piercing damage.",
    "Fenland Beasts",
    "Reedcat",
    chunk_id=2,
)

DESCRIBED = "ok so theres this huge mossy shell monster sinking our boats and rafts, how much damage does its claw do?"


def test_a_field_of_a_thing_described_is_the_field_of_the_passage_both_searches_agree_on() -> None:
    answer = reply(analyse(DESCRIBED), [], [ranked(BOGWARDEN, 1, 1), ranked(REEDCAT, 2, 3)])
    assert answer.known, answer.text
    assert answer.text.startswith("Bogwarden's Claw: ") and "11 (2d6 + 4) slashing damage" in answer.text
    assert [c.cited for c in answer.citations] == [True, False]


def test_a_field_of_a_description_the_searches_disagree_on_is_nothing_known() -> None:
    for lexical, semantic in ((1, 4), (5, 1), (None, 1)):
        answer = reply(analyse(DESCRIBED), [], [ranked(BOGWARDEN, lexical, semantic), ranked(REEDCAT, 2, 2)])
        assert not answer.known and answer.text.startswith("Nothing the table knows"), (lexical, semantic)


def test_a_namesake_named_with_the_whole_title_is_still_nothing_known() -> None:
    # "grey bogwarden" names the title with a word besides: another thing of that name, which no source holds.
    for question in ("how hard does the claw of a grey bogwarden hit?", "grey bogwarden elder claw damage"):
        found = [ranked(BOGWARDEN, 1, 1), ranked(REEDCAT, 2, 2)]
        answer = reply(analyse(question), [], found, unknown=["grey", "elder"])
        assert not answer.known, (question, answer.text)
        assert described_field(analyse(question), [], [ranked(BOGWARDEN, 1, 1)]) is None, question


def test_a_short_subject_names_its_thing_and_is_not_read_as_a_description() -> None:
    # Two words naming something else ("mossy drake") are a name, not a description of the bogwarden.
    question = analyse("what is the armour of the mossy drake?")
    assert described_field(question, [], [ranked(BOGWARDEN, 1, 1)]) is None


def test_a_description_the_passage_does_not_hold_or_a_field_it_lacks_is_nothing_known() -> None:
    unrelated = (
        "the glowing sky jellyfish that hums over the dunes at night, how much damage does its sting do?"
    )
    assert described_field(analyse(unrelated), [], [ranked(BOGWARDEN, 1, 1)]) is None
    lacking = "that huge mossy shell monster sinking our boats and rafts, how much does it weigh?"
    assert described_field(analyse(lacking), [], [ranked(BOGWARDEN, 1, 1)]) is None


FENLAND = """# Fenland Beasts

## Bogwarden

*Large beast, unaligned*

**Armour** 15

**Vigour** 52

**Shell Ram.** The bogwarden lowers its mossy shell and charges, sinking small boats and rafts.

**Claw.** Melee: +6 to hit, one target. Hit: 11 (2d6 + 4) slashing damage, and the target is grappled.

## Reedcat

*Small beast, unaligned*

**Armour** 12

**Bite.** Melee: +4 to hit, one target. Hit: 4 (1d4 + 2) piercing damage.
"""

SECRET = """
## The Drowned Matron (GM only)

*Medium undead, chaotic evil*

**Armour** 17

**Lament.** The matron sings from under the black water and sailors who hear her walk into the mere.

**Cold Kiss.** Melee: +8 to hit, one target. Hit: 27 (6d8) necrotic damage, and the target cannot breathe.
"""

HIDDEN_ASKED = (
    "the drowned lady who sings sailors into the black water, how much damage does her cold kiss do?"
)


async def test_a_player_never_gets_a_gm_only_entrys_field_by_describing_it(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    secret_campaign = await new_campaign(db, "Fens with a secret")
    plain_campaign = await new_campaign(db, "Fens without one")
    await service.import_bytes(secret_campaign, "fens.md", (FENLAND + SECRET).encode())
    await service.import_bytes(plain_campaign, "fens.md", FENLAND.encode())
    hidden = await service.ask(secret_campaign, HIDDEN_ASKED, viewer=Viewer.PLAYER)
    unknown = await service.ask(plain_campaign, HIDDEN_ASKED, viewer=Viewer.PLAYER)
    assert hidden.reply is not None and unknown.reply is not None
    assert hidden.reply.text == unknown.reply.text
    assert not any(word in hidden.reply.text for word in ("27", "6d8", "Matron", "necrotic"))
    told = await service.ask(secret_campaign, HIDDEN_ASKED, viewer=Viewer.GM)
    assert told.reply is not None and "6d8" in told.reply.text, told.reply.text
