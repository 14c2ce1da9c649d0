"""The /lore guard on cards as the graph gives them: the secrets built from typed statements (`card_secrets`, what
/lore, the narrator and NPC replies use) against the free-text secrets /lore built before from its card lines.

Each world is a public person whose GM card holds hidden canon the player's card does not: a GM-only state, a
GM-only fact, a GM-only membership, and a public relation to a GM-only person. A leak case says one of them,
as the card says it or in words of its own; an innocent case uses the same names and words without saying any.
`public` is what a player may read: the player's card as /lore shows it. Used by `bench.leaks`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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
from canon.wording import PLAIN, statement_words
from memory.knowledge.retrieval.entity_cards import card_facts
from memory.leaks import Secret, card_secrets, find_leaks, lexicon, match
from memory.leaks.lexicon import wording_phrases

PROVENANCE = Provenance(
    campaign_id=1,
    changeset_id=1,
    recorded_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    authority=Authority.GM,
    confidence=1.0,
)
PEOPLE = ("Ysolde Marrow", "Brann Tull", "Mira Vance", "Oswin Hale", "Petra Lind", "Corvin Ashe")
FACTIONS = ("the Red Hand", "the Salt Guild", "the Grey Lanterns")
SECRET_KIN = ("Tomas Marrow", "Edric Vane", "Hesk Orrin")
CREDITORS = ("the smugglers", "the harbour guild", "the moneylenders")

# (label, paraphrases): {n} the person's first name, {f} the faction, {k} the secret kin, {c} the creditor.
LEAKS = {
    "state": ("{n} was slain on the road.", "They buried {n} last winter; {n} perished."),
    "fact": ("{n} is in debt to {c}.", "{n} is deep in debt to {c}.", "{n} still owes {c}."),
    "relation": ("{n} is sworn to {f}.", "{n} is loyal to {fs}.", "{n} is {F}'s agent."),
    "kin": ("{n} has a brother, {k}.", "{k} is {n}'s sibling."),
}
#: Paraphrases written once and never tuned against: what the guard makes of words nobody fitted it to.
HELD_OUT = {
    "state": ("{n} lies cold in the ground.", "{n} did not survive the winter."),
    "fact": ("{n} has borrowed heavily from {c}.", "{c} hold {n}'s debts."),
    "relation": ("{n} takes orders from {f}.", "{n} is one of {f}."),
    "kin": ("{k} and {n} share a mother.", "{n}'s brother {k} waits in the hills."),
}
INNOCENT = (
    "{n} counts ships in the harbour; {c} sail at dawn.",
    "{n} pours ale. The banners of {f} hang over the square.",
    "The fishermen sing for the dead at dusk; {n} mends a net.",
    "{n} asks about {f}.",
)


@dataclass(frozen=True)
class LoreCase:
    """One reply to check: the secret it says (None: innocent), the secrets both ways and what players read."""

    text: str
    expected: str | None
    before: tuple[Secret, ...]
    after: tuple[Secret, ...]
    public: tuple[str, ...]


def _view(sid: int, kind: StatementKind, subject: EntityRef, predicate: str, **extra: Any) -> StatementView:
    obj: EntityRef | None = extra.pop("obj", None)
    statement = Statement(
        id=sid,
        kind=kind,
        subject_id=subject.id,
        predicate=predicate,
        provenance=PROVENANCE,
        object_id=obj.id if obj else None,
        **extra,
    )
    return StatementView(statement=statement, subject=subject, object=obj)


def _cards(index: int) -> tuple[EntityCard, EntityCard, dict[str, str]]:
    """Return a world's GM card, its player card and the names its texts use."""
    name = PEOPLE[index % len(PEOPLE)]
    faction, kin = FACTIONS[index % len(FACTIONS)], SECRET_KIN[index % len(SECRET_KIN)]
    creditor = CREDITORS[index % len(CREDITORS)]
    person = EntityRef(id=1, name=name, type="NPC")
    hand = EntityRef(id=2, name=faction, type="Faction")
    brother = EntityRef(id=3, name=kin, type="NPC", visibility=Visibility.GM_ONLY)
    hidden = Visibility.GM_ONLY
    title = _view(1, StatementKind.ATTRIBUTE, person, "title", value="harbourmaster")
    state = _view(2, StatementKind.STATE, person, "state", value="dead", visibility=hidden)
    debt = _view(3, StatementKind.ATTRIBUTE, person, "debt", value=f"owes {creditor}", visibility=hidden)
    member = _view(4, StatementKind.RELATION, person, "MEMBER_OF", obj=hand, visibility=hidden)
    sibling = _view(5, StatementKind.RELATION, person, "SIBLING_OF", obj=brother)
    entity = Entity(
        id=1, type="NPC", name=name, provenance=PROVENANCE, description="keeps the harbour's ledger"
    )
    gm = EntityCard(entity=entity, state=state, relations=(member, sibling), facts=(title, debt), evidence=())
    player = EntityCard(entity=entity, state=None, relations=(), facts=(title,), evidence=())
    first = name.split()[0]
    bare = faction.removeprefix("the ")
    names = {"n": first, "f": faction, "fs": faction + "s", "F": "The " + bare, "k": kin, "c": creditor}
    return gm, player, names


