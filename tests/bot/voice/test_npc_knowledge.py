"""An NPC says what every character hearing it knows and nothing more; the GM may let it tell one secret, which
those present then learn, recorded as a reveal. Through the LLM stub server, on a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services
from bot.services.characters import Member
from canon.errors import InvalidInput, NotAllowed
from canon.models import NOW, Viewer, Visibility
from canon.proposals import EntityContent, FactContent, Ref
from canon.visibility import view_hidden
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import (
    GM,
    PAT,
    QUINN,
    SECRET_VALUE,
    Posts,
    open_services,
    play,
    seed,
    settings_for,
)
from tests.helpers.voice_stub import VoiceScript

DEBT = "owes the harbour guild a fortune"


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub) -> AsyncIterator[Services]:
    built = await open_services(db_target, settings_for(tmp_path, stub))
    yield built
    await built.close()


async def _secret_of(services: Services, campaign, value: str) -> int:  # type: ignore[no-untyped-def]
    card, _ = await services.queries.worded_card(campaign, "Mira", viewer=Viewer.GM)
    (view,) = [v for v in card.facts if v.statement.value == value]
    assert view_hidden(view)
    return view.statement.id


async def _table(services: Services):  # type: ignore[no-untyped-def]
    world = await seed(services)
    for name in ("Sable", "Brann"):
        await services.canon.add_direct(
            world.campaign, EntityContent(name=name, entity_type="PC"), GM, command="/canon add"
        )
    await services.canon.add_direct(
        world.campaign,
        FactContent(subject=Ref(name="Mira"), attribute="debt", value=DEBT, visibility=Visibility.GM_ONLY),
        GM,
        command="/canon add",
    )
    await services.characters.assign(world.campaign, "Sable", Member(PAT.id, PAT.name), GM)
    await services.characters.assign(world.campaign, "Brann", Member(QUINN.id, QUINN.name), GM)
    return world


async def test_an_npc_tells_what_all_who_hear_know_and_nothing_one_of_them_does_not(
    services: Services, stub: LLMStub
) -> None:
    world = await _table(services)
    pact = await _secret_of(services, world.campaign, SECRET_VALUE)
    await services.reveals.reveal(world.campaign, GM, to="Sable", reason="a letter", fact=pact)
    script = VoiceScript(npc_talk=f"*nods* You know it already: I serve {SECRET_VALUE}.")
    stub.responder = script
    posts = Posts()

    # Alone with Sable, who knows it, Mira may say it: it is in her material and the guard lets it through.
    posted = await services.voice.npc_talk(
        world.campaign, 870, "Mira", "Whom do you serve?", PAT, post=posts.npc
    )
    assert posted.status == "posted", posted
    assert SECRET_VALUE in script.prompts("npc_talk")[-1]
    # Quinn's Brann does not know it: the same words are held back, and were never in her material.
    blocked = await services.voice.npc_talk(
        world.campaign, 871, "Mira", "Whom do you serve?", QUINN, post=posts.npc
    )
    assert blocked.status == "blocked"
    assert SECRET_VALUE not in script.prompts("npc_talk")[-1]
    # In a scene where Brann spoke too, Sable's question is heard by both: held back.
    await play(services, world, [(QUINN, "I lean on the bar.")], channel_id=872)
    heard = await services.voice.npc_talk(
        world.campaign, 872, "Mira", "Whom do you serve?", PAT, post=posts.npc
    )
    assert heard.status == "blocked"
    assert [line for _, line in posts.npc_lines] == [posted.text]


async def test_the_gm_lets_an_npc_tell_a_secret_and_those_present_learn_it(
    services: Services, stub: LLMStub
) -> None:
    world = await _table(services)
    debt = await _secret_of(services, world.campaign, DEBT)
    stub.responder = VoiceScript(npc_talk=f"*sighs* Aye, Mira {DEBT}. There, I said it.")
    posts = Posts()
    # A player may not let an NPC tell anything; without a scene there is nobody present to learn it.
    with pytest.raises(NotAllowed):
        await services.voice.npc_talk(
            world.campaign, 880, "Mira", "Tell them.", PAT, post=posts.npc, tell=debt
        )
    with pytest.raises(InvalidInput, match="running scene"):
        await services.voice.npc_talk(
            world.campaign, 880, "Mira", "Tell them.", GM, post=posts.npc, tell=debt
        )
    scene = await play(services, world, [(PAT, "I ask about her money troubles.")], channel_id=881)
    reply = await services.voice.npc_talk(
        world.campaign, 881, "Mira", "Tell them.", GM, post=posts.npc, tell=debt
    )
    assert reply.status == "posted" and [i.who for i in reply.revealed] == ["Sable"], reply.revealed
    (item,) = reply.revealed
    assert "Mira told them in scene" in item.reveal.reason and item.reveal.scene_id == scene.id
    sable = await services.reveals.lens(world.campaign, PAT.id)
    brann = await services.reveals.lens(world.campaign, QUINN.id)
    assert sable is not None and debt in sable.at(NOW).statements
    assert brann is not None and debt not in brann.at(NOW).statements
    # The other secret stays one: nobody let her tell it.
    stub.responder = VoiceScript(npc_talk=f"And I serve {SECRET_VALUE}.")
    other = await services.voice.npc_talk(world.campaign, 881, "Mira", "And?", GM, post=posts.npc, tell=debt)
    assert other.status == "blocked" and other.revealed == ()


async def test_a_reply_that_does_not_tell_the_secret_records_no_reveal(
    services: Services, stub: LLMStub
) -> None:
    world = await _table(services)
    debt = await _secret_of(services, world.campaign, DEBT)
    stub.responder = VoiceScript(npc_talk="*shrugs* The fish are good this season.")
    await play(services, world, [(PAT, "Hello.")], channel_id=890)
    reply = await services.voice.npc_talk(
        world.campaign, 890, "Mira", "Well?", GM, post=Posts().npc, tell=debt
    )
    assert reply.status == "posted" and reply.revealed == ()
    assert await services.reveals.known(world.campaign, GM) == []
