"""The short answer without a language model: from the graph, extractive, or an honest "nothing known"."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Relation
from memory.knowledge.models import CanonFact, KnowledgeClass, LoreResult
from memory.knowledge.retrieval.answer import compose, key_words, nothing_known, same_word, sentences


def passage(
    text: str,
    *heading: str,
    chunk_id: int = 1,
    cls: KnowledgeClass = KnowledgeClass.REFERENCE,
    out_of_date: str | None = None,
) -> LoreResult:
    return LoreResult(
        chunk_id=chunk_id,
        source_id=10,
        source_title="World",
        filename="world.md",
        knowledge_class=cls,
        heading_path=list(heading),
        text=text,
        token_count=len(text.split()),
        score=1.0,
        reasons=[],
        out_of_date=out_of_date,
    )


def card(
    name: str,
    *,
    description: str | None = None,
    relations: list[Relation] | None = None,
    facts: list[str] | None = None,
) -> CanonFact:
    return CanonFact(
        entity_id=7,
        entity_name=name,
        entity_type="Person",
        matched=name.split()[0],
        match_score=100.0,
        hidden=False,
        description=description,
        facts=facts or [],
        relations=relations or [],
    )


DEEP_SPEECH = passage(
    "## Deep Speech\n\nDeep Speech is the language aboleths and cloakers speak. It has no script of its own.",
    "Languages",
    "Deep Speech",
    chunk_id=3,
)
ELF = passage("## Elf\n\nElves love nature, magic and art. They live long lives.", "Races", "Elf", chunk_id=4)


def test_an_extractive_answer_quotes_the_best_sentence_and_cites_its_passage() -> None:
    answer = compose("Who speaks Deep Speech?", [], [ELF, DEEP_SPEECH])
    assert answer.known and answer.mode == AnswerMode.EXTRACTIVE
    assert answer.text.startswith("Deep Speech is the language aboleths and cloakers speak. [2]")
    cited = [c for c in answer.citations if c.cited]
    assert [c.label for c in cited] == ["World › Languages › Deep Speech"]


def test_plurals_match_their_singular() -> None:
    assert same_word("aboleths", "aboleth") and same_word("rules", "ruler") and not same_word("elf", "end")
    answer = compose("Tell me about the aboleth", [], [ELF, DEEP_SPEECH])
    assert "aboleths" in answer.text and "[2]" in answer.text


def test_a_three_letter_word_matches_its_endings_only() -> None:
    # "How much does Tobin owe Mirela?" must find "owes Mirela 60 silver".
    assert same_word("owe", "owes") and same_word("owed", "owe") and same_word("owe", "owing")
    assert same_word("run", "runs") and same_word("run", "running") and same_word("die", "died")
    assert not same_word("owe", "own") and not same_word("run", "rune") and not same_word("war", "ward")
    assert not same_word("cat", "catch") and not same_word("elf", "elves")


def test_a_last_y_made_i_and_a_past_not_made_by_an_ending_are_the_same_word() -> None:
    # "is he a spy" against "spies for the Margrave"; "did the order leave" against "left".
    assert same_word("spy", "spies") and same_word("spied", "spy") and same_word("carry", "carried")
    assert same_word("leave", "left") and same_word("fled", "flee") and same_word("gone", "went")
    assert not same_word("day", "dies") and not same_word("play", "plaies") and not same_word("spy", "spite")
    assert not same_word("leave", "lift") and not same_word("left", "felt")


def test_nothing_known_when_no_passage_holds_the_question_s_names() -> None:
    answer = compose("Who is Ysolde's brother?", [card("Ysolde Marrow")], [ELF, DEEP_SPEECH])
    assert not answer.known and answer.mode == AnswerMode.NOTHING
    assert answer.text == "Nothing the table knows says who Ysolde's brother is."
    assert not any(c.cited for c in answer.citations)


def test_a_relation_question_is_answered_from_the_graph_first() -> None:
    sibling = Relation(subject="Ysolde Marrow", predicate="SIBLING_OF", object="Tomas Marrow")
    answer = compose("Who is Ysolde's brother?", [card("Ysolde Marrow", relations=[sibling])], [ELF])
    assert answer.mode == AnswerMode.GRAPH
    assert answer.text == "Ysolde Marrow's sibling is Tomas Marrow. [1]"
    ruler = Relation(subject="Queen Maren", predicate="RULES", object="Greyhaven")
    ruled = compose("who rules Greyhaven?", [card("Greyhaven", relations=[ruler])], [])
    assert ruled.text == "Queen Maren rules Greyhaven. [1]"


def test_a_question_about_an_entity_is_answered_by_its_card() -> None:
    answer = compose("Who is Ysolde?", [card("Ysolde Marrow", description="The harbourmaster.")], [ELF])
    assert answer.text == "Ysolde Marrow is the harbourmaster. [1]" and answer.mode == AnswerMode.GRAPH
    other = compose("Who is Ysolde?", [card("Ysolde Marrow", description="Keeps the harbour.")], [ELF])
    assert other.text == "Ysolde Marrow: Keeps the harbour. [1]"


def test_inspiration_is_never_quoted_as_fact() -> None:
    mood = passage("Deep Speech sounds like wet stone grinding.", "Mood", cls=KnowledgeClass.INSPIRATION)
    assert not compose("What does Deep Speech sound like?", [], [mood]).known


def test_an_out_of_date_passage_is_marked_in_the_answer() -> None:
    gate = passage(
        "The north gate is open to travellers.",
        "Greyhaven",
        "North Gate",
        out_of_date="North Gate is collapsed",
    )
    answer = compose("Is the north gate open?", [], [gate])
    assert "[1] is out of date: North Gate is collapsed now." in answer.text
    assert answer.citations[0].out_of_date == "North Gate is collapsed"


def test_question_words_and_sentences() -> None:
    assert key_words("Tell me about Ysolde’s brother") == ["ysolde", "brother"]
    assert sentences("# Title\n\n| a | b |\n|---|---|\nOne sentence here. Another one follows.") == [
        "One sentence here.",
        "Another one follows.",
    ]
    assert nothing_known("Where is the Tidegate?") == "Nothing the table knows says where the Tidegate is."
    assert nothing_known("Does the king sleep") == "Nothing the table knows answers “Does the king sleep”."
    # Never a broken sentence: what cannot be turned round is quoted whole.
    assert (
        nothing_known("who is Mara married to")
        == "Nothing the table knows answers “who is Mara married to?”."
    )
    assert nothing_known("where was Oswin born") == "Nothing the table knows answers “where was Oswin born?”."
    assert nothing_known("where is Oswin held") == "Nothing the table knows answers “where is Oswin held?”."
    assert (
        nothing_known("where was the crown kept")
        == "Nothing the table knows answers “where was the crown kept?”."
    )
    assert nothing_known("who is taller, Mara or Oswin") == (
        "Nothing the table knows answers “who is taller, Mara or Oswin?”."
    )
    assert (
        nothing_known("what guild is Mara in") == "Nothing the table knows answers “what guild is Mara in?”."
    )
    assert nothing_known("how old is Mara") == "Nothing the table knows says how old Mara is."
    assert (
        nothing_known("who is the abbot of the drowned")
        == "Nothing the table knows says who the abbot of the drowned is."
    )


def parent(subject: str, child: str) -> Relation:
    return Relation(subject=subject, predicate="PARENT_OF", object=child)


#: Aldren Vale's card as a player sees it: his parents, his wife and his two children.
ALDREN = card(
    "Aldren Vale",
    relations=[
        parent("Edric Vale", "Aldren Vale"),
        parent("Helena Vale", "Aldren Vale"),
        Relation(subject="Aldren Vale", predicate="SPOUSE_OF", object="Mirela Vale"),
        parent("Aldren Vale", "Corin Vale"),
        parent("Aldren Vale", "Tamsin Vale"),
    ],
)


def test_a_relation_question_reads_the_relation_s_direction_and_names_every_one() -> None:
    children = compose("Who are the children of Aldren Vale?", [ALDREN], [])
    assert children.mode == AnswerMode.GRAPH
    assert children.text == "Aldren Vale's children are Corin Vale and Tamsin Vale. [1]"
    parents = compose("Who are Aldren Vale's parents?", [ALDREN], [])
    assert parents.text == "Aldren Vale's parents are Edric Vale and Helena Vale. [1]"
    wife = compose("Who is Aldren Vale's wife?", [ALDREN], [])
    assert wife.text == "Aldren Vale is married to Mirela Vale. [1]"


def test_how_many_is_answered_with_the_count() -> None:
    answer = compose("How many children does Aldren Vale have?", [ALDREN], [])
    assert answer.text == "Aldren Vale has two children: Corin Vale and Tamsin Vale. [1]"
    corin = card("Corin Vale", relations=[parent("Aldren Vale", "Corin Vale")])
    assert compose("How many parents does Corin Vale have?", [corin], []).text == (
        "Corin Vale has one parent: Aldren Vale. [1]"
    )


def test_a_relation_the_card_holds_only_the_other_way_round_is_not_an_answer() -> None:
    corin = card("Corin Vale", relations=[parent("Aldren Vale", "Corin Vale")])
    answer = compose("Who are the children of Corin Vale?", [corin], [])
    assert not answer.known and answer.mode == AnswerMode.NOTHING


def test_a_fact_from_play_is_found_by_the_stem_of_the_question_s_verb() -> None:
    maren = card("Maren Marrow", facts=["Maren Marrow's stolen goods: the lantern gears Tamsin carried"])
    for question in (
        "What did Maren Marrow steal?",
        "What has Maren Marrow stolen?",
        "What Maren Marrow stole",
    ):
        answer = compose(question, [maren], [])
        assert answer.mode == AnswerMode.GRAPH, question
        assert answer.text == "Maren Marrow's stolen goods: the lantern gears Tamsin carried. [1]"
    assert same_word("steal", "stolen") and same_word("stole", "steal") and not same_word("steal", "stale")


def test_a_second_sentence_that_answers_nothing_is_left_out() -> None:
    gate = passage(
        "The north gate is open to travellers by day and night. Greyhaven carts pass at dawn.",
        "Greyhaven",
        "North Gate",
    )
    answer = compose("Is the north gate of Greyhaven open?", [], [gate])
    assert answer.text == "The north gate is open to travellers by day and night. [1]"


def test_a_sentence_saying_he_or_she_is_quoted_with_the_one_before_that_names_them() -> None:
    keeper = passage(
        "# The Gilded Eel\n\nBrannoc Marrow keeps the bar. He is Maren Marrow's elder brother, a big, slow-spoken "
        "man. The cellar floods every spring.",
        "The Gilded Eel",
    )
    said = compose("who is maren marrow's brother", [], [keeper])
    assert said.text == (
        "Brannoc Marrow keeps the bar. He is Maren Marrow's elder brother, a big, slow-spoken man. [1]"
    )
    # A sentence naming its subject is quoted alone.
    named = passage(
        "# The Gilded Eel\n\nThe cellar floods every spring. Brannoc keeps the bar.", "The Gilded Eel"
    )
    assert compose("who keeps the bar at the gilded eel", [], [named]).text == "Brannoc keeps the bar. [1]"
