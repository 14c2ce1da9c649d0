"""Entities in lore questions: names given in part, possessive, plural or misspelt are linked; relation questions
are answered from the graph when canon holds the answer, and a GM-only answer stays "nothing known"."""

from __future__ import annotations

from pathlib import Path

from canon.models import Authority, StatementKind, Viewer, Visibility
from canon.ontology import base_ontology
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.retrieval import SearchConfig
from memory.knowledge.retrieval.entity_names import Names, best_matches, name_parts, singulars
from tests.helpers.knowledge_helpers import gm_writer, knowledge_service, new_campaign


def names(*entries: tuple[str, int]) -> Names:
    folded = {name.casefold(): (name, entity_id) for name, entity_id in entries}
    return folded, list(folded), name_parts(folded)


NAMES = names(("Ysolde Marrow", 1), ("Tomas Marrow", 2), ("Aboleth", 3), ("Greyhaven", 4), ("Harpy", 5))


def matched(question: str) -> list[str]:
    return [m.matched for m in best_matches(question, NAMES, SearchConfig())]


def test_names_are_linked_in_part_possessive_plural_and_misspelt() -> None:
    assert matched("Who is Ysolde's brother?") == ["Ysolde Marrow"]
    assert matched("Who is Ysolde’s brother?") == ["Ysolde Marrow"]
    assert matched("Where do aboleths live?") == ["Aboleth"]
    assert matched("Are harpies dangerous?") == ["Harpy"]
    assert matched("Who is Ysolda's brother?") == ["Ysolde Marrow"]  # a typo in a part of the name
    assert matched("who rules Greyhaven?") == ["Greyhaven"]
    # A part two entities share, typed as a plural, names neither (the house, not one of them); a part is a name
    # in any case, as names are typed everywhere, but a lower-case word is never taken for a misspelt part.
    assert matched("Who are the Marrows?") == []
    assert matched("who is ysolde?") == ["Ysolde Marrow"]
    assert matched("the tomas of the sea") == ["Tomas Marrow"]
    assert matched("who is ysolda?") == []
    assert singulars("harpies") == ["harpy", "harpi", "harpie"]


def test_a_name_never_takes_the_question_s_next_word() -> None:
    # "sergeant tobin crale spy" is near enough to be a slip of the name, but the name itself is nearer: the name
    # is the window that is it, and "spy" stays the question's; a slip inside the name is still read through.
    table = names(("Sergeant Tobin Crale", 1), ("Pellam Voss", 2))
    for question in ("who does sergeant tobin crale spy for", "who does sergeant tobin crale work for"):
        found = best_matches(question, table, SearchConfig())
        assert [(m.matched, m.window) for m in found] == [("Sergeant Tobin Crale", "sergeant tobin crale")]
    found = best_matches("spy sergeant tobin crale", table, SearchConfig())
    assert [m.window for m in found] == ["sergeant tobin crale"]
    found = best_matches("who does sergent tobin crale spy for", table, SearchConfig())
    assert [(m.matched, m.window) for m in found] == [("Sergeant Tobin Crale", "sergent tobin crale")]
    # A title the name is not written with, before it: the name is still the name alone.
    found = best_matches("who does captain pellam voss spy for", table, SearchConfig())
    assert [(m.matched, m.window) for m in found] == [("Pellam Voss", "pellam voss")]


def test_a_first_name_an_event_s_name_also_holds_finds_both() -> None:
    # The question's form chooses between them later (`answer_graph`); a family name typed as a plural names
    # nobody.
    table = names(("Tamsin Vaske", 1), ("Investiture of Tamsin", 2), ("Orrin Vaske", 3))
    found = [m.matched for m in best_matches("who is tamsin", table, SearchConfig())]
    assert sorted(found) == ["Investiture of Tamsin", "Tamsin Vaske"]
    assert [m.matched for m in best_matches("who are the vaskes", table, SearchConfig())] == []


