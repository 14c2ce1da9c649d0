"""The review card without Discord: a huge review within Discord's limits, its controls, hidden proposals."""

from __future__ import annotations

import dataclasses
import re

from bot.services.review import Review
from canon.models import Visibility
from canon.proposals import ProposalStatus
from canon.wording import CalendarWords, Wording
from cogs import canon_embeds, canon_views, review_embeds
from cogs.canon_views import closed_view, review_view
from memory.scenes import SceneStatus
from tests.helpers.canon_samples import big_review, proposal, scene
from tests.helpers.discord_limits import assert_within_discord_limits, components_within_limits


async def test_a_500_proposal_review_fits_discord_on_every_page() -> None:
    review = big_review()
    assert review_embeds.page_count(review) == 63
    for page in range(review_embeds.page_count(review)):
        for reveal in (True, False):
            assert_within_discord_limits(review_embeds.review_embed(review, page, reveal=reveal))
        components_within_limits(review_view(review, page))
    last = review_embeds.review_embed(review, 10_000, reveal=True)  # out of range: the last page
    assert "Page 63/63" in (last.footer.text or "")
    # Players' card: the 72 GM-only proposals are not there at all, so it has fewer pages.
    public_last = review_embeds.review_embed(review, 10_000, reveal=False)
    assert "Page 54/54" in (public_last.footer.text or "")
    assert (public_last.description or "").startswith("428 proposals")
    assert_within_discord_limits(
        review_embeds.committed_embed(big_review(status=SceneStatus.COMPLETED), [], reveal=False)
    )
    components_within_limits(closed_view(7))


async def test_the_review_view_picks_one_pending_proposal_and_has_the_controls() -> None:
    review = Review(
        scene=scene(),
        batch=None,
        proposals=[
            proposal(i, status=ProposalStatus.ACCEPTED if i == 2 else ProposalStatus.PENDING)
            for i in range(1, 11)
        ],
        turn_messages={},
    )
    rows = components_within_limits(review_view(review, 0))
    ids = [b["custom_id"] for row in rows for b in row["components"]]
    (select,) = rows[0]["components"]
    assert select["custom_id"] == "lk:pick"
    # The page's pending proposals, by their card number; the first is picked until another is.
    assert [o["label"].split(" ")[0] for o in select["options"]] == ["#1", "#3", "#4", "#5", "#6", "#7", "#8"]
    assert [o.get("default") for o in select["options"]][:2] == [True, False]
    assert ids[1:4] == ["lk:proposal:1:accept", "lk:proposal:1:reject", "lk:proposal:1:edit"]
    assert [b["label"] for b in rows[1]["components"]] == [
        "Accept #1",
        "Reject #1",
        "Edit #1",
        "Only those present #1",
    ]
    picked = components_within_limits(review_view(review, 0, 4))
    assert picked[1]["components"][0]["custom_id"] == "lk:proposal:4:accept"
    assert [o["value"] for o in picked[0]["components"][0]["options"] if o.get("default")] == ["4"]
    decided = components_within_limits(review_view(review, 0, 2))  # decided already: the first pending
    assert decided[1]["components"][0]["custom_id"] == "lk:proposal:1:accept"
    assert "lk:proposal:9:accept" not in ids  # on page 2
    assert ids[-4:] == [
        "lk:review:7:page:0:prev",
        "lk:review:7:page:1:next",
        "lk:review:7:accept_all",
        "lk:review:7:commit",
    ]
    first = rows[-1]["components"][0]
    assert first.get("disabled") is True  # no page before the first
    assert review_embeds.page_of(review, 9) == 1 and review_embeds.first_pending_page(review) == 0


def test_a_rejection_reason_is_shown_to_gms_only() -> None:
    rejected = proposal(1, status=ProposalStatus.REJECTED).model_copy(update={"rationale": "Vell is dead"})
    review = Review(scene=scene(), batch=None, proposals=[rejected], turn_messages={})
    assert "Vell is dead" in review_embeds.review_embed(review, 0, reveal=True).fields[0].value
    assert "Vell is dead" not in str(review_embeds.review_embed(review, 0, reveal=False).to_dict())
    done = dataclasses.replace(review, scene=scene(SceneStatus.COMPLETED))
    assert "Vell is dead" in str(review_embeds.committed_embed(done, [], reveal=True).to_dict())
    assert "Vell is dead" not in str(review_embeds.committed_embed(done, [], reveal=False).to_dict())


def test_a_proposal_shows_its_evidence_as_links_and_its_warnings() -> None:
    review = Review(
        scene=scene(), batch=None, proposals=[proposal(5, warnings=1)], turn_messages={1: 999, 3: 1003}
    )
    embed = review_embeds.review_embed(review, 0, reveal=False)
    (field,) = embed.fields
    assert (
        field.name == "#1 · ⏳ pending · ⚠️ conflicts with canon — give a reason to accept"
    )  # its number on the card, not its id
    value = field.value or ""
    # Said as a person says it: the scene by its title (cut short), linked to its first cited message.
    assert "Evidence: from [the scene “The march xxx" in value
    assert "…”](https://discord.com/channels/111/222/999)" in value and "turn" not in value
    assert "⚠️ Aldric acts after dying, #0" in value
    assert value.count("from [the scene") == 1 and "(+" not in value  # five pieces of one scene, said once


