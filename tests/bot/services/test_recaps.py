"""Recaps in the campaign journal: the language model's summary when configured, else extractive; written once."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import Services
from canon.errors import Conflict
from canon.models import Viewer, Visibility
from canon.proposals import FactContent, Ref
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import GM, PAT, QUINN, open_services, play, seed, settings_for
from tests.helpers.voice_stub import VoiceScript

LINES = [
    (PAT, "I ask the Innkeeper where the stolen ledger went."),
    (GM, "Mira whispers that the ledger is hidden in the cellar."),
    (QUINN, "I keep watch at the door."),
]
SUMMARY = "Pat learned from Mira that the ledger lies in the cellar while Quinn kept watch."


async def play_and_commit(services: Services, channel: int) -> int:
    world = await seed(services)
    scene = await play(services, world, LINES, channel_id=channel)
    await services.proposals.propose(
        world.campaign,
        channel,
        FactContent(subject=Ref(name="Mira"), attribute="occupation", value="keeper of the ledger"),
        PAT,
        turns=(2, 2),
    )
    await services.proposals.propose(
        world.campaign,
        channel,
        FactContent(
            subject=Ref(name="Mira"),
            attribute="nickname",
            value="Orsolya's eyes",
            visibility=Visibility.GM_ONLY,
        ),
        GM,
    )
    _, review = await services.canon.end_scene(channel)
    with pytest.raises(Conflict, match="recap once it is committed"):
        await services.recaps.recap_scene(scene.id)
    for proposal in review.proposals:
        await services.reviews.decide(proposal.id, accept=True, actor=GM)
    await services.canon.commit_scene(scene.id, GM)
    return scene.id


async def test_without_a_model_the_recap_is_extractive_and_leaves_gm_only_facts_out(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    scene_id = await play_and_commit(services, 901)
    recap = await services.recaps.recap_scene(scene_id)
    assert recap.method == "extractive" and recap.summary is None
    assert recap.facts == ("Mira's occupation: keeper of the ledger",)  # not the GM-only debt
    assert recap.present == ("Pat", "Gina", "Quinn")
    assert [(c.number, c.author) for c in recap.cited] == [(2, "Gina")]
    assert await services.recaps.recap_scene(scene_id) == recap  # kept: written once


async def test_with_a_model_the_recap_carries_its_summary(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    script = VoiceScript(summary=SUMMARY)
    async with LLMStub(responder=script) as stub:
        services = await open_services(db_target, settings_for(tmp_path, stub))
        made.append(services)
        scene_id = await play_and_commit(services, 902)
        recap = await services.recaps.recap_scene(scene_id)
        await services.voice.drain()
    assert recap.method == "llm" and recap.summary == SUMMARY
    assert recap.facts == ("Mira's occupation: keeper of the ledger",)


async def test_a_summary_telling_gm_only_canon_is_not_posted_in_the_recap(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    """The model's summary is checked by the same guard as narration, fed the present entities' GM cards."""
    leaked = "Pat learned that Mira, whom the GM calls Orsolya's eyes, hid the ledger in the cellar."
    script = VoiceScript(summary=leaked)
    async with LLMStub(responder=script) as stub:
        services = await open_services(db_target, settings_for(tmp_path, stub))
        made.append(services)
        scene_id = await play_and_commit(services, 903)
        recap = await services.recaps.recap_scene(scene_id)
        await services.voice.drain()
    assert script.prompts("summary"), "the model was asked for a summary"
    assert recap.method == "extractive" and recap.summary is None
    assert "Orsolya" not in str(recap)


async def test_a_recap_read_after_a_retcon_marks_the_fact_and_never_the_gm_only_one(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    scene_id = await play_and_commit(services, 905)
    campaign = await services.campaigns.by_name("Shattered Isles")
    job = await services.facts.pick(campaign, "Mira's job", viewer=Viewer.GM)  # job: a form of occupation
    await services.admin.retcon(campaign, job, GM, rationale="she never kept it", new_value="brewer")
    eyes = await services.facts.pick(campaign, "Orsolya's eyes", viewer=Viewer.GM)
    await services.admin.retcon(campaign, eyes, GM, rationale="no one calls her that")
    recap = await services.recaps.recap_scene(scene_id)
    assert recap.facts == ("Mira's occupation: keeper of the ledger",)  # the journal keeps what was written
    assert recap.standing() == ()
    (gone,) = recap.retconned  # the GM-only nickname is never named, retconned or not
    assert gone.fact == "Mira's occupation: keeper of the ledger"
    assert gone.now is not None and gone.now.startswith("Mira's occupation: brewer")
    (latest,) = await services.recaps.latest(campaign, 1)
    assert latest.retconned == recap.retconned


async def test_a_players_proposal_the_gm_kept_to_those_present_is_not_in_the_recap(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    world = await seed(services)
    scene = await play(services, world, LINES, channel_id=906)
    for attribute, value in (("occupation", "keeper of the ledger"), ("secret", "sells the ledger")):
        await services.proposals.propose(
            world.campaign, 906, FactContent(subject=Ref(name="Mira"), attribute=attribute, value=value), PAT
        )
    _, review = await services.canon.end_scene(906)
    _public, secret = review.proposals
    await services.marks.toggle(secret.id, GM)  # the review card's "Only those present": GM-only canon now
    for proposal in review.proposals:
        await services.reviews.decide(proposal.id, accept=True, actor=GM)
    await services.canon.commit_scene(scene.id, GM)
    recap = await services.recaps.recap_scene(scene.id)
    assert recap.facts == ("Mira's occupation: keeper of the ledger",), recap.facts
    assert "sells the ledger" not in str(recap)
