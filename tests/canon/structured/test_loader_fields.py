"""The fields a GM writes rather than prose: `sex`, `cause_of_death`, `held_at`, a character's `parents`,
`children` and `spouse`/`spouses`, an event's `winner`/`winners`, `outcome` and `terms`, read into records, hidden by `gm_only`, and
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


def test_a_spouse_is_written_one_or_several_on_a_character_and_a_tree_member_as_the_tree_s_spouse_of() -> (
    None
):
    roster = _load(
        "characters:\n"
        "  - name: Ann Reed\n    spouse: Bo Reed\n"
        "  - name: Bo Reed\n    spouses: [Ann Reed]\n"  # the same tie from the other side: one edge
        "  - name: Cal Moss\n    spouse_of: [Dee Moss, Eda Moss]\n"  # a line copied from a tree
    )
    assert roster.ok, roster.problems
    edges = {(r.type, r.source_id, r.target_id, r.visibility, r.line) for r in roster.relations}
    assert edges == {
        ("SPOUSE_OF", "ann_reed", "bo_reed", "public", 3),
        ("SPOUSE_OF", "cal_moss", "dee_moss", "public", 7),
        ("SPOUSE_OF", "cal_moss", "eda_moss", "public", 7),
    }
    tree = _load(
        "lineage: moss\nmembers:\n  - id: cal\n    name: Cal\n    spouse: dee\n"
        "  - id: eda\n    name: Eda\n    spouses: [cal]\n"
    )
    assert tree.ok, tree.problems
    assert {(r.source_id, r.target_id) for r in tree.relations if r.type == "SPOUSE_OF"} == {
        ("cal", "dee"),
        ("eda", "cal"),
    }


def test_a_hidden_spouse_is_hidden_however_it_is_written_and_from_either_side() -> None:
    result = _load(
        "characters:\n"
        "  - name: Nessa Crane\n    spouses: [Bram Keel]\n    gm_only: [spouse]\n"  # the other spelling
        "  - name: Ann Reed\n    spouse: Bo Reed\n"
        "  - name: Bo Reed\n    spouse_of: [Ann Reed]\n    gm_only: [spouse_of]\n"  # hidden on one side only
    )
    assert result.ok, result.problems
    edges = {(r.source_id, r.target_id): r.visibility for r in result.relations}
    assert edges == {("nessa_crane", "bram_keel"): "gm_only", ("ann_reed", "bo_reed"): "gm_only"}
    nessa = next(e for e in result.entries if e.id == "nessa_crane")
    assert {"spouse", "spouses"} <= set(nessa.gm_only)


@pytest.mark.parametrize(
    ("field", "line", "said"),
    [
        ("spouse: [Bo, Cy]", 4, '"spouse" names one; write several as "spouses: [...]" instead'),
        ("faction: [Fen Wardens]", 4, '"faction" names one; write several as "factions: [...]" instead'),
        ("gm_only: [wife]", 4, '"gm_only" lists "wife", which is not a field it can hide'),
    ],
)
def test_a_bad_spouse_is_refused_at_its_line(field: str, line: int, said: str) -> None:
    result = _load(f"kind: characters\ncharacters:\n  - name: Ann Reed\n    {field}\n")
    ((at, message),) = [(p.line, p.message) for p in result.problems]
    assert at == line and said in message, message


def test_a_place_has_aliases_and_a_population_written_as_a_number_or_words() -> None:
    result = _load(
        "locations:\n  - name: Fenreach\n    aliases: [The Reach]\n    population: 2400\n"
        "regions:\n  - name: The Fens\n    aliases: [Fenland]\n    population: a few thousand marsh folk\n"
    )
    assert result.ok, result.problems
    places = {e.id: e.attributes for e in result.entries}
    assert places["fenreach"]["aliases"] == ["The Reach"] and places["fenreach"]["population"] == "2400"
    assert places["the_fens"]["population"] == "a few thousand marsh folk"
    empty = _load("locations:\n  - name: Fenreach\n    population: ''\n")
    ((line, message),) = [(p.line, p.message) for p in empty.problems]
    assert line == 3 and message.startswith('"population" is empty: give a number like 2400')


def test_one_item_of_a_list_is_kept_for_the_gm_and_its_tie_is_hidden_from_both_sides() -> None:
    result = _load(
        "lineage: marsh\nmembers:\n"
        "  - name: Ida Marsh\n    children: [Pip Marsh, {name: Wren Marsh, gm_only: true}]\n"
        "  - name: Pip Marsh\n    parents: [Ida Marsh, {name: Old Harl, gm_only: true}]\n"
        "  - name: Wren Marsh\n    parents: [Ida Marsh]\n"  # the other side says it openly: still hidden
        "  - name: Old Harl\n"
        "---\nfactions:\n  - name: Ash Raiders\n    members:\n      - Bram Keel\n"
        "      - name: Ida Marsh\n        gm_only: true\n"
    )
    assert result.ok, result.problems
    edges = {(r.source_id, r.target_id): r.visibility for r in result.relations if r.type != "MEMBER_OF"}
    assert edges == {
        ("ida_marsh", "pip_marsh"): "public",
        ("ida_marsh", "wren_marsh"): "gm_only",
        ("old_harl", "pip_marsh"): "gm_only",
    }
    members = {r.source_id: r.visibility for r in result.relations if r.target_id == "ash_raiders"}
    assert members == {"bram_keel": "public", "ida_marsh": "gm_only"}


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("{name: Bo, secret: true}", 'item 2 of "parents" must be a name, or a name only the GM may read'),
        ("{name: Bo, gm_only: yes}", '"gm_only" must be true or false (without quotes), not "yes"'),
        ("{gm_only: true}", "it needs both a name and gm_only"),
    ],
)
def test_an_item_kept_for_the_gm_written_wrong_is_refused_at_its_place(item: str, said: str) -> None:
    result = _load(f"characters:\n  - name: Ann Reed\n    parents: [Cy Reed, {item}]\n")
    ((line, column, message),) = [(p.line, p.column, p.message) for p in result.problems]
    assert (line, column) == (3, 24) and said in message, message
    single = _load("characters:\n  - name: Ann Reed\n    home: {name: Mill Town, gm_only: true}\n")
    assert [p.message for p in single.problems] == [
        '"home" names one; to keep it for the GM, list it in the entry\'s gm_only: [home]'
    ]


@pytest.mark.parametrize(
    ("written", "meant"), [("wife", "spouse"), ("married_to", "spouse"), ("husbands", "spouses")]
)
def test_a_spouse_written_in_other_words_is_pointed_to_the_field(written: str, meant: str) -> None:
    for text in (
        f"characters:\n  - name: Ann Reed\n    {written}: Bo Reed\n",
        f"lineage: reed\nmembers:\n  - name: Ann Reed\n    {written}: Bo Reed\n",
    ):
        ((problem,),) = [_load(text).problems]
        assert problem.message.startswith(f'unknown field "{written}" (did you mean "{meant}"?)'), problem


def test_a_place_keeps_the_fields_gm_only_lists_and_its_gm_notes_for_the_gm() -> None:
    result = _load(
        "locations:\n  - name: Saltmere\n    founder: Ysolde Marr\n    population: 300\n"
        "    gm_notes: Built on a drowned court.\n    gm_only: [founder, population]\n"
        "regions:\n  - name: The Marsh\n    founder: Ysolde Marr\n    description: Reeds.\n    gm_only: [description]\n"
        "  - name: The Hills\n    founder: Ysolde Marr\n"
    )
    assert result.ok, result.problems
    hidden = {e.id: set(e.gm_only) for e in result.entries}
    assert hidden["saltmere"] == {"gm_notes", "founder", "population"}
    assert hidden["the_marsh"] == {"gm_notes", "description"} and hidden["the_hills"] == {"gm_notes"}
    founded = {(r.target_id, r.visibility) for r in result.relations if r.type == "FOUNDED"}
    assert founded == {("saltmere", "gm_only"), ("the_marsh", "public"), ("the_hills", "public")}
    wrong = _load("locations:\n  - name: Saltmere\n    gm_only: [founding]\n")
    ((line, message),) = [(p.line, p.message) for p in wrong.problems]
    assert line == 3 and message.startswith(
        '"gm_only" lists "founding", which is not a field it can hide; it may'
    )


def test_a_place_s_founding_date_is_its_attribute_and_dates_its_founder_s_tie() -> None:
    result = _load(
        "locations:\n  - name: Saltmere\n    founder: Ysolde Marr\n    founded: 300.3.4\n"
        "  - name: Greywater\n    founder: Ysolde Marr\n    founded: 290\n    gm_only: [founded]\n"
        "regions:\n  - name: The Marsh\n    founded: -50\n"
    )
    assert result.ok, result.problems
    founded = {e.id: e.attributes.get("founded") for e in result.entries}
    assert founded == {"saltmere": "300.month_3.day_4", "greywater": "290", "the_marsh": "-50"}
    hidden = {e.id: set(e.gm_only) for e in result.entries}
    assert hidden["greywater"] == {"gm_notes", "founded"} and hidden["saltmere"] == {"gm_notes"}
    # A founding only the GM may read leaves a public founder's tie undated: its date would tell it.
    ties = {r.target_id: (str(r.valid_from) if r.valid_from else None) for r in result.relations}
    assert ties == {"saltmere": "300.month_3.day_4", "greywater": None}


def test_a_place_s_founding_that_is_no_date_is_refused_at_its_line() -> None:
    wrong = _load("locations:\n  - name: Saltmere\n    founded: tomorrow at noon\n")
    ((line, column, message),) = [(p.line, p.column, p.message) for p in wrong.problems]
    assert (line, column) == (3, 14) and message.startswith('"founded" '), message
    wrong = _load("regions:\n  - name: The Marsh\n    founded: [300]\n")
    ((line, message),) = [(p.line, p.message) for p in wrong.problems]
    assert line == 3 and "date" in message, message


def test_whom_a_person_worships_is_one_name_or_several_kept_as_their_religion() -> None:
    result = _load(
        "characters:\n  - name: Mara Quell\n    worships: The Tide Mother\n"
        "  - name: Osric Vane\n    faith: [The Tide Mother, the old gods]\n    gm_only: [worships]\n"
        "---\nlineage: House Brun\nmembers:\n  - name: Hale Brun\n    religion: Saint Orla\n"
    )
    assert result.ok, result.problems
    religion = {e.id: e.attributes.get("religion") for e in result.entries if e.entity_type != "Lineage"}
    assert religion == {
        "mara_quell": ["The Tide Mother"],
        "osric_vane": ["The Tide Mother", "the old gods"],
        "hale_brun": ["Saint Orla"],
    }
    hidden = {e.id: set(e.gm_only) for e in result.entries}
    assert {"worships", "religion"} <= hidden["osric_vane"] and "religion" not in hidden["mara_quell"]
    worshipped = {(t.source_id, t.target_id, t.visibility) for t in result.ties}
    assert worshipped == {
        ("mara_quell", "the_tide_mother", "public"),
        ("osric_vane", "the_tide_mother", "gm_only"),
        ("osric_vane", "the_old_gods", "gm_only"),
        ("hale_brun", "saint_orla", "public"),
    }


def test_a_faith_written_as_a_mapping_or_empty_is_refused_at_its_line() -> None:
    wrong = _load("characters:\n  - name: Mara Quell\n    worships: {name: The Tide Mother}\n")
    ((line, message),) = [(p.line, p.message) for p in wrong.problems]
    assert line == 3 and message.startswith('"worships" must be'), message
    wrong = _load('characters:\n  - name: Mara Quell\n    worships: ["", The Tide Mother]\n')
    ((line, column, message),) = [(p.line, p.column, p.message) for p in wrong.problems]
    assert (line, column) == (3, 16) and message.startswith('item 1 of "worships" is empty'), message
