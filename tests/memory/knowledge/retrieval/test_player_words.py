"""Questions in the player's words rather than the book's, answered from another game's rules text."""

from __future__ import annotations

from memory.knowledge.glossary import expand
from memory.knowledge.question import analyse, ending_verb, how_word, without_how
from memory.knowledge.retrieval.answer_scope import strange_words
from memory.knowledge.retrieval.answer_sentence import counted
from memory.knowledge.retrieval.answer_step import _named_lower, reply
from memory.knowledge.retrieval.answer_words import asked_words, related_said
from tests.memory.knowledge.retrieval.test_answer import passage

# A science-fiction game's rules, in its own layout: a bold lead-in per rule, numbers in words and digits.
VACUUM = passage(
    "## Vacuum\n\nNobody holds out long in hard vacuum.\n\n"
    "Anyone without a suit can hold their breath for 2 rounds per point of Body.",
    "Hazards",
    "Vacuum",
)
# A dungeon game's rest rule: the time is said as "at least", never as a minimum.
BREATHER = passage(
    "## Breather\n\nCrews can take breathers between scenes and a long camp at the end of a day.\n\n"
    "A breather is a pause of at least 10 minutes in which nobody fights or travels.",
    "Downtime",
    "Breather",
)
# A roll-under system: success is said "you succeed", never "pass".
SAVES = passage(
    "## Saves\n\nWhen danger looms, the referee calls for a save.\n\n"
    "Roll a d20. If the roll is equal to or under the attribute, you succeed.",
    "Core Rules",
    "Saves",
)


def test_the_word_after_how_asks_an_amount_and_names_nothing() -> None:
    assert without_how("How long can I hold my breath?") == "How can I hold my breath?"
    assert without_how("how long does a long camp take") == "how does a long camp take"
    assert "long" not in asked_words("how long can I hold my breath")
    assert "long" in asked_words("how does a long camp take")
    assert "long" not in analyse("how long is a breather at minimum").subject


def test_how_long_is_answered_by_the_sentence_saying_the_time_not_the_one_saying_long() -> None:
    answer = reply(analyse("how long can I hold my breath in vacuum"), [], [VACUUM])
    assert answer.known and "2 rounds per point" in answer.text and "holds out" not in answer.text


def test_a_sentence_saying_the_players_word_in_the_books_words_says_it() -> None:
    assert related_said("A breather is a pause of at least 10 minutes.", ["minimum", "breather"]) == {
        "minimum"
    }
    assert related_said("If the roll is under the attribute, you succeed.", ["passing"]) == {"passing"}
    assert related_said("A breather is a pause of 10 minutes.", ["minimum"]) == set()
    # The phrase must be said as written: "least" alone ("the least of them") is not "at least".
    assert related_said("The least of them is a rat.", ["minimum"]) == set()


def test_the_minimum_is_answered_by_at_least_and_passing_by_succeeding() -> None:
    answer = reply(analyse("how long does a breather take minimum"), [], [BREATHER])
    assert answer.known and "at least 10 minutes" in answer.text and "long camp" not in answer.text
    answer = reply(analyse("what do I need to roll to pass a save"), [], [SAVES])
    assert answer.known and "equal to or under" in answer.text


def test_the_tables_words_for_a_roll_and_for_bonuses_adding_up_read_as_the_books() -> None:
    assert expand("what happens on a nat 20")[0] == "what happens on a roll a 20"
    assert expand("natural 1 on a check?")[0] == "roll a 1 on a check?"
    assert expand("do shields stack")[0] == "do shields add together"
    assert expand("who decides turn order")[0] == "who decides initiative order"


# A rite of a druidic game, in its own layout: a tier line, the healing in a sentence, no stat lines.
MENDING_TOUCH = passage(
    "## Mending Touch\n\n*Rite of the Green, tier 1*\n\nYou lay a hand on a wounded ally. The one touched "
    "regains 2d4 hit points and is no longer bleeding.",
    "Rites",
    "Mending Touch",
)


def test_the_verb_a_question_ends_with_is_asked_not_part_of_the_name() -> None:
    assert ending_verb("How many hit points does mending touch restore?") == "restore"
    assert ending_verb("what does the marsh troll eat") == "eat"
    assert ending_verb("what does a cloak of shadows") is None  # a name's last word, after "of"
    assert ending_verb("how many attacks does a knight get at rank 5") is None
    assert ending_verb("can a ghoul walk in sunlight") is None  # no question word: a yes/no question