def test_user_text_cannot_forge_links_or_break_markdown() -> None:
    review = Review(
        scene=scene(),
        batch=None,
        proposals=[proposal(1, value="[free](https://evil.example) **bold**")],
        turn_messages={},
    )
    value = review_embeds.review_embed(review, 0, reveal=False).fields[0].value or ""
    assert re.search(r"(?<!\\)\[free", value) is None and "\\[free" in value and "\\*\\*bold" in value


def test_hidden_proposals_leave_no_trace_on_public_cards_and_are_marked_on_private_ones() -> None:
    # The service orders a review as the card shows it: what players may read first, the GM-only ones last.
    review = Review(
        scene=scene(),
        batch=None,
        proposals=[proposal(2), proposal(1, value="the king is a fraud", visibility=Visibility.GM_ONLY)],
        turn_messages={},
        secret=frozenset({1}),
    )
    public = review_embeds.review_embed(review, 0, reveal=False)
    text = str(public.to_dict())
    assert "fraud" not in text and "GM-only" not in text and "🔒" not in text and "#2" not in text
    assert [f.name for f in public.fields] == ["#1 · ⏳ pending"]  # numbered on the card: no gap, no id
    assert (public.description or "").startswith("1 proposal: 1 pending")
    assert (
        review_embeds.review_embed(review, 0, reveal=False).to_dict()
        == review_embeds.review_embed(
            dataclasses.replace(review, proposals=[review.proposals[0]], secret=frozenset()), 0, reveal=False
        ).to_dict()
    )
    private = review_embeds.review_embed(review, 0, reveal=True)
    assert [f.name for f in private.fields] == ["#1 · ⏳ pending", "#2 · ⏳ pending"]
    assert (private.fields[1].value or "").startswith("🔒 Mara is the king is a fraud")
    assert (private.description or "").startswith("2 proposals: 2 pending")
    final = review_embeds.committed_embed(
        Review(
            scene=scene(SceneStatus.COMPLETED),
            batch=None,
            proposals=[
                proposal(2, status=ProposalStatus.REJECTED),
                proposal(1, status=ProposalStatus.COMMITTED, value="the king is a fraud"),
            ],
            turn_messages={},
            secret=frozenset({1}),
        ),
        [],
        reveal=False,
    )
    assert "fraud" not in str(final.to_dict()) and "#2" not in str(final.to_dict())
    assert "0 written to canon, 1 rejected" in (final.description or "")


def test_a_public_card_shows_a_proposal_warned_by_hidden_canon_without_the_warning() -> None:
    warned = Review(
        scene=scene(),
        batch=None,
        proposals=[proposal(1, warnings=1), proposal(2)],
        turn_messages={},
        secret_warnings=frozenset({1}),
    )
    unwarned = dataclasses.replace(warned, proposals=[proposal(1), proposal(2)], secret_warnings=frozenset())
    public = review_embeds.review_embed(warned, 0, reveal=False)
    assert [f.name for f in public.fields] == ["#1 · ⏳ pending", "#2 · ⏳ pending"]
    # Not a trace: the card reads as one where nothing warned (no count, no line, no colour, no ⚠️ button).
    assert public.to_dict() == review_embeds.review_embed(unwarned, 0, reveal=False).to_dict()
    view = canon_views.card_content(warned, 0, reveal=False)["view"]
    components = [c for row in view.to_components() for c in row["components"]]
    labels = [c.get("label") for c in components] + [o.get("description") for o in components[0]["options"]]
    assert "Accept #1" in labels and not any("⚠️" in str(label) for label in labels)
    private = review_embeds.review_embed(warned, 0, reveal=True)
    assert (
        private.fields[0].name == "#1 · ⏳ pending · ⚠️ conflicts with canon — give a reason to accept"
        and private.colour == canon_embeds.WARNING_COLOUR
    )


def test_a_date_in_a_gm_only_era_is_none_on_the_players_card_and_in_its_words_on_the_gm_s() -> None:
    words = CalendarWords(
        eras={"after_the_crowning": "After the Crowning"}, hidden=frozenset({"sunken_reign"})
    )
    gm = CalendarWords(eras={"after_the_crowning": "After the Crowning", "sunken_reign": "The Sunken Reign"})
    dated = proposal(1)
    dated = dated.model_copy(update={"content": dated.content.model_copy(update={"when": "sunken_reign.52"})})
    review = Review(
        scene=scene(),
        batch=None,
        proposals=[dated],
        turn_messages={},
        words=Wording(calendar=words),
        gm_calendar=gm,
    )
    players = str(review_embeds.review_embed(review, 0, reveal=False).to_dict())
    assert "from an unknown date" in players and not re.search(r"(?i)sunken|52", players)
    assert "from year 52 of the Sunken Reign" in str(
        review_embeds.review_embed(review, 0, reveal=True).to_dict()
    )
