"""Which sentence answers, among the passages that hold the fact: a rule that goes on in its next sentence, the
block a question names, an amount in the units asked; books laid out unlike the SRD."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer import compose
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_described import describes
from memory.knowledge.retrieval.answer_first import from_first
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import same_word
from tests.memory.knowledge.retrieval.test_answer import passage

# A talent of a game of blood magic: the rule, then a sentence going on from it.
SURGE = passage(
    "## Bloodfire Surge\n\nYou can burn your own blood to strike harder: your next hit deals an extra 1d8 fire "
    "damage. If you call on the surge again before you finish a long rest, you lose 2d6 hit points for each Vigor "
    "die you spend. Each time you call on the surge again before finishing a long rest, the hit points lost per "
    "Vigor die increase by 1d6.",
    "Talents",
    "Bloodfire Surge",
)


def test_a_sentence_going_on_from_the_one_before_is_quoted_with_it_in_the_books_order() -> None:
    answer = compose("what happens if I use bloodfire surge a second time before a long rest", [], [SURGE])
    assert answer.known
    # "Each time … increase by 1d6" alone would not say what is lost the second time.
    assert answer.text.index("lose 2d6 hit points") < answer.text.index("increase by 1d6")


def test_a_sentence_that_stands_alone_is_quoted_alone() -> None:
    answer = compose("how much fire damage does bloodfire surge add", [], [SURGE])
    assert answer.known and "extra 1d8 fire damage" in answer.text
    assert "lose 2d6" not in answer.text


# A monster of another bestiary: a trait whose bold name the player says in another form ("regrowing").
HYDRA = passage(
    "## Ashen Hydra\n\n*Huge monstrosity, unaligned*\n\n"
    "The ashen hydra dies only if every head is severed and it doesn't regrow them by the end of its turn.\n\n"
    "***Regrowth.*** The ashen hydra grows two heads at the start of its turn for each head lost. "
    "If the ashen hydra takes cold damage, this trait doesn't function at the start of the hydra's next turn.\n\n"
    "***Ashen Breath.*** The hydra exhales cinders in a 30-foot cone.",
    "Monsters",
    "Ashen Hydra",
    chunk_id=5,
)


def test_the_block_a_question_names_answers_before_a_sentence_outside_it() -> None:
    said = reply(analyse("what stops an ashen hydra from regrowing its heads"), [], [HYDRA])
    assert said.known and "cold damage" in said.text
    assert "dies only if" not in said.text
    # A question naming no block of it gets the passage's best sentence as before.
    said = reply(analyse("how does an ashen hydra die"), [], [HYDRA])
    assert said.known and "dies only if every head is severed" in said.text


# A treasure of another game: a check's DC before the time asked, in the passage the question names.
LANTERN = passage(
    "## Lantern of Lost Ways\n\n*Wondrous item, rare*\n\n"
    "If the lantern is shuttered, a spirit caught in its flame can use an action to make a DC 12 Wisdom check. "
    "On a success, the spirit slips free. A spirit caught in the lantern lingers for up to 3 hours, "
    "after which time it begins to fade.",
    "Treasures",
    "Lantern of Lost Ways",
    chunk_id=6,
)


def test_how_long_of_a_passage_named_is_said_by_an_amount_of_time_not_by_a_dc() -> None:
    question = analyse(
        "if i shutter the lantern of lost ways with a ghost still inside, how long till it starts fading"
    )
    found = from_first(question, [LANTERN], 1)
    assert found is not None and found.sentences and "up to 3 hours" in found.sentences[0]
    said = reply(question, [], [LANTERN])
    assert said.known and "up to 3 hours" in said.text and "DC 12" not in said.text


def test_a_field_asked_of_a_title_with_a_small_word_is_said_by_the_line_saying_it() -> None:
    # "of" in "Lantern of Lost Ways" does not make the passage's own heading a block of it.
    found = from_first(analyse("lantern of lost ways how long does it last"), [LANTERN], 1)
    assert found is not None and found.block is None
    assert len(found.sentences) == 1 and "up to 3 hours" in found.sentences[0]


# A plant of another bestiary: the time asked is said by the sentence after the one naming what brings it.
MOLD = passage(
    "## Mold Lord\n\n*Large plant, neutral evil*\n\n"
    "***Glaring Bloom.*** The mold lord flares with a sickly light. A creature blinded by the bloom's spores regains its "
    "sight after 1 minute.\n\n"
    "***Spore Veil.*** While in darkness, the mold lord is wrapped in spores. A creature that breathes in the "
    "spores while within 10 feet of it must make a DC 13 Constitution saving throw. On a failure, the creature "
    "is blinded for 1d6 hours.",
    "Monsters",
    "Mold Lord",
    chunk_id=7,
)


def test_a_sentence_going_on_from_the_one_before_holds_what_that_one_says() -> None:
    said = reply(analyse("how long am i blinded after breathing a mold lord's spores"), [], [MOLD])
    # "On a failure" is about breathing the spores: not the bloom's "after 1 minute".
    assert said.known and "blinded for 1d6 hours" in said.text
    assert "1 minute" not in said.text
    assert said.text.index("breathes in the spores") < said.text.index("1d6 hours")


def test_two_endings_of_one_stem_are_one_word() -> None:
    assert same_word("touches", "touching") and same_word("marches", "marched")
    assert not same_word("notes", "noting")  # a stem too short to tell apart


# Another game's ailments and states: sentences answering a yes/no question outright, or not.
FROST_FEVER = passage(
    "## Frost Fever\n\nThis sickness strikes every warm-blooded folk, although yetis are strangely immune. "
    "A sick creature shivers for 1d4 days.",
    "Ailments",
    "Frost Fever",
    chunk_id=8,
)
DAZED = passage(
    "## Dazed\n\nA dazed creature can't take reactions. Attack rolls against a dazed creature have advantage, and "
    "its own attack rolls have disadvantage.",
    "States",
    "Dazed",
    chunk_id=9,
)


def test_a_yes_no_question_a_sentence_answers_outright_gets_yes_or_no_first() -> None:
    said = reply(analyse("are yetis immune to frost fever?"), [], [FROST_FEVER])
    assert said.text.startswith("Yes: ") and "strangely immune" in said.text
    said = reply(analyse("can a dazed creature take reactions?"), [], [DAZED])
    assert said.text.startswith("No: ") and "can't take reactions" in said.text


def test_no_verdict_where_the_sentence_says_both_or_the_question_is_negated() -> None:
    # "advantage" and "disadvantage" in one sentence: which one the player gets is not a yes or a no.
    said = reply(analyse("do I get advantage on attack rolls when dazed?"), [], [DAZED])
    assert said.known and not said.text.startswith(("Yes", "No"))
    said = reply(analyse("can't a dazed creature take reactions?"), [], [DAZED])
    assert not said.text.startswith(("Yes", "No"))


# A gear list of another game: a comparison's part said with the player's words before the name.
GRAPNEL = passage("## Grapnel\n\n- **Cost** 2 gp\n- **Weight** 4 lb.\n", "Gear", "Grapnel", chunk_id=11)
SILK_CORD = passage(
    "## Silk Cord\n\n- **Cost** 10 gp\n- **Weight** 5 lb.\n", "Gear", "Silk Cord", chunk_id=12
)


def test_a_comparisons_part_is_found_without_the_players_words_before_its_name() -> None:
    question = analyse("which costs more, a grapnel or a whole spool of silk cord")
    said = comparison(question, [], [GRAPNEL, SILK_CORD])
    assert (
        said is not None
        and "Silk Cord's cost is 10 gp" in said.text
        and "Grapnel's cost is 2 gp" in said.text
    )
    assert said.text.endswith("Silk Cord has the higher cost.")
    # A part naming something no passage holds is still not answered by a neighbour's line.
    assert (
        comparison(analyse("which costs more, a grapnel or a spool of dragon silk"), [], [GRAPNEL, SILK_CORD])
        is None
    )


def test_a_thing_described_by_what_it_has_is_named_in_the_answer() -> None:
    assert describes("orb with three eyes that sees through walls")
    assert describes("cube with six sides each keyed to a different plane")
    assert not describes("help with grappling rules")  # no count after "with": the player's own request
    orb = passage(
        "## Orb of Far Sight\n\n*Wondrous item, rare*\n\nThe three eyes of the orb each look through a different "
        "wall of the room it rests in.",
        "Treasures",
        "Orb of Far Sight",
        chunk_id=13,
    )
    said = reply(analyse("orb with three eyes each looking through a different wall"), [], [orb])
    assert said.known and said.text.startswith("Orb of Far Sight: ")


# A war machine of a mecha game: a stat line and an attack block, both named by a question about the attack.
WALKER = passage(
    "## Siege Walker\n\n*Colossal war machine*\n\n"
    "- **Saving Throws** Reflex +2, Will +1\n- **Plating** 18\n\n"
    "***Flame Lance.*** The walker sprays burning oil in a 30-foot line. Each creature in that line must make a "
    "DC 15 Reflex saving throw, taking 22 (4d10) fire damage on a failure.",
    "War Machines",
    "Siege Walker",
    chunk_id=9,
)


def test_of_two_blocks_a_question_names_the_one_saying_what_it_asks_answers() -> None:
    found = from_first(
        analyse("siege walker: what's the DC on the reflex saving throw vs its flame lance?"), [WALKER], 1
    )
    assert found is not None and found.block == "Flame Lance", found
    assert any("DC 15" in s for s in found.sentences)
