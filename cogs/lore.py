"""`/lore ...`: ask the campaign's knowledge, import world-bible files, inspect and manage sources.

Discord does not let a command group take arguments itself, so the question is `/lore ask <question>`; the
other subcommands are the GM's: `import`, `sources`, `source`, `set`, `section`, `disable`, `enable`, `delete`.

Thin adapters: validate, defer before anything slow, call one service method (`KnowledgeService` or
`LoreImportService`), render with `cogs.lore_embeds`. Answers are ephemeral unless `public:true` (then they
are read as a player's, whoever asks); every GM command answers ephemerally, since it may show hidden sources.
The Sources and "Why these?" buttons live in `cogs.lore_views`; the review card of an extraction in `cogs.canon_views`.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import limits, replies
from bot.client.client import Lorekeeper
from bot.services.lore_answer import LoreAnswers
from bot.services.lore_service import SETTINGS, LoreImportService, parse_tags, setting_change
from canon.campaigns import Campaign
from canon.errors import GameError, InvalidInput
from canon.models import Viewer
from cogs import (
    lore_answer_embeds,
    lore_embeds,
    lore_glossary,
    lore_import,
    lore_import_embeds,
    lore_originals,
    lore_sections,
    lore_views,
)
from cogs.attachments import read_attachment
from cogs.canon_options import campaign_of, lens_of, viewer_of
from cogs.checks import IN_SERVERS, actor_of, gm_only, guild_only_message, is_gm
from cogs.embeds import clip
from cogs.services import services_of
from memory.dialogue import is_dialogue
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.retrieval.config import always_include_warning
from memory.knowledge.service import KnowledgeService
from memory.scenes import Actor

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()
MAX_CHOICES = 25
SourceId = app_commands.Range[int, 1, 2**53]
Field = Literal["class", "hidden", "tags", "always-include"]


async def source_ids(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """Suggest the campaign's sources by id or title, to GMs only (a player gets nothing, hidden or not)."""
    services = services_of(interaction)
    if not is_gm(interaction.user, services.settings.gm_role):
        return []
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        sources = await services.knowledge.list_sources(campaign.id, viewer=Viewer.GM)
    except GameError:
        return []
    typed = str(current or "").strip().lstrip("#").casefold()
    found = [
        s
        for s in sources
        if not typed
        or str(s.id).startswith(typed)
        or typed in s.title.casefold()
        or typed in s.filename.casefold()
    ]
    choices = []
    for s in found[:MAX_CHOICES]:
        flags = (
            [s.knowledge_class.label] + (["hidden"] if s.hidden else []) + ([] if s.enabled else ["disabled"])
        )
        choices.append(
            app_commands.Choice(name=clip(f"#{s.id} {s.title} ({', '.join(flags)})", 100), value=s.id)
        )
    return choices


