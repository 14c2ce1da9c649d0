"""/lore retrieval: isolation between campaigns, hidden and disabled sources, classes, budgets, canon facts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from canon.campaigns import CampaignRow
from canon.errors import InvalidInput, NotFound
from canon.models import Authority, Viewer, Visibility
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge.models import Answer, KnowledgeClass
from memory.knowledge.retrieval import SearchConfig
from memory.knowledge.service import KnowledgeService
from memory.vector_index import ChromaVectorIndex, VectorHit
from tests.helpers.knowledge_helpers import (
    LeakyVectorIndex,
    gm_writer,
    knowledge_service,
    new_campaign,
)
from tests.helpers.retrieval_worlds import ALPHA_WORLD

MODES = ("default", "lexical", "semantic", "rrf")


BETA_WORLD = """# Westhaven

## The Crown of Westhaven

Queen Borin Ashveil rules Westhaven from the Ember Throne. Her sigil is a red fox over a burning field.

## The Old Abbey

The abbey bears a seven-pointed star. Its nuns brew the Ember Cordial.
"""


SECRET = """# Secrets of the Abbey

## The Abbot

The abbot of the Old Abbey is a vampire named Severin Nightglass who feeds on pilgrims in the crypt.
"""


def texts(answer: Answer) -> str:
    return "\n".join(r.text for r in answer.results)


async def ask_everything(
    service: KnowledgeService, campaign: int, question: str, viewer: Viewer
) -> list[Answer]:
    """Ask in every mode, with a small and a large limit."""
    answers = []
    for name in MODES:
        for limit in (1, 25):
            answers.append(await service.ask(campaign, question, viewer=viewer, limit=limit, config=name))
    return answers


async def test_two_campaigns_with_overlapping_names_and_text_never_leak(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    alpha = await new_campaign(db, "Alpha")
    beta = await new_campaign(db, "Beta")
    a = await service.import_bytes(alpha, "world.md", ALPHA_WORLD.encode())
    b = await service.import_bytes(beta, "world.md", BETA_WORLD.encode())
    hidden_b = await service.import_bytes(beta, "secrets.md", SECRET.encode(), hidden=True)
    assert a.source.id != b.source.id

    for viewer in (Viewer.PLAYER, Viewer.GM):
        for question in (
            "Who rules Westhaven and what is the sigil?",
            "abbey symbol",
            "Borin Ashveil ember fox",
        ):
            for answer in await ask_everything(service, alpha, question, viewer):
                assert {r.source_id for r in answer.results} <= {a.source.id}
                assert answer.results or "Borin" in question  # nothing of Alpha has these words
                assert "Borin" not in texts(answer) and "Ember" not in texts(answer)
                assert all(c.source_id == a.source.id for c in answer.trace.candidates)
            for answer in await ask_everything(service, beta, "Aldric Stormborn gull throne", viewer):
                assert "Aldric" not in texts(answer) and "gull" not in texts(answer).lower()

    # Nothing of Beta is reachable from Alpha by id either.
    assert [s.id for s in await service.list_sources(alpha)] == [a.source.id]
    for source_id in (b.source.id, hidden_b.source.id):
        with pytest.raises(NotFound):
            await service.get_source(alpha, source_id)
        with pytest.raises(NotFound):
            await service.set_source(alpha, source_id, knowledge_class=KnowledgeClass.CANON)
        with pytest.raises(NotFound):
            await service.disable_source(alpha, source_id)
        with pytest.raises(NotFound):
            await service.delete_source(alpha, source_id)
    beta_answer = await service.ask(beta, "who rules?", viewer=Viewer.GM)
    assert beta_answer.retrieval_id is not None
    with pytest.raises(NotFound):
        await service.get_retrieval(alpha, beta_answer.retrieval_id, viewer=Viewer.GM)
    # Each campaign has its own collection.
    assert service.vectors is not None
    assert await service.vectors.count(alpha) == 3 * a.chunk_count
    assert await service.vectors.count(beta) == 3 * (b.chunk_count + hidden_b.chunk_count)


async def test_a_vector_index_that_leaks_is_still_filtered_by_the_database(
    db: Database, tmp_path: Path
) -> None:
    leaky = LeakyVectorIndex()  # one shared store ignoring campaigns and filters
    service = knowledge_service(db, tmp_path, vectors=leaky)
    alpha = await new_campaign(db, "Alpha")
    beta = await new_campaign(db, "Beta")
    a = await service.import_bytes(alpha, "world.md", ALPHA_WORLD.encode())
    await service.import_bytes(beta, "world.md", BETA_WORLD.encode())
    await service.import_bytes(alpha, "secrets.md", SECRET.encode(), hidden=True)
    for question in ("queen borin ember throne fox", "vampire abbot crypt"):
        answer = await service.ask(alpha, question, viewer=Viewer.PLAYER, config="semantic", limit=25)
        assert {r.source_id for r in answer.results} <= {a.source.id}
        assert "Borin" not in texts(answer) and "vampire" not in texts(answer)


async def test_a_hidden_source_never_reaches_a_player_and_the_gm_sees_it_marked(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    public = await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    secret = await service.import_bytes(
        campaign, "secrets.md", SECRET.encode(), hidden=True, knowledge_class=KnowledgeClass.CANON
    )
    assert secret.source.hidden
    for question in (
        "Who is the abbot? Is he a vampire?",
        "Severin Nightglass",
        "Secrets of the Abbey crypt",
    ):
        for answer in await ask_everything(service, campaign, question, Viewer.PLAYER):
            assert secret.source.id not in {r.source_id for r in answer.results}
            assert "vampire" not in texts(answer).lower() and "Severin" not in texts(answer)
            assert all(not c.hidden and c.source_id != secret.source.id for c in answer.trace.candidates)
            assert answer.trace.allowed_sources == 1
    # A misspelling close to a word only the hidden source has is never "corrected" towards it.
    typo = await service.ask(campaign, "who is Severn Nightglas?", viewer=Viewer.PLAYER)
    assert "nightglass" not in " ".join(typo.trace.warnings).lower()
    assert "nightglass" not in (typo.trace.lexical_query or "")

    gm = await service.ask(campaign, "Who is the abbot? Is he a vampire?", viewer=Viewer.GM)
    top = gm.results[0]
    assert top.source_id == secret.source.id and top.hidden and "hidden" in top.label
    assert all(not r.hidden for r in gm.results if r.source_id == public.source.id)

    # By any other call: listing, inspecting, the stored answer of the GM shown to a player.
    assert [s.id for s in await service.list_sources(campaign, viewer=Viewer.PLAYER)] == [public.source.id]
    with pytest.raises(NotFound):
        await service.get_source(campaign, secret.source.id, viewer=Viewer.PLAYER)
    with pytest.raises(NotFound):
        await service.chunks(campaign, secret.source.id, viewer=Viewer.PLAYER)
    assert gm.retrieval_id is not None
    shown = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.PLAYER)
    assert all(not r.hidden for r in shown.results) and "vampire" not in "".join(
        r.text for r in shown.results
    )
    assert all(not c.hidden for c in shown.trace.candidates)
    as_gm = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.GM)
    assert any(r.hidden for r in as_gm.results)

    # Unhiding makes it visible; hiding it again removes it.
    await service.set_source(campaign, secret.source.id, hidden=False)
    assert "vampire" in texts(await service.ask(campaign, "is the abbot a vampire?", viewer=Viewer.PLAYER))
    await service.set_source(campaign, secret.source.id, hidden=True)
    assert "vampire" not in texts(
        await service.ask(campaign, "is the abbot a vampire?", viewer=Viewer.PLAYER)
    )


async def test_a_disabled_source_is_never_retrieved(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    world = await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    secret = await service.import_bytes(campaign, "secrets.md", SECRET.encode(), hidden=True)
    disabled = await service.disable_source(campaign, secret.source.id)
    assert not disabled.enabled
    await service.disable_source(campaign, world.source.id)
    for viewer in (Viewer.PLAYER, Viewer.GM):
        for question in ("vampire abbot", "King Aldric gull sigil"):
            for answer in await ask_everything(service, campaign, question, viewer):
                assert answer.results == [] and answer.trace.candidates == []
    assert {s.enabled for s in await service.list_sources(campaign)} == {False}  # still stored
    await service.enable_source(campaign, world.source.id)
    answer = await service.ask(campaign, "King Aldric gull sigil", viewer=Viewer.GM)
    assert answer.results and {r.source_id for r in answer.results} == {world.source.id}


async def test_a_gm_answer_opened_by_a_player_names_no_hidden_entity_and_no_correction(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        await writer.create_entity(type="NPC", name="Captain Mirelle Vantross", authority=Authority.GM)
        await writer.create_entity(
            type="NPC", name="Severin Nightglass", authority=Authority.GM, visibility=Visibility.GM_ONLY
        )

    await db.run(write)
    await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    await service.import_bytes(
        campaign, "secrets.md", b"# Secrets\n\n## Nightglass\n\nA vampire's name.", hidden=True
    )
    question = "who are Severin Nightglas and captain Mirelle Vantross?"
    gm = await service.ask(campaign, question, viewer=Viewer.GM, config="lexical")
    assert gm.retrieval_id is not None
    # The GM's own trace names the hidden entity and the correction towards the hidden source's heading.
    assert any("Severin Nightglass" in m for m in gm.trace.entity_matches)
    assert any("nightglass" in w for w in gm.trace.warnings)

    shown = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.PLAYER)
    assert [m.split(" → ")[1].split(" (")[0] for m in shown.trace.entity_matches] == [
        "Captain Mirelle Vantross"
    ]
    assert [f.entity_name for f in shown.canon_facts] == ["Captain Mirelle Vantross"]
    assert shown.trace.warnings == [] and shown.trace.lexical_query is None
    assert "nightglass" not in shown.trace.model_dump_json().lower()
    assert (await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.GM)).trace == gm.trace

    # A player's own answer keeps its warnings: they were made from what the player may see.
    player = await service.ask(campaign, "who rules Westhavn?", viewer=Viewer.PLAYER, config="lexical")
    assert player.retrieval_id is not None and player.trace.warnings
    mine = await service.get_retrieval(campaign, player.retrieval_id, viewer=Viewer.PLAYER)
    assert mine.trace.warnings == player.trace.warnings
    assert mine.trace.lexical_query == player.trace.lexical_query


async def test_deleting_a_source_keeps_the_answers_already_given(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    world = await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    answer = await service.ask(campaign, "who rules Westhaven?", viewer=Viewer.PLAYER, asker_id=42)
    assert answer.retrieval_id is not None and answer.results
    used = (await service.list_sources(campaign))[0]
    assert used.times_used == 1 and used.last_used_at is not None
    report = await service.delete_source(campaign, world.source.id)
    assert report.chunks_removed == world.chunk_count and report.vectors_removed and report.file_removed
    assert service.vectors is not None and await service.vectors.count(campaign) == 0
    assert await service.list_sources(campaign) == []
    assert (await service.ask(campaign, "who rules Westhaven?", viewer=Viewer.PLAYER)).results == []
    record = await service.get_retrieval(campaign, answer.retrieval_id, viewer=Viewer.PLAYER)
    assert record.question == "who rules Westhaven?" and record.asker_id == 42
    assert [r.text for r in record.results] == [r.text for r in answer.results]
    assert record.results[0].filename == "world.md" and "Aldric" in record.results[0].text
    assert record.trace.candidates


class RecordingChroma(ChromaVectorIndex):
    """The real Chroma index, remembering each search's depth and metadata filter."""

    def __init__(self, path: Path) -> None:
        super().__init__(path=path)
        self.searches: list[tuple[int, tuple[int, ...]]] = []

    async def query(
        self, campaign_id: int, vector: Sequence[float], *, limit: int, exclude_sources: Sequence[int] = ()
    ) -> list[VectorHit]:
        self.searches.append((limit, tuple(exclude_sources)))
        return await super().query(campaign_id, vector, limit=limit, exclude_sources=exclude_sources)


