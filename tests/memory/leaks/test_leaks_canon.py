"""The guard's secrets from canon (`memory.leaks.card_secrets`) and the words a card says canon in cannot drift
apart: every hidden statement a card shows, in the very sentence the card (and /lore's answer) writes, is caught
by what it says (its subject and its meaning), not merely because the words are the secret's own."""

from __future__ import annotations

import datetime as dt

import pytest

from canon.models import (
    Authority,
    Entity,
    EntityCard,
    EntityRef,
    Provenance,
    Statement,
    StatementKind,
    StatementView,
    Viewer,
    Visibility,
)
from canon.ontology import base_ontology
from canon.wording import PLAIN, statement_words
from memory.knowledge.retrieval.entity_cards import card_facts
from memory.leaks import CARD_LABEL, SecretKind, card_secrets, card_text, find_leaks
from memory.leaks.match import Text, compile_secret, reveals

PROVENANCE = Provenance(
    campaign_id=1,
    changeset_id=1,
    recorded_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    authority=Authority.GM,
    confidence=1.0,
)
HIDDEN, PUBLIC = Visibility.GM_ONLY, Visibility.PUBLIC
YSOLDE = EntityRef(id=1, name="Ysolde Marrow", type="NPC")
OTHER = EntityRef(id=2, name="Corvan Greaves", type="NPC")
ONTOLOGY = base_ontology()


def view(
    kind: StatementKind,
    predicate: str,
    *,
    value: str | None = None,
    obj: EntityRef | None = None,
    visibility: Visibility = HIDDEN,
    sid: int = 10,
) -> StatementView:
    statement = Statement(
        id=sid,
        kind=kind,
        subject_id=YSOLDE.id,
        predicate=predicate,
        provenance=PROVENANCE,
        object_id=obj.id if obj else None,
        value=value,
        visibility=visibility,
    )
    return StatementView(statement=statement, subject=YSOLDE, object=obj)


def card(*views: StatementView, entity: Visibility = PUBLIC) -> EntityCard:
    state = next((v for v in views if v.statement.kind == StatementKind.STATE), None)
    return EntityCard(
        entity=Entity(
            id=1,
            type="NPC",
            name="Ysolde Marrow",
            provenance=PROVENANCE,
            visibility=entity,
            aliases=("the Harbourmaster",),
            description="keeps the harbour's ledger",
        ),
        state=state,
        relations=tuple(v for v in views if v.statement.kind == StatementKind.RELATION),
        facts=tuple(v for v in views if v.statement.kind == StatementKind.ATTRIBUTE),
        evidence=(),
    )


RELATIONS = [*sorted(ONTOLOGY.relation_types), "SQUIRE_OF", "SMUGGLES_FOR"]  # a campaign's own types too
STATES = sorted(ONTOLOGY.states.tags)
FACTS = [
    ("title", "harbourmaster of Greyhaven"),
    ("debt", "owes the smugglers"),
    ("is_spy", "true"),
    ("true_allegiance", "the Crimson Pact"),
]


def _caught_by_meaning(hidden: StatementView, sentence: str) -> None:
    (secret,) = card_secrets(card(hidden))
    claims = compile_secret(secret)
    assert claims and any(reveals(c, Text(sentence)) for c in claims), (secret, sentence)


@pytest.mark.parametrize("predicate", RELATIONS)
def test_a_hidden_relation_as_the_card_says_it_is_caught_by_its_meaning(predicate: str) -> None:
    hidden = view(StatementKind.RELATION, predicate, obj=OTHER)
    _caught_by_meaning(hidden, statement_words(hidden, PLAIN, Viewer.GM, evidence=False))


@pytest.mark.parametrize(
    ("predicate", "sentence"),
    [
        ("PARENT_IN_LAW_OF", "Ysolde Marrow is Corvan Greaves' mother-in-law."),
        ("PARENT_IN_LAW_OF", "Ysolde Marrow is the mother in law of Corvan Greaves."),
        ("PARENT_IN_LAW_OF", "Corvan Greaves is Ysolde Marrow's son-in-law."),
        ("SIBLING_IN_LAW_OF", "Ysolde Marrow is Corvan Greaves' sister-in-law."),
        ("STEP_PARENT_OF", "Ysolde Marrow is Corvan Greaves' stepmother."),
        ("STEP_PARENT_OF", "Ysolde Marrow is Corvan Greaves' step-mother."),
        ("STEP_PARENT_OF", "Corvan Greaves is Ysolde Marrow's stepson."),
        ("GODPARENT_OF", "Ysolde Marrow is Corvan Greaves' god-mother."),
        ("GODPARENT_OF", "Corvan Greaves is Ysolde Marrow's godchild."),
    ],
)
def test_a_hidden_tie_of_rite_or_marriage_is_caught_in_its_other_words(predicate: str, sentence: str) -> None:
    _caught_by_meaning(view(StatementKind.RELATION, predicate, obj=OTHER), sentence)


