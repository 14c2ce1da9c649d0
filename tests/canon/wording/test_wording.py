"""The table's words: dates in the calendar's words, relations as sentences, evidence, warnings, proposals."""

from __future__ import annotations

import dataclasses
import re

import pytest

from canon.models import Evidence, EvidenceKind, Validity, Viewer
from canon.ontology import base_ontology
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from canon.wording import (
    CalendarWords,
    SceneWords,
    TurnWords,
    Wording,
    evidence_words,
    fact_sentence,
    proposal_sentence,
    relation_sentence,
    warning_sentence,
)
from canon.wording.relations import PHRASES

CALENDAR = CalendarWords(eras={"3rd_age": "The Third Age", "age_of_iron": "The Age of Iron"})
HEARTH = CalendarWords(eras={"3rd_age": "The Third Age"}, months=("Frostmoon", "Thawmoon", "Hearthmoon"))
# What a player must never read: relation constants, date keys, ids, the program's own words.
JARGON = re.compile(r"\b[A-Z]+_[A-Z_]+\b|\w+\.year_-?\d+|#\d+|ontology|changeset|statement|\bvia\b")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("3rd_age.year_327", "year 327 of the Third Age"),
        ("3rd_age", "the Third Age"),
        ("3rd_age.year_340.month_3", "month 3 of year 340 of the Third Age"),
        ("3rd_age.340.3.17", "day 17 of month 3, year 340 of the Third Age"),
        ("5th_age.year_-50", "year -50 of the 5th age"),  # an era without a name reads from its id
        ("unknown", "an unknown date"),
        ("412", "year 412"),  # a calendar without eras
        ("412.3.17", "day 17 of month 3, year 412"),
        ("the day the tower fell", "the day the tower fell"),  # a person's own words stay as written
    ],
)
def test_dates_read_in_the_calendars_words(text: str, words: str) -> None:
    assert CALENDAR.date(text) == words


def test_month_names_where_the_calendar_defines_them() -> None:
    assert HEARTH.date("3rd_age.year_340.month_3.day_17") == "17 Hearthmoon, year 340 of the Third Age"
    assert HEARTH.date("3rd_age.year_340.month_2") == "Thawmoon of year 340 of the Third Age"
    assert (
        HEARTH.date("3rd_age.year_340.month_9") == "month 9 of year 340 of the Third Age"
    )  # beyond the names


def test_spans_read_as_when_something_holds() -> None:
    both = Validity(world_from="3rd_age.year_205", world_until="3rd_age.year_281")
    assert CALENDAR.span(both) == "from year 205 to 281 of the Third Age"
    assert CALENDAR.span(Validity(world_from="3rd_age.year_300", story_from=2)) == (
        "since year 300 of the Third Age, from scene 2"
    )
    mixed = Validity(world_from="3rd_age.year_250", world_until="age_of_iron.year_300.month_2")
    assert CALENDAR.span(mixed) == "from year 250 of the Third Age to month 2 of year 300 of the Age of Iron"
    assert CALENDAR.span(Validity(world_until="3rd_age", story_from=1, story_until=3)) == (
        "until the Third Age, scenes 1 to 3"
    )
    assert CALENDAR.span(Validity()) == ""


def test_date_keys_inside_a_sentence_are_said_in_words() -> None:
    text = "Corvan died in 3rd_age.year_352 and 3rd_age.340.3 came first; python3.11 and v2.1 stay."
    assert CALENDAR.in_words(text) == (
        "Corvan died in year 352 of the Third Age and month 3 of year 340 of the Third Age came first; "
        "python3.11 and v2.1 stay."
    )


def test_every_relation_of_the_ontology_reads_as_a_sentence() -> None:
    assert set(base_ontology().relation_types) <= set(PHRASES)
    for predicate in base_ontology().relation_types:
        sentence = relation_sentence(predicate, "Corvan Marrow", "Ysolde Marrow")
        assert sentence.startswith(("Corvan Marrow ", "Corvan Marrow's")) and "Ysolde Marrow" in sentence
        assert not JARGON.search(sentence), sentence