async def test_a_large_hidden_source_is_searched_around_and_filtered_only_when_it_crowds_the_top(
    db: Database, tmp_path: Path
) -> None:
    chroma = RecordingChroma(tmp_path / "chroma")
    settings = LoreSettings(chunk_min_tokens=20, chunk_max_tokens=50, chunk_overlap_tokens=0)
    service = knowledge_service(db, tmp_path, settings=settings, vectors=chroma)
    campaign = await new_campaign(db, "Westhaven")
    halls = "".join(
        f"## Throne hall {n}\n\nKing Aldric Stormborn sits on the Gull Throne in hall {n} and hears the "
        "petitions of the harbour folk.\n\n"
        for n in range(6)
    )
    public = await service.import_bytes(campaign, "court.md", f"# Court\n\n{halls}".encode())
    assert public.chunk_count >= 5  # at least as many as a search wants
    crypts = "".join(
        f"## Crypt {n}\n\nThe vampire abbot Severin drinks the blood of sleeping pilgrims in crypt {n}, "
        "below the bell tower of the Old Abbey.\n\n"
        for n in range(30)
    )
    hidden = await service.import_bytes(campaign, "crypts.md", f"# Crypts\n\n{crypts}".encode(), hidden=True)
    assert hidden.chunk_count == 30
    # Five chunks wanted (fifteen vectors, three views each): 90 hidden vectors are too many to fetch past.
    config = SearchConfig(mode="semantic", semantic_k=5)

    chroma.searches.clear()
    crowded = await service.ask(
        campaign, "which vampire drinks the blood of pilgrims?", viewer=Viewer.PLAYER, config=config
    )
    assert chroma.searches == [(30, ()), (15, (hidden.source.id,))]  # twice as deep, then filtered
    assert crowded.results and {r.source_id for r in crowded.results} == {public.source.id}
    assert crowded.trace.semantic_candidates == 5

    chroma.searches.clear()
    clear = await service.ask(campaign, "who sits on the Gull Throne?", viewer=Viewer.PLAYER, config=config)
    assert chroma.searches == [(30, ())]  # enough allowed vectors in the deeper search: no filter
    assert clear.results[0].source_id == public.source.id

    chroma.searches.clear()
    gm = await service.ask(campaign, "which vampire drinks blood?", viewer=Viewer.GM, config=config)
    assert chroma.searches == [(15, ())] and gm.results[0].source_id == hidden.source.id


