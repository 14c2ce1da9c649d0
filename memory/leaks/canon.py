"""The guard's secrets from canon: what a GM's card of an entity holds that players may not read, as typed
secrets (`Secret.entity`, `.state`, `.fact`, `.relation`).

The one way every writer for players gets its secrets from canon: /lore answers, the narrator, NPC replies and
scene summaries all call `card_secrets` on the GM's cards of the entities their material touched, so a hidden
fact is matched by what it says of whom, never re-read from a card's text. Each secret's text is the sentence
the table reads on a card (`canon.wording`), so a reply repeating the card's words is caught by those words too.
"""

from __future__ import annotations

from canon.models import NOW, EntityCard, StatementKind, StatementView, Viewer
from canon.visibility import Knowing, entity_hidden, entity_named_only, entity_seen, statement_seen
from canon.wording import PLAIN, statement_words
from memory.leaks.secret import Secret

__all__ = ["CARD_LABEL", "card_secrets", "card_text"]

#: How the label of a secret from an entity's card begins (the GM reads it when a reply is held back).
CARD_LABEL = "hidden canon about "


def _said(view: StatementView) -> str:
    return statement_words(view, PLAIN, Viewer.GM, evidence=False)


def card_text(card: EntityCard) -> str:
    """Return what a card says of its entity in the table's words: name, aliases, description, statements."""
    entity = card.entity
    views = [*([card.state] if card.state is not None else []), *card.facts, *card.relations]
    bits = [entity.name, *entity.aliases, entity.description or "", *(_said(v) for v in views)]
    return ". ".join(b for b in bits if b)


def card_secrets(gm_card: EntityCard, knowing: Knowing | None = None) -> list[Secret]:
    """Return what the listeners may not know about an entity, from a GM's card of it, as the guard's secrets.

    Without a lens, that is what only the GM may know; with one (`knowing`: what every listener's character
    knows now), what is hidden and not known to them all. A hidden entity they do not know is a secret by its
    names (and all its card says); each hidden state, fact and relation they do not know (GM-only itself, or
    about a hidden entity: `canon.visibility.statement_seen`) says what it says of whom, each entity by its
    name and aliases, and a hidden end of a relation they do not know is secret by its name too. A player's
    card holds no hidden statement, so it gives no secret.
    """
    entity = gm_card.entity
    label = f"{CARD_LABEL}{entity.name}"
    own = (entity.name, *entity.aliases)
    if not entity_seen(Viewer.PLAYER, entity.visibility, entity.id, knowing, NOW):
        return [Secret.entity(own, card_text(gm_card), label=label)]
    secrets: list[Secret] = []
    if entity_named_only(Viewer.PLAYER, entity.visibility, entity.id, knowing, NOW) and entity.description:
        secrets.append(Secret(text=entity.description, label=label))
    views = [*gm_card.facts, *gm_card.relations, *([gm_card.state] if gm_card.state is not None else [])]
    for view in views:
        ends = [(e.id, e.visibility) for e in (view.subject, view.object) if e is not None]
        if statement_seen(Viewer.PLAYER, view.statement.id, view.statement.visibility, ends, knowing, NOW):
            continue
        statement, text = view.statement, _said(view)
        subject = own if view.subject.id == entity.id else (view.subject.name,)
        if statement.kind == StatementKind.RELATION and view.object is not None:
            obj = own if view.object.id == entity.id else (view.object.name,)
            hidden = tuple(
                ref.name
                for ref in (view.subject, view.object)
                if entity_hidden(ref) and not entity_seen(Viewer.PLAYER, ref.visibility, ref.id, knowing, NOW)
            )
            secret = Secret.relation(subject, statement.predicate, obj, label=label, text=text)
            secrets.append(secret.model_copy(update={"hidden_names": hidden}))
        elif statement.kind == StatementKind.STATE:
            secrets.append(Secret.state(subject, statement.value or "", label=label, text=text))
        else:
            secrets.append(
                Secret.fact(subject, statement.predicate, statement.value or "", label=label, text=text)
            )
    return secrets
