"""What the page is sent, and what the sandbox keeps across a restart: pure functions on the emulator's records."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.offline.emulator import DiscordEmulator, StoredMessage
from bot.offline.emulator.models import EPHEMERAL
from bot.offline.sandbox.state import SandboxStateError, SandboxStore
from bot.offline.sandbox.views import leaf_commands, message_view, visible_to
from bot.offline.sandbox.world import CHANNELS, PEOPLE, SandboxWorld, build_world


def bot_message(emu: DiscordEmulator, world: SandboxWorld, **data: object) -> StoredMessage:
    """Store a message as the bot's, answering an interaction of the GM when `interaction_metadata` says so."""
    channel = world.channels["general"]
    payload = emu.message_payload(channel, author=emu.bot_user.payload(), member=None, **data)  # type: ignore[arg-type]
    stored = StoredMessage(payload, channel, emu.blobs, from_bot=True)
    emu.messages[stored.id] = stored
    return stored


async def test_an_ephemeral_message_is_visible_to_its_interaction_user_only() -> None:
    async with DiscordEmulator() as emu:
        world = build_world(emu, "GM")
        gm, pat = world.people["gm"], world.people["pat"]
        private = bot_message(
            emu,
            world,
            content="for Gwen",
            flags=EPHEMERAL,
            interaction_metadata={"id": "1", "user": gm.user.payload()},
        )
        public = bot_message(emu, world, content="for all")
        assert visible_to(private, gm.id) and not visible_to(private, pat.id)
        assert visible_to(public, gm.id) and visible_to(public, pat.id)
        orphan = bot_message(emu, world, content="nobody's", flags=EPHEMERAL)
        assert not any(visible_to(orphan, m.id) for m in world.people.values())


async def test_pictures_come_from_the_sandbox_and_nothing_from_elsewhere() -> None:
    async with DiscordEmulator() as emu:
        world = build_world(emu, "GM")
        tree = emu.make_attachment("family-tree.png", b"\x89PNG...", content_type="image/png")
        notes = emu.make_attachment("notes.md", "# notes")
        stored = bot_message(
            emu,
            world,
            attachments=[tree.payload(), notes.payload()],
            embeds=[
                {"title": "Tree", "image": {"url": "attachment://family-tree.png"}, "color": 0xE67E22},
                {
                    "title": "Elsewhere",
                    "image": {"url": "https://example.com/x.png"},
                    "thumbnail": {"url": tree.url},
                },
            ],
        )
        view = message_view(stored, emu, world)
        # The picture the embed shows is drawn once, in the embed (as Discord does); the other file below.
        assert [(a["filename"], a["image"]) for a in view["attachments"]] == [("notes.md", False)]
        assert view["embeds"][0]["image"] == {"url": f"/attachments/{tree.id}/family-tree.png"}
        assert "image" not in view["embeds"][1]  # an outside picture is never loaded by the page
        assert view["embeds"][1]["thumbnail"] == {"url": f"/attachments/{tree.id}/family-tree.png"}
        assert view["author"] == {
            "id": str(emu.bot_user.id),
            "name": "Lorekeeper",
            "bot": True,
            "webhook": False,
            "is_lorekeeper": True,
        }


def test_the_picker_lists_subcommands_with_their_own_options() -> None:
    command = {
        "name": "canon",
        "description": "Canon",
        "options": [
            {"type": 1, "name": "entity", "description": "A card", "options": [{"type": 3, "name": "name"}]},
            {
                "type": 2,
                "name": "add",
                "description": "Add",
                "options": [{"type": 1, "name": "fact", "description": "A fact", "options": []}],
            },
        ],
    }
    assert leaf_commands(command) == [
        {"name": "canon entity", "description": "A card", "options": [{"type": 3, "name": "name"}]},
        {"name": "canon add fact", "description": "A fact", "options": []},
    ]
    plain = {"name": "endscene", "description": "End", "options": [{"type": 5, "name": "quiet"}]}
    assert leaf_commands(plain) == [plain]


async def test_the_state_comes_back_after_a_restart_with_the_same_ids(tmp_path: Path) -> None:
    store = SandboxStore(tmp_path)
    async with DiscordEmulator() as emu:
        world = build_world(emu, "GM")
        picture = emu.make_attachment("map.png", b"\x89PNG map", content_type="image/png")
        kept = bot_message(
            emu, world, content="kept", attachments=[picture.payload()], components=[{"type": 1}]
        )
        gone = bot_message(emu, world, content="private", flags=EPHEMERAL)
        world.labels[kept.id] = "/canon tree"
        world.sample_loaded = True
        emu.global_commands = [{"name": "lore", "type": 1, "id": "5"}]
        store.save(emu, world)
        ids = (emu.bot_user.id, world.guild.id, {k: m.id for k, m in world.people.items()})
    async with DiscordEmulator() as again:
        restored = store.load(again)
        assert (again.bot_user.id, restored.guild.id, {k: m.id for k, m in restored.people.items()}) == ids
        assert list(restored.people) == [key for key, _, _ in PEOPLE]
        assert list(restored.channels) == [key for key, _, _ in CHANNELS]
        assert restored.sample_loaded and restored.labels == {kept.id: "/canon tree"}
        assert restored.is_gm(restored.people["gm"]) and not restored.is_gm(restored.people["pat"])
        assert again.global_commands == [{"name": "lore", "type": 1, "id": "5"}]
        assert gone.id not in again.messages  # private answers are forgotten, as Discord's client does
        message = again.messages[kept.id]
        assert message.data["content"] == "kept" and message.files == {"map.png": b"\x89PNG map"}
        assert message.data["attachments"][0]["url"].startswith(again.base_url)  # the new emulator's address
        assert again.ids.next() > max(again.messages)  # new ids never collide with the kept ones


async def test_a_damaged_state_file_stops_the_sandbox_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "discord.json").write_text("{not json", encoding="utf-8")
    async with DiscordEmulator() as emu:
        with pytest.raises(SandboxStateError, match=r"cannot be read.*Start with another --data-dir"):
            SandboxStore(tmp_path).load(emu)


async def test_the_gm_runs_the_server_and_sees_the_admins_commands_a_player_does_not() -> None:
    from bot.offline.sandbox.views import commands_view

    async with DiscordEmulator() as emu:
        world = build_world(emu, "GM")
        group = {
            "name": "admin",
            "description": "Admin",
            "options": [{"type": 1, "name": "status", "description": "Health", "options": []}],
            "default_member_permissions": "32",
        }
        emu.global_commands.append({**group, "id": str(emu.ids.next()), "type": 1})
        channel = next(iter(world.channels.values()))
        gm = next(m for m in world.people.values() if world.gm_role.id in m.role_ids)
        player = next(m for m in world.people.values() if world.gm_role.id not in m.role_ids)
        assert "admin status" in [c["name"] for c in commands_view(emu, channel, gm)]
        assert "admin status" not in [c["name"] for c in commands_view(emu, channel, player)]
