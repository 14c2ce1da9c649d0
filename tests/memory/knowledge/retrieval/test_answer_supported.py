"""An answer must quote passages about what was asked: the owner and the kind of a field asked, a name of two nouns
joined by "of" and a noun after a title in a bare phrase are words the passages quoted must hold."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_supported import supported, unsupported
from tests.memory.knowledge.retrieval.test_answer import card, passage

HOUND = passage(
    "## Ash Hound\n\n*Medium beast, unaligned*\n\n- **Armor Class** 14 (natural armor)\n- **Hit Points** 22 (4d8+4)"
    "\n- **Speed** 40 ft.\n- **Challenge** 1 (200 XP)\n\n***Keen Smell.*** The hound has advantage on Wisdom "
    "(Perception) checks that rely on smell.\n\n***Bite.*** Melee Weapon Attack: +5 to hit, reach 5 ft., one "
    "target. Hit: 7 (1d8 + 3) piercing damage.",
    "Bestiary",
    "Ash Hound",
    chunk_id=31,
)
EEL = passage(
    "## Cave Eel\n\n*Medium beast, unaligned*\n\n- **Armor Class** 12\n- **Hit Points** 9 (2d8)\n- **Speed** "
    "0 ft., swim 40 ft.",
    "Bestiary",
    "Cave Eel",
    chunk_id=34,
)
MOVING = passage(
    "## Speed\n\nA creature's speed is the distance it can move in a round.",
    "Rules",
    "Movement",
    "Speed",
    chunk_id=35,
)
LANCE = passage(
    "## Lance\n\n*2nd-level evocation*\n\n- **Casting Time** 1 action\n- **Range** 90 feet\n- **Duration** "
    "Instantaneous\n\nA spear of light flies from your hand. A creature in its path takes 3d8 radiant damage.",
    "Spells",
    "Lance",
    chunk_id=32,
)
WARDEN = passage(
    "## Warden\n\n- **Hit Die** d10\n- **Saving Throws** STR, WIS\n\n**Oath of Cinders.** Every warden swears "
    "an oath at 3rd level. Its tenets are to shelter the weak and to keep the hearth lit.",
    "Classes",
    "Warden",
    chunk_id=33,
)


def _quoting(text: str, number: int = 1) -> ShortAnswer:
    citations = [Citation(number=number, kind="passage", label="Bestiary", cited=True)]
    return ShortAnswer(text=f"{text} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def test_a_field_of_the_thing_named_is_answered() -> None:
    assert "14" in reply(analyse("what's the ash hound's armor class?"), [], [HOUND]).text
    assert "40 ft" in reply(analyse("what is the ash hound's speed"), [], [HOUND]).text
    assert reply(analyse("ash hound hit points"), [], [HOUND]).known


def test_a_field_of_an_owner_the_passage_never_names_is_nothing_known() -> None:
    for question in (
        "what's the ash hound alpha's armor class?",
        "what is the ash hound pack leader's bite damage?",
    ):
        answer = reply(analyse(question), [], [HOUND])
        assert not answer.known, question
        assert answer.text.startswith("Nothing the table knows")
        assert not any(c.cited for c in answer.citations)
    said = _quoting("Armor Class: 14 (natural armor).")
    assert unsupported(analyse("what's the ash hound alpha's armor class?"), [], [HOUND], said) == "alpha"
    assert unsupported(analyse("what's the ash hound's armor class?"), [], [HOUND], said) is None
    # The asker's own character names no thing of the books: the rule quoted need not name it.
    said = _quoting("A creature's speed is the distance it can move in a round.")
    assert unsupported(analyse("what's my warden's speed?"), [], [MOVING], said) is None
    assert unsupported(analyse("what's the warden's speed?"), [], [MOVING], said) == "warden"
    # Only the owner's last two words are its name: a verb before them is not.
    said = _quoting("Armor Class: 14 (natural armor).")
    question = analyse("pack alpha sets ash hound's armor class to what")
    assert unsupported(question, [], [HOUND], said) is None


def test_a_kind_of_the_field_asked_must_be_held() -> None:
    # Another passage found says a speed of that kind: the hound's plain speed is no answer.
    for question in ("does the ash hound have a swimming speed?", "what's the ash hound's swimming speed?"):
        assert not reply(analyse(question), [], [HOUND, EEL]).known, question
    assert "swim 40 ft" in reply(analyse("what's the cave eel's swimming speed?"), [], [EEL, HOUND]).text
    # Its speed said by default, or an amount of it, is what the passage writes.
    assert "40 ft" in reply(analyse("what is the ash hound's walking speed?"), [], [HOUND, EEL]).text
    said = _quoting("Hit Points: 22 (4d8+4).")
    for question in ("what's the ash hound's bonus damage?", "what are the ash hound's average hit points?"):
        assert unsupported(analyse(question), [], [HOUND, EEL], said) is None, question


def test_a_verb_before_a_field_is_no_kind_of_it() -> None:
    said = _quoting("Duration: Instantaneous.")
    assert unsupported(analyse("does lance need concentration?"), [], [LANCE], said) is None


def test_a_name_joined_by_of_must_be_held_whole() -> None:
    said = _quoting("Its tenets are to shelter the weak and to keep the hearth lit.")
    assert unsupported(analyse("what are the tenets of the oath of cinders?"), [], [WARDEN], said) is None
    assert unsupported(analyse("what are the tenets of the oath of storms?"), [], [WARDEN], said) == "storms"


def test_a_noun_after_the_title_in_a_bare_phrase_names_another_thing() -> None:
    said = _quoting("A spear of light flies from your hand.")
    assert unsupported(analyse("lance stones - how far do they fly"), [], [LANCE], said) == "stones"
    assert unsupported(analyse("ash hound whelp hit points"), [], [HOUND], _quoting("22 (4d8+4)")) == "whelp"
    # The last word of a bare phrase is what it asks; a word before a small word is a verb.
    assert unsupported(analyse("lance reach"), [], [LANCE], said) is None
    assert unsupported(analyse("lance flies from where"), [], [LANCE], said) is None
    assert unsupported(analyse("ash hound keen smell"), [], [HOUND], _quoting("advantage")) is None


def test_what_is_left_as_it_is() -> None:
    question = analyse("what's the ash hound alpha's armor class?")
    nothing = ShortAnswer(text="Nothing the table knows.", mode=AnswerMode.NOTHING, known=False)
    assert supported(question, [], [HOUND], nothing) is nothing
    # An answer quoting a canon fact, or no passage at all, is not judged here.
    fact = card("Ash Hound Alpha", description="An old hound.")
    canon = ShortAnswer(
        text="An old hound. [1]",
        mode=AnswerMode.GRAPH,
        known=True,
        citations=[Citation(number=1, kind="canon", label="Ash Hound Alpha", cited=True)],
    )
    assert supported(question, [fact], [HOUND], canon) is canon
    uncited = ShortAnswer(text="14.", mode=AnswerMode.EXTRACTIVE, known=True)
    assert supported(question, [], [HOUND], uncited) is uncited
    # A citation past the passages found is no passage quoted.
    assert unsupported(question, [], [HOUND], _quoting("14", number=5)) is None


def test_a_measure_asked_must_be_said_in_its_own_words() -> None:
    # A distance said of something else is no height; a size said in the measure's words is.
    reach = _quoting("Bite: Melee Weapon Attack: +5 to hit, reach 5 ft., one target.")
    assert unsupported(analyse("how tall is an ash hound?"), [], [HOUND], reach) == "tall"
    assert unsupported(analyse("how wide is an ash hound?"), [], [HOUND], reach) == "wide"
    said = _quoting("Ash hounds stand about 3 feet tall at the shoulder.")
    assert unsupported(analyse("how tall is an ash hound?"), [], [HOUND], said) is None
    # How high a thing goes is said by how far it rises; a reach is still no height.
    risen = _quoting("When the moon is full the water rises 12 feet over the mud flats.")
    assert unsupported(analyse("how high does the flood go at the docks?"), [], [HOUND], risen) is None
    assert unsupported(analyse("how high can an ash hound jump?"), [], [HOUND], reach) == "high"
    # A measure whose units are its own (a weight, a time) is not judged here.
    assert unsupported(analyse("how long does lance last?"), [], [LANCE], _quoting("Instantaneous.")) is None


def test_bad_questions_are_read_without_error() -> None:
    said = _quoting("14 (natural armor)")
    for question in ("", "?", "'s", "of", "of of of", "-- : --", "armor class", "'s armor class", "a" * 500):
        assert unsupported(analyse(question), [], [HOUND], said) in (None, *analyse(question).subject)
    assert unsupported(analyse("hound's"), [], [], said) is None
