"""The canon renderers without Discord: limits for huge reviews, hidden canon, links, strikethroughs."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any

import discord
import pytest

from bot.services.canon_admin import RetconResult
from bot.services.review import Review
from canon.continuity import ConflictKind, Finding, Side
from canon.models import (
    AsOf,
    Authority,
    CanonLevel,
    Entity,
    EntityCard,
    EntityRef,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    StatementView,
    Validity,
    Viewer,
    Visibility,
)
from canon.proposals import EventContent, FactContent, Proposal, ProposalStatus, ProposalWarning, Ref
from canon.wording import PLAIN, CalendarWords, SceneWords, TurnWords, Wording
from cogs import canon_embeds, canon_views, entity_embeds, retcon_embeds, review_embeds
from cogs.canon_views import closed_view, review_view
from memory.scenes import Scene, SceneStatus
from tests.e2e.jargon import jargon_in

NOW = dt.datetime(2026, 11, 30, 18, 0, tzinfo=dt.UTC)
LONG = "Ω" * 900 + " [click me](https://evil.example) @everyone"


def scene(status: SceneStatus = SceneStatus.REVIEW) -> Scene:
    return Scene(
        id=7,
        campaign_id=1,
        guild_id=111,
        channel_id=222,
        title="The march " + "x" * 300,
        location=None,
        status=status,
        story_order=3,
        started_by_id=1,
        started_by_name="Gina",
        started_at=NOW,
        ended_at=NOW,
        narrator_mode=False,
        summary=None,
    )


def warning(text: str) -> ProposalWarning:
    return ProposalWarning(kind="dead_acting", message=text, entity_ids=(1,), statement_ids=(2,))


def proposal(
    pid: int,
    *,
    status: ProposalStatus = ProposalStatus.PENDING,
    warnings: int = 0,
    value: str = "Captain of the Guard",
    visibility: Visibility = Visibility.PUBLIC,
) -> Proposal:
    return Proposal(
        id=pid,
        campaign_id=1,
        scene_id=7,
        batch=None,
        content=FactContent(
            subject=Ref(name="Mara", entity_id=3), attribute="title", value=value, visibility=visibility
        ),
        evidence=tuple(
            Evidence(kind=EvidenceKind.TURNS, scene_id=7, turn_from=n, turn_to=n + 2) for n in range(1, 6)
        ),
        authority=Authority.PLAYER,
        confidence=1.0,
        origin="command",
        status=status,
        rationale="Not yet " + "n" * 400 if status == ProposalStatus.REJECTED else None,
        warnings=tuple(warning(f"Aldric acts after dying, #{i} " + "w" * 300) for i in range(warnings)),
        proposer_id=2,
        proposer_name="Pat " + "p" * 90,
        created_at=NOW,
        decided_by_name=None if status == ProposalStatus.PENDING else "Gina",
        decided_at=None,
        override_rationale=None,
        committed_changeset_id=None,
    )


def big_review(count: int = 500, *, status: SceneStatus = SceneStatus.REVIEW) -> Review:
    statuses = list(ProposalStatus)
    proposals = [
        proposal(i, status=statuses[i % 3], warnings=i % 5, value=LONG if i % 2 else "short")
        for i in range(1, count + 1)
    ]
    return Review(
        scene=scene(status),
        batch=None,
        proposals=proposals,
        turn_messages={n: 10**18 + n for n in range(1, 20)},
        secret=frozenset(range(1, count + 1, 7)),
    )


def assert_within_discord_limits(embed: discord.Embed) -> None:
    data = embed.to_dict()
    assert len(embed) <= 6000
    assert len(data.get("title", "")) <= 256
    assert len(data.get("description", "")) <= 4096
    assert len(data.get("fields", [])) <= 25
    for field in data.get("fields", []):
        assert 1 <= len(field["name"]) <= 256 and 1 <= len(field["value"]) <= 1024
    assert len(data.get("footer", {}).get("text", "")) <= 2048


def components_within_limits(view: discord.ui.View) -> list[dict[str, Any]]:
    rows = view.to_components()
    assert len(rows) <= 5
    ids = []
    for row in rows:
        assert len(row["components"]) <= 5
        if any(c["type"] == 3 for c in row["components"]):  # a select sits alone in its row
            (select,) = row["components"]
            assert 1 <= len(select["options"]) <= 25
            assert all(
                len(o["label"]) <= 100 and len(o.get("description") or "") <= 100 for o in select["options"]
            )
        for button in row["components"]:
            assert len(button["custom_id"]) <= 100 and len(button.get("label", "")) <= 80
            ids.append(button["custom_id"])
    assert len(ids) == len(set(ids))
    return rows


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


def ref(eid: int, name: str, visibility: Visibility = Visibility.PUBLIC) -> EntityRef:
    return EntityRef(id=eid, name=name, type="NPC", visibility=visibility)


def provenance(level: CanonLevel = CanonLevel.CANON, replaced_by: int | None = None) -> Provenance:
    return Provenance(
        campaign_id=1,
        changeset_id=1,
        recorded_at=NOW,
        authority=Authority.GM,
        confidence=1.0,
        level=level,
        replaced_by=replaced_by,
    )


def statement(
    sid: int,
    kind: StatementKind,
    predicate: str,
    *,
    value: str | None = None,
    obj: EntityRef | None = None,
    visibility: Visibility = Visibility.PUBLIC,
    level: CanonLevel = CanonLevel.CANON,
    replaced_by: int | None = None,
) -> StatementView:
    return StatementView(
        statement=Statement(
            id=sid,
            kind=kind,
            subject_id=1,
            predicate=predicate,
            object_id=obj.id if obj else None,
            value=value,
            visibility=visibility,
            validity=Validity(story_from=2),
            provenance=provenance(level, replaced_by),
            evidence=(Evidence(kind=EvidenceKind.TURNS, scene_id=4, turn_from=2, turn_to=3),),
        ),
        subject=ref(1, "Mara"),
        object=obj,
    )


def mara_card(entity_visibility: Visibility = Visibility.PUBLIC) -> EntityCard:
    return EntityCard(
        entity=Entity(
            id=1,
            type="NPC",
            name="Mara",
            visibility=entity_visibility,
            aliases=("The Captain",),
            provenance=provenance(),
        ),
        state=statement(10, StatementKind.STATE, "state", value="alive"),
        relations=(
            statement(11, StatementKind.RELATION, "ALLY_OF", obj=ref(2, "Brann")),
            statement(
                12, StatementKind.RELATION, "SERVES", obj=ref(3, "The Hidden King", Visibility.GM_ONLY)
            ),
        ),
        facts=(
            statement(13, StatementKind.ATTRIBUTE, "title", value="Captain"),
            statement(14, StatementKind.ATTRIBUTE, "secret", value="a spy", visibility=Visibility.GM_ONLY),
        ),
        evidence=(Evidence(kind=EvidenceKind.COMMAND, note="/canon add by Gina"),),
    )


def test_an_entity_card_hides_gm_only_canon_from_players_and_marks_it_for_the_gm() -> None:
    player = entity_embeds.entity_card_embed(mara_card(), viewer=Viewer.PLAYER, as_of=AsOf())
    text = str(player.to_dict())
    assert "Captain" in text and "Brann" in text and "The Captain" in text
    assert "spy" not in text and "Hidden King" not in text and "🔒" not in text
    words = Wording(
        calendar=CalendarWords(eras={"3rd_age": "The Third Age"}),
        scenes={4: SceneWords(order=2, turns={2: TurnWords(author="Pat", url="https://example.org/2")})},
    )
    gm = entity_embeds.entity_card_embed(mara_card(), viewer=Viewer.GM, as_of=AsOf(scene=4), words=words)
    fields = {f.name: f.value or "" for f in gm.fields}
    assert (
        "🔒 Mara's secret: a spy (from scene 2) — from [scene 2](https://example.org/2), said by Pat (turns 2–3)"
        in fields["Facts"]
    )
    assert not jargon_in(str(gm.to_dict())) and not re.search(r"#\d", str(gm.to_dict()))
    assert "🔒 Mara serves the Hidden King" in fields["Relations"]
    assert "Mara is an ally of Brann" in fields["Relations"]
    assert "Mara is alive" in fields["State"] and "after scene 4" in (gm.footer.text or "")
    hidden = entity_embeds.entity_card_embed(
        mara_card(Visibility.GM_ONLY), viewer=Viewer.PLAYER, as_of=AsOf()
    )
    assert "Mara" not in str(hidden.to_dict())
    assert entity_embeds.entity_card_embed(
        mara_card(Visibility.GM_ONLY), viewer=Viewer.GM, as_of=AsOf()
    ).title == ("Mara (NPC) 🔒")


def test_a_timeline_strikes_retconned_rows_and_hides_gm_only_ones() -> None:
    views = [
        statement(
            20, StatementKind.ATTRIBUTE, "material", value="stone", level=CanonLevel.RETCONNED, replaced_by=21
        ),
        statement(21, StatementKind.ATTRIBUTE, "material", value="wood"),
        statement(22, StatementKind.ATTRIBUTE, "curse", value="yes", visibility=Visibility.GM_ONLY),
    ]
    player = entity_embeds.timeline_embed("Mara", views, viewer=Viewer.PLAYER).description or ""
    # Players read no fact numbers (their gaps would count the hidden ones); the GM does.
    assert "~~Mara's material: stone (from scene 2)~~ retconned\n" in player
    assert "Mara's material: wood (from scene 2)" in player and "curse" not in player and "#" not in player
    gm = entity_embeds.timeline_embed("Mara", views, viewer=Viewer.GM).description or ""
    # The GM reads what replaced a retconned fact in its words, never a number.
    assert (
        "~~Mara's material: stone (from scene 2)~~ retconned, replaced by Mara's material: wood (from scene 2)"
        in gm
    )
    assert not jargon_in(gm) and not re.search(r"#\d", gm)
    assert "🔒 Mara's curse: yes" in gm


def test_a_status_says_the_state_over_a_birth_and_a_hidden_one_only_to_the_gm() -> None:
    hidden = statement(15, StatementKind.ATTRIBUTE, "status", value="missing", visibility=Visibility.GM_ONLY)
    born = statement(10, StatementKind.STATE, "state", value="alive")
    born = born.model_copy(
        update={"statement": dataclasses.replace(born.statement, validity=Validity(world_from="320"))}
    )
    card = mara_card().model_copy(update={"facts": (hidden,), "state": born})
    player = {
        f.name: f.value or ""
        for f in entity_embeds.entity_card_embed(card, viewer=Viewer.PLAYER, as_of=AsOf()).fields
    }
    assert player["State"].startswith("Mara is alive") and "missing" not in str(player)
    gm = {
        f.name: f.value or ""
        for f in entity_embeds.entity_card_embed(card, viewer=Viewer.GM, as_of=AsOf()).fields
    }
    assert gm["State"].startswith("Mara is missing"), gm
    said = statement(15, StatementKind.ATTRIBUTE, "status", value="imprisoned")
    public = card.model_copy(update={"facts": (said,)})
    shown = entity_embeds.entity_card_embed(public, viewer=Viewer.PLAYER, as_of=AsOf()).fields
    assert next(f.value for f in shown if f.name == "State").startswith("Mara is imprisoned")  # type: ignore[union-attr]
    # Alive said in play (found again) is the story's word: the file's status no longer overrides it.
    found = mara_card().model_copy(update={"facts": (said,)})
    state = next(
        f.value
        for f in entity_embeds.entity_card_embed(found, viewer=Viewer.GM, as_of=AsOf()).fields
        if f.name == "State"
    )
    assert state.startswith("Mara is alive"), state  # type: ignore[union-attr]


def test_an_entity_card_explains_the_lock_only_when_it_shows_one() -> None:
    marked = entity_embeds.entity_card_embed(mara_card(), viewer=Viewer.GM, as_of=AsOf())
    assert "🔒 = GM only" in (marked.footer.text or ""), marked.footer.text
    public = mara_card().model_copy(update={"relations": (), "facts": ()})
    plain = entity_embeds.entity_card_embed(public, viewer=Viewer.GM, as_of=AsOf())
    assert "🔒" not in str(plain.to_dict()), plain.footer.text


def test_a_timeline_explains_only_the_marks_it_shows() -> None:
    marked = [
        statement(20, StatementKind.ATTRIBUTE, "material", value="stone", level=CanonLevel.RETCONNED),
        statement(22, StatementKind.ATTRIBUTE, "curse", value="yes", visibility=Visibility.GM_ONLY),
    ]
    gm = entity_embeds.timeline_embed("Mara", marked, viewer=Viewer.GM).footer.text or ""
    assert "Struck through: retconned" in gm and "🔒 = GM only" in gm, gm
    plain = [statement(21, StatementKind.ATTRIBUTE, "material", value="wood")]
    for viewer in (Viewer.GM, Viewer.PLAYER):  # nothing struck, nothing locked: no key to either
        assert entity_embeds.timeline_embed("Mara", plain, viewer=viewer).footer.text is None


def test_two_facts_of_the_same_words_are_told_apart_by_their_scene_not_a_number() -> None:
    first = statement(30, StatementKind.ATTRIBUTE, "oath", value="sworn")
    second = statement(31, StatementKind.ATTRIBUTE, "oath", value="sworn")
    later = dataclasses.replace(
        second.statement,
        evidence=(Evidence(kind=EvidenceKind.TURNS, scene_id=5, turn_from=7, turn_to=7),),
    )
    words = Wording(
        scenes={4: SceneWords(order=2, title="The Lantern"), 5: SceneWords(order=3, title="The Quay")}
    )
    views = [first, second.model_copy(update={"statement": later})]
    gm = entity_embeds.timeline_embed("Mara", views, viewer=Viewer.GM, words=words).description or ""
    lines = gm.split("\n")
    assert lines[0].startswith("Mara's oath: sworn (from scene 2) — ") and "The Lantern" in lines[0], gm
    assert "The Quay" in lines[1] and "The Lantern" not in lines[1], gm
    assert not jargon_in(gm) and not re.search(r"#\d", gm)


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
