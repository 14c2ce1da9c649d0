"""Yes/no questions about a state: the yes or no follows whether canon's state is the state asked about."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.models import Authority, StatementKind, Validity, Viewer
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.retrieval.answer_canon import verdict
from tests.helpers.knowledge_helpers import gm_writer, knowledge_service, new_campaign

#: Who is in which state: (type, name, state).
_CAST = (
    ("NPC", "Oswin Harrow", "alive"),
    ("NPC", "Mara Thorn", "dead"),
    ("NPC", "Brannoc Reed", "wounded"),
    ("NPC", "Ilse Varn", "imprisoned"),
    ("NPC", "Kest Morrow", "missing"),
    ("Creature", "Vorl the Pale", "undead"),
    ("Item", "Sunblade", "destroyed"),
    ("Location", "North Gate", "damaged"),
    ("Faction", "Ashen Guild", "dissolved"),
)

_ASKED = [
    # The play-test's questions: a living Oswin is not dead.
    ("Is Oswin Harrow dead?", "No: Oswin Harrow is alive"),
    ("Is Oswin Harrow alive?", "Yes: Oswin Harrow is alive"),
    ("Is Oswin Harrow still alive?", "Yes: Oswin Harrow is alive"),
    ("Did Oswin Harrow die?", "No: Oswin Harrow is alive"),
    ("is oswin harrow dead yet", "No: Oswin Harrow is alive"),
    ("Was Oswin Harrow killed?", "No: Oswin Harrow is alive"),
    ("Is Oswin Harrow deceased?", "No: Oswin Harrow is alive"),
    ("Is Oswin Harrow living?", "Yes: Oswin Harrow is alive"),
    ("Is Oswin Harrow wounded?", "No: Oswin Harrow is alive"),
    ("Is Mara Thorn dead?", "Yes: Mara Thorn died in year 320"),
    ("Is Mara Thorn still alive?", "No: Mara Thorn died in year 320"),
    ("did mara thorn die?", "Yes: Mara Thorn died in year 320"),
    ("Has Mara Thorn been killed?", "Yes: Mara Thorn died in year 320"),
    ("Is Brannoc Reed wounded?", "Yes: Brannoc Reed is wounded"),
    ("Is Brannoc Reed alive?", "Yes: Brannoc Reed is wounded"),
    ("Is Brannoc Reed dead?", "No: Brannoc Reed is wounded"),
    ("Is Ilse Varn imprisoned?", "Yes: Ilse Varn is imprisoned"),
    ("Is Ilse Varn still alive?", "Yes: Ilse Varn is imprisoned"),
    ("Is Ilse Varn missing?", "No: Ilse Varn is imprisoned"),
    ("Is Kest Morrow missing?", "Yes: Kest Morrow is missing"),
    # Missing: whereabouts unknown, so whether Kest lives the card cannot tell; it says what it knows.
    ("Is Kest Morrow alive?", "Nothing the table knows says whether Kest Morrow is alive; they are missing"),
    ("Is Kest Morrow dead?", "Nothing the table knows says whether Kest Morrow is alive; they are missing"),
    ("Is Vorl the Pale undead?", "Yes: Vorl the Pale is undead"),
    ("Is Vorl the Pale alive?", "No: Vorl the Pale is undead"),
    ("Is Vorl the Pale dead?", "No: Vorl the Pale is undead"),
    ("Is the Sunblade destroyed?", "Yes: Sunblade is destroyed"),
    ("Is the Sunblade intact?", "No: Sunblade is destroyed"),
    ("Is the North Gate damaged?", "Yes: North Gate is damaged"),
    ("Is the North Gate destroyed?", "No: North Gate is damaged"),
    ("Is the Ashen Guild dissolved?", "Yes: Ashen Guild is dissolved"),
]


@pytest.fixture
async def asked(db: Database, tmp_path: Path):  # type: ignore[no-untyped-def]
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Third Age")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        for kind, name, state in _CAST:
            entity = await writer.create_entity(type=kind, name=name, authority=Authority.GM)
            await writer.add_statement(
                kind=StatementKind.STATE,
                subject_id=entity,
                predicate="state",
                value=state,
                authority=Authority.GM,
                validity=Validity(world_from="320", world_from_key=320),
            )

    await db.run(write)

    async def ask(question: str) -> str:
        answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, record=False)
        assert answer.reply is not None and answer.reply.mode == AnswerMode.GRAPH, answer.reply
        return answer.reply.text

    return ask


async def test_a_yes_no_question_about_a_state_is_answered_by_whether_canon_holds_that_state(asked) -> None:  # type: ignore[no-untyped-def]
    wrong = []
    for question, start in _ASKED:
        text = await asked(question)
        # The sentence is the card's, dated; a verdict only when the state decides it.
        if not text.startswith(start) or (":" not in start and text.startswith(("Yes:", "No:"))):
            wrong.append((question, text))
    assert wrong == []


@pytest.mark.parametrize(
    ("question", "state", "expected"),
    [
        ("Is X alive or dead?", "alive", None),  # two states asked: the sentence answers, not a yes/no
        ("How did X die?", "dead", None),  # no yes/no question
        ("Is X dead?", None, None),  # no state on the card
        ("Is X dead?", "destroyed", "Yes"),  # a terminal state ends a life as dead does
        ("Is X cursed?", "cursed", "Yes"),
        ("Is X alive?", "cursed", "Yes"),
        ("Is X cursed?", "alive", "No"),
    ],
)
def test_a_verdict_needs_one_state_asked_and_a_state_known(
    question: str, state: str | None, expected: str | None
) -> None:
    assert verdict(question, state, terminal=state in {"dead", "destroyed"}) == expected
