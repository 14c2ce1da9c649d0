"""How a question of two parts is split and whom its second part asks about, on cards written here: "and", "and
also", a comma or a semicolon between two asking parts, a name before a colon; a pronoun read as the first part's
answer when it agrees with it, as what the first part names otherwise; a question of one part never split."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Relation, ShortAnswer
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_chain import agrees, said_of
from memory.knowledge.retrieval.answer_parts import second_of, two_parts
from memory.knowledge.retrieval.answer_reasons import reasoned


def _card(
    name: str, kind: str, *, matched: str = "", sex: str = "", relations=(), description=None, step=None
):  # type: ignore[no-untyped-def]
    return CanonFact(
        entity_id=hash(name) % 1000,
        entity_name=name,
        entity_type=kind,
        matched=matched or name,
        match_score=1.0,
        hidden=False,
        description=description,
        facts=[f"{name}'s sex: {sex}"] if sex else [],
        relations=list(relations),
        step=step,
    )


WARDENS = _card(
    "The Brass Wardens",
    "Faction",
    matched="Brass Wardens",
    relations=[
        Relation(subject="Odo Penn", predicate="LEADS", object="The Brass Wardens"),
        Relation(subject="The Brass Wardens", predicate="BASED_IN", object="Kelmark"),
    ],
)
ODO = _card("Odo Penn", "Person", matched="Odo", sex="male")
ANNIS = _card("Annis Penn", "Person", matched="Annis", sex="female")


def test_two_asking_parts_are_split_however_they_are_joined() -> None:
    for question in (
        "Who leads the Brass Wardens and where are they based?",
        "Who leads the Brass Wardens and also where are they based?",
        "Who leads the Brass Wardens, where are they based?",
        "Who leads the Brass Wardens; where are they based?",
        "who leads the brass wardens, and also where are they based",
    ):
        parts = two_parts(question, [WARDENS])
        assert parts is not None, question
        assert parts[0].casefold() == "who leads the brass wardens", question
        assert parts[1].casefold() == "where are the brass wardens based", question


def test_a_question_of_one_part_is_not_split() -> None:
    for question in (
        "when did Odo and Annis marry",
        "who is the lord of war and peace",
        "who did Odo marry and when",
        "when a troll heals, what stops it",
        "fighting the Brass Wardens, what happens to my sword",
    ):
        assert two_parts(question, [WARDENS, ODO, ANNIS]) is None, question


def test_a_name_before_a_colon_is_whom_both_parts_ask_of() -> None:
    assert two_parts("Annis: alive or dead, and where is she now?", [ANNIS]) == (
        "is Annis alive or dead",
        "where is Annis Penn now",
    )
    assert two_parts("Annis Penn: where is she, and what does she do?", [ANNIS]) == (
        "where is Annis Penn",
        "what does Annis Penn do",
    )


def test_a_pronoun_stands_for_what_it_agrees_with() -> None:
    assert agrees("her", "Person", "female") and not agrees("her", "Person", "male")
    assert not agrees("he", "Faction", None) and not agrees("it", "Person", None)
    assert agrees("they", "Faction", None) and agrees("she", None, None)
    assert said_of("what was her trade", "Annis Penn") == "what was Annis Penn's trade"
    assert said_of("what happened to her after", "Annis Penn") == "what happened to Annis Penn after"
    assert said_of("where is their seat", "The Brass Wardens") == "where is The Brass Wardens' seat"


def test_the_second_part_asks_of_the_first_part_s_answer_when_its_pronoun_agrees() -> None:
    parts = two_parts("who leads the Brass Wardens and where was he born", [WARDENS])
    assert parts == ("who leads the Brass Wardens", "where was he born")
    said = "Odo Penn leads the Brass Wardens. [1]"
    assert second_of(parts, said, [WARDENS]) == "where was Odo Penn born"
    # "it" never stands for the leader: the Wardens it is.
    parts = two_parts("who leads the Brass Wardens and where is it based", [WARDENS])
    assert parts is not None and second_of(parts, said, [WARDENS]) == "where is the Brass Wardens based"
    # "Who was Odo's mother": the card the step found is the answer, not Odo.
    mother = _card(
        "Annis Penn", "Person", matched="odo's mother", sex="female", step="Annis Penn is Odo's mother"
    )
    parts = two_parts("Who was Odo's mother and what was her trade?", [mother, ODO])
    assert parts is not None
    assert (
        second_of(parts, "Odo Penn's mother is Annis Penn.", [mother, ODO]) == "what was Annis Penn's trade"
    )
    # "who is Annis": she is the answer and what the first part names.
    parts = two_parts("who is Annis and what does she do", [ANNIS])
    assert (
        parts is not None
        and second_of(parts, "Annis Penn is a potter.", [ANNIS]) == "what does Annis Penn do"
    )


def _nothing() -> ShortAnswer:
    return ShortAnswer(text="Annis Penn is a potter. [1]", mode=AnswerMode.EXTRACTIVE, known=True)


def test_a_why_part_is_answered_by_a_reason_or_said_not_known() -> None:
    exiled = _card(
        "Annis Penn",
        "Person",
        description="Annis Penn went into exile in Kelmark. She was banished because she burned the mill.",
    )
    said = reasoned(
        "why did Annis Penn go into exile", _nothing(), [exiled], [], "where did Annis Penn go into exile"
    )
    assert said.text == "Annis Penn was banished because she burned the mill. [1]" and said.known
    assert [c.number for c in said.citations if c.cited] == [1]
    plain = _card("Annis Penn", "Person", description="Annis Penn went into exile in Kelmark.")
    said = reasoned(
        "why did Annis Penn go into exile", _nothing(), [plain], [], "where did Annis Penn go into exile"
    )
    assert (
        said.text == "Nothing the table knows answers “why did Annis Penn go into exile?”." and not said.known
    )
    # A reason about something else is no reason for the exile.
    other = _card(
        "Annis Penn", "Person", description="Annis Penn went into exile. She sings because she is happy."
    )
    said = reasoned("why did Annis Penn go into exile", _nothing(), [other], [], "")
    assert not said.known
    # Any other part's answer stays as it is.
    assert reasoned("where is Annis Penn", _nothing(), [plain], []) == _nothing()
