"""Pick a fact of canon by what it says: the suggestions of a fact option, and the fact a typed text means.

Commands that take a fact (`/retcon`, `lorekeeper canon retcon`) take its words ("Corvan Marrow is dead", or in
the GM's own forms of them, "Corvan's death"), an autocomplete suggestion of its sentence, or its handle
("(fact 53)"), never only a number. A text that fits several facts is answered with those facts in words, so the
GM says which: the bot never guesses; nor does it act on a fact that holds only some of the words typed (those
nearest are offered to pick from). Only the facts
the asker may see are offered or matched (`CanonReader` filters by viewer), retconned ones never.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.services.canon_access import CanonAccess
from bot.services.wording import wording_for
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotFound
from canon.models import CanonLevel, StatementView, Viewer
from canon.storage import Database
from canon.wording import Wording
from canon.wording.fact_names import (
    clip_words,
    fact_name,
    folded_words,
    handle_in,
    matching_facts,
    nearest_facts,
    told_apart,
)

#: At most this many facts are named in an answer that asks which one was meant.
SHOWN_CHOICES = 10
SUGGESTIONS = 25
#: A proposal cites at most this many facts (`canon.proposals.Citations`).
MOST_CITED = 20
#: What a retconned fact named in a list of facts relied on is told (as the gate says it).
RELIED_ON_GONE = "was retconned, so nothing can rely on it."


class FactPicker:
    """The facts of a campaign's canon, named in words, for a viewer to pick one."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def _named(self, campaign: Campaign, viewer: Viewer) -> tuple[list[StatementView], Wording]:
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            views = await reader.views(await reader.statements(include_retconned=True))
            words = await wording_for(session, reader)
            same = _same_words([v for v in views if not _retconned(v)], words)
            if same:  # facts of the same words are told apart by their scenes: those are read for them
                words = await wording_for(
                    session, reader, [v.statement.evidence[0] for v in same if v.statement.evidence]
                )
            return views, words

    async def suggestions(
        self, campaign: Campaign, typed: str, *, viewer: Viewer, limit: int = SUGGESTIONS
    ) -> list[tuple[str, str]]:
        """Return the facts that fit what is typed so far, the newest first when nothing is typed: each as the
        words a person reads (at most 100 characters, as an autocomplete choice holds) and the handle the
        choice sends back ("fact 53": two facts saying the same words stay apart)."""
        views, words = await self._named(campaign, viewer)
        by_id = {v.statement.id: v for v in views if not _retconned(v)}
        names = _names(list(by_id.values()), words, viewer)
        if folded_words(typed):
            ids = matching_facts(typed, list(names.items()))
        else:
            ids = sorted(by_id, reverse=True)
        return [(clip_words(names[i]), f"fact {i}") for i in ids[:limit]]

    async def pick(self, campaign: Campaign, typed: str, *, viewer: Viewer) -> int:
        """Return the id of the one fact a typed text means, or raise: `NotFound` when none fits,
        `InvalidInput` naming the facts in words when several do."""
        text = " ".join(typed.split())
        if not text:
            raise InvalidInput("Say which fact: type some of its words and pick it from the suggestions.")
        everything, words = await self._named(campaign, viewer)
        return _one(text, everything, words, viewer)

    async def pick_many(self, campaign: Campaign, typed: str | None, *, viewer: Viewer) -> tuple[int, ...]:
        """Return the facts a list names (a proposal's `relies_on`): each by its words or a suggestion of
        them, separated by “;” (or by commas when the whole text is not one fact's words); none when empty.
        Each is picked as `pick` does, with its answers: one a viewer may not see is one that does not exist."""
        text = " ".join((typed or "").split())
        if not text:
            return ()
        everything, words = await self._named(campaign, viewer)
        named = list(_names([v for v in everything if not _retconned(v)], words, viewer).items())
        if ";" not in text and len(matching_facts(text, named)) == 1:
            return (_one(text, everything, words, viewer, refusal=RELIED_ON_GONE),)
        parts = [p.strip() for p in text.split(";" if ";" in text else ",") if p.strip()]
        if len(parts) > MOST_CITED:
            raise InvalidInput(f"Name at most {MOST_CITED} facts it builds on; {len(parts)} were given.")
        return tuple(dict.fromkeys(_one(p, everything, words, viewer, refusal=RELIED_ON_GONE) for p in parts))