def test_a_field_asked_with_a_verb_the_books_do_not_use_is_answered_from_the_entry_named() -> None:
    answer = reply(analyse("How many hit points does mending touch restore?"), [], [MENDING_TOUCH])
    assert answer.known and "2d4 hit points" in answer.text


# A rite whose count is in words, beside a sentence naming one of the things counted.
SEEDBURST = passage(
    "## Seedburst\n\n*Rite of the Green, tier 1*\n\nUp to six glowing seeds sprout in your palm when the rite "
    "ends at dawn.\n\nAnyone may eat one seed as an action.",
    "Rites",
    "Seedburst",
)


def test_how_many_is_answered_by_the_sentence_counting_the_things_asked() -> None:
    assert counted("how many seeds does seedburst make?") is not None
    assert counted("how many seeds does seedburst make?").search("Up to six glowing seeds sprout")  # type: ignore[union-attr]
    assert not counted("how many seeds does seedburst make?").search("eat one seed")  # type: ignore[union-attr]
    assert counted("what does seedburst make") is None
    answer = reply(analyse("how many seeds does seedburst make?"), [], [SEEDBURST])
    assert answer.known and "six glowing seeds" in answer.text and "one seed" not in answer.text


# A ward system's rule titled with a field's name: a rule about the field, no creature's line.
WARDS = passage(
    "## Temporary Hit Points\n\nA ward grants temporary hit points until the next dawn.\n\n"
    "Temporary hit points from two wards are never added together: keep the larger pool.",
    "Core Rules",
    "Temporary Hit Points",
)


def test_a_yes_no_question_naming_a_rules_section_by_its_field_asks_about_the_rule() -> None:
    answer = reply(analyse("do temp hp stack if I get them twice?"), [], [WARDS])
    assert answer.known and "never added together" in answer.text
    # A value asked of a creature the rule does not name is no question about the rule.
    assert not reply(analyse("how many temp hp does a grellmoth have?"), [], [WARDS]).known


def test_a_sentence_about_its_own_entry_answers_less_when_the_question_does_not_name_it() -> None:
    drowning = passage(
        "## Drowning\n\nA diver can hold their breath for a number of rounds equal to 1 + their Grit score (at least one round).",
        "Hazards",
        "Drowning",
        chunk_id=1,
    )
    eel = passage(
        "## Reef Eel\n\n*Beast of the shallows*\n\n**Hold Breath.** The reef eel can hold its breath for 2 hours.",
        "Creatures",
        "Reef Eel",
        chunk_id=2,
    )
    answer = reply(analyse("how long can I hold my breath?"), [], [drowning, eel])
    assert answer.known and "Grit score" in answer.text and "reef eel" not in answer.text
    # Named, the entry answers for itself.
    answer = reply(analyse("how long can a reef eel hold its breath?"), [], [eel, drowning])
    assert answer.known and "2 hours" in answer.text


def test_a_word_no_source_holds_qualifies_a_title_only_when_the_question_says_the_title_itself() -> None:
    # A ghost story game's spirit whose name is a word that has longer cousins ("echoing", "echoes").
    echo = passage(
        "## Echo\n\n*Small spirit*\n\n**Cling.** The echo clings to whoever last spoke its name.",
        "Spirits",
        "Echo",
    )
    # "wraithkin echoing" asks of an ability of a spirit no source has: not the Echo.
    assert strange_words(analyse("wraithkin echoing"), ["wraithkin"], [echo]) == ["wraithkin"]
    assert not reply(analyse("wraithkin echoing"), [], [echo], ["wraithkin"]).known
    # "wraithkin's echo": the Echo itself, named by an owner the books do not know.
    assert strange_words(analyse("wraithkin's echo"), ["wraithkin"], [echo]) == []
    assert strange_words(analyse("wraithkin echoes"), ["wraithkin"], [echo]) == []


def test_who_holds_a_relation_is_answered_only_by_a_sentence_saying_that_relation() -> None:
    # A gazetteer of another setting: a town named on a road, and the town's own entry.
    road = passage(
        "## The Salt Road\n\nThe road from Dunmere to Port Vellis takes four days by cart.",
        "Gazetteer",
        "Salt Road",
    )
    town = passage(
        "## Port Vellis\n\nPort Vellis lies at the mouth of the Grey River. The Salt Council rules the city "
        "from the old customs house.",
        "Gazetteer",
        "Port Vellis",
    )
    assert not reply(analyse("who rules Port Vellis?"), [], [road]).known
    assert not reply(analyse("who runs Port Vellis?"), [], [road]).known
    answer = reply(analyse("who rules Port Vellis?"), [], [road, town])
    assert answer.known and "Salt Council rules the city" in answer.text
    answer = reply(analyse("who is in Port Vellis?"), [], [town])
    assert answer.known  # no relation asked: the town's sentences answer