def test_relations_and_facts_as_the_table_says_them() -> None:
    assert relation_sentence("PARENT_OF", "Corvan Marrow", "Ysolde Marrow", subject_sex="male") == (
        "Corvan Marrow is Ysolde Marrow's father"
    )
    assert relation_sentence("PARENT_OF", "Ysa", "Ysolde", subject_sex="Female") == "Ysa is Ysolde's mother"
    assert relation_sentence("PARENT_OF", "Ysa", "Ysolde") == "Ysa is Ysolde's parent"
    # A relation a campaign added reads from its name.
    assert relation_sentence("SQUIRE_OF", "Corvan", "Ysolde") == "Corvan is squire of Ysolde"
    assert relation_sentence("TRAINS", "Corvan", "Ysolde") == "Corvan trains Ysolde"
    assert fact_sentence("Ysolde Marrow", "titles", "Harbourmaster of Greyhaven") == (
        "Ysolde Marrow is Harbourmaster of Greyhaven"
    )
    assert fact_sentence("Mara", "eye_colour", "grey") == "Mara's eye colour: grey"


SCENES = {
    7: SceneWords(
        order=1,
        turns={
            12: TurnWords(author="Pat", url="https://discord.com/channels/1/2/3"),
            13: TurnWords(author="Quinn"),
            15: TurnWords(author="Pat"),
        },
    )
}


def test_evidence_says_where_and_who_with_a_link() -> None:
    turns = Evidence(kind=EvidenceKind.TURNS, scene_id=7, turn_from=12, turn_to=15)
    assert evidence_words(turns, Viewer.PLAYER, SCENES) == "from scene 1, said by Pat and Quinn"
    assert evidence_words(turns, Viewer.PLAYER, SCENES, links=True) == (
        "from [scene 1](https://discord.com/channels/1/2/3), said by Pat and Quinn"
    )
    one = Evidence(kind=EvidenceKind.TURNS, scene_id=7, turn_from=13)
    assert evidence_words(one, Viewer.PLAYER, SCENES) == "from scene 1, said by Quinn"
    # The GM also reads the turns' numbers (what /propose takes), after the words.
    assert evidence_words(turns, Viewer.GM, SCENES) == "from scene 1, said by Pat and Quinn (turns 12–15)"
    # A scene the card does not know reads without its number (never its id).
    elsewhere = Evidence(kind=EvidenceKind.TURNS, scene_id=99, turn_from=2, turn_to=3)
    assert evidence_words(elsewhere, Viewer.PLAYER, SCENES) == "from a scene"
    # User text passes through the escape.
    assert evidence_words(turns, Viewer.PLAYER, SCENES, escape=str.upper).endswith("by PAT and QUINN")


def test_evidence_from_a_scene_names_it_by_place_and_date_never_by_turn_numbers() -> None:
    lantern = {
        4: SceneWords(
            order=3,
            title="The march",
            place="the Lantern",
            when="on 3 Frostmoot, year 363 of the Third Age",
            turns={
                4: TurnWords(author="Pat"),
                5: TurnWords(author="Quinn", url="https://discord.com/channels/1/2/5"),
            },
        ),
        5: SceneWords(order=4, title="The march"),
        6: SceneWords(order=5, title="Untitled scene"),
    }
    turns = Evidence(kind=EvidenceKind.TURNS, scene_id=4, turn_from=4, turn_to=6)
    said = evidence_words(turns, Viewer.PLAYER, lantern)
    assert said == (
        "from the scene at the Lantern on 3 Frostmoot, year 363 of the Third Age, said by Pat and Quinn"
    )
    assert not re.search(r"\bturns?\b|\b4\b|\b6\b", said)
    assert evidence_words(turns, Viewer.PLAYER, lantern, links=True).startswith(
        "from [the scene at the Lantern on 3 Frostmoot, year 363 of the Third Age](https://discord.com/channels/1/2/5)"
    )
    titled = Evidence(kind=EvidenceKind.TURNS, scene_id=5, turn_from=1)
    assert evidence_words(titled, Viewer.PLAYER, lantern) == "from the scene “The march”"
    untitled = Evidence(kind=EvidenceKind.TURNS, scene_id=6, turn_from=1)
    assert evidence_words(untitled, Viewer.PLAYER, lantern) == "from scene 5"
    # Imported lore: players hear where it comes from; the GM also reads the file and line to fix it.
    yaml = Evidence(kind=EvidenceKind.YAML, file="harrows.yaml", line=13)
    assert evidence_words(yaml, Viewer.PLAYER) == "from the lore files"
    assert evidence_words(yaml, Viewer.GM) == "from harrows.yaml, line 13"


