"""Shared steps of the canon-gate e2e tests: reading cards and embeds, picking and committing proposals, and what the database holds."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from bot.offline.emulator.messages import custom_ids
from canon.campaigns import Campaign, ChangesetRow
from canon.tables import ConflictRow, ProposalRow, StatementRow
from memory.scene_tables import SceneRow
from tests.e2e.conftest import World, sql_run_below

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/archive/test_export_import.py", "tests/bot/services/test_canon_service.py"
)


def plain(text: str | None) -> str:
    """Return Discord text with markdown escapes removed (the bot escapes what users typed)."""
    return re.sub(r"\\(.)", r"\1", text or "")


def embed_text(embed: dict[str, Any]) -> str:
    """Return everything an embed says, as one unescaped string."""
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for field in embed.get("fields", []):
        parts += [field["name"], field["value"]]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return plain("\n".join(parts))


def public_text(world: World) -> str:
    """Return everything anyone in the scene channel reads there (no ephemeral answer): texts, embeds,
    and the labels of its controls."""
    said = []
    for message in world.emu.channel_messages(world.channel):
        said.append(plain(message.get("content")))
        said += [embed_text(e) for e in message.get("embeds", [])]
        for row in message.get("components", []):
            for item in row.get("components", []):
                said.append(str(item.get("label") or item.get("placeholder") or ""))
                said += [f"{o.get('label')} {o.get('description') or ''}" for o in item.get("options", [])]
    return "\n".join(said)


def review_cards(world: World) -> list[dict[str, Any]]:
    """Return the review cards posted in the scene channel, oldest first (as they are now)."""
    return [
        m
        for m in world.emu.channel_messages(world.channel)
        if any(i.startswith("lk:review:") for i in custom_ids(m.get("components", [])))
    ]


def live(world: World, message: dict[str, Any]) -> dict[str, Any]:
    """Return a message as it is now."""
    return world.emu.stored(message).view()


async def pick(world: World, card: dict[str, Any], proposal_id: int, user: Any = None) -> Any:
    """Pick a proposal in a review card's select (as the GM unless told), so that its controls show."""
    return await world.emu.click(card, "lk:pick", user or world.gm, values=[str(proposal_id)])


async def commit_card(world: World, card: dict[str, Any], scene_id: int) -> Any:
    """Press Commit on a review card as the GM, and Commit again when it asks first about undecided
    proposals it would drop; return the answer that committed (the card itself: `live(world, card)`)."""
    first = await world.emu.click(card, f"lk:review:{scene_id}:commit", world.gm)
    confirm = f"lk:review:{scene_id}:confirm"
    if first.ephemeral and confirm in buttons({"components": first.components}):
        assert "still undecided" in (first.content or "")
        return await world.emu.click(first.message, confirm, world.gm)
    return first


def buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return a message's controls by custom id."""
    found: dict[str, dict[str, Any]] = {}
    for row in message.get("components", []):
        for component in row.get("components", []):
            found[component["custom_id"]] = component
    return found


async def campaign_of(world: World) -> Campaign:
    return await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)


async def proposals_of_scene(world: World, scene_id: int) -> list[ProposalRow]:
    async with world.bot.services.db.session() as session:
        query = select(ProposalRow).where(ProposalRow.scene_id == scene_id).order_by(ProposalRow.id)
        return list((await session.execute(query)).scalars())


async def latest_scene(world: World) -> SceneRow:
    async with world.bot.services.db.session() as session:
        scene = await session.scalar(select(SceneRow).order_by(SceneRow.id.desc()).limit(1))
        assert scene is not None
        return scene


async def canon_counts(world: World) -> tuple[int, int, int]:
    """Return how many statements, changesets and conflicts the database holds."""
    async with world.bot.services.db.session() as session:
        return (
            await session.scalar(select(func.count()).select_from(StatementRow)) or 0,
            await session.scalar(select(func.count()).select_from(ChangesetRow)) or 0,
            await session.scalar(select(func.count()).select_from(ConflictRow)) or 0,
        )


async def gm_adds(world: World, kind: str, **options: Any) -> dict[str, Any]:
    reply = await world.emu.invoke(world.channel, world.gm, f"canon add {kind}", **options)
    assert reply.ephemeral and reply.embeds, reply.content
    assert reply.embeds[0]["title"] == "Written to canon", embed_text(reply.embeds[0])
    return reply.embeds[0]


async def kill_aldric_in_a_first_scene(world: World) -> None:
    """Scene 1: Aldric falls; the GM's own proposal is accepted by the default policy at commit."""
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.gm, "An arrow finds Aldric. He falls.")
    proposed = await emu.invoke(chan, world.gm, "propose state", subject="Aldric", state="dead")
    assert proposed.ephemeral and "Aldric dies" in embed_text(proposed.embeds[0])
    await emu.invoke(chan, world.gm, "endscene")
    (card,) = review_cards(world)
    committed = await emu.click(card, f"lk:review:{(await latest_scene(world)).id}:commit", world.gm)
    assert "1 written to canon" in embed_text(committed.embeds[0])
