"""Finding a campaign's entities by name, for one viewer: exact names, aliases and keys, close spellings, and
the offers of an autocomplete box.

`NameLookup` is the part of `canon.graph.reader.CanonReader` that reads names; a name the GM keeps (a hidden
entity's, an alias kept for the GM) is found only by a viewer who may see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rapidfuzz import fuzz, process
from sqlalchemy import or_, select, union

from canon.graph import naming
from canon.graph.kept_aliases import birth_names, kept_aliases
from canon.graph.keys import fold
from canon.graph.lineage import fixed_list, lineage_filter
from canon.graph.reads import LineageReader
from canon.graph.rows import RowReader
from canon.models import NOW, AsOf, Entity, EntityRef
from canon.tables import AliasRow, EntityRow
from canon.visibility import entity_hidden, may_see

#: A close spelling offered as a name is typed ("Osvin" for Oswin Harrow); below it the offers look random.
AUTOCOMPLETE_CUTOFF = 70


class NameRows(NamedTuple):
    """Every name of a lineage's standing entities, whoever reads: (name, entity id, the entity's visibility)
    and (alias, entity id), as the database gives them."""

    names: list[tuple[str, int, str]]
    aliases: list[tuple[str, int]]
    #: Aliases a file keeps for the GM (`{name: ..., gm_only: true}` in `aliases`): names only the GM finds by.
    secret: Sequence[tuple[str, int]] = ()
    #: Birth names (`birth_name: Margaret Quinn`), with their facts' visibility: found by who may read them.
    born: Sequence[tuple[str, int, str]] = ()


class NameLookup(LineageReader):
    """Finds entities by their names, aliases and keys, as one viewer may, through the campaign's lineage."""

    async def find_exact(self, name: str, as_of: AsOf = NOW) -> list[Entity]:
        """Return visible, standing entities whose name, alias or key is exactly `name` (case-insensitive)."""
        folded = fold(name)
        table = EntityRow.__table__.c
        # Three lookups on covering (campaign, name) indexes, instead of one OR that the planner answers by a
        # scan of every entity; the exact lineage cut (changeset, scene, date) applies to the few rows found.
        campaigns = [step.campaign_id for step in self.steps]
        ids = union(
            select(table.id).where(table.campaign_id.in_(fixed_list(campaigns)), table.name_folded == folded),
            select(table.id).where(table.campaign_id.in_(fixed_list(campaigns)), table.key == name.strip()),
            select(AliasRow.entity_id).where(
                AliasRow.alias_folded == folded, lineage_filter(AliasRow, self.steps)
            ),
        )
        kept = (
            await kept_aliases(self.session, self.steps, self._retcons) if may_see(self.viewer, True) else []
        )
        secret = [e for a, e in kept if fold(a) == folded]  # the GM's: an alias kept for the GM
        rows = await self._entity_rows([or_(table.id.in_(ids), table.id.in_(fixed_list(secret)))], as_of)
        rows = [r for r in rows if r.retconned_at is None]
        aliases = await self._aliases([r.id for r in rows], as_of)
        build = RowReader(EntityRow.__table__)
        return sorted((build.entity(r, aliases.get(r.id, ())) for r in rows), key=lambda e: e.id)

    async def names(self) -> list[tuple[str, int]]:
        """Return every visible (name or alias, entity id) pair, for fuzzy matching and autocomplete."""
        return visible_names(self, await self.name_rows())

    async def name_rows(self) -> NameRows:
        """Return every name and alias of the lineage's standing entities, whoever reads (`visible_names`
        keeps the viewer's)."""
        query = select(EntityRow.name, EntityRow.id, EntityRow.visibility).where(
            lineage_filter(EntityRow, self.steps)
        )
        names = [(n, e, v) for n, e, v in (await self.session.execute(query)).all()]
        alias_query = select(AliasRow.alias, AliasRow.entity_id).where(lineage_filter(AliasRow, self.steps))
        aliases = [(a, e) for a, e in (await self.session.execute(alias_query)).all()]
        retconned = await self._retcons("entity", {e for _, e, _ in names} | {e for _, e in aliases}, NOW)
        return NameRows(
            [r for r in names if r[1] not in retconned],
            [r for r in aliases if r[1] not in retconned],
            [r for r in await kept_aliases(self.session, self.steps, self._retcons) if r[1] not in retconned],
            [r for r in await birth_names(self.session, self.steps, self._retcons) if r[1] not in retconned],
        )

    async def fuzzy(self, text: str, *, limit: int = 5, whole: bool = False) -> list[tuple[EntityRef, float]]:
        """Return the entities whose names are closest to `text`, with a 0-100 score.

        By default partial matches score high (good for suggestions); `whole=True` compares whole names only,
        so that a typo ("Aldrik") still finds "Aldric" while "The Hidden King" does not find "the Knight".
        """
        pairs = await self.names()
        if not pairs or not text.strip():
            return []
        choices = [fold(n) for n, _ in pairs]
        scorer = fuzz.ratio if whole else fuzz.WRatio
        hits = process.extract(fold(text), choices, scorer=scorer, limit=limit * 3)
        best: dict[int, float] = {}
        for _, score, index in hits:
            entity_id = pairs[index][1]
            best[entity_id] = max(best.get(entity_id, 0.0), float(score))
        top = sorted(best.items(), key=lambda kv: -kv[1])[:limit]
        found = await self.entities([e for e, _ in top])
        return [(self.ref(found[e]), s) for e, s in top if e in found]

    async def autocomplete(self, prefix: str, *, limit: int = 25) -> list[EntityRef]:
        """Return entities for an autocomplete box, as the viewer sees canon: names starting with what is typed
        first, then names with a word (or run of words) starting with it ("harrow" or "mir" for Mirela Harrow),
        then close spellings of it (a typo)."""
        pairs = await self.names()
        folded = fold(prefix)
        starts = [e for n, e in pairs if fold(n).startswith(folded)] if folded else [e for _, e in pairs]
        if folded:
            starts += [e for n, e in pairs if naming.starts_words(prefix, n)]
        ordered = list(dict.fromkeys(starts))[:limit]
        if len(ordered) < limit and folded:
            ordered += [
                r.id
                for r, score in await self.fuzzy(prefix, limit=limit)
                if score >= AUTOCOMPLETE_CUTOFF and r.id not in ordered
            ]
        found = await self.entities(ordered[:limit])
        return [self.ref(found[e]) for e in ordered[:limit] if e in found]


def visible_names(reader: LineageReader, rows: NameRows) -> list[tuple[str, int]]:
    """Return the (name or alias, entity id) pairs of `CanonReader.name_rows` the reader's viewer may see."""
    pairs: list[tuple[str, int]] = []
    hidden: set[int] = set()
    for name, entity_id, visibility in rows.names:
        seen, name_only = reader.sees_name(entity_id, visibility)
        if seen:
            pairs.append((name, entity_id))
        if not seen or name_only:
            hidden.add(entity_id)  # no aliases: a hidden entity known by name only goes by that name alone
    pairs += [(alias, entity_id) for alias, entity_id in rows.aliases if entity_id not in hidden]
    if may_see(reader.viewer, True):  # the GM finds an entity by the aliases kept for the GM too
        pairs += [(alias, entity_id) for alias, entity_id in rows.secret if entity_id not in hidden]
    pairs += [
        (n, e) for n, e, seen in rows.born if e not in hidden and may_see(reader.viewer, entity_hidden(seen))
    ]
    return pairs
