"""Life dates: a birth or death typed as a plain fact is the life event; born twice, dead before born, the dead
acting whoever records it."""

from __future__ import annotations

from canon.continuity import ConflictKind
from canon.continuity.life_dates import life_state
from tests.helpers.continuity_world import World, only, side_of


def test_life_words_are_the_life_events() -> None:
    for word in ("born", "Birth", "birth year", "date of birth", "birth-date"):
        assert life_state(word) == "alive", word
    for word in ("died", "death", "Date of death", "year of death"):
        assert life_state(word) == "dead", word
    assert life_state("title") is None and life_state("birthplace") is None


def test_a_birth_year_typed_as_a_fact_against_the_family_tree_is_born_twice() -> None:
    w = World()
    rowan = w.entity("Rowan Corvane")
    tree = w.state(rowan, "alive", wf="3rd_age.year_1210")
    typed = w.attr(rowan, "born", "3rd_age.year_1211")

    finding = only(w.check(), ConflictKind.LIFE_DATED_TWICE)

    assert finding.message == (
        "Rowan Corvane is born twice: in 3rd_age.year_1210 and in 3rd_age.year_1211; a life has one birth."
    )
    assert finding.statement_ids == (tree.id, typed.id)
    assert side_of(finding, tree).evidence[0].file == "lore.yaml"


def test_two_births_from_commands_and_two_deaths_are_flagged_once_each() -> None:
    w = World()
    mara = w.entity("Mara")
    w.state(mara, "alive", wf="3rd_age.year_301")
    w.state(mara, "alive", wf="3rd_age.year_320")  # "born 320" proposed, read as the birth it is
    only(w.check(), ConflictKind.LIFE_DATED_TWICE)
    w2 = World()
    osric = w2.entity("Osric")
    w2.attr(osric, "date_of_death", "3rd_age.year_352")
    w2.attr(osric, "died", "3rd_age.year_360")
    finding = only(w2.check(), ConflictKind.LIFE_DATED_TWICE)  # not also "two values where one is allowed"
    assert finding.message.startswith("Osric dies twice")


def test_a_death_before_the_birth_is_flagged() -> None:
    w = World()
    ysolde = w.entity("Ysolde")
    born = w.state(ysolde, "alive", wf="3rd_age.year_320")
    died = w.attr(ysolde, "died", "3rd_age.year_300")

    finding = only(w.check(), ConflictKind.DEAD_BEFORE_BORN)

    assert finding.message == "Ysolde dies (3rd_age.year_300) before being born (3rd_age.year_320)."
    assert finding.statement_ids == tuple(sorted((born.id, died.id)))


def test_agreeing_dates_a_revival_and_undated_states_raise_nothing() -> None:
    w = World()
    rowan = w.entity("Rowan")
    w.state(rowan, "alive", wf="3rd_age.year_1210")
    w.attr(rowan, "born", "3rd_age.year_1210.month_3.day_4")  # the same year, told more finely
    w.attr(rowan, "birth", "3rd_age.year_1210")
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.year_280")
    w.state(aldric, "dead", wf="3rd_age.year_300")
    w.state(aldric, "alive", via="resurrection", wf="3rd_age.year_310")  # a second life, not a second birth
    kel = w.entity("Kel")
    w.state(kel, "alive", sf=1)
    w.state(kel, "alive", sf=3)
    w.attr(kel, "born", "not a date")
    assert w.check() == []


def test_an_act_a_gm_records_outside_any_scene_is_an_act_of_the_dead() -> None:
    w = World()
    corvan = w.entity("Corvan Marrow")
    guild = w.entity("The Tide Guild", "Faction")
    death = w.state(corvan, "dead", wf="3rd_age.year_352")
    alliance = w.rel(corvan, "ALLY_OF", guild, wf="3rd_age.year_360")  # `canon add relationship --since`

    finding = only(w.check(), ConflictKind.DEAD_ACTING)

    assert finding.statement_ids == (death.id, alliance.id)
    assert "acts after dying (3rd_age.year_352)" in finding.message
