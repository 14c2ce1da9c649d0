"""Pure renderers for what canon says of one entity: its card and its timeline. No Discord I/O.

Everything is said through `canon.wording` (relations as sentences, dates in the campaign calendar's words,
evidence as "said in scene 1, turns 12–15, by Pat"). Players' cards carry no ids; the GM's card adds each
statement's id (the GM's detail view) and marks GM-only rows 🔒; a player's marks only what their character
learned (`cogs.secret_marks`).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_VALUE, fit_lines
from canon.knowing import Known
from canon.models import NOW, AsOf, CanonLevel, EntityCard, StatementView, Viewer
from canon.visibility import Knowing, entity_seen, visible_views
from canon.wording import PLAIN, Wording, type_words
from canon.wording.fact_names import told_apart
from canon.wording.statements import for_a_card, said_above, status_fact_over_life, status_over_life
from cogs.canon_embeds import shrink_to_limit, statement_line
from cogs.embeds import COLOUR, clip, escape
from cogs.secret_marks import entity_mark, mark_key


def as_of_words(as_of: AsOf, words: Wording) -> str:
    """Return the point a card looks from, after "As of": "now", "year 300 of the Third Age, after scene 2"."""
    parts = []
    if as_of.world:
        parts.append(words.date(as_of.world))
    if as_of.scene is not None:
        parts.append(f"after scene {as_of.scene}")
    if as_of.believed_at is not None:
        parts.append(f"as believed on {as_of.believed_at:%Y-%m-%d %H:%M} UTC")
    return ", ".join(parts) or "now"


# Facts a card says above its fields: the world-builder's own words for an event's date, and a description.
ABOVE = frozenset({"in_fiction_date", "description"})


def _above(facts: Sequence[StatementView], predicate: str) -> str | None:
    return next((v.statement.value for v in facts if v.statement.predicate == predicate), None)


def _when(card: EntityCard, facts: Sequence[StatementView], words: Wording) -> str | None:
    """Return when an event took place: the world-builder's own words where given, else the calendar's."""
    written = _above(facts, "in_fiction_date") or card.entity.attributes.get("in_fiction_date")
    if isinstance(written, str) and written.strip():
        return written
    date = card.entity.attributes.get("date")
    return words.date(date) if isinstance(date, str) and date else None


def _fact_line(
    view: StatementView, card: EntityCard, viewer: Viewer, words: Wording, known: Known | None
) -> str:
    """Return a fact's line, marked when a later value, dated in the world, changed it."""
    line = statement_line(view, viewer=viewer, words=words, known=known)
    changed = card.changed_at.get(view.statement.id)
    if not changed:
        return line
    when = words.date(changed)
    return f"{line} — changed {'on' if when.startswith('day ') else 'in'} {when}"


