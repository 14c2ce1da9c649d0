"""Questions in forms no one tuned for, answered from books laid out unlike the SRD: typos, chatter, ordinals,
a field's word inside a name."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.fields import Field, read_fields
from memory.knowledge.glossary import expand
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_scope import off_subject
from memory.knowledge.retrieval.answer_sentence import text_words
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import key_words, same_word
from memory.knowledge.retrieval.words import one_slip
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage

# A starship game's threat roster: stat lines as a table of its own words, not the SRD's bullet lists.
ROSTER = """# Threats

## Void Leviathan

*Colossal spaceborne horror*

| Stat | Value |
|------|-------|
| Hull | 40 |
| Challenge | 12 |

The leviathan swallows shuttles whole.

## Rust Beetle

*Tiny vermin*

| Stat | Value |
|------|-------|
| Hull | 2 |
| Challenge | 1 |

Rust beetles eat through bulkheads in an hour.
"""


def test_one_slip_is_a_typo_only_in_a_word_long_enough_for_that_kind_of_slip() -> None:
    vocabulary = ["leviathan", "mite", "turtle", "hull", "shuttle", "bulkhead", "bulkheads"]
    assert one_slip("leviahtan", vocabulary) == "leviathan"  # two neighbours swapped
    assert one_slip("leviatan", vocabulary) == "leviathan"  # a letter dropped
    assert one_slip("shuttel", vocabulary) == "shuttle"
    assert one_slip("bulkhaed", vocabulary) == "bulkhead"
    # A letter changed in a short word most often makes another real word: not read as a typo.
    assert one_slip("tortle", vocabulary) is None
    assert one_slip("tortles", ["turtles"]) is None and one_slip("challange", ["challenge"]) == "challenge"
    # Too short for any slip, or one slip from two words (which was meant is not known).
    assert one_slip("mtie", vocabulary) is None
    assert one_slip("bulkhead", ["bulkheat", "bulkheap"]) is None
    assert one_slip("zzzzzz", vocabulary) is None


async def test_a_misspelt_name_and_a_misspelt_field_are_read_as_the_books_words(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Starfall")
    await service.import_bytes(campaign, "threats.md", ROSTER.encode())
    # "Challenge" is no heading: the field's word is read from the sources' lines.
    answer = await service.ask(campaign, "challange of the void leviathan?", viewer=Viewer.PLAYER)
    assert answer.trace.corrections == {"challange": "challenge"}
    assert answer.reply is not None and answer.reply.known and "12" in answer.reply.text
    # Two letters swapped in a short name (too far apart for the ratio alone).
    answer = await service.ask(campaign, "rust beelte hull?", viewer=Viewer.PLAYER)
    assert answer.trace.corrections == {"beelte": "beetle"}
    assert answer.reply is not None and answer.reply.known and "2" in answer.reply.text
    # A word changed into another (no slip the books' words explain) is not corrected: nothing is known.
    answer = await service.ask(campaign, "challenge of the void levoathen?", viewer=Viewer.PLAYER)
    assert "levoathen" not in answer.trace.corrections
    assert answer.reply is not None and not answer.reply.known


def test_the_tables_chatter_is_no_word_asked() -> None:
    assert key_words("how many hull does a rust beetle have lol") == ["hull", "rust", "beetle"]
    assert "im" not in key_words("if im hit by a rust beetle what happens")
    assert analyse("if im surprised lol what happens").subject == ["surprised"]


# A skirmish game's surprise rule, written with ordinals where players say numbers.
AMBUSH = passage(
    "## Ambush\n\nWhen a squad is ambushed, nobody may act in the first round of the fight.\n\n"
    "An ambushed trooper cannot take an overwatch shot until their first activation ends.",
    "Skirmish Rules",
    "Ambush",
)


def test_a_number_asked_is_said_by_its_ordinal() -> None:
    assert same_word("1", "first") and same_word("2", "2nd") and same_word("3rd", "third")
    assert not same_word("2", "second")  # a second is a time too
    assert not same_word("1", "10") and same_word("first", "firsts")
    answer = reply(analyse("if im ambushed can i take an overwatch shot in round 1"), [], [AMBUSH])
    assert answer.known and "until their first activation ends" in answer.text


# A psionics game's powers: bold-led fields, and a power named with a field's word.
SPEED_OF_THOUGHT = passage(
    "## Speed of Thought\n\n*Psionic power, tier 2*\n\n**Cost:** 3 focus\n\n**Duration:** 1 scene\n\n"
    "Your reflexes quicken: you act first in every exchange.",
    "Powers",
    "Speed of Thought",
)
SPEAK_WITH_STONE = passage(
    "## Speak with Stone\n\n*Psionic power, tier 1*\n\n**Cost:** 1 focus\n\n**Duration:** 10 minutes\n\n"
    "You speak with stones and hear what they have witnessed.",
    "Powers",
    "Speak with Stone",
)


def test_a_fields_word_inside_the_name_asked_is_part_of_the_name() -> None:
    answer = reply(analyse("how long does speed of thought last"), [], [SPEED_OF_THOUGHT])
    assert answer.known and "1 scene" in answer.text and "speed is" not in answer.text.casefold()
    # "speak" asks a creature's languages, but here it is the power's name.
    assert analyse("speak with stone cost").fields == ["languages", "cost"]
    answer = reply(analyse("speak with stone cost"), [], [SPEAK_WITH_STONE])
    assert answer.known and "1 focus" in answer.text
    # A field the title does not hold stays asked: the power has no hull.
    assert not reply(analyse("speed of thought hull?"), [], [SPEED_OF_THOUGHT]).known


# A sea-faring game's provisions and a gods' table: rules said in prose amounts, symbols in a table.
RATIONS = passage(
    "## Tonic of the Tides\n\n*Draught, common*\n\nWhoever drinks it breathes under water for 2 hours.\n\n"
    "The flask weighs 3 pounds, full or empty.",
    "Provisions",
    "Tonic of the Tides",
)
TOKENS = passage(
    "## Charms and Tokens\n\n*Gear, sacred*\n\nA charm is a token of a sea god, carved or cast.",
    "Gear",
    "Charms and Tokens",
)


def test_a_field_asked_of_an_entry_is_said_by_an_amount_in_its_units() -> None:
    answer = reply(analyse("how long does a tonic of the tides last"), [], [RATIONS])
    assert answer.known and "2 hours" in answer.text
    answer = reply(analyse("tonic of the tides weight?"), [], [RATIONS])
    assert answer.known and "3 pounds" in answer.text
    # No amount of its kind: the entry says no range.
    assert not reply(analyse("tonic of the tides range"), [], [RATIONS]).known


def test_a_word_naming_what_is_asked_that_no_passage_found_holds_is_nothing_known() -> None:
    # The search found the charms, not the god: nothing found names Vorrun.
    answer = reply(analyse("whats the token of vorrun"), [], [TOKENS])
    assert not answer.known
    answer = reply(analyse("vorrun token?"), [], [TOKENS])
    assert not answer.known
    # Every naming word held: the passage answers.
    assert reply(analyse("what is a sea god token"), [], [TOKENS]).known
    # A word no passage holds beside the best passage's title named: the title answers ("barbs" of Rage).
    rage = passage("## Fury\n\n*Reaver feature*\n\nWhile in a fury you cannot cast charms.", "Reaver", "Fury")
    assert reply(analyse("can reavs cast charms in a fury"), [], [rage]).known


def test_the_tables_shorthand_reads_as_the_books_words() -> None:
    assert expand("how long r u diseased for")[0] == "how long are you diseased for"
    assert expand("do i get adv on init")[0] == "do i get advantage on initiative"
    assert expand("ur dex mod to ac?")[0] == "your dexterity modifier to armor class?"
    assert expand("can barbs rage thru a wall")[0] == "can barbarian rage through a wall"
    # Whole words only: "mode", "rage", "rounds" stay as typed.
    assert expand("which mode of travel")[0] == "which mode of travel"


# A pair of rests of another game: the words asked side by side pick the rest asked.
RESTS = passage(
    "## Camps\n\nA short camp is a pause of at least 1 hour long in a safe place.\n\n"
    "A long camp is a stop of at least 6 hours long in which everyone sleeps and nobody keeps watch.",
    "Travel",
    "Camps",
)


def test_the_question_s_words_said_side_by_side_pick_the_sentence() -> None:
    answer = reply(analyse("how long does a long camp last at least"), [], [RESTS])
    assert answer.known and "6 hours" in answer.text and "1 hour" not in answer.text
    answer = reply(analyse("how long does a short camp last at least"), [], [RESTS])
    assert answer.known and "1 hour" in answer.text and "6 hours" not in answer.text


def test_a_two_column_stat_table_holds_its_sections_own_fields() -> None:
    beetle = "## Rust Beetle\n\n| Stat | Value |\n|---|---|\n| Hull | 2 |\n| Challenge | 1 |\n"
    fields = read_fields(["Threats", "Rust Beetle"], beetle)
    assert Field("Rust Beetle", "Hull", "2") in fields and Field("Rust Beetle", "Challenge", "1") in fields
    answer = reply(analyse("rust beetle hull?"), [], [passage(beetle, "Threats", "Rust Beetle")])
    assert answer.text == "Rust Beetle's hull is 2. [1]"
    # A table of several things (a price list) keeps its rows as things: no "Longsword" field of the section.
    prices = "## Blades\n\n| Item | Cost |\n|---|---|\n| Longsword | 15 crowns |\n"
    assert read_fields(["Gear", "Blades"], prices) == [Field("Blades › Longsword", "Cost", "15 crowns")]


def test_how_many_quotes_the_sentence_of_a_line_that_counts_the_things_asked() -> None:
    # A sea-monster's attack line of another bestiary: the count is its last sentence, not its first.
    hydra = passage(
        "## Reef Hydra\n\n*Huge monstrosity*\n\n**Heads.** Each head bites for 1d10 piercing damage. A severed "
        "head regrows at dusk. The reef hydra has seven heads when it is born.",
        "Bestiary",
        "Reef Hydra",
    )
    answer = reply(analyse("how many heads does a reef hydra have"), [], [hydra])
    assert answer.known and "seven heads" in answer.text


def test_a_verb_with_its_last_letter_doubled_and_the_players_stop_are_the_books_words() -> None:
    assert same_word("drag", "dragging") and same_word("grab", "grabbed") and same_word("die", "dying")
    assert not same_word("bat", "batter")
    cloak = passage(
        "## Shade Cloak\n\n*Gear, rare*\n\nYou are unseen while you wear it. You stay unseen until you strike "
        "or shout.",
        "Gear",
        "Shade Cloak",
    )
    answer = reply(analyse("when does the shade cloak stop working"), [], [cloak])
    assert answer.known and "until you strike" in answer.text


def test_a_die_asked_is_said_by_a_roll_and_chatter_is_not_searched() -> None:
    # A bard-like feature of another game: the die is only ever written as a roll.
    ballad = passage(
        "## Campfire Ballad\n\n*Skald talent, rank 2*\n\nAt rank 2, your ballad soothes the camp. Anyone who "
        "spends a rest listening gains an extra 1d6 vigor.",
        "Talents",
        "Campfire Ballad",
    )
    assert "die" in text_words("Anyone gains an extra 1d6 vigor.", ["extra", "die"])
    assert "die" not in text_words("Anyone gains an extra point of vigor.", ["extra", "die"])
    answer = reply(analyse("what extra die does the campfire ballad give"), [], [ballad])
    assert answer.known and "1d6" in answer.text
    assert analyse("hey guys, whats the owlbear AC lol").search_text == "the owlbear armor class"


# A pantheon of another setting: each god named, then described, in the table's first column.
GODS = passage(
    "### The Tide Gods\n\n| God | Domain | Symbol |\n|---|---|---|\n"
    "| Vorrun, lord of storms and drowned sailors | Tempest | A broken oar |\n"
    "| Mael, the quiet one | Death | Grey shell |\n"
    "| Rope, tarred (50 feet) | Trade | Knot |\n",
    "Gods",
    "The Tide Gods",
)


def test_a_table_row_named_then_described_is_asked_by_its_name() -> None:
    answer = reply(analyse("vorrun symbol?"), [], [GODS])
    assert answer.text == "Vorrun's symbol is A broken oar. [1]"
    # A name qualified after its comma keeps the qualifier.
    assert reply(analyse("tarred rope symbol"), [], [GODS]).text.startswith("Rope, tarred (50 feet)'s symbol")


def test_conditions_as_players_say_them_and_units_as_stat_lines_write_them() -> None:
    assert expand("if im scared can i walk closer")[0] == "if im frightened can i walk closer"
    assert expand("knocked down by a wave")[0] == "prone by a wave"
    assert same_word("ft", "feet") and same_word("foot", "ft") and same_word("lb", "pounds")
    # A hover-tank's stat line in another game's abbreviations, asked in words written out.
    tank = passage(
        "## Hover Tank\n\n*Vehicle*\n\nIt carries up to 900 lb. of cargo at 60 ft. a turn.",
        "Vehicles",
        "Hover Tank",
    )
    answer = reply(analyse("how many pounds of cargo does a hover tank carry"), [], [tank])
    assert answer.known and "900 lb." in answer.text


def test_what_kind_of_asks_the_subjects_kind_only_when_it_opens_the_question() -> None:
    backstab = passage(
        "## Backstab\n\n*Cutthroat talent, rank 1*\n\nStrike an unaware foe for double damage. The blade must be "
        "a dagger or a short sword.",
        "Talents",
        "Backstab",
    )
    assert analyse("what kind of talent is backstab").fields == ["kind"]
    assert analyse("backstab needs what kind of blade").fields == []
    answer = reply(analyse("backstab needs what kind of blade"), [], [backstab])
    assert answer.known and "dagger or a short sword" in answer.text
    answer = reply(analyse("what kind of talent is backstab"), [], [backstab])
    assert answer.known and "cutthroat talent" in answer.text.casefold()


def test_a_number_asked_names_nothing_a_line_shares() -> None:
    # A beast's attack line of another bestiary shares only the number with a question about a talent.
    boar = passage(
        "## Tusk Boar\n\n*Beast*\n\n**Gore.** Melee attack: +4 to hit, reach 5 ft., one target.",
        "Beasts",
        "Tusk Boar",
    )
    said = "Gore: Melee attack: +4 to hit, reach 5 ft., one target."
    assert off_subject(analyse("does cleave master give -5 to hit"), [boar], said, best=True)
    assert reply(analyse("does the tusk boar gore give +4 to hit"), [], [boar]).known


def test_which_is_higher_level_compares_the_entries_kind_lines() -> None:
    # A witch game's hexes: the level is only in the kind line; "At Higher Levels" is a line of its own.
    rot = passage(
        "## Rot Touch\n\n*2nd-level hex*\n\n**At Higher Levels.** The rot spreads one more foot.",
        "Hexes",
        "Rot Touch",
    )
    gloom = passage(
        "## Gloom\n\n*4th-level hex*\n\nShadows thicken around you.", "Hexes", "Gloom", chunk_id=2
    )
    asked = analyse("which hex is higher level, rot touch or gloom")
    assert asked.fields == ["kind"] and asked.parts == [["rot", "touch"], ["gloom"]]
    answer = comparison(asked, [], [rot, gloom])
    assert answer is not None and answer.text.endswith("Gloom has the higher level.")
    assert analyse("what does rot touch do at higher levels").fields == []