def test_a_lesser_passage_the_question_names_by_title_and_book_answers_before_the_best_one() -> None:
    # A grimoire of another game: one incantation uses the other's name as a verb.
    veil_walk = passage(
        "## Veil Walk\n\n*Incantation of the second circle*\n\nYou shadowstep to a place you can see. You can also "
        "bring along one willing ally who touches you.",
        "Incantations",
        "Veil Walk",
        chunk_id=1,
    )
    shadowstep = passage(
        "## Shadowstep\n\n*Incantation of the fourth circle*\n\nThis incantation carries you and up to four "
        "willing allies of your choice to a shadow you name.",
        "Incantations",
        "Shadowstep",
        chunk_id=2,
    )
    asked = analyse("How many willing allies can the shadowstep incantation bring along?")
    answer = reply(asked, [], [veil_walk, shadowstep])
    assert answer.known and "up to four willing allies" in answer.text
    assert [c.number for c in answer.citations if c.cited] == [2]
    # Not named by its book ("incantation"), the lesser passage does not come first.
    assert (
        _named_lower(
            analyse("How many willing allies can you shadowstep along?"), [veil_walk, shadowstep], []
        )
        is None
    )
    assert _named_lower(asked, [veil_walk, shadowstep], []) == 1


def test_the_amount_a_how_word_asks_is_said_by_an_amount_of_its_kind() -> None:
    assert how_word("How long is a breather?") == "long" and how_word("how do I rest") is None
    # "how long": the sentence with minutes, not the one with a "long camp" and no amount.
    answer = reply(analyse("how long is a breather"), [], [BREATHER])
    assert answer.known and "at least 10 minutes" in answer.text
    # "how far": a sentence saying no distance does not answer, though it names the thing asked.
    whisper = passage(
        "## Whisper Call\n\n*Charm of the first circle*\n\nYou whisper a message of twenty words to a friend.",
        "Charms",
        "Whisper Call",
    )
    assert not reply(analyse("how far do whisper stones work"), [], [whisper]).known
    whisper_far = passage(
        "## Whisper Call\n\n*Charm of the first circle*\n\nYou whisper a message of twenty words to a friend "
        "up to 2 miles away.",
        "Charms",
        "Whisper Call",
    )
    assert reply(analyse("how far does whisper call carry"), [], [whisper_far]).known


def test_a_field_asked_with_a_players_verb_is_answered_from_the_entry_saying_it_in_the_books_words() -> None:
    # A bog creature of another bestiary, healing said "regains", asked "heal".
    bog_wight = passage(
        "## Bog Wight\n\n*Medium undead*\n\n- **Vigor** 40\n\n**Mire-born.** The wight regains 6 hit points at "
        "the start of its turn while it stands in water.",
        "Creatures",
        "Bog Wight",
    )
    answer = reply(analyse("how many hp does a bog wight heal every turn"), [], [bog_wight])
    assert answer.known and "regains 6 hit points" in answer.text
    assert not reply(analyse("how many hp does a bog wight lose every turn"), [], [bog_wight]).known


def test_regen_reads_regeneration_and_a_concentration_check_is_no_duration() -> None:
    assert expand("what stops troll regen")[0] == "what stops troll regeneration"
    assert analyse("does hold monster need concentration").fields == ["duration"]
    assert "duration" not in analyse("dc of a concentration check").fields
    assert "duration" not in analyse("concentration save dc when I get hit").fields


def test_a_field_of_a_namesake_in_another_book_gives_way_to_the_entry_named_by_its_book() -> None:
    # A game with a shield to carry and a spell of the same name, in its spellbook.
    gear = passage(
        "## Ward\n\n*Gear, shield*\n\n- **Armor Class** +2\n- **Price** 10 crowns", "Gear", "Ward", chunk_id=1
    )
    charm = passage(
        "## Ward\n\n*First circle abjuration*\n\nA shimmering barrier appears. Until your next turn, you have a "
        "+5 bonus to AC.",
        "Spellbook",
        "Ward",
        chunk_id=2,
    )
    answer = reply(analyse("how much ac does the ward spell give me"), [], [gear, charm])
    assert answer.known and "+5 bonus to AC" in answer.text
    # Not named by its book, the field of the first answers.
    answer = reply(analyse("how much ac does a ward give"), [], [gear, charm])
    assert answer.known and "+2" in answer.text
