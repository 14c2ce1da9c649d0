"""Answers to questions as players type them: about what no source has, chatty, misspelt, or asking one line."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.question import KIND_LINE, analyse
from memory.knowledge.retrieval.answer import compose, sentences
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_scope import narrowed, strange_words
from memory.knowledge.retrieval.answer_step import reply
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage
from tests.memory.knowledge.test_fields import OWLBEAR, TROLL

RAVEN = passage(
    "## Raven\n\n*Tiny beast, unaligned*\n\n- **Armor Class** 12\n\n"
    "***Mimicry.*** The raven can mimic simple sounds it has heard.",
    "Bestiary",
    "Raven",
    chunk_id=7,
)
WOLF = passage(
    "## Wolf\n\n*Medium beast, unaligned*\n\n- **Armor Class** 13 (natural armor)\n- **Speed** 40 ft.",
    "Bestiary",
    "Wolf",
    chunk_id=8,
)
DEATH_DOG = passage("## Death Dog\n\n- **Speed** 40 ft.", "Bestiary", "Death Dog", chunk_id=9)
RED_DRAGON = passage(
    "## Adult Red Dragon\n\n*Huge dragon, chaotic evil*\n\n- **Damage Immunities** fire\n\n"
    "***Fire Breath.*** The dragon exhales fire in a 60-foot cone. Each creature in that area must make a DC 21 "
    "Dexterity saving throw, taking 63 (18d6) fire damage on a failed save.",
    "Bestiary",
    "Adult Red Dragon",
    chunk_id=10,
)
DRAGONBORN = passage(
    "## Dragonborn\n\n- **Speed** 30 feet\n\n***Breath Weapon.*** You can use your action to exhale destructive "
    "energy. The DC for this saving throw equals 8 + your Constitution modifier + your proficiency bonus.",
    "Races",
    "Dragonborn",
    chunk_id=11,
)
TIEFLING = passage(
    "## Tiefling\n\n- **Speed** 30 feet\n\n***Hellish Resistance.*** You have resistance to fire damage.",
    "Races",
    "Tiefling",
    chunk_id=12,
)
UNICORN = passage(
    "## Unicorn\n\n*Large celestial, lawful good*\n\n- **Armor Class** 12", "Bestiary", "Unicorn", chunk_id=13
)
SNEAK = passage(
    "## Rogue: Sneak Attack\n\n*Rogue feature, level 1*\n\nBeginning at 1st level, you know how to strike "
    "subtly. Once per turn, you can deal an extra 1d6 damage to one creature you hit with an attack. The amount of "
    "the extra damage increases as you gain levels in this class.",
    "Class Features",
    "Rogue: Sneak Attack",
    chunk_id=14,
)
FALLING = passage(
    "### Falling\n\nA fall from a great height is one of the most common hazards. At the end of a fall, a "
    "creature takes 1d6 bludgeoning damage for every 10 feet it fell. The creature lands prone, unless it avoids "
    "taking damage from the fall.",
    "Adventuring",
    "Falling",
    chunk_id=15,
)
DIFFICULTY = passage(
    "### Typical Difficulty Classes\n\n| Task Difficulty | DC |\n|---|---|\n| Easy | 10 |\n| Hard | 20 |\n"
    "| Very hard | 25 |\n",
    "Ability Checks",
    "Typical Difficulty Classes",
    chunk_id=16,
)


def test_a_question_about_something_no_source_holds_is_nothing_known_not_a_line_about_another() -> None:
    asked = analyse("kenku mimicry")
    # Without the words no source holds, "kenku" is still in no passage found: half the words naming what is
    # asked, so the raven's trait does not answer a kenku question either (`_elsewhere`).
    assert not reply(asked, [], [RAVEN]).known
    answer = reply(asked, [], [RAVEN], unknown=["kenku"])
    assert not answer.known and answer.mode == AnswerMode.NOTHING
    assert answer.text == "Nothing the table knows answers “kenku mimicry”."
    assert not any(c.cited for c in answer.citations)


def test_chatter_misspellings_and_a_long_description_s_words_do_not_make_a_question_unknown() -> None:
    assert strange_words(analyse("hey guys whats the owlbear ac"), ["guys", "whats"], [OWLBEAR]) == []
    # A misspelt word no source holds is the passage's word ("owlbaer", "otols" for "tools").
    assert strange_words(analyse("owlbaer ac"), ["owlbaer"], [OWLBEAR]) == []
    described = analyse("a cursed deck of cards where each draw can be wonderful or disastrous")
    assert strange_words(described, ["disastrous"], [OWLBEAR]) == []
    assert strange_words(analyse("warforged racial traits"), ["warforged"], [OWLBEAR]) == ["warforged"]


def test_the_scene_around_a_name_is_not_part_of_the_subject_but_a_word_next_to_it_is() -> None:
    answer = reply(
        analyse("my party is about to fight a troll, how many hit points does it have?"), [], [TROLL]
    )
    assert answer.text == "Troll's hit points are 84 (8d10 + 40). [1]"
    answer = reply(analyse("owlbear ac and what is it wearing"), [], [OWLBEAR])
    assert answer.text == "Owlbear's armor class is 13 (natural armor). [1]"
    # A word next to the name may name something else: no wolf's armor class for a cinder wolf.
    for question, passages in (
        ("how hard is it to hit a cinder wolf, what's its armor class", [WOLF]),
        ("death tyrant speed?", [DEATH_DOG]),
        ("how much does a tower shield weigh", [WOLF]),
    ):
        assert narrowed(analyse(question), passages) is None, question
        assert not reply(analyse(question), [], passages).known, question


def test_a_line_the_question_names_answers_a_field_the_entry_has_no_line_for() -> None:
    answer = reply(analyse("adult red dragon fire breath dmg"), [], [RED_DRAGON])
    assert answer.known and "63 (18d6) fire damage" in answer.text and "Immunities" not in answer.text
    answer = reply(analyse("dragonborn breath weapon save dc"), [], [DRAGONBORN])
    assert "8 + your Constitution modifier" in answer.text and answer.text.startswith("Dragonborn's")


def test_a_creature_s_alignment_and_a_spell_s_school_are_its_kind_line() -> None:
    assert analyse("what alignment are unicorns").fields == ["alignment"]
    assert reply(analyse("what alignment are unicorns"), [], [UNICORN]).text == (
        "Unicorn is a large celestial, lawful good. [1]"
    )
    school = analyse("school of magic for polymorph")
    assert school.fields == [KIND_LINE] and school.subject == ["polymorph"]
    assert analyse("is freedom of movement a cantrip or leveled spell?").fields == [KIND_LINE]
    assert analyse("max divine smite damage").expanded == "maximum divine smite damage"


def test_sentences_keep_a_trait_s_name_with_its_first_sentence_and_short_table_rows() -> None:
    assert sentences("***Hellish Resistance.*** You have resistance to fire damage.") == [
        "Hellish Resistance: You have resistance to fire damage."
    ]
    assert sentences("| Task | DC |\n|---|---|\n| Hard | 20 |") == ["Hard 20"]
    answer = reply(analyse("what are tieflings resistant to"), [], [TIEFLING])
    assert "fire damage" in answer.text
    assert compose("what DC is a hard check", [], [DIFFICULTY]).text.startswith("Hard 20.")


def test_the_kind_line_is_quoted_only_when_the_kind_is_asked_and_an_amount_asked_wants_one() -> None:
    answer = reply(analyse("sneak attack damage for a rogue"), [], [SNEAK])
    assert answer.known and "Rogue feature" not in answer.text
    assert (
        "Rogue feature, level 1" in compose("sneak attack feature level", [], [SNEAK], kind_lines=True).text
    )
    assert "1d6 bludgeoning damage" in reply(analyse("how much damage from falling"), [], [FALLING]).text


WORLD = b"""# The Reach