async def test_relation_questions_are_answered_from_the_graph_and_gm_only_ones_stay_unknown(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        ysolde = await writer.create_entity(type="NPC", name="Ysolde Marrow", authority=Authority.GM)
        tomas = await writer.create_entity(
            type="NPC", name="Tomas Marrow", authority=Authority.GM, visibility=Visibility.GM_ONLY
        )
        maren = await writer.create_entity(type="NPC", name="Queen Maren", authority=Authority.GM)
        city = await writer.create_entity(type="Location", name="Greyhaven", authority=Authority.GM)
        await writer.add_statement(
            kind=StatementKind.RELATION,
            subject_id=ysolde,
            predicate="SIBLING_OF",
            object_id=tomas,
            authority=Authority.GM,
            visibility=Visibility.GM_ONLY,
        )
        await writer.add_statement(
            kind=StatementKind.RELATION,
            subject_id=maren,
            predicate="RULES",
            object_id=city,
            authority=Authority.GM,
        )

    await db.run(write)
    await service.import_bytes(
        campaign, "city.md", b"# Greyhaven\n\nA grey port city of fishers and smugglers on the cold coast."
    )
    ruled = await service.ask(campaign, "Who rules Greyhaven?", viewer=Viewer.PLAYER)
    assert ruled.reply is not None and ruled.reply.mode == AnswerMode.GRAPH
    assert ruled.reply.text == "Queen Maren rules Greyhaven. [1]"

    player = await service.ask(campaign, "Who is Ysolde's brother?", viewer=Viewer.PLAYER)
    assert [f.entity_name for f in player.canon_facts] == ["Ysolde Marrow"]  # the possessive name linked
    assert player.reply is not None and not player.reply.known
    assert player.reply.text == "Nothing the table knows says who Ysolde's brother is."
    assert "Tomas" not in player.model_dump_json()
    gm = await service.ask(campaign, "Who is Ysolde's brother?", viewer=Viewer.GM)
    assert gm.reply is not None and gm.reply.text == (
        "Ysolde Marrow's sibling is Tomas Marrow; canon does not say whether Tomas Marrow is a brother. [1]"
    )


GATE = b"""# Greyhaven

## North Gate

The north gate is open to travellers day and night. Its iron doors were forged by the first dwarves of the
hills, and the watch counts every cart that passes under the arch at dawn and at dusk.

## Harbour

The harbour is open to every ship that pays the toll. Fishing boats crowd the quays at dawn, and the
harbourmaster keeps a ledger of every hull, flag and cargo that comes in from the cold grey sea.
"""


async def test_a_canon_passage_the_story_changed_is_marked_out_of_date_for_those_who_may_know(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False, settings=LoreSettings(chunk_min_tokens=20))
    campaign = await new_campaign(db, "Greyhaven")
    ontology = base_ontology()

    made: dict[str, int] = {}

    async def gate(session, value: str, authority: Authority, visibility=Visibility.PUBLIC):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign, ontology)
        if "gate" not in made:
            made["gate"] = await writer.create_entity(type="Location", name="North Gate", authority=authority)
        await writer.add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=made["gate"],
            predicate="status",
            value=value,
            authority=authority,
            visibility=visibility,
        )

    await db.run(lambda s: gate(s, "open", Authority.SOURCE))
    await service.import_bytes(campaign, "greyhaven.md", GATE, knowledge_class=KnowledgeClass.CANON)
    before = await service.ask(campaign, "Is the north gate open?", viewer=Viewer.PLAYER)
    assert before.results[0].heading_path[-1] == "North Gate" and before.results[0].out_of_date is None

    await db.run(lambda s: gate(s, "collapsed", Authority.GM))
    after = await service.ask(campaign, "Is the north gate open?", viewer=Viewer.PLAYER)
    first = after.results[0]
    assert first.heading_path[-1] == "North Gate"
    assert first.out_of_date == "North Gate's status is collapsed"
    assert all(r.out_of_date is None for r in after.results if r.heading_path[-1] == "Harbour")
    assert after.reply is not None
    number = next(c.number for c in after.reply.citations if c.chunk_id == first.chunk_id)
    assert f"[{number}] is out of date: North Gate's status is collapsed now." in after.reply.text

    # Imported again (a new version), the source's report tells the GM which section the story has changed.
    again = await service.import_bytes(
        campaign, "greyhaven.md", GATE + b"\nNew text.\n", knowledge_class=KnowledgeClass.CANON
    )
    assert (
        "“Greyhaven › North Gate” says what the story has changed since: now North Gate's status is collapsed."
        in (again.warnings)
    )

    # A change players may not know of marks nothing for them (the GM sees it).
    await db.run(lambda s: gate(s, "rubble", Authority.GM, Visibility.GM_ONLY))
    player = await service.ask(campaign, "Is the north gate open?", viewer=Viewer.PLAYER)
    assert player.results[0].out_of_date == "North Gate's status is collapsed"
    gm = await service.ask(campaign, "Is the north gate open?", viewer=Viewer.GM)
    assert gm.results[0].out_of_date == "North Gate's status is rubble"
    # Asked for the attribute itself, canon from play answers before the imported prose.
    (card,) = [f for f in gm.canon_facts if f.entity_name == "North Gate"]
    assert card.facts == ["North Gate's status: rubble"]  # the values it replaced are not read as current
    status = await service.ask(campaign, "What is the status of the North Gate?", viewer=Viewer.PLAYER)
    assert status.reply is not None and status.reply.mode == AnswerMode.GRAPH
    assert status.reply.text == "North Gate's status: collapsed. [1]"


