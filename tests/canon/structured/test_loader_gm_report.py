"""What a GM who wrote a world from the docs alone found the format could not say, read into records by the
loader: one alias of a list kept for the GM, on every kind with aliases; an event's `date:` (one way only)."""

from __future__ import annotations

import pytest

from canon.structured import load_lore_file
from canon.structured.result import LoadResult


def _load(text: str) -> LoadResult:
    return load_lore_file(text, "world.yaml")


@pytest.mark.parametrize(
    "head",
    [
        "characters:\n  - name: Mother Quill\n",
        "factions:\n  - name: Mother Quill\n",
        "name: House Quill\nmembers:\n  - name: Mother Quill\n",
        "locations:\n  - name: Mother Quill\n",
        "regions:\n  - name: Mother Quill\n",
        "creatures:\n  - name: Mother Quill\n",
        "deities:\n  - name: Mother Quill\n",
        "kind: timeline\nevents:\n  - name: Mother Quill\n    year: 3\n",
        "items:\n  - name: Mother Quill\n",
    ],
)
def test_one_alias_kept_for_the_gm_is_a_secret_fact_and_no_name(head: str) -> None:
    result = _load(
        head + "    aliases:\n      - The Harbour Witch\n      - {name: The Voice Below, gm_only: true}\n"
    )
    assert result.ok, result.problems
    quill = next(e for e in result.entries if e.name == "Mother Quill")
    assert quill.attributes["aliases"] == ["The Harbour Witch"]
    assert quill.attributes["secret_aliases"] == ["The Voice Below"]
    assert "secret_aliases" in quill.gm_only and "aliases" not in quill.gm_only


def test_an_alias_marked_false_stays_public_and_a_title_is_no_list_of_names() -> None:
    result = _load("characters:\n  - name: Pell\n    aliases: [{name: Old Pell, gm_only: false}]\n")
    assert result.ok, result.problems
    (pell,) = result.entries
    assert pell.attributes["aliases"] == ["Old Pell"] and "secret_aliases" not in pell.attributes
    refused = _load("characters:\n  - name: Pell\n    titles: [{name: Reeve, gm_only: true}]\n")
    (problem,) = refused.problems
    assert (
        problem.line == 3
        and 'item 1 of "titles" must be a title, or a title held for a span' in problem.message
    )


TWO_ERAS = (
    "kind: timeline\neras:\n  - era: first_age\n    start: 1\n    end: 500\n"
    "  - era: iron_years\n    parent_era: first_age\n    start: 300\n    end: 400\n"
    "  - era: second_age\n    start: 501\nevents:\n"
)


def test_an_event_date_gives_its_era_and_day_or_agrees_with_its_era() -> None:
    result = _load(
        TWO_ERAS + "  - name: Sack of Harl\n    date: second_age.668.3.9\n"
        "  - name: Iron Fair\n    era: iron_years\n    date: first_age.350\n"  # in the parent era's words
        "  - name: Plain Fair\n    era: first_age\n    date: 20\n"
    )
    assert result.ok, result.problems
    dated = {e.name: e.attributes.get("date") for e in result.entries if e.entity_type == "Event"}
    assert dated == {
        "Sack of Harl": "second_age.year_668.month_3.day_9",
        "Iron Fair": "iron_years.year_350",
        "Plain Fair": "first_age.year_20",
    }
    eras = {(r.source_id, r.target_id) for r in result.relations if r.type == "OCCURRED_DURING"}
    assert ("sack_of_harl", "second_age") in eras and ("iron_fair", "iron_years") in eras


@pytest.mark.parametrize(
    ("event", "line", "said"),
    [
        (
            "era: first_age\n    date: second_age.668",
            15,
            '"date" is in era second_age, but this event is in era first_age',
        ),
        ("date: first_age.700", 14, '"date": year 700'),
        (
            "era: first_age\n    date: 20\n    day: 3",
            15,
            '"date" and "day" both say when this event happened',
        ),
    ],
)
def test_an_event_date_that_disagrees_is_refused_at_its_line(event: str, line: int, said: str) -> None:
    result = _load(TWO_ERAS + f"  - name: Sack of Harl\n    {event}\n")
    assert [(p.line, said in p.message) for p in result.problems] == [(line, True)], result.problems


