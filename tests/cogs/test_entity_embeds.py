"""Entity cards and timelines without Discord: hidden canon, strikethroughs, the marks explained."""

from __future__ import annotations

import dataclasses
import re

from canon.models import AsOf, CanonLevel, Evidence, EvidenceKind, StatementKind, Validity, Viewer, Visibility
from canon.wording import CalendarWords, SceneWords, TurnWords, Wording
from cogs import entity_embeds
from tests.e2e.jargon import jargon_in
from tests.helpers.canon_samples import mara_card, statement


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
    assert gm["State"].startswith("🔒 Mara is missing"), gm  # as hidden as the status it says
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
