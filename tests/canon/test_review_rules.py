"""Pure rules of the review flow and the story's present: a GM's correction of a proposal, who may speak now."""

from __future__ import annotations

import pytest

from canon.errors import InvalidInput
from canon.ontology import base_ontology
from canon.presence import out_of_story, refusal
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent, revised


def test_a_correction_changes_only_the_editable_fields_and_refuses_bad_ones() -> None:
    fact = FactContent(subject=Ref(name="Mara", entity_id=4), attribute="titles", value="Captain", when=None)
    fixed = revised(fact, {"attribute": "title", "value": " Captain of the Guard ", "when": ""})
    assert isinstance(fixed, FactContent)
    assert (fixed.attribute, fixed.value, fixed.when) == ("title", "Captain of the Guard", None)
    assert fixed.subject == fact.subject  # the reference stays as resolved
    with pytest.raises(InvalidInput, match="value cannot be empty"):
        revised(fact, {"value": "  "})
    with pytest.raises(InvalidInput, match="subject of this proposal cannot be edited"):
        revised(fact, {"subject": "Vell"})
    with pytest.raises(InvalidInput, match=r"^In the proposal, “value” must be at most 1000 characters\.$"):
        revised(fact, {"value": "x" * 1001})
    ally = RelationshipContent(subject=Ref(name="A"), relation="ALLY_OF", object=Ref(name="B"))
    assert revised(ally, {"since": "3rd_age.year_300"}).since == "3rd_age.year_300"  # type: ignore[union-attr]
    entity = EntityContent(name="Grey Gull", entity_type="Item", description="a ship")
    assert revised(entity, {"description": ""}).description is None  # type: ignore[union-attr]


def test_the_dead_the_destroyed_and_the_missing_are_out_of_the_story() -> None:
    ontology = base_ontology()
    assert out_of_story(ontology, "dead") and out_of_story(ontology, "destroyed")
    assert out_of_story(ontology, "dissolved") and out_of_story(ontology, "missing")
    assert not out_of_story(ontology, "alive") and not out_of_story(ontology, "undead")
    assert not out_of_story(ontology, "imprisoned") and not out_of_story(ontology, None)
    text = refusal("Mara", "missing", "whereabouts unknown")
    assert text.startswith(
        "Mara cannot answer: at this point of the story Mara is missing (whereabouts unknown)."
    )
    assert "flashback or a ghost" in text
    assert "(dead)" not in refusal("Aldric", "dead", "dead")
