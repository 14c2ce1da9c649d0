"""Canon questions that ask where, when, whether someone lives, or who they are: sentences, never a dump."""

from __future__ import annotations

from pathlib import Path

from canon.models import Authority, StatementKind, Validity, Viewer, Visibility
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode
from tests.helpers.knowledge_helpers import gm_writer, knowledge_service, new_campaign


async def test_where_when_alive_and_who_are_answered_in_the_card_s_sentences(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        ford = await writer.create_entity(type="Location", name="Red Ford", authority=Authority.GM)
        battle = await writer.create_entity(
            type="Event", name="Battle of Red Ford", description="A bloody crossing.", authority=Authority.GM
        )
        aldric = await writer.create_entity(
            type="NPC", name="Aldric Vyr", description="A knight of the Grey Order.", authority=Authority.GM
        )
        secret = await writer.create_entity(type="NPC", name="Morwen Vale", authority=Authority.GM)
        await writer.add_statement(
            kind=StatementKind.RELATION,
            subject_id=battle,
            predicate="OCCURRED_AT",
            object_id=ford,
            authority=Authority.GM,
            validity=Validity(world_from="352", world_from_key=352),
        )
        await writer.add_statement(
            kind=StatementKind.STATE,
            subject_id=aldric,
            predicate="state",
            value="dead",
            authority=Authority.GM,
        )
        await writer.add_statement(
            kind=StatementKind.RELATION,
            subject_id=aldric,
            predicate="PARTICIPATED_IN",
            object_id=battle,
            authority=Authority.GM,
        )
        await writer.add_statement(
            kind=StatementKind.STATE,
            subject_id=secret,
            predicate="state",
            value="dead",
            authority=Authority.GM,
            visibility=Visibility.GM_ONLY,
        )

    await db.run(write)

    async def said(question: str, viewer: Viewer = Viewer.PLAYER) -> str:
        answer = await service.ask(campaign, question, viewer=viewer, record=False)
        assert answer.reply is not None
        return answer.reply.text

    where = await said("Where was the Battle of Red Ford fought?")
    assert where.startswith("The Battle of Red Ford took place at Red Ford") and where.endswith("[1]")
    assert "352" in await said("When was the Battle of Red Ford?")
    assert (await said("Is Aldric Vyr still alive?")).startswith("No: Aldric Vyr is dead")
    who = await said("Who is Aldric Vyr?")
    assert who.startswith("Aldric Vyr is a knight of the Grey Order.") and "is dead" in who
    assert "_" not in who and "None" not in who  # no ids, no empty values
    # A GM-only state stays the GM's: the player hears nothing known, not a guess.
    player = await service.ask(campaign, "Is Morwen Vale still alive?", viewer=Viewer.PLAYER, record=False)
    assert player.reply is not None and player.reply.mode != AnswerMode.GRAPH
    assert (await said("Is Morwen Vale still alive?", Viewer.GM)).startswith("No: Morwen Vale is dead")


async def test_a_fact_whose_value_names_another_entity_answers_the_question_asking_it(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Third Age")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        tobin = await writer.create_entity(type="NPC", name="Tobin Vell", authority=Authority.GM)
        await writer.create_entity(
            type="NPC", name="Mirela", description="A moneylender.", authority=Authority.GM
        )
        await writer.add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=tobin,
            predicate="debt",
            value="owes Mirela 60 silver",
            authority=Authority.GM,
        )

    await db.run(write)
    for question in (
        "How much does Tobin owe Mirela?",
        "What does Tobin Vell owe?",
        "how much does tobin vell owe mirela",
    ):
        answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, record=False)
        assert answer.reply is not None and answer.reply.mode == AnswerMode.GRAPH, question
        assert answer.reply.text.startswith("Tobin Vell's debt: owes Mirela 60 silver. ["), question