async def test_a_many_valued_attribute_keeps_every_value_and_marks_nothing_out_of_date(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        corin = await writer.create_entity(type="NPC", name="Corin Vale", authority=Authority.GM)
        for value in ("owes Brannoc forty silver", "owes the guild a favour"):
            await writer.add_statement(
                kind=StatementKind.ATTRIBUTE,
                subject_id=corin,
                predicate="debt",
                value=value,
                authority=Authority.GM,
            )

    await db.run(write)
    await service.import_bytes(
        campaign,
        "people.md",
        b"# People\n\n## Corin Vale\n\nCorin Vale owes Brannoc forty silver and drinks at the Gull.",
        knowledge_class=KnowledgeClass.CANON,
    )
    answer = await service.ask(campaign, "Who is Corin Vale?", viewer=Viewer.PLAYER)
    (card,) = answer.canon_facts
    assert card.facts == [
        "Corin Vale's debt: owes Brannoc forty silver",
        "Corin Vale's debt: owes the guild a favour",
    ]
    assert all(r.out_of_date is None for r in answer.results)


def test_a_part_several_names_share_finds_each_alike_unless_it_begins_one() -> None:
    table = names(
        ("Maelis Orrow", 1),
        ("Cassel Orrow", 2),
        ("House Orrow", 3),
        ("Tamsin Vaske", 4),
        ("Investiture of Tamsin", 5),
        ("The Ashen Corsairs of Morrow", 6),
        ("The Corsairs' Rest", 7),
        ("The Lamplighters' Guild", 8),
    )

    def found(question: str) -> dict[str, bool]:
        return {m.matched: m.shared for m in best_matches(question, table, SearchConfig())}

    # A family name: each of them, alike (`answer_which` asks which, or the form tells them apart).
    assert found("who is orrow") == {"Maelis Orrow": True, "Cassel Orrow": True, "House Orrow": True}
    # A part one name begins is that name's first (a possessive begins nothing: "Corsairs'" of the tavern).
    tamsin = best_matches("who is tamsin", table, SearchConfig())
    assert [(m.matched, m.shared) for m in tamsin] == [
        ("Tamsin Vaske", False),
        ("Investiture of Tamsin", False),
    ]
    assert found("who leads the corsairs") == {
        "The Ashen Corsairs of Morrow": True,
        "The Corsairs' Rest": True,
    }
    # A possessive word is found without its ending.
    assert found("who is in the lamplighters") == {"The Lamplighters' Guild": False}
