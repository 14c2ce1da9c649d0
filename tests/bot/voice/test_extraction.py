"""Proposal extraction at /endscene and from imported prose, through the real LLM client and a local stub server."""

from __future__ import annotations

import itertools
import logging
import re
from pathlib import Path

import pytest

from bot.app import Services
from bot.llm.client import NOT_CONFIGURED_MESSAGE, LLMUnavailable
from canon.errors import Conflict, NotFound
from canon.models import Authority, EvidenceKind, Visibility
from canon.proposals import EntityContent, FactContent, ProposalStatus, Ref, StateChangeContent
from memory.scenes import SceneStatus, SpeakerKind
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub, Reply
from tests.helpers.voice_fixtures import GM, PAT, QUINN, Posts, World, open_services, play, seed, settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply, outside_frames, user_text

CHANNEL = 700

LINES = [
    (PAT, "I ask the Innkeeper about the stolen ledger."),
    (
        GM,
        "Mira admits she hid the ledger in the cellar. A hooded stranger named Corvin watches from the corner.",
    ),
    (QUINN, "I draw my sword and threaten Corvin."),
    (GM, "Corvin flees into the night, bleeding from a deep cut."),
]

GOOD_ITEMS = items_reply(
    {
        "kind": "entity",
        "name": "Corvin",
        "entity_type": "npc",
        "description": "a hooded stranger",
        "turns": [2],
        "confidence": 0.9,
    },
    {
        "kind": "fact",
        "subject": "the Innkeeper",
        "attribute": "hid",
        "value": "the ledger in the cellar",
        "turns": [2],
        "confidence": 0.8,
    },
    {"kind": "state_change", "subject": "Corvin", "state": "wounded", "turns": [4], "confidence": 0.7},
    # Already canon: merged into it, not proposed again.
    {
        "kind": "relationship",
        "subject": "Mira",
        "relation": "located in",
        "object": "Thornwall",
        "turns": [1],
    },
    # Not in the ontology: dropped by the reply model.
    {"kind": "relationship", "subject": "Corvin", "relation": "LOVES", "object": "Mira", "turns": [3]},
    # Cites a turn that does not exist: dropped.
    {"kind": "fact", "subject": "Corvin", "attribute": "eye_colour", "value": "green", "turns": [99]},
)


async def start(
    made: list[Services], target: DatabaseTarget, tmp_path: Path, stub: LLMStub | None, **voice
) -> tuple[Services, World]:
    services = await open_services(target, settings_for(tmp_path, stub, **voice))
    made.append(services)
    return services, await seed(services)


