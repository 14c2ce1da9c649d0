"""What a branch remembers and can look up, by meaning too: NPC memories and `/lore` through the lineage.

Real Chroma and the real embedding model: the point is that the vector collections of the parent are queried
with the fork's cut-off, not only the SQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services, build_services
from canon.models import Viewer
from canon.proposals import FactContent, Ref
from config.settings import Settings
from memory.scenes import SceneStatus
from tests.conftest import DatabaseTarget
from tests.helpers.voice_fixtures import GM, PAT, QUINN, World, play, seed


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[Services]:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", gm_role="GM")  # type: ignore[call-arg]
    built = await build_services(settings, db=db_target.open())
    try:
        yield built
    finally:
        await built.close()


async def finish(services: Services, channel_id: int) -> int:
    report, _ = await services.canon.end_scene(channel_id)
    if report.scene.status != SceneStatus.COMPLETED:
        await services.reviews.accept_all(report.scene.id, GM)
        await services.canon.commit_scene(report.scene.id, GM)
    await services.voice.drain()
    return report.scene.id


async def test_an_npc_in_a_branch_never_remembers_a_scene_played_only_in_the_parent_after_the_fork(
    services: Services,
) -> None:
    world = await seed(services)
    main = world.campaign
    ledger = [
        (PAT, "I ask the Innkeeper where the stolen ledger went."),
        (GM, "Mira whispers that the ledger is hidden in the cellar, under the wine barrels."),
    ]
    await play(services, world, ledger, channel_id=801, title="The ledger")
    before_fork = await finish(services, 801)
    branch = await services.branches.fork(main, "What if")

    password = [
        (PAT, "I ask Mira for the password of the north gate."),
        (GM, "Mira leans in: the password at the gate is moonwater."),
    ]
    await play(services, world, password, channel_id=802, title="The password")
    await finish(services, 802)
    dragon = [
        (QUINN, "Mira, what do you know of the dragon?"),
        (GM, "Mira says the dragon sleeps under the old lighthouse."),
    ]
    branch_world = World(branch, world.mira, world.aldric, world.thornwall, world.orsolya)
    scene = await play(services, branch_world, dragon, channel_id=803, title="The dragon")
    assert scene.story_order == 2
    await finish(services, 803)

    _, remembered = await services.voice.npc_memories(branch, "Mira")
    contents = " ".join(m.content for m in remembered)
    assert "cellar" in contents and "lighthouse" in contents and "moonwater" not in contents
    assert {m.scene_id for m in remembered if m.campaign_id == main.id} == {before_fork}
    _, parent_memories = await services.voice.npc_memories(main, "Mira")
    parent_text = " ".join(m.content for m in parent_memories)
    assert "moonwater" in parent_text and "lighthouse" not in parent_text

    stamps = {m.id: m.last_accessed_at for m in parent_memories}
    recalled = await services.voice.memories.recall(
        branch.id, world.mira, "what is the password of the north gate?", limit=10
    )
    assert recalled and all("moonwater" not in r.memory.content for r in recalled)
    assert any("cellar" in r.memory.content for r in recalled)  # found by meaning in the parent's collection
    assert any(r.similarity > 0 for r in recalled if r.memory.campaign_id == main.id)
    # Recalling in the branch never writes to the parent's rows.
    _, parent_after = await services.voice.npc_memories(main, "Mira")
    assert {m.id: m.last_accessed_at for m in parent_after} == stamps

    moments = await services.voice.similar_scenes(branch, "the password of the north gate", limit=5)
    assert {m.scene_id for m in moments} == {before_fork, scene.id}  # never the parent's later scene


async def test_a_branch_remembers_what_its_parent_forgot_after_the_fork_by_meaning_too(
    services: Services,
) -> None:
    world = await seed(services)
    main = world.campaign
    ledger = [
        (PAT, "I ask the Innkeeper where the stolen ledger went."),
        (GM, "Mira whispers that the ledger is hidden in the cellar, under the wine barrels."),
    ]
    await play(services, world, ledger, channel_id=821, title="The ledger")
    await finish(services, 821)
    branch = await services.branches.fork(main, "Remembers")
    _, memories = await services.voice.npc_memories(main, "Mira")
    (cellar,) = [m for m in memories if "cellar" in m.content]
    question = "where is the stolen ledger hidden?"
    before = await services.voice.memories.recall(branch.id, world.mira, question, limit=10)
    (similarity,) = [r.similarity for r in before if r.memory.id == cellar.id]
    # The parent forgets it after the fork: its row is tombstoned, its vector deleted from the parent's index.
    assert cellar.id in await services.voice.memories.forget(main.id, world.mira, cellar.id)
    gone = await services.voice.memories.recall(main.id, world.mira, question, limit=10)
    assert all(r.memory.id != cellar.id for r in gone)
    _, kept = await services.voice.npc_memories(branch, "Mira")
    assert cellar.id in {m.id for m in kept}  # SQL: the branch still remembers it
    recalled = await services.voice.memories.recall(branch.id, world.mira, question, limit=10)
    found = [r for r in recalled if r.memory.id == cellar.id]
    assert found and similarity > 0.3  # recall by meaning agrees: as close to the question as before
    assert found[0].similarity == pytest.approx(similarity, abs=1e-4)


async def test_an_at_date_fork_leaves_out_the_scenes_after_the_date_with_their_memories_and_summaries(
    services: Services,
) -> None:
    world = await seed(services)
    main = world.campaign
    scenes = []
    for channel, title, lines, content in (
        (
            831,
            "The ledger",
            [(GM, "Mira whispers that the ledger is hidden in the cellar, under the wine barrels.")],
            FactContent(subject=Ref(name="Mira"), attribute="oath", value="silence", when="3rd_age.year_300"),
        ),
        (
            832,
            "The password",
            [(GM, "Mira leans in: the password at the gate is moonwater.")],
            FactContent(
                subject=Ref(name="Aldric"), attribute="exile", value="North", when="3rd_age.year_320"
            ),
        ),
        (
            833,
            "The dragon",
            [(GM, "Mira says the dragon sleeps under the old lighthouse.")],
            FactContent(subject=Ref(name="Mira"), attribute="mood", value="wary"),
        ),
    ):
        await play(services, world, [(PAT, "I listen to Mira."), *lines], channel_id=channel, title=title)
        await services.proposals.propose(main, channel, content, GM)
        scenes.append(await finish(services, channel))

    dated = await services.branches.fork(main, "Year 310", at_date="3rd_age.year_310")
    # Scene 2 put something after year 310: the story passes the date there, so scenes 2 and 3 stay out.
    assert dated.fork_scene_order == 1
    card = await services.queries.card(dated, "Mira", viewer=Viewer.GM)
    facts = {v.statement.predicate: v.statement.value for v in card.facts}
    assert facts.get("oath") == "silence" and "mood" not in facts  # the mood is undated, but of scene 3
    _, remembered = await services.voice.npc_memories(dated, "Mira")
    assert {m.scene_id for m in remembered if m.scene_id} == {scenes[0]}
    moments = await services.voice.similar_scenes(dated, "the password and the dragon", limit=5)
    assert {m.scene_id for m in moments} == {scenes[0]}
    branch_world = World(dated, world.mira, world.aldric, world.thornwall, world.orsolya)
    first = await play(services, branch_world, [(PAT, "Year 310.")], channel_id=834, title="In 310")
    assert first.story_order == 2  # the branch's story goes on right after the cut


async def test_lore_in_a_branch_sees_the_parents_sources_up_to_the_fork_and_hidden_stays_hidden(
    services: Services,
) -> None:
    main = await services.campaigns.create("Westhaven", guild_id=20)
    knowledge = services.knowledge
    world = await knowledge.import_bytes(
        main.id, "world.md", b"# Westhaven\n\nThe gull throne of Westhaven is carved from driftwood."
    )
    secret = await knowledge.import_bytes(
        main.id, "secrets.md", b"# The Pact\n\nThe harbour master serves the drowned cult in secret."
    )
    await knowledge.set_source(main.id, secret.source.id, hidden=True)
    branch = await services.branches.fork(main, "Westhaven burns")
    later = await knowledge.import_bytes(
        main.id, "later.md", b"# Lighthouse\n\nThe lighthouse keeper hoards sapphires from the wrecks."
    )
    own = await knowledge.import_bytes(
        branch.id, "branch.md", b"# Ashes\n\nIn this telling the gull throne burned to ashes."
    )
    assert {s.id for s in await knowledge.list_sources(branch.id)} == {
        world.source.id,
        secret.source.id,
        own.source.id,
    }

    for mode in ("default", "semantic", "lexical"):
        player = await knowledge.ask(
            branch.id, "harbour master drowned cult secret", viewer=Viewer.PLAYER, config=mode, limit=10
        )
        assert secret.source.id not in {r.source_id for r in player.results}
        gm = await knowledge.ask(
            branch.id, "lighthouse keeper sapphires wrecks", viewer=Viewer.GM, config=mode, limit=10
        )
        assert later.source.id not in {r.source_id for r in gm.results}
    hidden = await knowledge.ask(
        branch.id, "harbour master drowned cult", viewer=Viewer.GM, config="semantic", limit=10
    )
    assert any(r.source_id == secret.source.id and r.hidden for r in hidden.results)
    throne = await knowledge.ask(branch.id, "gull throne", viewer=Viewer.PLAYER, limit=10)
    assert {world.source.id, own.source.id} <= {r.source_id for r in throne.results}
    # The branch's answers never count as uses of the parent's sources.
    assert all(s.times_used == 0 for s in await knowledge.list_sources(main.id))
    parent = await knowledge.ask(main.id, "gull throne burned ashes", viewer=Viewer.GM, limit=10)
    assert own.source.id not in {r.source_id for r in parent.results}
    # A rebase brings the parent's later source in.
    await services.branches.rebase(branch, GM)
    gm = await knowledge.ask(branch.id, "lighthouse keeper sapphires", viewer=Viewer.GM, limit=10)
    assert later.source.id in {r.source_id for r in gm.results}


async def test_lore_in_a_branch_answers_from_sources_as_they_were_at_the_fork(services: Services) -> None:
    main = await services.campaigns.create("Saltmarsh", guild_id=21)
    knowledge = services.knowledge
    await knowledge.import_bytes(
        main.id, "world.md", b"# Saltmarsh\n\nThe gull throne of Saltmarsh is carved from driftwood."
    )
    harbour = await knowledge.import_bytes(
        main.id, "harbour.md", b"# Harbour\n\nThe harbour chain is forged from black iron links."
    )
    guild = await knowledge.import_bytes(
        main.id, "guild.md", b"# Guild\n\nThe smugglers guild meets beneath the fish market."
    )
    branch = await services.branches.fork(main, "Saltmarsh drowned")
    # After the fork the parent changes a word, deletes a source and hides another.
    await knowledge.import_bytes(
        main.id, "world.md", b"# Saltmarsh\n\nThe gull throne of Saltmarsh is carved from coral."
    )
    await knowledge.delete_source(main.id, harbour.source.id)
    await knowledge.set_source(main.id, guild.source.id, hidden=True)

    def text(answer: object) -> str:
        return " ".join(r.text for r in answer.results)  # type: ignore[attr-defined]

    for mode in ("default", "semantic", "lexical"):
        there = await knowledge.ask(
            branch.id, "what is the gull throne carved from", viewer=Viewer.PLAYER, config=mode, limit=5
        )
        assert "driftwood" in text(there) and "coral" not in text(there)
        here = await knowledge.ask(
            main.id, "what is the gull throne carved from", viewer=Viewer.PLAYER, config=mode, limit=5
        )
        assert "coral" in text(here) and "driftwood" not in text(here)
        chain = await knowledge.ask(
            branch.id, "harbour chain forged iron", viewer=Viewer.PLAYER, config=mode, limit=5
        )
        assert "black iron" in text(chain)
        gone = await knowledge.ask(
            main.id, "harbour chain forged iron", viewer=Viewer.GM, config=mode, limit=5
        )
        assert "black iron" not in text(gone)
        # Hiding is more restrictive for players: it reaches the branch.
        smugglers = await knowledge.ask(
            branch.id, "smugglers guild fish market", viewer=Viewer.PLAYER, config=mode, limit=5
        )
        assert "fish market" not in text(smugglers)
    assert sorted(s.filename for s in await knowledge.list_sources(branch.id, viewer=Viewer.PLAYER)) == [
        "harbour.md",
        "world.md",
    ]

    # A rebase brings the parent's sources as they are now: the new word, no harbour.
    plan = await services.branches.plan_rebase(branch)
    assert plan.sources == 2 and not plan.up_to_date
    await services.branches.rebase(branch, GM, expect=plan.token)
    for mode in ("default", "semantic", "lexical"):
        there = await knowledge.ask(
            branch.id, "what is the gull throne carved from", viewer=Viewer.PLAYER, config=mode, limit=5
        )
        assert "coral" in text(there) and "driftwood" not in text(there)
        chain = await knowledge.ask(
            branch.id, "harbour chain forged iron", viewer=Viewer.GM, config=mode, limit=5
        )
        assert "black iron" not in text(chain)
    assert sorted(s.filename for s in await knowledge.list_sources(branch.id)) == ["guild.md", "world.md"]
    assert all(s.inherited_from == main.id for s in await knowledge.list_sources(branch.id))
