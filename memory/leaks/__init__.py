"""The secret guard: decide whether a text reveals GM-only canon before it is posted where players read it.

One entry point, `find_leaks(text, secrets, public)`, for everything the bot writes for players from material
that held hidden canon: narration, NPC replies, /lore answers, scene summaries. It returns the secrets the text
reveals, each with the words that reveal it; the caller holds the text back and records it for the GM. The
secrets from canon come from one function, `card_secrets` (the GM's card of an entity, typed statements in).

A text reveals a secret by what it says, not by its rare words, after both are brought to the words a reader
sees (`memory.leaks.normalize`: look-alike letters, invisible characters, broken words, leetspeak, case,
plurals and possessives):

- a GM-only entity (`SecretKind.ENTITY`) by any of its names;
- a state, fact or relation by naming every entity it is about and saying its value or predicate in the same
  clause, in the canon's words or in words meaning the same (`memory.leaks.lexicon`): "Brann is dead" and
  "Brann was slain" reveal `Brann is dead` even when every one of those words is public, "The fishermen sing
  for the dead; Brann hammers" does not;
- any secret, free text included (a narrator-only passage), by repeating a run of its words that carries a
  word the public material never uses, or a name the players never saw.

`public` holds what players may legitimately see (player-visible canon, public sources, what the GM said at
the table); a secret the public material itself says, or a name it uses, is no longer a secret. Never put a
player's own words there: a player who asks "Is Brann dead?" would otherwise make the secret public, and a
reply confirming it would pass. A paraphrase in words of its own ("the smith will not see another spring")
can still escape; the prompts' instruction never to reveal hidden canon is the first line of defence.
"""

from __future__ import annotations

from collections.abc import Iterable

from memory.leaks.canon import CARD_LABEL, card_secrets, card_text
from memory.leaks.match import (
    CompiledSecret,
    Text,
    compile_secret,
    distinctive_quote,
    hidden_name,
    may_say,
    reveals,
    secret_text,
)
from memory.leaks.normalize import tokens
from memory.leaks.secret import Leak, Secret, SecretKind

__all__ = ["CARD_LABEL", "Leak", "Secret", "SecretKind", "card_secrets", "card_text", "find_leaks", "words"]


def words(text: str) -> list[str]:
    """Return the comparable words of a text (what the guard compares; see `memory.leaks.normalize`)."""
    return tokens(text)


def _said_in(claim: CompiledSecret, texts: list[Text], combined: Text) -> bool:
    """Return whether the public material says the claim itself (then it is no secret)."""
    if not may_say(claim, combined.vocabulary):
        return False
    return any(reveals(claim, text, allow_negated=False) for text in texts)


def find_leaks(text: str, secrets: Iterable[Secret], public: Iterable[str]) -> list[Leak]:
    """Return the secrets `text` reveals, one leak each (empty when it reveals none).

    `secrets` are what only the GM may know (build them with the `Secret` constructors: `Secret.state`,
    `Secret.fact`, `Secret.relation`, `Secret.entity`, or plain `Secret(text=..., label=...)` for free text);
    `public` is what players may already know. Safe on any input: an empty text reveals nothing.
    """
    reply = Text(text)
    if not reply.words:
        return []
    public_texts = [Text(p) for p in public if p.strip()]
    public_all = Text(parts=public_texts)
    known = set(public_all.words)
    leaks: list[Leak] = []
    for secret in secrets:
        found: str | None = None
        for claim in compile_secret(secret):
            found = hidden_name(claim, reply, public_all)
            if found is None and not _said_in(claim, public_texts, public_all):
                found = reveals(claim, reply)
            if found is not None:
                break
        if found is None:
            found = distinctive_quote(secret_text(secret.text), reply, known)
        if found is not None:
            leaks.append(Leak(label=secret.label, phrase=found))
    return leaks
