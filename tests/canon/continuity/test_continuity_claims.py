"""The continuity rules for who said what: authority, titles and attributes, causes, axioms, retconned dependencies and coming back from the dead."""

from __future__ import annotations

from canon.continuity import (
    ConflictKind,
)
from canon.models import (
    Authority,
)
from tests.helpers.continuity_world import World, only, side_of

# -- 7. contradicting a higher authority -----------------------------------------------------------------


def test_player_contradicts_the_gm() -> None:
    w = World()
    aldric = w.entity("Aldric")
    gm = w.attr(aldric, "eye_colour", "blue", authority=Authority.GM)
    player = w.attr(aldric, "eye_colour", "green", authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.CONTRADICTS_HIGHER_AUTHORITY)

    assert finding.message == (
        "Aldric's eye colour is “green” according to play (undated), contradicting “blue” from the GM (undated); "
        "“blue” prevails."
    )
    assert finding.prevailing_id == gm.id
    assert [s.statement_id for s in finding.sides] == [gm.id, player.id]
    assert finding.statement_ids == (gm.id, player.id)
    assert finding.sides[0].evidence == gm.evidence and finding.sides[1].evidence == player.evidence


def test_equal_authority_is_decided_by_confidence_or_not_at_all() -> None:
    w = World()
    keep = w.entity("Keep", "Location")
    sure = w.attr(keep, "population", "500", authority=Authority.SYSTEM, confidence=0.9, wf="3rd_age.300")
    unsure = w.attr(keep, "population", "5000", authority=Authority.SYSTEM, confidence=0.4, wf="3rd_age.300")
    town = w.entity("Town", "Location")
    w.attr(town, "patron_saint", "Aldric", authority=Authority.SOURCE)  # not declared by the ontology
    w.attr(town, "patron_saint", "Bran", authority=Authority.SOURCE)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.CONTRADICTS_HIGHER_AUTHORITY] * 2
    by_entity = {f.entity_ids: f for f in findings}
    assert by_entity[(keep,)].prevailing_id == sure.id
    assert "confidence 0.4" in by_entity[(keep,)].message
    assert [s.statement_id for s in by_entity[(keep,)].sides] == [sure.id, unsure.id]
    assert by_entity[(town,)].prevailing_id is None
    assert "neither outranks the other" in by_entity[(town,)].message


def test_agreeing_changing_or_unordered_attributes_and_states_are_no_contradiction() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.attr(aldric, "eye_colour", "blue", authority=Authority.GM)
    w.attr(aldric, "eye_colour", " Blue ", authority=Authority.PLAYER)  # the same value
    w.attr(aldric, "hair", "black", wf="3rd_age.300")
    w.attr(aldric, "hair", "grey", wf="3rd_age.340", authority=Authority.PLAYER)  # a change over time
    w.attr(aldric, "favourite_song", "captain", authority=Authority.SOURCE)  # not declared by the ontology:
    w.attr(aldric, "favourite_song", "general", sf=4, authority=Authority.PLAYER)  # timeless against play
    old = w.attr(aldric, "title", "Lord of Varn", authority=Authority.SOURCE)
    w.attr(
        aldric, "title", "Duke of Varn", authority=Authority.GM, replaces=old.id
    )  # an explicit replacement
    w.state(aldric, "alive", sf=2)
    w.state(aldric, "wounded", sf=2)  # states change over time: not this rule

    assert w.check() == []


