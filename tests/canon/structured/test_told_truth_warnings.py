"""A public field that gives away a truth the file tells players otherwise: a warning at its line, with what
players would read and the `gm_only:` line that keeps it the GM's; never a refusal."""

from __future__ import annotations

from canon.structured import load_lore_file


def _warnings(text: str, name: str = "folk.yaml") -> list[str]:
    result = load_lore_file(text.encode(), name)
    assert result.ok, result.problems
    return [f"line {w.line}: {w.message}" for w in result.warnings]


def test_a_killer_left_public_beside_a_told_cause_of_death_is_warned_at_its_line() -> None:
    found = _warnings(
        "characters:\n"
        "  - name: Orla Fenn\n"
        "    died: 1201\n"
        "    cause_of_death: a knife in the reeds\n"
        "    public_cause_of_death: drowned in the spring flood\n"
        "    killed_by: Tamsin Reed\n"
        "  - name: Tamsin Reed\n"
    )
    assert len(found) == 1
    (said,) = found
    assert said.startswith("line 6: ")
    assert 'Players are told Orla Fenn died of "drowned in the spring flood"' in said
    assert "they read that Tamsin Reed killed Orla Fenn" in said
    assert "`gm_only: [killed_by]`" in said


def test_the_killer_kept_for_the_gm_is_no_warning() -> None:
    base = (
        "characters:\n"
        "  - name: Orla Fenn\n"
        "    died: 1201\n"
        "    cause_of_death: a knife\n"
        "    public_cause_of_death: the flood\n"
    )
    assert (
        _warnings(base + "    killed_by: Tamsin Reed\n    gm_only: [killed_by]\n  - name: Tamsin Reed\n")
        == []
    )
    hidden = base.replace("  - name: Orla Fenn\n", "  - name: Orla Fenn\n    visibility: gm_only\n")
    assert _warnings(hidden + "    killed_by: Tamsin Reed\n  - name: Tamsin Reed\n") == []


def test_where_someone_is_held_left_public_beside_a_told_status_is_warned() -> None:
    found = _warnings(
        "characters:\n"
        "  - name: Bram Oakes\n"
        "    status: imprisoned\n"
        "    public_status: missing\n"
        "    held_at: The Drowned Keep\n"
        "    gm_only: [faction]\n"
        "    faction: The Gulls\n"
        "---\n"
        "locations:\n"
        "  - name: The Drowned Keep\n"
        "---\n"
        "factions:\n"
        "  - name: The Gulls\n"
    )
    (said,) = found
    assert said.startswith("line 5: ") and "Bram Oakes is missing" in said
    assert "held at The Drowned Keep" in said
    # The line to write keeps what the entry already hides.
    assert "`gm_only: [faction, held_at]`" in said


def test_a_death_left_public_beside_a_told_missing_is_warned_field_by_field() -> None:
    found = _warnings(
        "characters:\n"
        "  - name: Ilse Marrow\n"
        "    status: dead\n"
        "    public_status: missing\n"
        "    died: 1190\n"
        "    cause_of_death: fell from the cliffs\n"
    )
    assert [f.split(":")[0] for f in found] == ["line 5", "line 6"]
    assert all("`gm_only: [died, cause_of_death]`" in f for f in found)


def test_a_public_winner_beside_a_told_outcome_is_warned() -> None:
    found = _warnings(
        "eras:\n"
        "  - name: Reed Count\n"
        "    abbreviation: RC\n"
        "    start: 1100\n"
        "    events:\n"
        "      - name: The Ford Fight\n"
        "        year: 1150\n"
        "        winners: [Cob Harl]\n"
        "        outcome: the ford was sold\n"
        "        public_outcome: the ford held\n"
        "---\n"
        "characters:\n"
        "  - name: Cob Harl\n",
        "chronicle.yaml",
    )
    (said,) = found
    assert said.startswith("line 8: ") and 'told of The Ford Fight that "the ford held"' in said
    assert "that Cob Harl won" in said and "`gm_only: [winners]`" in said


def test_a_story_with_nothing_giving_it_away_is_no_warning() -> None:
    assert (
        _warnings(
            "characters:\n"
            "  - name: Bram Oakes\n"
            "    status: imprisoned\n"
            "    public_status: missing\n"
            "    held_at: The Drowned Keep\n"
            "    gm_only: [held_at]\n"
            "---\n"
            "locations:\n"
            "  - name: The Drowned Keep\n"
        )
        == []
    )


def test_a_winner_or_a_death_the_told_story_itself_names_is_no_warning() -> None:
    chronicle = (
        "eras:\n"
        "  - name: Reed Count\n"
        "    abbreviation: RC\n"
        "    start: 1100\n"
        "    events:\n"
        "      - name: The Ford Fight\n"
        "        year: 1150\n"
        "        winner: Cob Harl\n"
        "        deaths: [{deaths}]\n"
        "        outcome: the ford was sold\n"
        "        public_outcome: {told}\n"
        "---\n"
        "characters:\n"
        "  - name: Cob Harl\n"
        "  - name: Wat Reedy\n"
    )
    said = _warnings(
        chronicle.format(deaths="Wat Reedy", told="Cob Harl held the ford; Wat Reedy fell"), "c.yaml"
    )
    assert said == [], said
    # A death the story does not name is still warned of; the winner it names is not.
    (death,) = _warnings(chronicle.format(deaths="Wat Reedy", told="cob harl's men held the ford"), "c.yaml")
    assert death.startswith("line 9: ") and "that Wat Reedy died in it" in death, death
    # A name only part of which the story says is not told by it ("Cob" is not "Cob Harl").
    (winner,) = _warnings(chronicle.format(deaths="Wat Reedy", told="Cob held; Wat Reedy fell"), "c.yaml")
    assert "that Cob Harl won" in winner, winner
