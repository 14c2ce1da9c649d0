"""Abstaining where a question names what no source holds beside what one does: a made-up trait of a real
creature, a price the books never give, another kind of a thing ("lair actions" of a creature whose entry has
only legendary ones), a count said as "a few", a thing named with its kind ("the hex spell") its passage never
holds.
Written on a marsh bestiary laid out unlike the SRD (traits as a definition list)."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.models import LoreResult, Reason
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_holds import holds_asked
from memory.knowledge.retrieval.answer_kind_named import kind_unheld
from memory.knowledge.retrieval.answer_owned import owned_unheld
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_supported import supported, unsupported
from memory.knowledge.retrieval.answer_unknown import another_kind
from memory.knowledge.retrieval.answer_words import fold_words
from tests.memory.knowledge.retrieval.test_answer import passage

TROLL = passage(
    "## Marsh Troll\n\nLarge giant. Guard 15. Vigour 84.\n\nRegeneration\n: The troll regains 10 vigour at the "
    "start of its turn unless it took fire damage since its last turn.\n\nClaws\n: The troll rakes a foe within "
    "reach for 2d6 slashing damage.\n\nLegendary Actions\n: The troll can take 2 legendary actions, choosing "
    "from the options below.",
    "Marsh Bestiary",
    "Marsh Troll",
    chunk_id=41,
)
MOSS = passage(
    "## Glowcap Moss\n\nA pale fungus that glows in flooded caves. Miners chew it to stay awake on long shifts.",
    "Marsh Bestiary",
    "Glowcap Moss",
    chunk_id=42,
)
REED = passage(
    "## Bitter Reed\n\nA reed of the salt flats. Bitter reed sells for 3 silver a bundle at any market.",
    "Marsh Bestiary",
    "Bitter Reed",
    chunk_id=43,
)


def _both_found(result: LoreResult) -> LoreResult:
    """Return the passage as both searches found it first (as `answer_described` reads agreement)."""
    reasons = [Reason(kind="lexical", rank=1), Reason(kind="semantic", rank=1)]
    return result.model_copy(update={"reasons": reasons})


def _held(*results: LoreResult) -> set[str]:
    return set(fold_words(" ".join(" ".join([*r.heading_path, r.text]) for r in results)))


def _quoting(text: str) -> ShortAnswer:
    citations = [Citation(number=1, kind="passage", label="Marsh Bestiary", cited=True)]
    return ShortAnswer(text=f"{text} [1]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def test_a_made_up_trait_of_a_real_creature_is_nothing_known() -> None:
    # Whichever rule quoted the creature's line ("Guard 15." for a yes/no question about it), it is no answer.
    said = _quoting("Large giant. Guard 15.")
    for question, word in (
        ("does the marsh troll's acid spit burn through armor? whats the DC on it", "spit"),
        ("what's the save DC on the marsh troll's swamp howl", "howl"),
        ("how far does the troll's bog leap go", "leap"),
    ):
        assert unsupported(analyse(question), [], [TROLL], said) == word, question
        answer = supported(analyse(question), [], [TROLL], said)
        assert not answer.known and answer.text.startswith("Nothing the table knows")
    assert owned_unheld(fold_words("the troll's acid spit"), _held(TROLL), ()) == "spit"


def test_a_real_trait_or_a_rule_asked_of_its_owner_is_answered() -> None:
    assert "10 vigour" in reply(analyse("what does the marsh troll's regeneration do"), [], [TROLL]).text
    said = _quoting("The troll rakes a foe within reach for 2d6 slashing damage.")
    assert unsupported(analyse("how much damage does the troll's claw attack do"), [], [TROLL], said) is None
    assert "2d6" in reply(analyse("how much damage do the marsh troll's claws do"), [], [TROLL]).text
    held = _held(TROLL)
    # One word after the owner is a field or a rule said otherwise; the asker's own character asks a rule.
    assert owned_unheld(fold_words("the troll's healing"), held, ()) is None
    assert owned_unheld(fold_words("my troll's acid spit"), held, ()) is None
    # A field's word or a kind of thing after the owner names nothing of its own.
    assert owned_unheld(fold_words("the troll's claws damage"), held, ()) is None
    assert owned_unheld(fold_words("the troll's swamp attack"), held, ()) is None
    # A name asked of the thing owned, or a tie of kin in the table's words, is no made-up name.
    assert owned_unheld(fold_words("what is the troll's pet called"), held, ()) is None
    assert owned_unheld(fold_words("who is the troll's real mum"), held, ()) is None
    assert owned_unheld(fold_words("who is the troll's eldest da"), held, ()) is None
    # An owner the passages do not hold is another rule's to judge.
    assert owned_unheld(fold_words("the hag's acid spit"), held, ()) is None


def test_a_price_asked_in_the_tables_words_wants_an_amount() -> None:
    for question in ("what does glowcap moss sell for", "how much gold for a pouch of glowcap moss"):
        answer = reply(analyse(question), [], [_both_found(MOSS)])
        assert not answer.known, (question, answer.text)
    assert "3 silver" in reply(analyse("what does bitter reed sell for"), [], [REED]).text


def test_another_kind_of_the_thing_asked_is_not_answered_by_its_heading() -> None:
    answer = reply(analyse("what are the lair actions of the marsh troll"), [], [_both_found(TROLL)])
    assert not answer.known, answer.text
    assert reply(analyse("what are the legendary actions of the marsh troll"), [], [_both_found(TROLL)]).known


INNS = passage(
    "## Lodging\n\nA night at a common inn costs 5 sp. A traveller who sings for the guests may sleep at a fine "
    "inn instead.",
    "Marsh Bestiary",
    "Lodging",
    chunk_id=44,
)
WISPS = passage("## Wisp\n\nWisps are small lights of the fens.", "Marsh Bestiary", "Wisp", chunk_id=46)


def test_a_sentence_of_another_kind_is_no_answer_though_its_passage_names_the_kind_asked() -> None:
    said = _quoting("A night at a common inn costs 5 sp.")
    assert another_kind(analyse("fine inn, how many sp per night"), [], [INNS], said)
    assert not another_kind(analyse("common inn, how many sp per night"), [], [INNS], said)


def test_a_few_is_no_number_asked() -> None:
    for text, held in (
        ("Wisps live a few years longer than moths.", False),
        ("Wisps live a few hundred years.", True),
        ("Wisps live ninety years.", True),
    ):
        assert holds_asked("how many years do wisps live", [], [WISPS], _quoting(text)) is held, text


def test_a_name_after_an_owner_ends_at_a_comma() -> None:
    said = _quoting("The troll regains 10 vigour at the start of its turn unless it took fire damage.")
    question = analyse("does the marsh troll's vigour, lightning or cold, stop it")
    assert unsupported(question, [], [TROLL], said) is None


GRASP = passage(
    "## Mire Grasp\n\n*2nd-level conjuration*\n\n- **Classes** Warden, Witch\n\nMud rises around a creature; you "
    "learn its name if it fails its save.",
    "Spells",
    "Mire Grasp",
    chunk_id=54,
)


def test_a_thing_named_with_its_kind_is_held_by_the_passage_quoted() -> None:
    said = _quoting("Mud rises around a creature; you learn its name if it fails its save.")
    assert unsupported(analyse("can a warden learn the hex spell"), [], [GRASP], said) == "hex"
    assert unsupported(analyse("can a warden learn the mire grasp spell"), [], [GRASP], said) is None
    held = _held(GRASP)
    assert kind_unheld(fold_words("circle of the moon druids"), held) == "moon"
    assert kind_unheld(fold_words("oath of vengeance warden spells"), held) == "vengeance"
    # A kind's word before a noun ("spell slots"), or after a word saying which loosely, names nothing.
    assert kind_unheld(fold_words("how many thorn spell slots"), held) is None
    assert kind_unheld(fold_words("a good spell for a warden, or a racial spell"), held) is None
    assert kind_unheld(fold_words("what level spell is mire grasp"), held) is None
    # A spell whose name holds "monster" ("hold monster") is no monster named.
    assert kind_unheld(fold_words("can it be affected by a hold monster"), held) is None


def test_a_trait_named_with_its_kind_is_held_by_the_creatures_passage() -> None:
    held = _held(TROLL)
    assert kind_unheld(fold_words("does the marsh troll have a bog howl ability"), held) == "howl"
    assert kind_unheld(fold_words("how does the troll's claws attack work"), held) is None
    assert kind_unheld(fold_words("can the troll take a bonus action"), held) is None
    # A word the books write as two ("off-hand") is held by its halves.
    assert kind_unheld(fold_words("the offhand attack"), set(fold_words("an off-hand attack"))) is None


FURY = passage(
    "## Warden: Ember Fury\n\n*Warden feature, level 3*\n\nWhen you take damage, you can use your reaction to "
    "strike back.",
    "Class Features",
    "Warden: Ember Fury",
    chunk_id=55,
)


def test_a_word_before_a_features_owner_in_an_opening_phrase_names_another_kind_of_it() -> None:
    said = _quoting("When you take damage, you can use your reaction to strike back.")
    assert (
        unsupported(analyse("storm warden - can i strike back with a reaction"), [], [FURY], said) == "storm"
    )
    # The owner alone, or said whose or which loosely, is the owner of the feature quoted.
    assert unsupported(analyse("warden - can i strike back with a reaction"), [], [FURY], said) is None
    assert unsupported(analyse("new warden - can i strike back with a reaction"), [], [FURY], said) is None