def test_a_second_title_at_the_same_time_under_another_spelling() -> None:
    w = World()
    mara = w.entity("Mara")
    bible = w.attr(mara, "titles", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    play = w.attr(mara, "title", "Pirate Queen", sf=3, authority=Authority.SOURCE)

    finding = only(w.check(), ConflictKind.SINGLE_VALUED)

    assert finding.message == (
        "Mara has two values of title: “Harbourmaster of Greyhaven” (an imported source, undated) and "
        "“Pirate Queen” (an imported source, scene 3), but Mara has one title at a time."
    )
    assert finding.statement_ids == (bible.id, play.id) and finding.prevailing_id is None
    assert {side.evidence for side in finding.sides} == {bible.evidence, play.evidence}


def test_a_title_from_play_against_the_world_bible_is_a_contradiction_the_bible_wins() -> None:
    w = World()
    mara = w.entity("Mara")
    bible = w.attr(mara, "titles", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    w.attr(mara, "Titles", "Pirate Queen", sf=3, authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.CONTRADICTS_HIGHER_AUTHORITY)

    assert finding.prevailing_id == bible.id
    assert finding.message.startswith("Mara's title is “Pirate Queen” according to play (scene 3)")


def test_a_dated_change_of_title_and_multi_valued_attributes_are_no_conflict() -> None:
    w = World()
    mara = w.entity("Mara")
    w.attr(mara, "title", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    w.attr(mara, "title", "Pirate Queen", wf="3rd_age.340", sf=3, authority=Authority.PLAYER)  # a change
    w.attr(mara, "nickname", "the Gull")
    w.attr(mara, "epithets", "Storm-born", sf=2)  # nicknames are many
    god = w.entity("Thal", "Deity")
    w.attr(god, "domain", "the sea")
    w.attr(god, "domains", "storms", sf=1)

    assert w.check() == []


def test_an_attribute_that_never_changes_conflicts_whenever_it_is_dated() -> None:
    w = World()
    mara = w.entity("Mara")
    first = w.attr(mara, "eye_colour", "grey", wf="3rd_age.300")
    second = w.attr(mara, "eye colour", "green", wf="3rd_age.340")
    w.attr(mara, "hair_colour", "black", wf="3rd_age.300")
    w.attr(mara, "hair", "white", wf="3rd_age.340")  # hair may change

    finding = only(w.check(), ConflictKind.SINGLE_VALUED)

    assert finding.statement_ids == (first.id, second.id)
    assert finding.message.endswith(", but Mara's eye colour never changes.")


# -- 10-12. cause before effect, participants born by the event, axioms not from play ---------------------


def test_a_cause_after_its_effect() -> None:
    w = World()
    spark = w.entity("The spark", "Event", wf="3rd_age.340")
    fire = w.entity("The fire", "Event", wf="3rd_age.300.6")
    caused = w.rel(spark, "CAUSED", fire)
    age = w.entity("The Age of Ash", "Era", wf="3rd_age.400")
    preceded = w.rel(age, "PRECEDED", fire)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.CAUSE_AFTER_EFFECT] * 2
    by_relation = {f.statement_ids: f for f in findings}
    assert by_relation[(caused.id,)].message == (
        "“The spark” (3rd_age.340) is said to cause “The fire” (3rd_age.300.6), which happened before it."
    )
    assert by_relation[(caused.id,)].entity_ids == (spark, fire)
    assert "is said to precede “The fire”" in by_relation[(preceded.id,)].message


def test_causes_in_order_undated_or_on_one_day_and_deeds_of_people_raise_nothing() -> None:
    w = World()
    spark = w.entity("The spark", "Event", wf="3rd_age.300")
    fire = w.entity("The fire", "Event", wf="3rd_age.300.6")  # within the spark's year: order unknown
    w.rel(spark, "CAUSED", fire)
    later = w.entity("The ashes", "Event", wf="3rd_age.301")
    w.rel(fire, "PRECEDED", later)
    w.rel(w.entity("Rumour", "Event"), "CAUSED", fire)  # undated
    w.rel(w.entity("Aldric"), "CAUSED", fire)  # a person's deed: not an order of events
    w.rel(w.entity("Scene cause", "Event", sf=2), "CAUSED", w.entity("Scene effect", "Event", sf=3))

    assert w.check() == []


def test_a_participant_not_yet_born() -> None:
    w = World()
    mara = w.entity("Mara")
    born = w.state(mara, "alive", wf="3rd_age.320")
    battle = w.entity("The battle of the Ford", "Event", wf="3rd_age.300")
    took_part = w.rel(mara, "PARTICIPATED_IN", battle)
    vow = w.entity("The vow", "Event", wf="3rd_age.320.5")  # in her birth year: order unknown
    w.rel(mara, "WITNESSED", vow)
    w.rel(mara, "WITNESSED", w.entity("A later feast", "Event", wf="3rd_age.340"))

    finding = only(w.check(), ConflictKind.PARTICIPANT_NOT_BORN)

    assert finding.message == (
        "Mara takes part in “The battle of the Ford” (3rd_age.300) before being born (3rd_age.320)."
    )
    assert finding.statement_ids == (born.id, took_part.id) and finding.entity_ids == (mara, battle)


def test_axioms_from_play_but_not_from_the_gm_or_a_source() -> None:
    w = World()
    wild = w.entity("Wild magic", "MagicSystem", authority=Authority.PLAYER)
    tides = w.entity("The law of tides", "Concept")
    rule = w.attr(tides, "rule", "the sea never freezes", authority=Authority.PLAYER)
    w.attr(tides, "scope", "every sea", authority=Authority.SOURCE)
    w.attr(w.entity("Mara", authority=Authority.PLAYER), "title", "Queen", authority=Authority.PLAYER)
    w.entity("Old magic", "MagicSystem", authority=Authority.PLAYER, retconned=True)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.AXIOM_FROM_PLAYER] * 2
    entity_finding, fact_finding = sorted(findings, key=lambda f: f.statement_ids)
    assert entity_finding.entity_ids == (wild,) and entity_finding.message.startswith(
        "“Wild magic” is a law of the world (a MagicSystem), but it comes from play"
    )
    assert fact_finding.statement_ids == (rule.id,)


# -- 8. relying on retconned canon -----------------------------------------------------------------------


def test_statements_relying_on_retconned_statements_and_entities() -> None:
    w = World()
    aldric = w.entity("Aldric")
    ghost_town = w.entity("Ghostvale", "Location", retconned=True)
    old = w.attr(aldric, "home_town", "Ghostvale", retconned=True)
    relying = w.attr(aldric, "accent", "of Ghostvale", depends_on=[("statement", old.id)])
    living_there = w.rel(aldric, "LOCATED_IN", ghost_town, wf="3rd_age.300")

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.RELIES_ON_RETCONNED] * 2
    by_ids = {f.statement_ids: f for f in findings}
    on_statement = by_ids[(old.id, relying.id)]
    assert on_statement.message == (
        "“Aldric's accent: of Ghostvale” relies on “Aldric's home town: Ghostvale”, which was retconned."
    )
    assert side_of(on_statement, old).evidence == old.evidence
    assert side_of(on_statement, relying).evidence == relying.evidence
    on_entity = by_ids[(living_there.id,)]
    assert on_entity.message == "“Aldric is in Ghostvale” still stands, but “Ghostvale” was retconned."
    assert on_entity.entity_ids == (aldric, ghost_town)
    assert any(s.entity_id == ghost_town for s in on_entity.sides)


