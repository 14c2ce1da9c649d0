"""A field asked in a player's long question: the words that only set its scene need not be in the passage.

`field_answer.headed` wants the passage about the subject to hold every word of it; a player's question says
more ("a focus *check*", "a stunned *enemy* *around*"). A word many of the campaign's chunks hold
(`RetrievalTrace.common_words`) is read as the scene's, when the passage holds enough of the rest and the word
does not qualify a name ("*giant* war drake", "crossbow of *ice*"). The passages are a starship game's, in a
layout the SRD does not use (a plain list, no stat block)."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.field_answer import headed, scene_words
from tests.memory.knowledge.retrieval.test_answer import passage

FOCUS = passage(
    "Holding a psionic focus takes your whole attention.\n\n"
    "Whenever you take damage while holding a focus, you must make a Resolve save to keep it. "
    "The DC equals 12 or half the damage you take, whichever number is higher.",
    "Psionics",
    "Using Powers",
    "Focus",
    chunk_id=1,
)
TOWING = passage(
    "A tractor beam can hold one stunned ship. While towing, your speed is halved.",
    "Starship Combat",
    "Stunned Ships",
    chunk_id=2,
)
DRAKE = passage(
    "War drakes carry marines between hulls.\n\n- Speed: 40 ft., fly 80 ft.\n- Hull: 30",
    "Alien Archive",
    "War Drake",
    chunk_id=3,
)
ARMS = passage(
    "- Hand crossbow: 75 cr., 3 lb.\n- Stun baton: 20 cr., 2 lb.",
    "Gear",
    "Weapons",
    "Hand crossbow",
    chunk_id=4,
)
# A common word is in many passages: this one's "check" and "around" among them.
OTHER = passage(
    "Docks restore one cell an hour. A crew chief must check each seal and walk around the hull.",
    "Gear",
    "Docking",
    chunk_id=5,
)


def test_common_words_of_a_long_question_set_its_scene_and_the_field_is_answered() -> None:
    asked = analyse("whats the dc for a focus check when i take dmg")
    # Without knowing "check" is a common word, the passage on focus is not about "a focus check".
    assert not reply(asked, [], [FOCUS, OTHER]).known
    answer = reply(asked, [], [FOCUS, OTHER], common=["check"])
    assert answer.known
    assert answer.text == "The DC equals 12 or half the damage you take, whichever number is higher. [1]"
    towing = analyse("if im towing a stunned enemy around what happens to my speed")
    said = reply(towing, [], [TOWING, OTHER], common=["enemy", "around"])
    assert said.text == "While towing, your speed is halved. [1]"


def test_a_rare_word_a_qualifier_or_too_little_held_is_no_scene() -> None:
    named = ["dc", "focus", "check"]
    assert scene_words(analyse("whats the dc for a focus check"), named, ["check"], ["check"])
    # A word few chunks hold names something ("a focus flayer"): not forgiven.
    assert not scene_words(analyse("whats the dc for a focus check"), named, ["check"], [])
    # One word held is not enough to read the rest as scene.
    assert not scene_words(analyse("focus check dc"), ["focus", "check"], ["check"], ["check"])


def test_an_unanswerable_field_of_a_qualified_name_is_still_nothing_known() -> None:
    # "giant" before the drake's name and "of ice" after the crossbow's qualify them: other entries.
    for question, found, common in (
        ("what is the speed of a giant war drake", DRAKE, ["giant"]),
        ("how much does a hand crossbow of ice weigh", ARMS, ["ice"]),
    ):
        asked = analyse(question)
        assert not headed(asked, common)(found), question
        answer = reply(asked, [], [found, OTHER], common=common)
        assert not answer.known, question
        assert not any(c.cited for c in answer.citations), question