def _lore_lines(card: EntityCard) -> list[str]:
    return card_facts(card, 12)


def _before(gm: EntityCard, player: EntityCard) -> tuple[Secret, ...]:
    """Return what /lore built before: a card line the player's card lacks, as free text (its pattern for
    'X: attr = value' lines matched none of the wording layer's sentences)."""
    seen = set(_lore_lines(player))
    return tuple(Secret(text=line, label="card") for line in _lore_lines(gm) if line not in seen)


def cases(worlds: int = 12, seed: int = 29, *, held_out: bool = False) -> list[LoreCase]:
    """Return the generated /lore cases (deterministic for a seed); `held_out`: the untuned paraphrases."""
    said = HELD_OUT if held_out else LEAKS
    rng = random.Random(seed)
    found: list[LoreCase] = []
    for index in range(worlds):
        gm, player, names = _cards(index)
        before, after = _before(gm, player), tuple(card_secrets(gm))
        # What players read: the player's card, and the public faction and creditors (named in public passages).
        public = (
            " ".join([player.entity.name, player.entity.description or "", *_lore_lines(player)]),
            f"{names['F']} is a guild of the city; {names['c']} trade in the harbour.",
        )
        verbatim = {
            "state": statement_words(gm.state, PLAIN, Viewer.GM, evidence=False) if gm.state else "",
            "fact": statement_words(gm.facts[1], PLAIN, Viewer.GM, evidence=False),
            "relation": statement_words(gm.relations[0], PLAIN, Viewer.GM, evidence=False),
            "kin": statement_words(gm.relations[1], PLAIN, Viewer.GM, evidence=False),
        }
        for label, paraphrases in said.items():
            found.append(LoreCase(verbatim[label] + ".", label, before, after, public))
            found += [LoreCase(p.format(**names), label, before, after, public) for p in paraphrases]
        picked = rng.sample(INNOCENT, len(INNOCENT))
        found += [LoreCase(t.format(**names), None, before, after, public) for t in picked]
    return found


def score(generated: list[LoreCase], which: str) -> dict[str, float]:
    """Return the share of leaks caught and of innocent replies held back, with the secrets built `which` way."""
    caught = alarms = leaks = innocent = 0
    for case in generated:
        secrets = case.before if which == "before" else case.after
        said = bool(find_leaks(case.text, secrets, case.public))
        if case.expected is None:
            innocent += 1
            alarms += said
        else:
            leaks += 1
            caught += said
    return {"caught": round(caught / leaks, 3), "false_alarm_rate": round(alarms / innocent, 3)}


@contextlib.contextmanager
def without_new_words() -> Iterator[None]:
    """Run the guard without its debt words ("in debt to" for "owes") and the card's own relation words."""
    kept_words = dict(lexicon.STATE_WORDS)
    for key in ("owes", "debt"):
        lexicon.STATE_WORDS.pop(key, None)
    match.wording_phrases = lambda predicate: []  # type: ignore[attr-defined]
    _clear()
    try:
        yield
    finally:
        lexicon.STATE_WORDS.clear()
        lexicon.STATE_WORDS.update(kept_words)
        match.wording_phrases = wording_phrases  # type: ignore[attr-defined]
        _clear()


def _clear() -> None:
    match.compile_secret.cache_clear()
    match._cue_group_of.cache_clear()
    lexicon._folded.cache_clear()
    lexicon.state_adjectives.cache_clear()


def run(worlds: int = 12) -> dict[str, Any]:
    """Return the /lore guard's figures: before (free-text card lines, old words) and after (typed, new words)."""
    generated, held = cases(worlds), cases(worlds, held_out=True)
    with without_new_words():
        before = score(generated, "before")
        typed_old_words = score(generated, "after")
        held_before = score(held, "before")
    return {
        "lore_cases": len(generated),
        "lore_before": before,
        "lore_typed_without_new_words": typed_old_words,
        "lore_after": score(generated, "after"),
        "lore_held_out_before": held_before,
        "lore_held_out_after": score(held, "after"),
    }