def test_a_marriage_written_with_its_date_starts_then_on_either_side_and_may_be_secret() -> None:
    result = _load(
        "name: House Sarrane\nmembers:\n"
        "  - name: Oren Sarrane\n    spouses: [{name: Zera Ibarra, married: 620}]\n"  # a year, on one line
        "  - name: Zera Ibarra\n    spouse_of: [Oren Sarrane]\n"  # the other side, undated: one tie, dated
        "  - name: Haskel Sarrane\n    spouse: {name: Mira Vell, married: 650}\n"
        "  - name: Mira Vell\n"
        "  - name: Ilsa Sarrane\n    spouses:\n      - {name: Bram Keel, gm_only: true, married: '651.2.3'}\n"
        "  - name: Bram Keel\n"
    )
    assert result.ok, result.problems
    married = {
        (r.source_id, r.target_id): (str(r.valid_from), r.visibility)
        for r in result.relations
        if r.type == "SPOUSE_OF"
    }
    assert married == {
        ("oren_sarrane", "zera_ibarra"): ("620", "public"),
        ("haskel_sarrane", "mira_vell"): ("650", "public"),
        ("ilsa_sarrane", "bram_keel"): ("651.month_2.day_3", "gm_only"),
    }


def test_a_member_may_belong_to_another_lineage_or_none_and_may_keep_it_for_the_gm() -> None:
    result = _load(
        "name: House Sarrane\nmembers:\n  - name: Oren Sarrane\n    born: 598\n"
        "  - name: Zera Ibarra\n    lineage: House Ibarra\n    born: 604\n"
        "  - name: Mira Vell\n    lineage: null\n"
        "  - name: Ilsa Vell\n    lineage: House Ibarra\n    gm_only: [lineage]\n"
        "---\nname: House Ibarra\nmembers: []\n"
    )
    assert result.ok, result.problems
    members = {
        (r.source_id, r.target_id): (str(r.valid_from), r.visibility)
        for r in result.relations
        if r.type == "MEMBER_OF"
    }
    assert members == {
        ("oren_sarrane", "house_sarrane"): ("598", "public"),
        ("zera_ibarra", "house_ibarra"): ("604", "public"),
        ("ilsa_vell", "house_ibarra"): ("None", "gm_only"),
    }


@pytest.mark.parametrize(
    ("text", "kind", "key", "name"),
    [
        (
            "lineage: House Sarrane\nmembers:\n  - name: Oren Sarrane\n",
            "Lineage",
            "house_sarrane",
            "House Sarrane",
        ),
        (
            "kind: timeline\neras:\n  - era: The Crown Years\n    start: 1\n",
            "Era",
            "crown_years",
            "The Crown Years",
        ),
        (
            "kind: timeline\nevents:\n  - id: Burning of the Docks\n    year: 668\n",
            "Event",
            "burning_of_the_docks",
            "Burning of the Docks",
        ),
        ("characters:\n  - id: Mira Vyr\n", "NPC", "mira_vyr", "Mira Vyr"),
    ],
)
def test_a_name_written_where_the_id_goes_is_the_name(text: str, kind: str, key: str, name: str) -> None:
    result = _load(text)
    assert result.ok, result.problems
    entry = next(e for e in result.entries if e.entity_type == kind)
    assert (entry.id, entry.name) == (key, name)


def test_a_name_where_the_id_goes_beside_a_name_is_still_refused_at_its_line() -> None:
    result = _load("characters:\n  - id: Mira Vyr\n    name: Mira\n")
    (problem,) = result.problems
    assert problem.line == 2 and '"id" must be an id' in problem.message


def test_a_date_is_checked_against_the_campaign_s_own_months_whatever_form_it_is_written_in() -> None:
    from canon.campaign_calendar import calendar_from

    calendar = calendar_from(
        {
            "months": [
                {"name": "Thaw", "days": 40},
                {"name": "Frost", "days": 20},
                *[{"name": f"Moon{i}"} for i in "ABCDEFGHIJKL"],
            ]
        },
        {},
    )

    def said(born: str) -> list[str]:
        result = load_lore_file(
            f"characters:\n  - name: Ada\n    born: {born}\n", "world.yaml", calendar=calendar
        )
        return [p.message for p in result.problems]

    assert said("300.1.40") == [] and said("300.14.3") == []  # past the default 12 months of 31 days
    assert said("300.2.25") == ['"born" names day 25 of Frost, which has 20 days']
    assert said("300.2.21")[0].startswith('"born" names day 21 of Frost')
    assert "Frost has 20 days" in said("21 Frost, 300")[0]
    assert "month 15 is not a month of the calendar (1 to 14)" in said("300.15.1")[0]
    # An event's `year`, `month` and `day` too.
    event = "kind: timeline\nevents:\n  - name: Thaw Fair\n    year: 300\n    month: {}\n    day: {}\n"
    fair = [
        (p.line, p.message) for p in load_lore_file(event.format(2, 21), "w.yaml", calendar=calendar).problems
    ]
    assert fair == [(6, '"day" is 21, but Frost has 20 days')]
    assert not load_lore_file(event.format(14, 30), "w.yaml", calendar=calendar).problems
    # Without a calendar, the default: 12 months of at most 31 days.
    assert not load_lore_file("characters:\n  - name: Ada\n    born: 300.2.31\n", "world.yaml").problems