def test_evidence_shows_players_no_ids_and_no_gm_reasons() -> None:
    decision = Evidence(
        kind=EvidenceKind.COMMAND,
        proposal_id=5,
        note="Proposal #5 by Pat, accepted by Gina despite warnings: the heir lives",
    )
    assert evidence_words(decision, Viewer.PLAYER) == "proposed by Pat, accepted by Gina"
    assert "the heir lives" in evidence_words(decision, Viewer.GM)
    chunk = Evidence(kind=EvidenceKind.CHUNK, source_id=3, chunk_id=9)
    assert evidence_words(chunk, Viewer.PLAYER) == "an imported source"
    branch = Evidence(kind=EvidenceKind.BRANCH, note="branch “What if” (campaign #4), fact #12, changeset #5")
    assert evidence_words(branch, Viewer.PLAYER) == "carried over from the story “What if”"
    yaml = Evidence(kind=EvidenceKind.YAML, file="family_tree.yaml", line=22)
    assert evidence_words(yaml, Viewer.PLAYER) == "from the lore files"
    for evidence in (decision, chunk, branch, yaml):
        assert not JARGON.search(evidence_words(evidence, Viewer.PLAYER))


def test_warnings_read_as_one_plain_sentence() -> None:
    words = Wording(calendar=CALENDAR)
    # As the rules write it now, and as a warning stored before did.
    assert (
        warning_sentence(
            "Corvan Marrow died in 3rd_age.year_352; bringing them back in scene 1 needs a resurrection.",
            words,
        )
        == "Corvan Marrow died in year 352 of the Third Age; bringing them back in scene 1 needs a resurrection."
    )
    old = warning_sentence(
        "Aldric changes from dead (from 3rd_age.year_252) to alive (scene 1), a change the ontology does not "
        "allow; it would need via resurrection.",
        words,
    )
    assert old == (
        "Aldric changes from dead (from year 252 of the Third Age) to alive (scene 1), which this world's "
        "rules do not allow; it would need a resurrection."
    )
    both = warning_sentence(
        "“A ally of B” and “A enemy of B” overlap, but ALLY_OF and ENEMY_OF exclude each other."
    )
    assert "ally of and enemy of exclude each other" in both
    for text in (old, both):
        assert not JARGON.search(text), text


def test_each_kind_of_proposal_reads_as_a_line() -> None:
    words = Wording(calendar=CALENDAR)
    corvan, ysolde = Ref(name="Corvan Marrow"), Ref(name="Ysolde Marrow")
    lines = {
        "entity": EntityContent(name="Greyhaven", entity_type="MagicSystem"),
        "fact": FactContent(
            subject=ysolde, attribute="titles", value="Harbourmaster", when="3rd_age.year_327"
        ),
        "relation": RelationshipContent(
            subject=corvan, relation="PARENT_OF", object=ysolde, since="3rd_age.year_300", relies_on=(12,)
        ),
        "state": StateChangeContent(
            subject=corvan, state="alive", via="resurrection", when="3rd_age.year_353"
        ),
        "event": EventContent(
            name="The Drowning",
            when="3rd_age.year_352",
            location=Ref(name="Greyhaven"),
            participants=(corvan, ysolde),
        ),
    }
    said = {kind: proposal_sentence(content, words) for kind, content in lines.items()}
    assert said == {
        "entity": "New Magic System: Greyhaven",
        "fact": "Ysolde Marrow is Harbourmaster, from year 327 of the Third Age",
        "relation": "Corvan Marrow is Ysolde Marrow's parent, since year 300 of the Third Age (building on earlier canon)",
        "state": "Corvan Marrow becomes alive through a resurrection in year 353 of the Third Age",
        "event": "Event: The Drowning, year 352 of the Third Age, at Greyhaven, with Corvan Marrow and Ysolde Marrow",
    }
    assert all(not JARGON.search(line) for line in said.values())
    # The GM reads what the cited fact says, never its id; one the words do not know is "an earlier fact".
    named = dataclasses.replace(words, facts={12: "Corvan Marrow is dead"})
    assert proposal_sentence(lines["relation"], named, Viewer.GM).endswith(
        "(relies on “Corvan Marrow is dead”)"
    )
    assert proposal_sentence(lines["relation"], words, Viewer.GM).endswith("(relies on an earlier fact)")
    assert not JARGON.search(proposal_sentence(lines["relation"], words, Viewer.GM))
    # A player reads the cited fact's words when players may read it, else only that it builds on canon.
    assert proposal_sentence(lines["relation"], named).endswith("(relies on “Corvan Marrow is dead”)")
    secret = dataclasses.replace(named, hidden_facts=frozenset({12}))
    assert proposal_sentence(lines["relation"], secret).endswith("(building on earlier canon)")
    assert proposal_sentence(lines["relation"], secret, Viewer.GM).endswith(
        "(relies on “Corvan Marrow is dead”)"
    )


