"""A recap read now: the facts its scene committed, as canon holds them today.

The journal keeps each recap as it was written when its scene was committed. A retcon later takes a fact out of
canon; a recap read after it must not tell that fact as canon still. So each time recaps are read, the facts
their scenes' proposals wrote are looked up again, and those retconned are returned apart, each with what the
reader may see replaced it. They are shown struck through, not left out: the table remembers the scene, and a
fact that silently vanished from the journal would leave it wondering what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.wording import wording_for
from canon.campaigns import Campaign
from canon.models import CanonLevel, Viewer
from canon.proposals import ProposalStatus
from canon.wording import PLAIN, describe
from canon.wording.statements import statement_words
from memory.journal import Recap, RetconnedFact


async def as_canon_holds(
    session: AsyncSession, access: CanonAccess, campaign: Campaign, recaps: Sequence[Recap]
) -> list[Recap]:
    """Return recaps with the facts a retcon has since taken out of canon marked (`Recap.retconned`), as players
    read them: their summary (a model's words), title and facts never naming a GM-only era
    (`CalendarWords.told`: its dates read "at an unknown time")."""
    marked = await _marked(session, access, campaign, recaps)
    told = (await wording_for(session, await access.reader(session, campaign, Viewer.PLAYER))).calendar.told
    return [_recap_told(recap, told) for recap in marked]


def _recap_told(recap: Recap, told: Callable[[str], str]) -> Recap:
    """Return a recap with the words a GM or a model wrote said as players may read them."""
    retconned = tuple(
        r.model_copy(update={"fact": told(r.fact), "now": r.now and told(r.now)}) for r in recap.retconned
    )
    return recap.model_copy(
        update={
            "title": told(recap.title) or (recap.title and "A scene"),
            "summary": recap.summary and (told(recap.summary) or None),
            "facts": tuple(f for f in (told(f) for f in recap.facts) if f),
            "retconned": tuple(r for r in retconned if r.fact),
        }
    )


async def _marked(
    session: AsyncSession, access: CanonAccess, campaign: Campaign, recaps: Sequence[Recap]
) -> list[Recap]:
    """Return recaps with the facts a retcon has since taken out of canon marked (`Recap.retconned`)."""
    said: dict[int, tuple[int, str]] = {}  # proposal id -> (scene id, the fact as the recap tells it)
    gate = access.gate_for(campaign)
    # A recap tells its facts in the campaign calendar's words, as players read them (a recap written before
    # the calendar had names tells them plainly).
    words = await wording_for(session, await access.reader(session, campaign, Viewer.PLAYER))
    for recap in recaps:
        if not recap.facts:
            continue
        for proposal in await gate.proposals(session, campaign.id, scene_id=recap.scene_id):
            told = (describe(proposal.content, words), describe(proposal.content, PLAIN))
            fact = next((f for f in told if f in recap.facts), None)
            # Only a fact the recap tells: a GM-only one the scene committed is never named, retconned or not.
            if proposal.status == ProposalStatus.COMMITTED and fact is not None:
                said[proposal.id] = (recap.scene_id, fact)
    if not said:
        return list(recaps)
    gm = await access.reader(session, campaign, Viewer.GM)
    written = await gm.written_by(said)
    targets = [t for rows in written.values() for t in rows]
    statements = {
        s.id: s
        for s in await gm.statements(
            statement_ids=[i for k, i in targets if k == "statement"],
            include_retconned=True,
            with_evidence=False,
        )
    }
    entities = await gm.entities(
        [i for k, i in targets if k == "entity"], include_retconned=True, with_aliases=False
    )
    gone: dict[int, list[int | None]] = {}  # proposal id -> what replaced each retconned row of it
    for proposal_id, rows in written.items():
        for kind, row_id in rows:
            found = statements.get(row_id) if kind == "statement" else entities.get(row_id)
            if found is not None and found.provenance.level == CanonLevel.RETCONNED:
                gone.setdefault(proposal_id, []).append(found.provenance.replaced_by)
    if not gone:
        return list(recaps)
    now = await _replacements(session, access, campaign, {r for rs in gone.values() for r in rs if r})
    marked: dict[int, list[RetconnedFact]] = {}
    for proposal_id, replaced in gone.items():
        scene_id, fact = said[proposal_id]
        shown = [now[r] for r in replaced if r in now]
        marked.setdefault(scene_id, []).append(RetconnedFact(fact=fact, now="; ".join(shown) or None))
    return [
        recap.model_copy(update={"retconned": tuple(marked[recap.scene_id])})
        if recap.scene_id in marked
        else recap
        for recap in recaps
    ]


async def _replacements(
    session: AsyncSession, access: CanonAccess, campaign: Campaign, ids: set[int]
) -> dict[int, str]:
    """Return the replacing facts that players may read, in words (a GM-only one stays unsaid)."""
    if not ids:
        return {}
    player = await access.reader(session, campaign, Viewer.PLAYER)
    views = await player.views(await player.statements(statement_ids=ids, with_evidence=False))
    words = await wording_for(session, player)
    return {v.statement.id: statement_words(v, words, Viewer.PLAYER, evidence=False) for v in views}
