"""Deaths, outcomes and upbringings as a file writes them (`kinds.fates`): what each says, and every mistake refused
at its line with what to write instead."""

from __future__ import annotations

from canon.structured import load_lore_file


def _problems(text: str, name: str = "folk.yaml") -> list[str]:
    return [str(p) for p in load_lore_file(text, name).problems]


def test_a_told_cause_or_outcome_keeps_the_truth_for_the_gm() -> None:
    loaded = load_lore_file(
        "characters:\n"
        "  - name: Ysolt Dunmere\n"
        "    died: 1212\n"
        "    cause_of_death: poisoned by her steward\n"
        "    public_cause_of_death: a winter fever\n"
        "    killed_by: Hob Greave\n"
        "  - name: Hob Greave\n",
        "folk.yaml",
    )
    assert not loaded.problems
    ysolt = next(e for e in loaded.entries if e.name == "Ysolt Dunmere")
    assert ysolt.attributes["cause_of_death_public"] == "a winter fever"
    assert "cause_of_death" in ysolt.gm_only and "cause_of_death_public" not in ysolt.gm_only
    killed = [r for r in loaded.relations if r.type == "KILLED"]
    assert [(r.source_id, r.target_id, r.line) for r in killed] == [("hob_greave", "ysolt_dunmere", 6)]


def test_a_hidden_death_hides_the_cause_the_table_is_told_too() -> None:
    loaded = load_lore_file(
        "characters:\n  - name: Ysolt Dunmere\n    died: 1212\n    cause_of_death: poison\n"
        "    public_cause_of_death: a fever\n    gm_only: [died]\n",
        "folk.yaml",
    )
    ysolt = loaded.entries[0]
    assert {"cause_of_death", "cause_of_death_public"} <= set(ysolt.gm_only)


def test_a_feigned_death_needs_no_true_cause() -> None:
    loaded = load_lore_file(
        "characters:\n  - name: Aud Fenn\n    status: alive\n    public_status: dead\n"
        "    public_cause_of_death: drowned in the Mere\n",
        "folk.yaml",
    )
    assert not loaded.problems
    assert loaded.entries[0].attributes["cause_of_death_public"] == "drowned in the Mere"


def test_an_adoption_holds_from_the_date_written_with_it() -> None:
    loaded = load_lore_file(
        "characters:\n"
        "  - name: Wenna Tull\n"
        "    born: 1200\n"
        "    adoptive_parents: [{name: Corm Tull, adopted: 1205}, Ama Tull]\n"
        "    foster_parents:\n"
        "      - {name: Old Mag, fostered: 1203, gm_only: true}\n"
        "  - name: Corm Tull\n  - name: Ama Tull\n  - name: Old Mag\n",
        "folk.yaml",
    )
    assert not loaded.problems, loaded.problems
    ties = {(r.type, r.source_id): r for r in loaded.relations if r.target_id == "wenna_tull"}
    assert ties[("ADOPTIVE_PARENT_OF", "corm_tull")].valid_from is not None
    assert ties[("ADOPTIVE_PARENT_OF", "corm_tull")].valid_from.year == 1205
    assert ties[("ADOPTIVE_PARENT_OF", "ama_tull")].valid_from is None
    fostered = ties[("FOSTER_PARENT_OF", "old_mag")]
    assert fostered.valid_from is not None and fostered.valid_from.year == 1203
    assert fostered.visibility == "gm_only"
    assert ("PARENT_OF", "corm_tull") not in ties  # an adoptive parent is no parent by blood


