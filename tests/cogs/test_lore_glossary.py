"""`/lore glossary list`: every word shown while the embed can hold it, and what cannot fit counted."""

from __future__ import annotations

from bot.client import limits
from bot.services.glossary import GlossaryEntry
from cogs.lore_glossary import list_embed
from memory.knowledge.glossary import SHIPPED


def _shown(embed) -> str:
    return "\n".join(f"{f.name}\n{f.value}" for f in embed.fields)


def test_every_shipped_word_is_shown_after_the_campaign_s_own() -> None:
    entries = [GlossaryEntry("greenskin", "goblin", own=True)]
    entries += [GlossaryEntry(term, meaning, own=False) for term, meaning in sorted(SHIPPED.items())]

    embed = list_embed(entries)

    shown = _shown(embed)
    assert (
        embed.fields[0].name == "This campaign's words" and "**greenskin** → goblin" in embed.fields[0].value
    )
    for term, meaning in SHIPPED.items():  # the shipped list is longer than one field: none is cut off
        assert f"**{term}** → {meaning}" in shown.replace("\\", ""), term
    assert embed.footer.text is None
    assert all(len(f.value) <= limits.FIELD_VALUE for f in embed.fields)
    assert len(embed) <= limits.EMBED_TOTAL


def test_a_glossary_longer_than_an_embed_says_how_many_more() -> None:
    own = [GlossaryEntry(f"term{n:03d}", "a meaning of the table " + "x" * 90, own=True) for n in range(500)]

    embed = list_embed(own)

    lines = [line for f in embed.fields for line in f.value.split("\n")]
    assert lines[0].startswith("**term000**")  # the list starts at its start, whole lines only
    assert embed.footer.text == f"… and {500 - len(lines)} more."
    assert len(embed) <= limits.EMBED_TOTAL and len(embed.fields) <= limits.EMBED_FIELDS
    assert all(len(f.value) <= limits.FIELD_VALUE for f in embed.fields)


def test_no_words_of_its_own_says_so() -> None:
    embed = list_embed([GlossaryEntry("hp", "hit points", own=False)])

    assert embed.fields[0].value == "None yet."
    assert "**hp** → hit points" in embed.fields[1].value
