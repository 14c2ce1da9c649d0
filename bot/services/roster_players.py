"""A roster's `player:` and `players:` fields: the Discord members who play its player characters.

The world-builder writes a member's name (their user name or the name they show on the server) or their
Discord id (a number, or a mention `<@123…>`). Names are resolved when the roster is imported from Discord,
against the server's members: one a name does not find, or finds twice, is an error at its line, and nothing
of the import is written. The command line knows no server: there the id is needed, and the roster names
that member "a player" (`/character set` from Discord names them). The links are written in the import's own transaction, as the
GM's `/character set` writes them: the character is played from then on, active for a member who played none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.knowledge import characters as links
from canon.knowledge.characters import LinkStatus
from canon.structured.files import LoadedFile
from canon.structured.records import LoreProblem, RosterPlayer
from canon.tables import EntityRow

_ID = re.compile(r"^(?:<@!?(\d{15,21})>|(\d{15,21}))$")


@dataclass(frozen=True)
class ServerMembers:
    """The members of a server a roster may name: each id's name, and the ids each folded name points to."""

    names: dict[int, str] = field(default_factory=dict)
    by_name: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, members: Iterable[tuple[int, str, Sequence[str]]]) -> ServerMembers:
        """Build it from (id, the name to show, every name the member goes by)."""
        found = cls()
        for member_id, shown, names in members:
            found.names[member_id] = shown
            for name in {shown, *names}:
                if name:
                    found.by_name.setdefault(" ".join(name.casefold().split()), set()).add(member_id)
        return found


def resolve(written: str, members: ServerMembers | None) -> tuple[int, str] | str:
    """Return the member a roster names (id, name), or what is wrong with it, in words."""
    as_id = _ID.match(written.strip())
    if as_id:
        member_id = int(as_id.group(1) or as_id.group(2))
        if members is None:
            return member_id, "a player"
        if member_id in members.names:
            return member_id, members.names[member_id]
        return f"no member of this server has the id {member_id}"
    if members is None:
        return (
            f"“{written}” is a name: the command line cannot ask the server who that is. Give the member's "
            "Discord id, or import the roster from Discord (/lore import)"
        )
    ids = members.by_name.get(" ".join(written.casefold().split()), set())
    if not ids:
        return f"no member of this server is called “{written}”"
    if len(ids) > 1:
        return (
            f"{len(ids)} members of this server are called “{written}”: give the member's Discord id instead"
        )
    (member_id,) = ids
    return member_id, members.names[member_id]


def _players(loaded: Sequence[LoadedFile]) -> list[tuple[str, RosterPlayer]]:
    return [(f.name, p) for f in loaded if f.result is not None and f.result.ok for p in f.result.players]


def roster_problems(loaded: Sequence[LoadedFile], members: ServerMembers | None) -> list[LoreProblem]:
    """Return a problem at its line for each `player:` value that names no single member."""
    problems = []
    for file, player in _players(loaded):
        found = resolve(player.member, members)
        if isinstance(found, str):
            problems.append(LoreProblem(file=file, line=player.line, column=player.column, message=found))
    return problems


async def link_players(
    session: AsyncSession,
    campaign_id: int,
    loaded: Sequence[LoadedFile],
    members: ServerMembers | None,
    by: str,
) -> int:
    """Link each roster character to the members it names (inside the import's transaction); return how many
    links are new. Assumes `roster_problems` found none."""
    made = 0
    for _, player in _players(loaded):
        found = resolve(player.member, members)
        if isinstance(found, str):  # pragma: no cover - refused before the import was written
            continue
        member_id, name = found
        entity_id = await session.scalar(
            select(EntityRow.id)
            .where(EntityRow.campaign_id == campaign_id, EntityRow.key == player.character)
            .order_by(EntityRow.id.desc())
            .limit(1)
        )
        if entity_id is None:  # pragma: no cover - the import wrote every entry it loaded
            continue
        mine = await links.links(session, campaign_id, member_id=member_id, statuses=(LinkStatus.PLAYS,))
        if any(r.entity_id == entity_id for r in mine):
            continue
        row = await links.add_link(
            session, campaign_id, entity_id, member_id, name, LinkStatus.PLAYS, decided_by=by
        )
        if not any(r.active for r in mine):
            await links.make_active(session, row)
        made += 1
    return made