def test_the_law_or_a_step_is_not_a_tie_of_marriage() -> None:
    (secret,) = card_secrets(card(view(StatementKind.RELATION, "PARENT_IN_LAW_OF", obj=OTHER)))
    (claim,) = compile_secret(secret)
    assert ("iaw",) not in claim.cues[0] and ("parentiniaw",) in claim.cues[0]
    assert not reveals(
        claim, Text("Ysolde Marrow took a step toward Corvan Greaves, in the name of the law.")
    )


@pytest.mark.parametrize("state", STATES)
def test_a_hidden_state_as_the_card_says_it_is_caught_by_its_meaning(state: str) -> None:
    hidden = view(StatementKind.STATE, "state", value=state)
    _caught_by_meaning(hidden, statement_words(hidden, PLAIN, Viewer.GM, evidence=False))


@pytest.mark.parametrize(("attribute", "value"), FACTS)
def test_a_hidden_fact_as_the_card_and_lore_say_it_is_caught_by_its_meaning(
    attribute: str, value: str
) -> None:
    hidden = view(StatementKind.ATTRIBUTE, attribute, value=value)
    _caught_by_meaning(hidden, statement_words(hidden, PLAIN, Viewer.GM, evidence=False))
    (line,) = card_facts(card(hidden), 10, ONTOLOGY)  # /lore's card line for the same fact
    _caught_by_meaning(hidden, line)


def test_the_secrets_are_the_hidden_statements_of_the_gm_card_and_none_of_a_player_card() -> None:
    public = view(StatementKind.ATTRIBUTE, "title", value="harbourmaster", visibility=PUBLIC, sid=1)
    debt = view(StatementKind.ATTRIBUTE, "debt", value="owes the smugglers", sid=2)
    secret_brother = EntityRef(id=3, name="Tomas Marrow", type="NPC", visibility=HIDDEN)
    brother = view(StatementKind.RELATION, "SIBLING_OF", obj=secret_brother, visibility=PUBLIC, sid=3)
    secrets = card_secrets(card(public, debt, brother))
    assert [(s.kind, s.label) for s in secrets] == [
        (SecretKind.FACT, f"{CARD_LABEL}Ysolde Marrow"),
        (SecretKind.RELATION, f"{CARD_LABEL}Ysolde Marrow"),
    ]
    # Each secret's text is the card's own sentence; the subject is known by its alias too.
    assert secrets[0].text == "Ysolde Marrow's debt: owes the smugglers"
    assert secrets[0].subjects == (("Ysolde Marrow", "the Harbourmaster"),)
    assert secrets[1].hidden_names == ("Tomas Marrow",)
    assert card_secrets(card(public)) == []  # what a player's card holds is not secret
    seen = [card_text(card(public))]  # what players read of her
    assert not find_leaks("Ysolde Marrow is the harbourmaster.", secrets, seen)
    assert find_leaks("The Harbourmaster is in debt to the smugglers.", secrets, seen)


def test_a_gm_only_entity_is_secret_by_every_name_and_what_its_card_says() -> None:
    (secret,) = card_secrets(card(view(StatementKind.STATE, "state", value="dead"), entity=HIDDEN))
    assert secret.kind == SecretKind.ENTITY and secret.hidden_names == ("Ysolde Marrow", "the Harbourmaster")
    assert "Ysolde Marrow is dead" in secret.text and "keeps the harbour's ledger" in secret.text
    assert find_leaks("Ask the harbourmaster.", [secret], [])


def test_the_lore_benchmark_catches_more_with_typed_secrets_and_restores_the_guard() -> None:
    from bench import leaks_lore
    from memory.leaks import lexicon

    result = leaks_lore.run(worlds=3)
    assert result["lore_after"]["caught"] > result["lore_before"]["caught"]
    assert result["lore_after"]["false_alarm_rate"] < 0.05
    assert "owes" in lexicon.STATE_WORDS  # the baseline's words put back
    assert find_leaks(
        "Ysolde is in debt to the smugglers.",
        card_secrets(card(view(StatementKind.ATTRIBUTE, "debt", value="owes the smugglers"))),
        [card_text(card())],
    )