def _one(
    text: str,
    everything: Sequence[StatementView],
    words: Wording,
    viewer: Viewer,
    *,
    refusal: str = "was already retconned.",
) -> int:
    """Return the one fact `text` names among the facts a viewer may read (retconned ones included, to say
    what replaced them), or raise as `FactPicker.pick` says."""
    views = [v for v in everything if not _retconned(v)]
    names = _names(views, words, viewer)
    named = list(names.items())
    found = matching_facts(text, named)
    number = handle_in(text)
    old = next((v for v in everything if v.statement.id == number and _retconned(v)), None)
    if old is None and not found:  # the words of a retconned fact, typed back: say what replaced it
        gone = [(v.statement.id, fact_name(v, words)) for v in everything if _retconned(v)]
        whole = [i for i in matching_facts(text, gone) if folded_words(dict(gone)[i]) == folded_words(text)]
        old = next((v for v in everything if v.statement.id == whole[0]), None) if len(whole) == 1 else None
    if old is not None:
        now = old.statement.provenance.replaced_by
        current = next((v for v in everything if v.statement.id == now), None) if now else None
        then = (
            f" What replaced it: “{fact_name(current, words)}”."
            if current is not None
            else " Nothing replaced it."
        )
        raise Conflict(f"“{fact_name(old, words)}” {refusal}{then}")
    if len(found) == 1:
        return found[0]
    shown = f"“{text[:80]}”" + ("…" if len(text) > 80 else "")
    if not found:
        near = nearest_facts(text, named)
        if near:
            raise InvalidInput(_which(shown, near, names, whole=False))
        raise NotFound(f"No fact of canon says {shown}. {_how_to_type(views)}")
    raise InvalidInput(_which(shown, found, names))


def _how_to_type(views: Sequence[StatementView]) -> str:
    """Return how to name a fact, with a name this campaign's canon holds (its newest fact's subject)."""
    if not views:
        return "This campaign's canon holds no fact that could be picked yet."
    newest = max(views, key=lambda v: v.statement.id)
    return (
        f"Type some of its words (a name it mentions, like “{newest.subject.name}”) and pick it from "
        "the suggestions."
    )


def _retconned(view: StatementView) -> bool:
    return view.statement.provenance.level == CanonLevel.RETCONNED


def _names(views: Sequence[StatementView], words: Wording, viewer: Viewer) -> dict[int, str]:
    """Return each fact's name by id: its words, those of facts that say the same told apart by their scenes
    (`told_apart`), so that whatever is listed, typed back, picks one."""
    lines = told_apart(views, [fact_name(v, words) for v in views], words, viewer)
    return {v.statement.id: line for v, line in zip(views, lines, strict=True)}


def _same_words(views: Sequence[StatementView], words: Wording) -> list[StatementView]:
    """Return the facts whose names are the same words as another's."""
    keys = [tuple(folded_words(fact_name(v, words))) for v in views]
    return [v for v, key in zip(views, keys, strict=True) if keys.count(key) > 1]


def _which(shown: str, found: Sequence[int], names: dict[int, str], *, whole: bool = True) -> str:
    first = (
        f"{shown} fits {len(found)} facts; say which one by more of its words:"
        if whole
        else f"No fact of canon says all of {shown}. The nearest (say which one by its words):"
    )
    lines = [first]
    lines += [f"• {clip_words(names[i], 180)}" for i in found[:SHOWN_CHOICES]]
    if len(found) > SHOWN_CHOICES:
        lines.append(f"…and {len(found) - SHOWN_CHOICES} more: add a word to narrow it down.")
    return "\n".join(lines)
