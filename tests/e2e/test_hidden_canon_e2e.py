"""Counts, cards and numbers players see reveal nothing of hidden canon: the real client against the emulator.

An adversarial player may watch `/campaign info`'s counts while the GM adds hidden things, or propose events
and read which ones a public review card leaves out or warns about. Neither may tell them anything.
"""

from __future__ import annotations

import re

from bot.offline.emulator.messages import custom_ids
from canon.models import Visibility
from canon.visibility import statement_hidden
from tests.e2e.canon_flow import embed_text, gm_adds, review_cards
from tests.e2e.conftest import World, embed_fields, sql_run_below

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/services/test_canon_service.py"
)


def written_here(reply) -> str:  # type: ignore[no-untyped-def]
    """Return the "Written here" counts of a /campaign info reply."""
    assert reply.ephemeral and reply.embeds, reply.content
    return embed_fields(reply.embeds[0])["Written here"]


async def test_campaign_info_counts_only_what_the_asker_may_see(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Brann", type="Person")
    before = written_here(await emu.invoke(chan, world.pat, "campaign info"))
    assert before.startswith("1 entities, 0 facts, 0 scenes, 0 sources"), before

    # The GM adds only hidden things: a GM-only entity, a GM-only fact about a public one, a public-looking
    # fact about the hidden entity, and a narrator-only source.
    await gm_adds(world, "entity", name="Vell", type="Person", gm_only=True)
    await gm_adds(world, "state", subject="Brann", state="dead", gm_only=True)
    await gm_adds(world, "fact", subject="Vell", attribute="title", value="the last heir")
    attachment = emu.make_attachment("secrets.md", "# Secrets\n\nVell lives under the mill.\n")
    imported = await emu.invoke(chan, world.gm, "lore import", file=attachment, hidden=True)
    assert imported.ephemeral and "Imported" in embed_text(imported.embeds[0]), imported.content

    assert written_here(await emu.invoke(chan, world.pat, "campaign info")) == before
    gm_counts = written_here(await emu.invoke(chan, world.gm, "campaign info"))
    assert gm_counts.startswith("2 entities, 2 facts, 0 scenes, 1 sources"), gm_counts
    # A public fact about a public entity moves the players' count, as it should.
    await gm_adds(world, "fact", subject="Brann", attribute="trade", value="smith")
    after = written_here(await emu.invoke(chan, world.pat, "campaign info"))
    assert after.startswith("1 entities, 1 facts, 0 scenes, 0 sources"), after


@SQL_RUN_BELOW
async def test_a_public_review_card_is_no_oracle_for_a_secret_death(world: World) -> None:
    """A player proposes two events of year 310; Vell is secretly dead since 300. The card shows both alike."""
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Brann", type="Person")
    await gm_adds(world, "entity", name="Vell", type="Person")
    await gm_adds(world, "state", subject="Vell", state="dead", when="3rd_age.year_300", gm_only=True)
    await gm_adds(world, "entity", name="The Hidden King", type="Person", gm_only=True)
    await emu.invoke(chan, world.gm, "scene start", title="Weddings")
    await emu.send_message(chan, world.pat, "Two weddings in one year!")
    # A GM-only proposal made first, so that a card numbering by id would show a gap before the players' ones.
    await emu.invoke(
        chan, world.gm, "propose fact", subject="The Hidden King", attribute="seat", value="Mill"
    )
    for who in ("Brann", "Vell"):
        seen = await emu.invoke(
            chan,
            world.pat,
            "propose event",
            name=f"{who}'s wedding",
            when="3rd_age.year_310",
            participants=who,
        )
        told = embed_text(seen.embeds[0])
        assert "⚠️" not in told and "dying" not in told and not seen.embeds[0].get("fields"), told
        assert not re.search(r"#\d", told), told  # no global proposal number to count gaps in
    await emu.invoke(chan, world.gm, "endscene")

    (card,) = review_cards(world)
    public = embed_text(card["embeds"][0])
    assert "Event: Brann's wedding, year 310 of the 3rd age, with Brann" in public
    assert "Event: Vell's wedding, year 310 of the 3rd age, with Vell" in public
    fields = " ".join(f"{f['name']} {f['value']}" for f in card["embeds"][0]["fields"])
    assert "⚠️" not in fields and "dying" not in public and "Hidden King" not in public
    assert card["embeds"][0].get("color") != 0xE67E22  # no warning colour either
    assert re.findall(r"^#(\d+) · ", public, re.MULTILINE) == ["1", "2"]
    controls = [c for row in card["components"] for c in row["components"]]
    assert [c.get("label") for c in controls if c["type"] == 2][:3] == ["Accept #1", "Reject #1", "Edit #1"]
    (select,) = [c for c in controls if c["type"] == 3]
    assert [o["label"].split(" ")[0] for o in select["options"]] == ["#1", "#2"]
    assert not any("⚠️" in str(o.get("description")) for o in select["options"])
    # The GM's private view numbers them alike and shows the warning, and the GM-only proposal after them.
    private = await emu.invoke(chan, world.gm, "canon review", private=True)
    shown = embed_text(private.embeds[0])
    assert re.findall(r"^#(\d+) · ", shown, re.MULTILINE) == ["1", "2", "3"]
    assert re.search(
        r"^#2 · ⏳ pending · ⚠️ conflicts with canon — give a reason to accept$", shown, re.MULTILINE
    ), shown
    assert (
        "Vell takes part in “Vell's wedding” (year 310 of the 3rd age) after dying" in shown
        and "🔒 The Hidden King's seat: Mill" in shown
    )
    assert all(
        c.startswith(("lk:proposal:", "lk:review:", "lk:pick")) for c in custom_ids(card["components"])
    )


@SQL_RUN_BELOW
async def test_players_cards_name_facts_without_their_numbers(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Brann", type="Person")
    await gm_adds(world, "fact", subject="Brann", attribute="secret", value="a spy", gm_only=True)
    await gm_adds(world, "fact", subject="Brann", attribute="trade", value="smith")
    player = embed_text((await emu.invoke(chan, world.pat, "canon entity", name="Brann")).embeds[0])
    assert "Brann's occupation: smith" in player and not re.search(r"#\d", player), player
    gm = embed_text((await emu.invoke(chan, world.gm, "canon entity", name="Brann")).embeds[0])
    assert "Brann's occupation: smith" in gm and not re.search(r"#\d|\(fact \d+\)", gm), gm


def test_a_statement_is_hidden_when_it_or_either_end_is_gm_only() -> None:
    public, gm_only = Visibility.PUBLIC, Visibility.GM_ONLY
    assert not statement_hidden(public, public, public) and not statement_hidden(public, public)
    assert statement_hidden(gm_only, public, public)
    assert statement_hidden(public, gm_only) and statement_hidden(public, public, gm_only)
