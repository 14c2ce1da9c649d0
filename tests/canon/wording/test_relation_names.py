"""Relations by the words a table uses: their phrases, synonyms, and the nearest when none fits."""

from __future__ import annotations

import pytest

from canon.errors import InvalidInput
from canon.ontology import base_ontology
from canon.wording.relation_names import (
    find_relation,
    matching_relations,
    nearest_relations,
    relation_phrase,
    unknown_relation,
)
from canon.wording.relations import relation_sentence

KNOWN = list(base_ontology().relation_types)


def test_every_relation_has_a_phrase_without_codes_and_no_two_read_alike() -> None:
    phrases = [relation_phrase(k) for k in KNOWN]
    assert relation_phrase("ALLY_OF") == "is an ally of"
    assert relation_phrase("PARENT_OF") == "is the parent of"
    assert relation_phrase("RULES") == "rules"
    assert all("_" not in p and p == p.lower() for p in phrases)
    assert len(set(phrases)) == len(phrases)
    assert relation_phrase("SQUIRE_OF") == "is squire of"  # a campaign's own relation


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("ALLY_OF", "ALLY_OF"),
        ("ally of", "ALLY_OF"),
        ("is an ally of", "ALLY_OF"),
        ("  Is An  Ally-Of ", "ALLY_OF"),
        ("hates", "ENEMY_OF"),
        ("is the father of", "PARENT_OF"),
        ("married to", "SPOUSE_OF"),
        ("Rules", "RULES"),
        ("lives in", "LIVES_IN"),
        ("ally", "ALLY_OF"),  # the phrase without its last small word, one relation's only
        ("married", "SPOUSE_OF"),
        ("took part", "PARTICIPATED_IN"),
    ],
)
def test_a_relation_is_found_by_its_key_its_phrase_or_a_synonym(typed: str, key: str) -> None:
    assert find_relation(typed, KNOWN) == key
    assert base_ontology().relation_type(typed) == key


def test_a_relation_the_campaign_does_not_know_is_not_found() -> None:
    assert find_relation("hates", ["ALLY_OF"]) is None
    assert find_relation("", KNOWN) is None
    assert find_relation("protected by", KNOWN) is None
    assert find_relation("of", KNOWN) is None  # the small word alone names nothing


def test_typing_narrows_the_list_on_words_and_synonyms() -> None:
    assert matching_relations("hat", KNOWN) == ["ENEMY_OF"]
    assert matching_relations("", KNOWN) == KNOWN
    assert matching_relations("sibl", KNOWN) == ["SIBLING_IN_LAW_OF", "SIBLING_OF"]
    assert matching_relations("par", KNOWN)[:3] == ["PARENT_OF", "PARENT_IN_LAW_OF", "PART_OF"]
    assert matching_relations("zzz", KNOWN) == []


def test_an_unknown_relation_is_answered_with_the_nearest_in_words() -> None:
    assert nearest_relations("protected by", KNOWN)[0] == "ALLY_OF"
    assert unknown_relation("protected by", KNOWN).startswith(
        "“protected by” is not a relation this campaign knows. Did you mean “is an ally of”"
    )
    assert unknown_relation("zzzz", ["ALLY_OF"]) == (
        "“zzzz” is not a relation this campaign knows. Pick one of those the relation box offers as you type."
    )
    with pytest.raises(InvalidInput, match="“protected by” is not a relation this campaign knows"):
        base_ontology().relation_type("protected by")


def test_the_words_typed_rank_first_then_the_relations_that_fit() -> None:
    assert matching_relations("li", KNOWN) == ["LIVES_IN"]  # "li" inside "sibling" is no match
    assert matching_relations("in", KNOWN)[:2] == ["LOCATED_IN", "INHABITS"]
    assert "LIVES_IN" in matching_relations("in", KNOWN)
    to_a_place = {"RULES", "LOCATED_IN", "LIVES_IN"}
    assert matching_relations("", KNOWN, lambda key: key in to_a_place)[:3] == [
        "RULES",
        "LOCATED_IN",
        "LIVES_IN",
    ]
    # What fits never outranks what was typed: a phrase starting with the words comes before a fitting later word.
    assert matching_relations("in", KNOWN, lambda key: key == "LIVES_IN")[:2] == ["LOCATED_IN", "INHABITS"]


def test_the_small_word_inside_a_hyphenated_relation_is_not_the_word_typed() -> None:
    in_law = {"PARENT_IN_LAW_OF", "SIBLING_IN_LAW_OF"}
    # "in" typed is the word "in" ("lives in"), not the "in" of "parent-in-law".
    assert in_law.isdisjoint(matching_relations("in", KNOWN))
    assert in_law.isdisjoint(matching_relations("IN ", KNOWN))
    # The hyphenated word is found by its start, its later parts and itself, with or without its hyphens.
    for typed in ("law", "La", "in-law", "in law", "in-l", "parent-in-law", "parent in law"):
        assert in_law & set(matching_relations(typed, KNOWN)), typed
    assert "PARENT_IN_LAW_OF" in matching_relations("parent", KNOWN)
    assert matching_relations("sibling-in", KNOWN) == ["SIBLING_IN_LAW_OF"]
    assert matching_relations("step", KNOWN) == ["STEP_PARENT_OF"]
    assert "STEP_PARENT_OF" in matching_relations("parent", KNOWN)  # "parent" of "step-parent"


def test_a_name_of_many_has_its_plural_verb_and_a_surname_does_not() -> None:
    assert relation_sentence("POSSESSES", "The Bellwardens", "The Tolling Bells") == (
        "The Bellwardens have the Tolling Bells"
    )
    assert (
        relation_sentence("POSSESSES", "Aldric Reeves", "The Bone Flute")
        == "Aldric Reeves has the Bone Flute"
    )
    assert relation_sentence("POSSESSES", "The Abyss", "The Bone Flute") == "The Abyss has the Bone Flute"