FROST = Wording(
    calendar=CalendarWords(
        eras={"third_age": "The Third Age"},
        months=("Deepwinter", "Thaw", "Seedtime", "Highsun", "Frostmoot"),
    )
)
OSWIN, MIRELA = Ref(name="Oswin Harrow"), Ref(name="Mirela Harrow")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            StateChangeContent(subject=OSWIN, state="dead", when="third_age.year_363.month_5.day_3"),
            "Oswin Harrow dies on 3 Frostmoot, year 363 of the Third Age",
        ),
        (StateChangeContent(subject=OSWIN, state="dead"), "Oswin Harrow dies"),
        (
            StateChangeContent(subject=MIRELA, state="alive", when="third_age.year_330"),
            "Mirela Harrow is born in year 330 of the Third Age",
        ),
        (
            StateChangeContent(subject=MIRELA, state="alive", when="third_age.year_330.month_5"),
            "Mirela Harrow is born in Frostmoot of year 330 of the Third Age",
        ),
        # Alive again without a date may be a recovery, through a resurrection a return: never a birth.
        (StateChangeContent(subject=MIRELA, state="alive"), "Mirela Harrow becomes alive"),
        (
            StateChangeContent(subject=OSWIN, state="alive", via="resurrection", when="third_age.year_364"),
            "Oswin Harrow becomes alive through a resurrection in year 364 of the Third Age",
        ),
        (
            StateChangeContent(subject=OSWIN, state="wounded", when="not a key"),
            "Oswin Harrow becomes wounded in not a key",
        ),
        (
            FactContent(subject=Ref(name="The Harrows"), attribute="seat", value="Coldwater"),
            "The Harrows' seat: Coldwater",
        ),
        (
            RelationshipContent(relation="SIBLING_OF", subject=MIRELA, object=Ref(name="Tobias")),
            "Mirela Harrow is Tobias' sibling",
        ),
    ],
)
def test_life_events_and_possessives_read_as_the_table_says_them(content: object, said: str) -> None:
    assert proposal_sentence(content, FROST) == said  # type: ignore[arg-type]


def test_possessive_of_names_with_and_without_a_final_s() -> None:
    assert fact_sentence("The Harrows", "motto", "Hold") == "The Harrows' motto: Hold"
    assert fact_sentence("Mara", "motto", "Hold") == "Mara's motto: Hold"
    assert relation_sentence("PARENT_OF", "Oswin", "JAMES", subject_sex="m") == "Oswin is JAMES' father"


def test_a_day_inside_a_stored_sentence_reads_on_and_a_year_in() -> None:
    text = "Oswin died in third_age.year_363.month_5.day_3; back in third_age.year_364 needs a resurrection."
    assert FROST.calendar.in_words(text) == (
        "Oswin died on 3 Frostmoot, year 363 of the Third Age; back in year 364 of the Third Age needs a "
        "resurrection."
    )
    assert CalendarWords().in_words("died in python3.11") == "died in python3.11"