def entity_card_embed(
    card: EntityCard,
    *,
    viewer: Viewer,
    as_of: AsOf,
    words: Wording = PLAIN,
    knowing: Knowing | None = None,
    seen_as: str | None = None,
) -> discord.Embed:
    """Render an entity's card: state, aliases, relations, key facts and their evidence (a player's through
    their character's lens, `knowing`; `seen_as`: the name of the character the GM looks through, if so)."""
    entity = card.entity
    if not entity_seen(viewer, entity.visibility, entity.id, knowing, as_of):
        return discord.Embed(title="Not found", description="No such entity in this campaign's canon.")
    words = words.rich(escape)
    known = knowing.at(as_of) if knowing is not None and viewer != Viewer.GM else None
    sign = entity_mark(entity, viewer, known)
    title = f"{entity.name} ({type_words(entity.type)})" + (f" {sign}" if sign else "")
    embed = discord.Embed(title=clip(title, EMBED_TITLE), colour=COLOUR)
    facts = visible_views(card.facts, viewer, knowing, as_of)
    lines = []
    description = entity.description or _above(facts, "description")
    if description:
        lines.append(escape(clip(description, 1500)))
    if (when := _when(card, facts, words)) is not None:
        lines.append(f"When: {escape(when)}")
    if entity.aliases:
        lines.append("Also known as: " + escape(", ".join(entity.aliases)))
    if entity.provenance.level == CanonLevel.RETCONNED:
        lines.append("This was retconned: it is no longer canon.")
    embed.description = fit_lines(lines, 2000) or None
    state = card.state
    if state is not None and not visible_views([state], viewer, knowing, as_of):
        state = None
    if state is not None:  # places and events have no state: nothing to say rather than "unknown"
        status, fact = status_over_life(state, facts), status_fact_over_life(state, facts)
        line = statement_line(state, viewer=viewer, words=words, known=known, status=status, status_fact=fact)
        embed.add_field(name="State", value=line, inline=False)
    words = for_a_card(words, state)  # a dead man "lived in" his town
    relations = visible_views(card.relations, viewer, knowing, as_of)
    if relations:
        embed.add_field(
            name="Relations",
            value=fit_lines(
                told_apart(
                    relations,
                    [
                        statement_line(v, evidence=False, viewer=viewer, words=words, known=known)
                        for v in relations
                    ],
                    words,
                    viewer,
                ),
                FIELD_VALUE,
            ),
            inline=False,
        )
    facts = [v for v in facts if v.statement.predicate not in ABOVE and not said_above(v, entity.aliases)]
    if facts:
        embed.add_field(
            name="Facts",
            value=fit_lines(
                told_apart(facts, [_fact_line(v, card, viewer, words, known) for v in facts], words, viewer),
                FIELD_VALUE,
            ),
            inline=False,
        )
    if card.evidence:
        embed.add_field(
            name="Evidence",
            value=fit_lines([words.evidence(e, viewer) for e in card.evidence], FIELD_VALUE),
            inline=False,
        )
    footer = f"As of {as_of_words(as_of, words)}"
    shown = [embed.title or "", embed.description or "", *(f.value or "" for f in embed.fields)]
    key = mark_key(viewer, "\n".join(shown), seen_as)  # a key only to a mark the card shows
    if key is not None:
        footer += f" · {key}"
    embed.set_footer(text=footer)
    return shrink_to_limit(embed)


def timeline_embed(
    name: str,
    views: Sequence[StatementView],
    *,
    viewer: Viewer,
    words: Wording = PLAIN,
    knowing: Knowing | None = None,
) -> discord.Embed:
    """Render an entity's timeline in story order; retconned rows are struck through."""
    words = words.rich(escape)
    embed = discord.Embed(title=clip(f"Timeline: {name}", EMBED_TITLE), colour=COLOUR)
    shown = visible_views(views, viewer, knowing)
    by_id = {v.statement.id: v for v in shown}
    known = knowing.at(NOW) if knowing is not None and viewer != Viewer.GM else None
    plain = told_apart(
        shown,
        [statement_line(v, evidence=False, viewer=viewer, words=words, known=known) for v in shown],
        words,
        viewer,
    )
    lines = []
    for view, line in zip(shown, plain, strict=True):
        if view.statement.provenance.level == CanonLevel.RETCONNED:
            replaced = view.statement.provenance.replaced_by
            now = by_id.get(replaced) if replaced and viewer == Viewer.GM else None
            line = f"~~{line}~~ retconned" + (
                f", replaced by {statement_line(now, evidence=False, viewer=viewer, words=words)}"
                if now is not None
                else ""
            )
        lines.append(line)
    embed.description = fit_lines(lines, EMBED_DESCRIPTION - 96) if lines else "Nothing recorded yet."
    # A legend only for what the timeline shows: a key to nothing on it is one more thing to puzzle over.
    legend = []
    if any(v.statement.provenance.level == CanonLevel.RETCONNED for v in shown):
        legend.append("Struck through: retconned (what was believed before).")
    key = mark_key(viewer, "\n".join(lines))
    if key is not None:
        legend.append(key if key.endswith(".") else f"{key}.")
    if legend:
        embed.set_footer(text=" ".join(legend))
    return shrink_to_limit(embed)
