"""The fields a GM writes rather than prose: `sex`, `cause_of_death`, `held_at`, a character's `parents` and
`children`, an event's `winner`/`winners`, `outcome` and `terms`, read into records, hidden by `gm_only`, and
refused at their line."""

from __future__ import annotations

import pytest

from canon.structured import load_lore_file
from canon.structured.result import LoadResult
from canon.wording.relations import FEMALE, MALE


def _load(text: str) -> LoadResult:
    return load_lore_file(text, "world.yaml")


@pytest.mark.parametrize("said", [*sorted(MALE | FEMALE), "Male", "FEMALE", "She/Her", "Woman"])
def test_sex_is_read_as_players_write_it_and_stated_as_kin_reads_it(said: str) -> None:
    result = _load(f"characters:\n  - name: Pell Rook\n    sex: {said}\n")
    assert result.ok, result.problems
    (pell,) = result.entries
    assert pell.attributes["sex"] == ("male" if said.casefold() in MALE else "female")


def test_a_sex_no_kin_word_reads_is_refused_at_its_line_with_the_words_accepted() -> None:
    result = _load("lineage: rook\nmembers:\n  - id: pell\n    name: Pell\n    sex: unknown\n")
    (problem,) = result.problems
    assert (problem.line, problem.column) == (5, 10)
    assert problem.message.endswith(
        '"sex" must be one of male, female, man, woman, m, f, he, she, he/him, she/her (in any case); got "unknown"'
    )


def test_a_hidden_death_hides_its_cause_and_a_hidden_parent_is_the_gm_s_tie() -> None:
    result = _load(
        "characters:\n"
        "  - name: Old Harl\n    died: 875\n    cause_of_death: drowned\n    gm_only: [died]\n"
        "  - name: Tobin Ash\n    held_at: Salt Gaol\n    parents: [Corvin Hale]\n    children: [Pip Ash]\n"
        "    gm_only: [parents]\n"
    )
    assert result.ok, result.problems
    harl = next(e for e in result.entries if e.id == "old_harl")
    assert {"died", "cause_of_death"} <= set(harl.gm_only)
    edges = {(r.type, r.source_id, r.target_id, r.visibility) for r in result.relations}
    assert edges == {
        ("PARENT_OF", "corvin_hale", "tobin_ash", "gm_only"),
        ("PARENT_OF", "tobin_ash", "pip_ash", "public"),
        ("HELD_AT", "tobin_ash", "salt_gaol", "public"),
    }


def test_an_event_states_who_won_how_it_ended_and_its_terms() -> None:
    result = _load(
        "kind: timeline\nevents:\n  - name: Treaty of Wickham\n    year: 873\n    winner: Fen Wardens\n"
        "    winners: [Ash Raiders]\n    outcome: a truce\n    terms: peat for peace\n    gm_only: [terms, winners]\n"
    )
    assert result.ok, result.problems
    (treaty,) = result.entries
    assert treaty.attributes["outcome"] == "a truce" and treaty.attributes["terms"] == "peat for peace"
    assert "terms" in treaty.gm_only
    won = {(r.source_id, r.visibility) for r in result.relations if r.type == "WON"}
    assert won == {("fen_wardens", "public"), ("ash_raiders", "gm_only")}


def test_a_cause_of_death_of_the_living_is_refused_at_its_line() -> None:
    result = _load("characters:\n  - name: Pell Rook\n    status: wounded\n    cause_of_death: a fever\n")
    (problem,) = result.problems
    assert problem.line == 4
    assert '"cause_of_death" is given, but "status" is wounded' in problem.message