async def test_a_branch_sees_its_parent_sources_and_its_own_never_leak_back(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    parent = await new_campaign(db, "Main")

    async def fork(session):  # type: ignore[no-untyped-def]
        row = CampaignRow(name="What if", parent_id=parent, fork_changeset_id=0, settings={})
        session.add(row)
        await session.flush()
        return row.id

    branch = await db.run(fork)
    world = await service.import_bytes(parent, "world.md", ALPHA_WORLD.encode())
    own = await service.import_bytes(
        branch, "branch.md", b"# Branch\n\nIn this branch the gull throne burned."
    )
    seen = await service.list_sources(branch)
    assert [(s.id, s.inherited_from) for s in seen] == [(world.source.id, parent), (own.source.id, None)]
    answer = await service.ask(branch, "gull throne", viewer=Viewer.PLAYER, limit=5)
    assert {r.source_id for r in answer.results} == {world.source.id, own.source.id}
    back = await service.ask(parent, "gull throne burned branch", viewer=Viewer.GM, limit=25)
    assert own.source.id not in {r.source_id for r in back.results}
    with pytest.raises(InvalidInput, match="forked from"):
        await service.disable_source(branch, world.source.id)
    # A branch file with the same name shadows the parent's.
    shadow = await service.import_bytes(branch, "world.md", BETA_WORLD.encode())
    assert {s.id for s in await service.list_sources(branch)} == {shadow.source.id, own.source.id}
    answer = await service.ask(branch, "who rules Westhaven?", viewer=Viewer.GM, limit=25)
    assert "Aldric" not in texts(answer) and "Borin" in texts(answer)
