"""The canon renderers without Discord: long lists, findings and retcons within limits, proposed canon."""

from __future__ import annotations

import pytest

from bot.services.canon_admin import RetconResult
from canon.continuity import ConflictKind, Finding, Side
from canon.models import CanonLevel, Evidence, EvidenceKind, StatementKind
from canon.proposals import EventContent, Ref
from canon.wording import PLAIN
from cogs import canon_embeds, retcon_embeds
from tests.e2e.jargon import jargon_in
from tests.helpers.canon_samples import proposal, statement
from tests.helpers.discord_limits import assert_within_discord_limits


def test_long_lists_are_cut_at_whole_lines() -> None:
    lines = [f"line {i} " + "x" * 50 for i in range(100)]
    text = canon_embeds.fit_lines(lines, 1024)
    assert len(text) <= 1024 and text.endswith("more")
    shown = text.split("\n")[:-1]
    assert shown == lines[: len(shown)] and f"… and {100 - len(shown)} more" == text.split("\n")[-1]
    assert canon_embeds.fit_lines(["y" * 5000], 100) == "y" * 99 + "…"
    assert canon_embeds.fit_lines(["a", "b"], 100) == "a\nb"


def test_findings_retcons_and_added_canon_render_within_limits() -> None:
    side = Side(
        statement_id=5,
        sentence="Aldric is dead",
        evidence=(Evidence(kind=EvidenceKind.TURNS, scene_id=1, turn_from=1, turn_to=1),),
    )
    other = Side(statement_id=6, sentence="Aldric takes part in the march", evidence=())
    finding = Finding(
        kind=ConflictKind.DEAD_ACTING,
        message="Aldric takes part in the march after dying. " + "z" * 2000,
        sides=(side, other),
        entity_ids=(1,),
        statement_ids=(5, 6),
        fingerprint="f",
    )
    embed = canon_embeds.check_embed([finding] * 40, [finding] * 40, PLAIN)
    assert_within_discord_limits(embed)
    assert "40 problems" in (embed.description or "") and len(embed.fields) == 10
    assert "Aldric is dead — from a scene (turn 1)" in (embed.fields[0].value or "")
    assert not jargon_in(str(embed.to_dict()))
    assert embed.fields[0].name == "The dead acting"
    retcon = retcon_embeds.retcon_embed(
        RetconResult(
            retconned_id=20,
            replacement_id=21,
            dependents=[statement(30 + i, StatementKind.ATTRIBUTE, "x", value="y" * 200) for i in range(50)],
            words=PLAIN,
            retconned=statement(
                20, StatementKind.ATTRIBUTE, "material", value="stone", level=CanonLevel.RETCONNED
            ),
            replacement=statement(21, StatementKind.ATTRIBUTE, "material", value="wood"),
        ),
        "It was always wood",
    )
    assert_within_discord_limits(retcon)
    assert "Replaced by: Mara's material: wood" in (retcon.description or "")
    assert retcon.fields[0].name == "Facts to review (50)"


@pytest.mark.parametrize("count", [1, 2, 30])
def test_proposed_embed_names_the_entities_made_for_unknown_names(count: int) -> None:
    from canon.proposals import EntityContent

    made = [
        proposal(i).model_copy(update={"content": EntityContent(name=f"Stranger {i}", entity_type="Person")})
        for i in range(1, count)
    ]
    event = proposal(count, warnings=2).model_copy(
        update={
            "content": EventContent(name="The march", participants=(Ref(name="Stranger 1", proposal_id=1),))
        }
    )
    embed = canon_embeds.proposed_embed([*made, event])
    assert_within_discord_limits(embed)
    text = embed.description or ""
    assert text.startswith("Event: The march") and f"#{count}" not in text
    if count > 1:
        assert "“Stranger 1” is not in canon yet, so it is proposed too, as a new Person." in text
    assert embed.fields[0].name == "⚠️ Continuity warnings"


def test_a_players_proposed_reply_reads_the_same_whether_or_not_hidden_canon_warned() -> None:
    """Warnings resting on GM-only canon leave no trace for a player: no count, no field, no colour."""
    warned = proposal(5, warnings=2)
    unwarned = proposal(5)
    seen = canon_embeds.proposed_embed([warned], secret=frozenset({5}))
    assert seen.to_dict() == canon_embeds.proposed_embed([unwarned]).to_dict()
    assert "GM" in (seen.description or "")  # it still says the GM reviews it, as every reply does
    gm_seen = canon_embeds.proposed_embed([warned])
    assert gm_seen.colour == canon_embeds.WARNING_COLOUR and len(gm_seen.fields[0].value.splitlines()) == 2