async def setting_values(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest values for the chosen setting of `/lore set`."""
    field = getattr(interaction.namespace, "field", None)
    options = {
        "class": [c.value for c in KnowledgeClass],
        "hidden": ["true", "false"],
        "always-include": ["true", "false"],
        "tags": ["-"],
    }.get(str(field), [])
    typed = current.strip().casefold()
    values = [v for v in options if v.startswith(typed)] or ([current] if current else [])
    # What was typed is offered back as is, when a choice can hold it (100 characters).
    return [
        app_commands.Choice(name=v, value=v) for v in values[:MAX_CHOICES] if len(v) <= limits.CHOICE_VALUE
    ]


async def _campaign(interaction: discord.Interaction) -> Campaign:
    campaign = await campaign_of(interaction)
    if campaign is None:
        raise InvalidInput(guild_only_message())
    return campaign


async def _import_files(
    imports: LoreImportService,
    interaction: discord.Interaction,
    campaign: Campaign,
    file: discord.Attachment,
    extra: list[discord.Attachment],
    *,
    actor: Actor,
    knowledge_class: str | None,
    hidden: bool | None,
    tags: str | None,
    always_include: bool | None,
    extract: bool,
    ocr: bool = False,
) -> None:
    """Read the checked uploads and import them, showing progress; with `extract`, read the prose too."""
    tag_list = parse_tags(tags)
    await replies.think(interaction)
    data = await read_attachment(file)
    if not extra and is_dialogue(file.filename, data):  # lines of a scene, not world-bible prose
        await lore_import.import_dialogue(interaction, campaign, file.filename, data)
        return
    more = [(attachment.filename, await read_attachment(attachment)) for attachment in extra]
    roster = file.filename.lower().endswith((".yaml", ".yml"))
    outcome = await imports.import_file(
        campaign,
        file.filename,
        data,
        actor=actor,
        knowledge_class=KnowledgeClass(knowledge_class) if knowledge_class else None,
        hidden=hidden,
        tags=tag_list,
        always_include=always_include,
        progress=lore_import.ImportProgressMessage(interaction),
        more=more,
        members=await lore_import.server_members(interaction.guild) if roster else None,
        ocr=ocr,
    )
    if outcome.structured is not None:
        embed = lore_import_embeds.structured_embed(outcome.structured, outcome.filename)
        content = f"Ignored for a YAML file: {', '.join(outcome.ignored)}." if outcome.ignored else None
        token = outcome.confirm_token
        view = lore_views.replace_view(token) if token is not None else None
        await replies.answer(interaction, content, embed=embed, view=view)
        return
    assert outcome.report is not None
    if not extract:
        await replies.answer(interaction, embed=lore_import_embeds.import_embed(outcome.report))
        return
    await lore_import.read_prose(
        interaction,
        outcome,
        lambda progress: imports.read_into_proposals(campaign, outcome, progress=progress),
    )


class LoreCommands(commands.Cog):
    """Ask the campaign's knowledge; the GM imports, inspects and manages its sources."""

    lore = app_commands.Group(
        name="lore",
        description="Ask the campaign's lore, import and manage its sources",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    glossary = app_commands.Group(
        name="glossary", description="The table's words for /lore: abbreviations and slang", parent=lore
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.knowledge: KnowledgeService = bot.services.knowledge
        self.answers: LoreAnswers = bot.services.answers
        self.imports: LoreImportService = bot.services.imports

    # -- /lore ask ------------------------------------------------------------------------------------

    @lore.command(name="ask", description="Ask what the campaign's canon and sources say")
    @app_commands.describe(
        question="What do you want to know? e.g. who rules Westhaven?",
        limit="How many passages (default 5)",
        public="Post the answer for everyone (read as a player's answer)",
    )
    async def ask(
        self,
        interaction: discord.Interaction,
        question: app_commands.Range[str, 1, 1000],
        limit: app_commands.Range[int, 1, 10] = 5,
        public: bool = False,
    ) -> None:
        """Answer a lore question: a short answer citing its sources, the sources behind a button."""
        campaign = await _campaign(interaction)
        viewer = Viewer.PLAYER if public else viewer_of(interaction)
        await replies.think(interaction, ephemeral=not public)
        # A public answer shows public canon; a private one what the asker's character knows too.
        lens = None if public else await lens_of(interaction, campaign)
        answer = await self.answers.ask(
            campaign.id, question, viewer=viewer, limit=limit, asker_id=interaction.user.id, knowing=lens
        )
        await replies.answer(
            interaction,
            embed=lore_answer_embeds.answer_embed(answer, viewer=viewer, knowing=lens),
            view=lore_views.answer_view(
                answer.retrieval_id,
                viewer=viewer,
                sources=lore_answer_embeds.sources_shown(answer, viewer=viewer, knowing=lens),
            ),
        )

    # -- /lore import ---------------------------------------------------------------------------------

    @lore.command(name="import", description="Import a world-bible file: .md/.txt prose or .yaml lore (GM)")
    @app_commands.describe(
        file="A .md/.txt file (knowledge), .yaml/.yml lore (canon), or a dialogue file (a scene)",
        knowledge_class="How much authority it has (new prose files: reference)",
        hidden="Only the GM may see it (narrator-only)",
        tags="Tags, separated by commas",
        always_include="Always include it in answers (canon prose only)",
        extract="Also read the prose into canon proposals for you to review (needs an LLM)",
        file2="Another .yaml file, imported together with the first (they may refer to each other)",
        file3="A third .yaml file imported together with them",
        ocr="Read a scanned PDF's pages by OCR (slow: seconds a page; it can misread names and numbers)",
    )
    @app_commands.rename(knowledge_class="class")
    @gm_only()
    async def import_file(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment,
        knowledge_class: Literal["canon", "reference", "inspiration"] | None = None,
        hidden: bool | None = None,
        tags: app_commands.Range[str, 1, 400] | None = None,
        always_include: bool | None = None,
        extract: bool = False,
        file2: discord.Attachment | None = None,
        file3: discord.Attachment | None = None,
        ocr: bool = False,
    ) -> None:
        """Import an attached file, showing progress; with `extract`, read it into a batch's review card."""
        campaign = await _campaign(interaction)
        self.imports.check_upload(file.filename, file.size, extract=extract)
        extra = [f for f in (file2, file3) if f is not None]
        for attachment in extra:
            self.imports.check_upload(attachment.filename, attachment.size)
        await _import_files(
            self.imports,
            interaction,
            campaign,
            file,
            extra,
            actor=actor_of(interaction, self.bot.services.settings.gm_role),
            knowledge_class=knowledge_class,
            hidden=hidden,
            tags=tags,
            always_include=always_include,
            extract=extract,
            ocr=ocr,
        )

    # -- the source inspector -------------------------------------------------------------------------

    @lore.command(name="sources", description="List the knowledge sources: class, state, hash, use (GM)")
    @app_commands.describe(page="Which page (15 sources a page)")
    @gm_only()
    async def sources(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 10_000] = 1
    ) -> None:
        """List the campaign's sources."""
        campaign = await _campaign(interaction)
        found = await self.knowledge.list_sources(campaign.id, viewer=Viewer.GM)
        warning = always_include_warning(found)
        building = await self.knowledge.view_build(campaign.id)
        await interaction.response.send_message(
            embed=lore_embeds.sources_embed(found, page, warning=warning, building=building),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @lore.command(
        name="source",
        description="Inspect one knowledge source: versions, passages, how search finds it (GM)",
    )
    @app_commands.describe(
        source="The source's id", original="Also send the original file, as it was imported"
    )
    @app_commands.autocomplete(source=source_ids)
    @gm_only()
    async def source(
        self, interaction: discord.Interaction, source: SourceId, original: bool = False
    ) -> None:
        """Show one source (and, asked, its original: attached when Discord's size allows, else where it is)."""
        campaign = await _campaign(interaction)
        if original:
            await replies.think(interaction)
        detail = await self.knowledge.get_source(campaign.id, source, viewer=Viewer.GM, chunk_limit=20)
        stale = await self.knowledge.out_of_date(campaign.id, source)
        hidden = lore_sections.hidden_lines(await self.knowledge.sections(campaign.id, source))
        embed = lore_embeds.source_embed(detail, out_of_date=stale, hidden_sections=hidden)
        if not original:
            await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)
            return
        limit = interaction.guild.filesize_limit if interaction.guild else limits.FILE_BYTES
        found = await self.knowledge.original(campaign.id, source, max_bytes=limit)
        note = lore_originals.original_note(found, campaign=campaign.name, limit=limit)
        await replies.answer(interaction, note, embed=embed, file=lore_originals.original_file(found))

    @lore.command(name="section", description="Hide one section of a source from players, or show it (GM)")
    @app_commands.describe(
        source="The source's id",
        section="The section's heading (its subsections go with it)",
        hidden="true: for the GM alone; false: players may read it",
    )
    @app_commands.autocomplete(source=source_ids)
    @app_commands.autocomplete(section=lore_sections.section_choices)
    @gm_only()
    async def section(
        self,
        interaction: discord.Interaction,
        source: SourceId,
        section: app_commands.Range[str, 1, 400],
        hidden: bool,
    ) -> None:
        """Hide a section of a source from players (or show it again); the rest of the source is unchanged."""
        campaign = await _campaign(interaction)
        await replies.think(interaction)  # a section sharing its passage has its source chunked again
        change = await self.knowledge.set_section(campaign.id, source, section, hidden)
        await replies.answer(interaction, embed=lore_sections.section_changed_embed(change))

    @lore.command(name="set", description="Change a source's class, hidden flag, tags or always-include (GM)")
    @app_commands.describe(
        source="The source's id",
        field="What to change",
        value="class: canon|reference|inspiration; hidden, always-include: true|false; tags: a, b (- clears)",
    )
    @app_commands.autocomplete(source=source_ids)
    @app_commands.autocomplete(value=setting_values)
    @gm_only()
    async def set_source(
        self,
        interaction: discord.Interaction,
        source: SourceId,
        field: Field,
        value: app_commands.Range[str, 1, 400],
    ) -> None:
        """Change one setting of a source."""
        campaign = await _campaign(interaction)
        change = setting_change(field, value)
        changed = await self.knowledge.set_source(campaign.id, source, **change)  # type: ignore[arg-type]
        warning = await self.knowledge.always_include_warning(campaign.id) if field != "tags" else None
        await interaction.response.send_message(
            embed=lore_embeds.source_changed_embed(changed, f"{field} set", warning=warning),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @lore.command(
        name="order", description="Rank the Canon sources: where they disagree, the higher prevails (GM)"
    )
    @app_commands.describe(
        sources="Canon sources by title or file name, highest first, separated by commas (- clears; empty shows)"
    )
    @gm_only()
    async def order(
        self, interaction: discord.Interaction, sources: app_commands.Range[str, 1, 1000] | None = None
    ) -> None:
        """Set (or show) the campaign's source order, which settles every disagreement between its sources."""
        campaign = await _campaign(interaction)
        desk = self.knowledge.disagreements
        if sources is not None:
            named = (
                [] if sources.strip() == "-" else [s for s in (p.strip() for p in sources.split(",")) if s]
            )
            await desk.set_order(campaign.id, named)
        order = await desk.order(campaign.id)
        await interaction.response.send_message(
            lore_sections.order_text(order, changed=sources is not None),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @lore.command(name="disable", description="Stop retrieving a source; it stays stored (GM)")
    @app_commands.describe(source="The source's id")
    @app_commands.autocomplete(source=source_ids)
    @gm_only()
    async def disable(self, interaction: discord.Interaction, source: SourceId) -> None:
        """Disable a source."""
        campaign = await _campaign(interaction)
        changed = await self.knowledge.disable_source(campaign.id, source)
        await interaction.response.send_message(
            embed=lore_embeds.source_changed_embed(changed, "disabled"), ephemeral=True, allowed_mentions=NONE
        )

    @lore.command(name="enable", description="Retrieve a disabled source again (GM)")
    @app_commands.describe(source="The source's id")
    @app_commands.autocomplete(source=source_ids)
    @gm_only()
    async def enable(self, interaction: discord.Interaction, source: SourceId) -> None:
        """Enable a source."""
        campaign = await _campaign(interaction)
        changed = await self.knowledge.enable_source(campaign.id, source)
        await interaction.response.send_message(
            embed=lore_embeds.source_changed_embed(changed, "enabled"), ephemeral=True, allowed_mentions=NONE
        )

    @lore.command(name="delete", description="Delete a source and its passages (GM)")
    @app_commands.describe(source="The source's id")
    @app_commands.autocomplete(source=source_ids)
    @gm_only()
    async def delete(self, interaction: discord.Interaction, source: SourceId) -> None:
        """Delete a source; answers already given keep the text they showed."""
        campaign = await _campaign(interaction)
        await replies.think(interaction)
        report = await self.knowledge.delete_source(campaign.id, source)
        await replies.answer(interaction, embed=lore_embeds.deleted_embed(report))

    # -- /lore glossary -------------------------------------------------------------------------------

    @glossary.command(name="list", description="The table's words /lore understands, and what they mean")
    async def glossary_list(self, interaction: discord.Interaction) -> None:
        """List the campaign's glossary, then the shipped terms it does not change."""
        campaign = await _campaign(interaction)
        entries = await services_of(interaction).glossary.entries(campaign, viewer_of(interaction))
        await interaction.response.send_message(
            embed=lore_glossary.list_embed(entries), ephemeral=True, allowed_mentions=NONE
        )

    @glossary.command(name="add", description="Teach /lore one of the table's words (GM)")
    @app_commands.describe(term="The table's word, e.g. gobbo", meaning="What the books call it, e.g. goblin")
    @gm_only()
    async def glossary_add(
        self,
        interaction: discord.Interaction,
        term: app_commands.Range[str, 1, 60],
        meaning: app_commands.Range[str, 1, 120],
    ) -> None:
        """Add a term to the campaign's glossary (or give one a new meaning)."""
        campaign = await _campaign(interaction)
        entry = await services_of(interaction).glossary.add(campaign, term, meaning)
        await interaction.response.send_message(
            lore_glossary.changed_line(entry, "added"), ephemeral=True, allowed_mentions=NONE
        )

    @glossary.command(name="remove", description="Forget one of the table's words (GM)")
    @app_commands.describe(term="The term to remove")
    @gm_only()
    async def glossary_remove(
        self, interaction: discord.Interaction, term: app_commands.Range[str, 1, 60]
    ) -> None:
        """Remove one of the campaign's terms, or switch a shipped one off (it is then read as written)."""
        campaign = await _campaign(interaction)
        removal = await services_of(interaction).glossary.remove(campaign, term)
        await interaction.response.send_message(
            lore_glossary.removed_line(removal), ephemeral=True, allowed_mentions=NONE
        )


async def setup(bot: Lorekeeper) -> None:
    """Register the /lore commands and the Sources and "Why these?" buttons."""
    bot.add_dynamic_items(*lore_views.DYNAMIC_ITEMS)
    await bot.add_cog(LoreCommands(bot))


async def teardown(bot: Lorekeeper) -> None:
    """Forget the Sources and "Why these?" buttons when the extension is unloaded."""
    bot.remove_dynamic_items(*lore_views.DYNAMIC_ITEMS)


__all__ = ["SETTINGS", "LoreCommands", "setup", "teardown"]