async def test_endscene_puts_extracted_proposals_on_the_review_card(
    db_target: DatabaseTarget,
    tmp_path: Path,
    stub: LLMStub,
    made: list[Services],
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = VoiceScript(extraction=GOOD_ITEMS)
    stub.responder = script
    services, world = await start(made, db_target, tmp_path, stub)
    scene = await play(services, world, LINES, channel_id=CHANNEL)
    # A player already proposed what the model will find too: the two are merged, not doubled.
    await services.proposals.propose(
        world.campaign,
        CHANNEL,
        FactContent(subject=Ref(name="Mira"), attribute="hid", value="the ledger in the cellar"),
        PAT,
        turns=(2, 2),
    )
    caplog.set_level(logging.INFO)
    report, review = await services.canon.end_scene(CHANNEL)

    assert report.scene.status == SceneStatus.REVIEW
    system = [p for p in review.proposals if p.authority == Authority.SYSTEM]
    by_kind = {p.content.type: p for p in system}
    assert sorted(by_kind) == ["entity", "state_change"], [p.content for p in review.proposals]
    corvin = by_kind["entity"]
    assert isinstance(corvin.content, EntityContent) and corvin.content.name == "Corvin"
    assert corvin.content.entity_type == "NPC" and corvin.confidence == 0.9 and corvin.origin == "extraction"
    assert corvin.status == ProposalStatus.PENDING
    (evidence,) = corvin.evidence
    assert (evidence.kind, evidence.scene_id, evidence.turn_from, evidence.turn_to) == (
        EvidenceKind.TURNS,
        scene.id,
        2,
        2,
    )
    wounded = by_kind["state_change"]
    assert isinstance(wounded.content, StateChangeContent)
    assert wounded.content.subject.proposal_id == corvin.id  # the new name points at its entity proposal

    # The player's proposal absorbed the extracted duplicate (the alias resolved to Mira): one proposal, both turns.
    (hid,) = [
        p for p in review.proposals if isinstance(p.content, FactContent) and p.content.attribute == "hid"
    ]
    assert hid.authority == Authority.PLAYER and hid.content.subject.entity_id == world.mira
    assert len(review.proposals) == 3

    # The prompt framed the transcript as data and listed the known entities it names.
    (prompt,) = script.seen["extraction"]
    text = user_text(prompt)
    assert "<<<DATA transcript" in text and "[2] Gina (GM): Mira admits" in text
    assert "- Mira (NPC; also: the Innkeeper)" in text and "Orsolya" not in text
    assert "Drowned Rat" in text and "Drowned Rat" not in outside_frames(text)  # the scene title is data
    assert stub.response_formats() == ["json_schema"]
    dropped = " ".join(r.getMessage() for r in caplog.records)
    assert "LOVES" in dropped or "relation" in dropped
    assert "cites no turn" in dropped and "already canon" in dropped


async def test_a_long_transcript_is_read_in_pieces_and_the_same_item_merged(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    def extraction(body: dict) -> dict:
        text = user_text(body)
        numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", text, flags=re.MULTILINE)]
        return items_reply(
            {
                "kind": "fact",
                "subject": "Mira",
                "attribute": "occupation",
                "value": "innkeeper",
                "turns": [numbers[0]],
                "confidence": 0.5 + len(numbers) / 1000,
            }
        )

    stub.responder = VoiceScript(extraction=extraction)
    services, world = await start(made, db_target, tmp_path, stub, extraction_piece_tokens=200)
    lines = [
        (
            PAT if i % 2 else GM,
            f"Turn {i}: Mira polishes another mug behind the bar while the rain keeps falling on Thornwall.",
        )
        for i in range(1, 31)
    ]
    await play(services, world, lines, channel_id=CHANNEL)
    _, review = await services.canon.end_scene(CHANNEL)
    requests = [r for r in stub.requests if "You extract" in r["messages"][0]["content"]]
    assert len(requests) >= 3
    firsts = sorted(int(re.findall(r"^\[(\d+)\]", user_text(r), flags=re.MULTILINE)[0]) for r in requests)
    assert firsts[0] == 1 and all(b - a > 1 for a, b in itertools.pairwise(firsts))
    (fact,) = review.proposals
    # One proposal, with each piece's cited turn as evidence of its own (not one range across them).
    assert sorted((e.turn_from, e.turn_to) for e in fact.evidence) == [(n, n) for n in firsts]


async def test_evidence_keeps_the_exact_turns_an_item_cites(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    stub.responder = VoiceScript(
        extraction=items_reply(
            {"kind": "entity", "name": "Corvin", "entity_type": "NPC", "turns": [4, 2, 3, 2]},
            {"kind": "state_change", "subject": "Corvin", "state": "wounded", "turns": [4, 1]},
        )
    )
    services, world = await start(made, db_target, tmp_path, stub)
    scene = await play(services, world, LINES, channel_id=CHANNEL)
    _, review = await services.canon.end_scene(CHANNEL)
    by_kind = {p.content.type: p for p in review.proposals}
    spans = {kind: [(e.scene_id, e.turn_from, e.turn_to) for e in p.evidence] for kind, p in by_kind.items()}
    assert spans == {"entity": [(scene.id, 2, 4)], "state_change": [(scene.id, 1, 1), (scene.id, 4, 4)]}
    assert by_kind["state_change"].rationale == "Read from turns 1 and 4 by the language model."
    assert by_kind["entity"].rationale == "Read from turns 2–4 by the language model."


async def test_a_piece_the_model_garbles_twice_is_skipped_and_the_rest_stands(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    good = items_reply({"kind": "entity", "name": "Corvin", "entity_type": "NPC", "turns": [30]})
    script = VoiceScript(extraction=[Reply.raw("{'items': [oops"), Reply.raw("still not JSON"), good])
    stub.responder = script
    services, world = await start(made, db_target, tmp_path, stub, extraction_piece_tokens=200)
    lines = [
        (PAT, f"Turn {i}: the rain keeps falling on the harbour and nobody says anything of note.")
        for i in range(1, 30)
    ]
    lines.append((GM, "A stranger named Corvin enters."))
    await play(services, world, lines, channel_id=CHANNEL)
    report, review = await services.canon.end_scene(CHANNEL)
    assert len(script.seen["extraction"]) >= 3  # piece 1, its repair, then the other pieces
    assert report.scene.status == SceneStatus.REVIEW
    assert [p.content.name for p in review.proposals if isinstance(p.content, EntityContent)] == ["Corvin"]


async def test_malformed_json_is_repaired_once(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    good = items_reply({"kind": "entity", "name": "Corvin", "entity_type": "NPC", "turns": [2]})
    stub.responder = VoiceScript(extraction=[Reply.raw('{"items": [{"kind": "entity", "name": '), good])
    services, world = await start(made, db_target, tmp_path, stub)
    await play(services, world, LINES, channel_id=CHANNEL)
    _, review = await services.canon.end_scene(CHANNEL)
    assert [p.content.name for p in review.proposals] == ["Corvin"]
    repair = stub.requests[-1]["messages"][-1]["content"]
    assert "not valid JSON" in repair


async def test_an_endpoint_refusing_json_schema_gets_json_object(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    async with LLMStub(no_json_schema=True) as stub:
        stub.responder = VoiceScript(extraction=GOOD_ITEMS)
        services, world = await start(made, db_target, tmp_path, stub)
        await play(services, world, LINES, channel_id=CHANNEL)
        _, review = await services.canon.end_scene(CHANNEL)
        assert stub.response_formats() == ["json_schema", "json_object"]
        assert {p.content.type for p in review.proposals} == {"entity", "fact", "state_change"}


async def test_rate_limits_errors_and_timeouts_are_retried(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    stub.responder = VoiceScript(extraction=GOOD_ITEMS)
    stub.add(Reply.error(429, retry_after="0"), Reply.error(500, retry_after="0"), Reply.slow(5.0))
    services, world = await start(made, db_target, tmp_path, stub)
    await play(services, world, LINES, channel_id=CHANNEL)
    _, review = await services.canon.end_scene(CHANNEL)
    assert len(stub.requests) == 4
    assert {p.content.type for p in review.proposals} == {"entity", "fact", "state_change"}


async def test_an_unreachable_llm_never_stops_the_scene_from_ending(
    db_target: DatabaseTarget,
    tmp_path: Path,
    stub: LLMStub,
    made: list[Services],
    caplog: pytest.LogCaptureFixture,
) -> None:
    stub.responder = lambda body: Reply.error(503, retry_after="0")
    services, world = await start(made, db_target, tmp_path, stub)
    await play(services, world, LINES, channel_id=CHANNEL)
    report, review = await services.canon.end_scene(CHANNEL)
    assert report.scene.status == SceneStatus.COMPLETED and review.proposals == []
    assert any("extraction" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


async def test_without_an_llm_the_scene_ends_and_extraction_says_why(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services, world = await start(made, db_target, tmp_path, None)
    scene = await play(services, world, LINES, channel_id=CHANNEL)
    report = await services.voice.extract_scene(scene)
    assert report.skipped == NOT_CONFIGURED_MESSAGE
    ended, review = await services.canon.end_scene(CHANNEL)
    assert ended.scene.status == SceneStatus.COMPLETED and not review.proposals
    with pytest.raises(LLMUnavailable, match="No language model is configured"):
        await services.voice.extract_source(world.campaign, 1)


PROSE = """# The Fall of Greywatch

Captain Ilsa Marrow held Greywatch for nine days against the raiders of the Salt Fleet.

On the tenth night the Innkeeper of Thornwall, Mira, opened the postern gate, and Greywatch fell.
"""


@pytest.mark.parametrize("hidden", [False, True, "section"])
async def test_imported_prose_becomes_source_proposals_waiting_in_a_batch(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services], hidden: bool | str
) -> None:
    """A hidden source's prose, or a GM-only section's ("section": the whole text under a marked heading), makes
    GM-only proposals."""
    script = VoiceScript(
        extraction=items_reply(
            {
                "kind": "entity",
                "name": "Ilsa Marrow",
                "entity_type": "NPC",
                "description": "captain of Greywatch",
                "turns": [1],
                "confidence": 0.95,
            },
            {"kind": "entity", "name": "Greywatch", "entity_type": "Location", "turns": [1]},
            {"kind": "state_change", "subject": "Greywatch", "state": "destroyed", "turns": [2]},
        )
    )
    stub.responder = script
    services, world = await start(made, db_target, tmp_path, stub)
    prose = (
        PROSE.replace("# The Fall of Greywatch", "# The Fall of Greywatch (GM only)")
        if hidden == "section"
        else PROSE
    )
    imported = await services.knowledge.import_bytes(
        world.campaign.id, "chronicle.md", prose.encode(), hidden=hidden is True
    )
    report = await services.voice.extract_source(world.campaign, imported.source.id)
    assert report.batch is not None and report.batch.startswith(f"extract:{imported.source.id}:")
    review = await services.reviews.review(None, campaign_id=world.campaign.id, batch=report.batch)
    assert len(review.proposals) == 3
    for proposal in review.proposals:
        assert proposal.authority == Authority.SOURCE and proposal.confidence == 0.6
        assert proposal.status == ProposalStatus.PENDING and proposal.scene_id is None
        (evidence,) = proposal.evidence
        assert evidence.kind == EvidenceKind.CHUNK and evidence.source_id == imported.source.id
        assert evidence.chunk_id is not None
        expected = Visibility.GM_ONLY if hidden else Visibility.PUBLIC
        assert proposal.content.visibility == expected
    assert "<<<DATA prose" in user_text(script.seen["extraction"][0])
    prompt = user_text(script.seen["extraction"][0])
    assert "Fall of Greywatch" in prompt and "Greywatch" not in outside_frames(prompt)  # titles are data
    assert "- Mira (NPC; also: the Innkeeper)" in user_text(script.seen["extraction"][0])
    usage = {line.purpose: line for line in await services.ledger.usage(world.campaign.id)}
    assert usage["prose_extraction"].calls == 1 and usage["prose_extraction"].prompt_tokens > 0


async def test_when_the_llm_goes_away_mid_scene_the_pieces_already_read_still_count(
    db_target: DatabaseTarget,
    tmp_path: Path,
    stub: LLMStub,
    made: list[Services],
    caplog: pytest.LogCaptureFixture,
) -> None:
    good = items_reply({"kind": "entity", "name": "Corvin", "entity_type": "NPC", "turns": [1]})
    script = VoiceScript(extraction=[good, Reply.error(503, retry_after="0")])
    stub.responder = script
    services, world = await start(made, db_target, tmp_path, stub, extraction_piece_tokens=200)
    lines = [(GM, "A stranger named Corvin enters.")]
    lines += [
        (PAT, f"Turn {i}: the rain keeps falling on the harbour and nobody says much.") for i in range(2, 30)
    ]
    scene = await play(services, world, lines, channel_id=CHANNEL)
    report = await services.voice.extract_scene(scene)
    assert report.pieces == 2 and report.stored == 1  # read one, stopped at the second
    assert len(report.failed_pieces) >= 2  # the second and every piece after it wait for another try
    assert len(script.seen["extraction"]) == 1 + 4  # the good piece, then one piece's four attempts
    assert any("extraction stopped at piece 2" in r.getMessage() for r in caplog.records)


async def test_what_a_narration_establishes_is_proposed_at_endscene(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    narrated = "Mira ladles out her smoked eel stew, the dish all of Thornwall knows her for."

    def extraction(body: dict) -> dict:
        # A careful reader: the fact is proposed only if the narrator's turn is in the transcript, citing it.
        cited = re.findall(r"^\[(\d+)\] Narrator: .*smoked eel stew", user_text(body), flags=re.MULTILINE)
        fact = {"kind": "fact", "subject": "Mira", "attribute": "signature_dish", "value": "smoked eel stew"}
        return items_reply({**fact, "turns": [int(n) for n in cited]}) if cited else items_reply()

    stub.responder = VoiceScript(narration=narrated, extraction=extraction)
    services, world = await start(made, db_target, tmp_path, stub)
    scene = await play(services, world, LINES[:1], channel_id=CHANNEL)
    outcome = await services.voice.narrate(CHANNEL, GM, post=Posts().narration)
    assert outcome.status == "posted"
    _, turns = await services.scenes.transcript(scene.id)
    narrator_turn = turns[-1]
    assert (narrator_turn.speaker, narrator_turn.text) == (SpeakerKind.NARRATOR, narrated)

    report, review = await services.canon.end_scene(CHANNEL)
    assert report.scene.status == SceneStatus.REVIEW
    (proposal,) = review.proposals
    assert isinstance(proposal.content, FactContent) and proposal.content.value == "smoked eel stew"
    assert proposal.content.subject.entity_id == world.mira and proposal.authority == Authority.SYSTEM
    assert [(e.scene_id, e.turn_from, e.turn_to) for e in proposal.evidence] == [
        (scene.id, narrator_turn.number, narrator_turn.number)
    ]


async def test_endscene_tells_how_many_pieces_were_read_and_refuses_a_second_end_meanwhile(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    heard: list[tuple[int, int]] = []
    stub.responder = VoiceScript(extraction={"items": []})
    services, world = await start(made, db_target, tmp_path, stub, extraction_piece_tokens=200)
    lines = [
        (PAT, f"Turn {i}: the rain keeps falling on the harbour and nobody says much.") for i in range(40)
    ]
    await play(services, world, lines, channel_id=CHANNEL)

    async def progress(read: int, total: int) -> None:
        heard.append((read, total))
        if len(heard) == 1:  # while the first end reads the transcript, a second one is refused
            with pytest.raises(Conflict, match="already being ended"):
                await services.canon.end_scene(CHANNEL)

    report, _ = await services.canon.end_scene(CHANNEL, progress=progress)
    total = heard[-1][1]
    assert total >= 3 and heard[-1] == (total, total)
    assert [read for read, _ in heard] == sorted(read for read, _ in heard)  # never backwards
    assert report.scene.status == SceneStatus.COMPLETED
    with pytest.raises(NotFound):  # the end is over: nothing left to end, and no guard left behind
        await services.canon.end_scene(CHANNEL)