## Revivify

*3rd-level conjuration*

- **Components** V, S, M (Diamonds worth 300gp, which the spell consumes)

You touch a creature that has died within the last minute.

## Raven

- **Armor Class** 12

***Mimicry.*** The raven can mimic simple sounds it has heard.
"""
SECRET = b"""# Secrets

## Kenku

Kenku mimicry: kenku speak only in the sounds they have stolen.
"""


async def test_words_no_readable_source_holds_are_nothing_known_and_typos_are_read_as_the_search_read_them(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reach")
    await service.import_bytes(campaign, "reach.md", WORLD)
    await service.import_bytes(campaign, "secrets.md", SECRET, hidden=True)

    typo = await service.ask(campaign, "revivfy diamond cost", viewer=Viewer.PLAYER, record=False)
    assert typo.trace.corrections == {"revivfy": "revivify"}
    assert typo.reply is not None and typo.reply.known and "300gp" in typo.reply.text

    # The kenku is only in a GM-only source: to a player it reads as a word nobody wrote, word for word.
    hidden = await service.ask(campaign, "kenku mimicry", viewer=Viewer.PLAYER, record=False)
    nobody = await service.ask(campaign, "tabaxi mimicry", viewer=Viewer.PLAYER, record=False)
    assert hidden.trace.unknown_words == ["kenku"] and nobody.trace.unknown_words == ["tabaxi"]
    assert hidden.reply is not None and nobody.reply is not None
    assert hidden.reply.text == "Nothing the table knows answers “kenku mimicry”."
    assert nobody.reply.text == "Nothing the table knows answers “tabaxi mimicry”."
    gm = await service.ask(campaign, "kenku mimicry", viewer=Viewer.GM, record=True)
    assert gm.trace.unknown_words == [] and gm.reply is not None and gm.reply.known
    assert gm.retrieval_id is not None
    shown = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.PLAYER)
    assert shown.trace.unknown_words == [] and shown.trace.corrections == {}


DWARF = passage("## Dwarf\n\n- **Speed** 25 feet\n- **Size** Medium", "Races", "Dwarf", chunk_id=17)
PSYCHIC = passage(
    "#### Damage Types\n\nMental abilities such as a mind flayer's psionic blast deal psychic damage.",
    "Combat",
    "Damage Types",
    chunk_id=18,
)
WEREWOLF = passage(
    "## Werewolf, Human Form\n\n- **Damage Immunities** bludgeoning, piercing, and slashing from nonmagical "
    "weapons that aren't silvered",
    "Bestiary",
    "Werewolf, Human Form",
    chunk_id=19,
)


def test_a_comparison_with_than_answers_both_and_says_which() -> None:
    asked = analyse("is a wolf faster than a dwarf?")
    assert asked.kind == "comparison" and asked.fields == ["speed"] and asked.parts == [["wolf"], ["dwarf"]]
    answer = comparison(asked, [], [WOLF, DWARF])
    assert answer is not None
    assert (
        answer.text
        == "Yes: Wolf's speed is 40 ft. [1] Dwarf's speed is 25 feet. [2] Wolf has the higher speed."
    )
    answer = comparison(analyse("is a dwarf faster than a wolf?"), [], [WOLF, DWARF])
    assert (
        answer is not None and answer.text.startswith("No: ") and "Wolf has the higher speed" in answer.text
    )
    for question, field in (
        ("which is heavier, plate armor or chain mail", "weight"),
        ("is a shortbow cheaper than a longbow", "cost"),
        ("is an ogre tougher than a troll", "hit points"),
    ):
        assert analyse(question).fields == [field] and analyse(question).kind == "comparison", question
    # "than" alone is no comparison: "rather than" asks about nothing twice.
    assert analyse("should I dodge rather than attack").kind != "comparison"


def test_a_damage_type_is_asked_in_sentences_and_normal_weapons_are_the_books_nonmagical_ones() -> None:
    asked = analyse("what damage type is a mind flayer's psionic blast")
    assert asked.fields == [] and asked.subject == ["mind", "flayer", "psionic", "blast"] and asked.of_entry
    assert "psychic damage" in reply(asked, [], [PSYCHIC]).text
    asked = analyse("can you hurt a werewolf with normal weapons")
    assert "nonmagical weapons" in asked.expanded
    assert "silvered" in reply(asked, [], [WEREWOLF]).text
    assert analyse("power word kill works on creatures with how many hp or less").subject == [
        "power",
        "word",
        "kill",
    ]


LAUGHTER = passage(
    "## Hideous Laughter\n\n*1st-level enchantment*\n\nThe target must succeed on a wisdom saving throw or fall "
    "prone, becoming incapacitated.",
    "Spells",
    "Hideous Laughter",
    chunk_id=20,
)


def test_a_word_no_source_holds_that_only_qualifies_the_section_named_is_not_a_reason_to_say_nothing() -> (
    None
):
    # The books call it Hideous Laughter; a player says Tasha's.
    answer = reply(analyse("tasha's hideous laughter save"), [], [LAUGHTER], unknown=["tasha"])
    assert answer.known and "wisdom saving throw" in answer.text
    # The other words must name the whole section: "Raven" is not named by "mimicry".
    assert strange_words(analyse("kenku mimicry"), ["kenku"], [RAVEN]) == ["kenku"]


def test_the_question_s_other_words_choose_the_sentences_of_the_line_it_names() -> None:
    # A drowned-coast game's bestiary: a line of five sentences; what is asked is told by a later one.
    knight = passage(
        "## Drowned Knight\n\n*Medium undead*\n\n- **Armour** 15\n\n"
        "***Tidal Grip.*** Melee: +5 to hit, one target. On a hit the target is held under the surf. The knight "
        "can hold one target at a time. A target held under for 3 rounds starts to drown. A target whose breath "
        "falls to 0 is lost.",
        "Bestiary",
        "Drowned Knight",
        chunk_id=11,
    )
    asked = analyse("drowned knight tidal grip - what if my guy stays held under for 3 rounds")
    assert narrowed(asked, [knight]) is not None
    answer = reply(asked, [], [knight])
    assert answer.known and "starts to drown" in answer.text and answer.text.startswith("Drowned Knight's")
    # A number in words is held as its digits.
    spelled = reply(analyse("drowned knight tidal grip - what happens at zero"), [], [knight])
    assert "falls to 0 is lost" in spelled.text
    # Other words no sentence holds: the line's first sentences.
    plain = reply(analyse("drowned knight tidal grip - what does the kraken think of it"), [], [knight])
    assert "Melee: +5 to hit" in plain.text


def test_what_a_thing_resists_asks_its_resistances() -> None:
    wight = passage(
        "## Bog Wight\n\n*Medium undead*\n\n- **Damage Resistances** cold, necrotic\n\n"
        "***Mire Step.*** The wight ignores the pull of the bog and never sinks.",
        "Marsh Bestiary",
        "Bog Wight",
        chunk_id=14,
    )
    asked = analyse("what does a bog wight resist? all of it pls")
    assert asked.fields == ["damage resistances"] and asked.subject == ["bog", "wight"]
    assert "cold, necrotic" in reply(asked, [], [wight]).text
    # Resisting as the asker's own deed asks no field of a thing.
    assert analyse("how do i resist a charm").fields == []