def test_a_dependency_the_gate_made_is_said_as_what_it_is_never_as_a_citation() -> None:
    # The gate makes a state depend on the one before it and a participation on the participant's state then,
    # and a participation on its event: the GM cited none of them, so none "relies on" anything.
    w = World()
    aldric = w.entity("Aldric")
    march = w.entity("The march", "Event", retconned=True)
    dead = w.state(aldric, "dead", retconned=True, sf=1)
    alive = w.state(aldric, "alive", via="resurrection", sf=2, depends_on=[("statement", dead.id)])
    marches = w.rel(
        aldric, "PARTICIPATED_IN", march, sf=2, depends_on=[("entity", march), ("statement", alive.id)]
    )
    hailed = w.rel(
        aldric, "PARTICIPATED_IN", w.entity("The feast", "Event"), sf=2, depends_on=[("statement", dead.id)]
    )

    messages = sorted(f.message for f in w.check() if f.kind == ConflictKind.RELIES_ON_RETCONNED)

    assert messages == sorted(
        [
            "“Aldric is alive, through a resurrection” follows “Aldric is dead” in Aldric's story, and "
            "“Aldric is dead” was retconned.",
            "“Aldric took part in the march” is part of the event “The march”, which was retconned.",
            "“Aldric took part in the feast” happens while “Aldric is dead” held, and “Aldric is dead” was "
            "retconned.",
        ]
    ), messages
    assert not any("relies on" in m for m in messages)
    assert marches.id and hailed.id


def test_dependencies_on_standing_canon_and_retconned_dependents_raise_nothing() -> None:
    w = World()
    aldric = w.entity("Aldric")
    old = w.attr(aldric, "home_town", "Oldvale", retconned=True)
    new = w.attr(aldric, "home_town", "Newvale", replaces=old.id)
    w.attr(aldric, "accent", "of Newvale", depends_on=[("statement", new.id), ("entity", aldric)])
    w.attr(aldric, "dialect", "of Oldvale", retconned=True, depends_on=[("statement", old.id)])
    ghost = w.entity("Cut character", retconned=True)
    w.state(ghost, "alive", retconned=True)
    w.attr(aldric, "note", "see the archive", depends_on=[("statement", 999_999)])  # not in the snapshot

    assert w.check() == []


# -- 9. forbidden transitions ----------------------------------------------------------------------------


def test_back_from_the_dead_without_a_resurrection() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.280")
    died = w.state(aldric, "dead", sf=1)
    back = w.state(aldric, "alive", sf=3, authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.FORBIDDEN_TRANSITION)

    assert finding.message == "Aldric died in scene 1; bringing them back in scene 3 needs a resurrection."
    assert finding.statement_ids == (died.id, back.id)
    assert [s.statement_id for s in finding.sides] == [died.id, back.id]
    assert finding.sides[1].evidence == back.evidence


def test_a_via_that_does_not_fit_is_still_forbidden() -> None:
    w = World()
    sword = w.entity("Dawnblade", "Item")
    w.state(sword, "destroyed", wf="3rd_age.300")
    w.state(sword, "intact", wf="3rd_age.310", via="resurrection")
    finding = only(w.check(), ConflictKind.FORBIDDEN_TRANSITION)
    assert finding.message == (
        "Dawnblade became destroyed in 3rd_age.300; becoming intact in 3rd_age.310 needs a restoration "
        "(a resurrection is not enough)."
    )


def test_legal_transitions_and_unordered_static_states_raise_nothing() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.280")
    w.state(aldric, "wounded", sf=1)
    w.state(aldric, "dead", sf=2)
    w.state(aldric, "alive", via="resurrection", sf=3)
    w.state(aldric, "dead", sf=5)
    w.state(aldric, "undead", via="raising", sf=6)
    sword = w.entity("Dawnblade", "Item")
    w.state(sword, "destroyed", wf="3rd_age.300")
    w.state(sword, "intact", via="restoration", wf="3rd_age.310")
    # An undated static "dead" and a dated static birth: their order is unknown.
    mira = w.entity("Mira")
    w.state(mira, "dead")
    w.state(mira, "alive", wf="3rd_age.250")

    assert w.check() == []
