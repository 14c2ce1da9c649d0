"""The kinds of structured-lore file are registered in one place and agree with each other."""

from __future__ import annotations

import typing

from canon.structured import kinds
from canon.structured.kinds import IDENTITIES, KIND_KEYS, KINDS, RELATION_FIELDS, LoreDocument, LoreKind
from canon.structured.schemas import EntityType, LoreModel


def test_every_registered_kind_is_a_lore_kind_and_has_its_document_model() -> None:
    assert list(KINDS) == list(typing.get_args(LoreKind))
    assert {spec.model for spec in KINDS.values()} == set(typing.get_args(LoreDocument))
    assert all(spec.name == name for name, spec in KINDS.items())


def test_no_top_level_key_identifies_two_kinds() -> None:
    seen: dict[str, str] = {}
    for kind, keys in KIND_KEYS.items():
        for key in keys:
            assert key not in seen, f"{key} identifies both {seen[key]} and {kind}"
            seen[key] = kind


def _entry_models(model: type[LoreModel]) -> set[type[LoreModel]]:
    """Return the models reachable from a file model through its fields (lists and nested models)."""
    found = {model}
    for info in model.model_fields.values():
        for arg in (info.annotation, *typing.get_args(info.annotation)):
            if isinstance(arg, type) and issubclass(arg, LoreModel) and arg not in found:
                found |= _entry_models(arg)
    return found


def test_each_kind_s_entries_are_models_of_its_file_with_an_id_field() -> None:
    for spec in KINDS.values():
        reachable = _entry_models(spec.model)
        for model, (entity_type, id_field) in spec.entries.items():
            assert model in reachable, f"{spec.name}: {model.__name__} is not part of {spec.model.__name__}"
            assert id_field in model.model_fields
            assert entity_type in typing.get_args(EntityType)
    assert len(IDENTITIES) == sum(len(spec.entries) for spec in KINDS.values())


def test_each_relation_field_is_a_field_of_an_entry_of_its_type() -> None:
    fields_of: dict[str, set[str]] = {}
    for spec in KINDS.values():
        for model, (entity_type, _) in spec.entries.items():
            fields_of.setdefault(entity_type, set()).update(model.model_fields)
    # A member's lineage is the file's own top level, not a field of the member.
    implied = {("Person", "members")}
    for key, field in RELATION_FIELDS.items():
        assert key == (field.entity_type, field.field)
        if key not in implied:
            # A tie's edge is registered by its word's direction under its field: "ties:mentor" is `ties`.
            assert field.field.split(":")[0] in fields_of[field.entity_type], key


def test_the_registry_module_names_every_kind_module() -> None:
    modules = {spec.normalise.__module__ for spec in KINDS.values()}
    assert modules == {f"{kinds.__name__}.{name}" for name in KINDS}