def test_ties_of_rite_and_marriage_are_words_of_ties() -> None:
    loaded = load_lore_file(
        "characters:\n  - name: Corm Tull\n    ties:\n"
        "      - {name: Pell Tull, is: godson}\n      - {name: Ansel Brae, is: stepfather}\n"
        "      - {name: Hob Greave, is: brother-in-law}\n      - {name: Ama Ro, is: mother-in-law}\n"
        "  - name: Pell Tull\n  - name: Ansel Brae\n  - name: Hob Greave\n  - name: Ama Ro\n",
        "folk.yaml",
    )
    assert not loaded.problems, loaded.problems
    said = {(r.type, r.source_id, r.target_id) for r in loaded.relations}
    assert said >= {
        ("GODPARENT_OF", "corm_tull", "pell_tull"),
        ("STEP_PARENT_OF", "ansel_brae", "corm_tull"),
        ("PARENT_IN_LAW_OF", "ama_ro", "corm_tull"),
    }
    assert any(r.type == "SIBLING_IN_LAW_OF" for r in loaded.relations)


def test_every_mistake_is_refused_at_its_line() -> None:
    text = (
        "characters:\n"
        "  - name: Ysolt Dunmere\n"  # 2
        "    public_cause_of_death: a winter fever\n"  # 3: no truth beside it
        "  - name: Hob Greave\n"  # 4
        "    status: alive\n"  # 5
        "    killed_by: Ysolt Dunmere\n"  # 6: killed, yet alive
        "  - name: Wenna Tull\n"  # 7
        "    adoptive_parents: [{name: Hob Greave, adopted: last spring}]\n"  # 8: no date
        "    foster_parents: [{name: Hob Greave, raised: 1203}]\n"  # 9: an unknown key
    )
    problems = _problems(text)
    assert any(
        p.startswith("folk.yaml: line 3, column 28:")
        and '"public_cause_of_death" says what players are told in place of the truth: give the truth beside it '
        'in "cause_of_death"'
        in p
        for p in problems
    ), problems
    assert any(
        p.startswith("folk.yaml: line 6") and '"killed_by" is given, but "status" is alive' in p
        for p in problems
    ), problems
    assert any(p.startswith("folk.yaml: line 8") and "last spring" in p for p in problems), problems
    assert any(
        p.startswith("folk.yaml: line 9")
        and "{name: Ysolt Dunmere, fostered: ...}" in p
        and 'it holds "raised"' in p
        for p in problems
    ), problems


def test_an_outcome_told_needs_its_truth() -> None:
    text = (
        "kind: timeline\nevents:\n  - name: Siege of Marrowgate\n    year: 1210\n"
        "    public_outcome: The garrison held.\n"
    )
    assert _problems(text, "chronicle.yaml") == [
        'chronicle.yaml: line 5, column 21: "public_outcome" says what players are told in place of the truth: '
        'give the truth beside it in "outcome"'
    ]
    told = load_lore_file(
        text.replace("    public_outcome", "    outcome: The gate was sold.\n    public_outcome")
    )
    event = told.entries[0]
    assert event.attributes["outcome_public"] == "The garrison held." and "outcome" in event.gm_only


def test_a_family_tree_s_member_writes_them_as_a_character_does() -> None:
    loaded = load_lore_file(
        "lineage: House Tull\nmembers:\n"
        "  - name: Corm Tull\n"
        "  - name: Wenna Tull\n"
        "    born: 1200\n"
        "    adoptive_parents: [{name: Corm Tull, adopted: 1205}]\n"
        "  - name: Aud Tull\n"
        "    died: 1210\n"
        "    cause_of_death: drowned by her brother\n"
        "    public_cause_of_death: lost in the Mere\n"
        "    killed_by: Corm Tull\n",
        "tulls.yaml",
    )
    assert not loaded.problems, loaded.problems
    aud = next(e for e in loaded.entries if e.name == "Aud Tull")
    assert aud.attributes["cause_of_death_public"] == "lost in the Mere" and "cause_of_death" in aud.gm_only
    said = {(r.type, r.source_id, r.target_id) for r in loaded.relations}
    assert ("ADOPTIVE_PARENT_OF", "corm_tull", "wenna_tull") in said
    assert ("KILLED", "corm_tull", "aud_tull") in said
    assert ("PARENT_OF", "corm_tull", "wenna_tull") not in said
