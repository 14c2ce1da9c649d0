"""`/narrate`, `/npc talk|memories|forget`, and the narrator that answers the players' turns (debounced).

Discord stays here: the services get small callbacks that post a narration (with its Context button) or an
NPC's line (through a channel webhook named after the NPC), and return the message id to store.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import limits, replies
from bot.client.client import Lorekeeper
from bot.voice.debounce import Debouncer
from bot.voice.service import VoiceService
from canon.campaigns import Campaign
from canon.errors import GameError, InvalidInput, NotAllowed
from canon.models import Viewer
from canon.wording.counts import counted
from cogs import npc_memory_embeds, voice_embeds
from cogs.canon_options import entity_names, fact_names, speaker_names
from cogs.checks import IN_SERVERS, actor_of, gm_only, guild_of, is_gm
from cogs.places import campaign_here
from cogs.voice_views import NarrationContextButton, narration_view
from memory.scenes import Actor

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()
WEBHOOK_NAME = "Lorekeeper NPCs"
NARRATOR = Actor(id=None, name="narrator mode", is_gm=False)


class VoiceCommands(commands.Cog):
    """The narrator and the NPCs."""

    npc = app_commands.Group(
        name="npc", description="Talk to the campaign's NPCs", guild_only=True, allowed_contexts=IN_SERVERS
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.voice: VoiceService = bot.services.voice
        self.debouncer = Debouncer()
        self._webhooks: dict[int, discord.Webhook] = {}

    async def cog_load(self) -> None:
        """Load the narrator's channels; finish the scenes a crash left without summary or memories (later)."""
        await self.voice.narrator_channels()
        self.voice.run_in_background(self._catch_up(), name="lorekeeper-voice-catch-up")

    async def _catch_up(self) -> None:
        try:
            done = await self.voice.catch_up()
        except Exception:
            log.exception("could not finish the scenes left without summary and memories")
            return
        if done:
            log.info("wrote the summary and NPC memories of %s left over", counted(done, "scene"))

    async def cog_unload(self) -> None:
        """Stop the narrator's pending waits."""
        await self.debouncer.close()

    async def _campaign(self, interaction: discord.Interaction) -> Campaign:
        guild_of(interaction)
        return await campaign_here(interaction)

    def _actor(self, interaction: discord.Interaction) -> Actor:
        return actor_of(interaction, self.bot.services.settings.gm_role)

    # -- the narrator -----------------------------------------------------------------------------

    def _poster(self, channel: discord.abc.Messageable) -> Any:
        async def post(text: str, narration_id: int) -> int:
            message = await channel.send(text, view=narration_view(narration_id), allowed_mentions=NONE)
            return message.id

        return post

    @app_commands.command(name="narrate", description="Ask the narrator what happens next")
    @app_commands.describe(direction="GM only: where the narration should go (never shown to players)")
    @app_commands.guild_only()
    async def narrate(
        self, interaction: discord.Interaction, direction: app_commands.Range[str, 1, 1000] | None = None
    ) -> None:
        """Write and post the next narration of this channel's scene."""
        guild_of(interaction)
        actor = self._actor(interaction)
        channel = interaction.channel
        if not isinstance(channel, discord.abc.Messageable):
            raise InvalidInput("The narrator speaks in text channels.")
        await replies.think(interaction)
        outcome = await self.voice.narrate(
            interaction.channel_id or 0,
            actor,
            post=self._poster(channel),
            trigger="command",
            direction=direction,
        )
        await replies.answer(interaction, voice_embeds.narration_result_text(outcome, is_gm=actor.is_gm))

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """After a player's turn in a scene with the narrator on, narrate once the table goes quiet."""
        if message.author.bot or message.webhook_id is not None or message.guild is None:
            return
        if message.channel.id not in await self.voice.narrator_channels():
            return
        if is_gm(message.author, self.bot.services.settings.gm_role):
            return  # the GM is narrating; the narrator waits for the players
        channel = message.channel
        delay = self.bot.services.settings.voice.narrator_debounce_seconds
        self.debouncer.schedule(channel.id, delay, lambda: self._auto_narrate(channel))

    async def _auto_narrate(self, channel: discord.abc.Messageable) -> None:
        channel_id = getattr(channel, "id", 0)
        try:
            outcome = await self.voice.narrate(
                channel_id, NARRATOR, post=self._poster(channel), trigger="auto"
            )
        except GameError as error:
            log.warning("the narrator of channel %s did not speak: %s", channel_id, error.message)
            return
        if outcome.status == "blocked":
            log.warning("narration #%s held back: it repeated hidden canon", outcome.narration_id)

    # -- NPCs -------------------------------------------------------------------------------------

    async def _webhook(self, channel: discord.TextChannel) -> discord.Webhook:
        """Return the channel's NPC webhook: the one remembered, the bot's existing one, or a new one."""
        cached = self._webhooks.get(channel.id)
        if cached is not None:
            return cached
        me = self.bot.user
        hook = next(
            (
                h
                for h in await channel.webhooks()
                if h.name == WEBHOOK_NAME and h.user is not None and me is not None and h.user.id == me.id
            ),
            None,
        )
        if hook is None:
            hook = await channel.create_webhook(name=WEBHOOK_NAME, reason="NPCs speak through this webhook")
        self._webhooks[channel.id] = hook
        return hook

    async def _speak_as(self, channel: discord.TextChannel, name: str, text: str) -> discord.WebhookMessage:
        """Post `text` under the NPC's name (as Discord accepts it); a webhook deleted meanwhile is made anew."""
        username = limits.webhook_username(name)
        try:
            hook = await self._webhook(channel)
            return await hook.send(text, username=username, allowed_mentions=NONE, wait=True)
        except discord.NotFound:  # Unknown Webhook (10015): someone deleted it; the next one is made here
            log.info("the NPC webhook of channel %s was deleted; making a new one", channel.id)
            self._webhooks.pop(channel.id, None)
            hook = await self._webhook(channel)
            return await hook.send(text, username=username, allowed_mentions=NONE, wait=True)

    @npc.command(name="talk", description="Say something to an NPC; it answers in character")
    @app_commands.describe(
        npc="Who you speak to",
        message="What you say",
        allow="GM only: let one who is dead or away speak anyway, as a flashback or a ghost",
        tell="GM only: a hidden fact the NPC may tell; those present in the scene learn it once it is said",
    )
    @app_commands.autocomplete(npc=speaker_names, tell=fact_names)
    async def talk(
        self,
        interaction: discord.Interaction,
        npc: app_commands.Range[str, 1, 200],
        message: app_commands.Range[str, 1, 1500],
        allow: Literal["flashback", "ghost"] | None = None,
        tell: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        """Let an NPC answer from its memories and public canon, through a webhook with its name."""
        campaign = await self._campaign(interaction)
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise InvalidInput("NPCs speak in a server's text channels.")
        actor = self._actor(interaction)
        if tell is not None and not actor.is_gm:
            raise NotAllowed("Only the GM lets an NPC tell a secret.")
        await replies.think(interaction)
        told = await self.bot.services.facts.pick(campaign, tell, viewer=Viewer.GM) if tell else None

        async def post(name: str, text: str) -> int:
            # The line saying who asked follows the NPC's message once it is sent: a refusal, or a message
            # Discord would not take, never leaves a line without its answer.
            sent = await self._speak_as(channel, name, text)
            try:
                await channel.send(
                    voice_embeds.npc_exchange_text(actor.name, name, message), allowed_mentions=NONE
                )
            except discord.HTTPException:  # the answer stands, and is logged as a turn all the same
                log.warning("could not post who asked %s in channel %s", name, channel.id, exc_info=True)
            return sent.id

        # A dead NPC is refused first; then, without a language model, the service says what happens instead.
        reply = await self.voice.npc_talk(
            campaign, channel.id, npc, message, actor, post=post, allow=allow, tell=told
        )
        await replies.answer(interaction, voice_embeds.npc_result_text(reply))

    @npc.command(name="memories", description="What an NPC remembers; filter and search (GM)")
    @app_commands.describe(
        search="Memories most like this, best first",
        category="Memories with this category",
        meta="Memories with this metadata (key=value, ...)",
        min_score="With a search: at least this similar, 0 to 1",
        include_private="Private memories too (default yes)",
        page="Which page (10 memories a page)",
    )
    @app_commands.autocomplete(npc=entity_names)
    @gm_only()
    async def memories(
        self,
        interaction: discord.Interaction,
        npc: app_commands.Range[str, 1, 200],
        search: app_commands.Range[str, 1, 300] | None = None,
        category: app_commands.Range[str, 1, 40] | None = None,
        meta: app_commands.Range[str, 1, 400] | None = None,
        min_score: app_commands.Range[float, 0.0, 1.0] | None = None,
        include_private: bool = True,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        """List an NPC's memories and the links between them, or a filtered, searched page of them."""
        campaign = await self._campaign(interaction)
        await replies.think(interaction)
        if search is None and category is None and meta is None and page == 1 and include_private:
            name, found = await self.voice.npc_memories(campaign, npc)
            await replies.answer(interaction, embed=voice_embeds.memories_embed(name, found))
            return
        desk = self.bot.services.npc_memories
        query = await desk.query(
            campaign, npc=npc, categories=category, meta=meta, include_private=include_private
        )
        result = await desk.find(campaign, query, text=search, min_score=min_score, page=page)
        name = (await desk.npc(campaign, npc))[1]
        title = f"What {name} remembers" + (f" of “{search}”" if search else "")
        await replies.answer(interaction, embed=npc_memory_embeds.page_embed(title, result))

    @npc.command(name="forget", description="Make an NPC forget one memory, or everything (GM)")
    @app_commands.describe(memory="The memory's number (from /npc memories); leave empty to forget all")
    @app_commands.autocomplete(npc=entity_names)
    @gm_only()
    async def forget(
        self,
        interaction: discord.Interaction,
        npc: app_commands.Range[str, 1, 200],
        memory: app_commands.Range[int, 1] | None = None,
    ) -> None:
        """Forget a memory (its links go with it)."""
        campaign = await self._campaign(interaction)
        await replies.think(interaction)
        name, count = await self.voice.npc_forget(campaign, npc, self._actor(interaction), memory)
        await replies.answer(interaction, voice_embeds.forgot_text(name, count, memory))


async def setup(bot: Lorekeeper) -> None:
    """Register the narrator, the NPC commands and the Context button."""
    bot.add_dynamic_items(NarrationContextButton)
    await bot.add_cog(VoiceCommands(bot))


async def teardown(bot: Lorekeeper) -> None:
    """Forget the Context button."""
    bot.remove_dynamic_items(NarrationContextButton)
