"""Build the words a campaign's cards speak in (`canon.wording.Wording`) from its canon and its scenes.

The calendar's era names come from the Era entities the viewer may see; evidence from turns learns each cited
scene's place in the story, who spoke each turn and the link to its message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from canon.graph import CanonReader
from canon.graph.deaths import deaths_of
from canon.models import NOW, AsOf, Evidence, EvidenceKind, StatementKind, StatementView
from canon.visibility import view_hidden
from canon.wording import SceneWords, TurnWords, Wording
from canon.wording.fact_names import fact_name
from canon.wording.relations import BY_SEX, SEX_ATTRIBUTES
from memory.knowledge.retrieval.lives import story_date
from memory.knowledge.retrieval.offices import today_key
from memory.scenes import Scene, scenes_by_id, turns_numbered_in

#: A card cites at most this many scenes and this many turns of each in words; the rest reads without names.
MAX_SCENES = 25
MAX_TURNS = 200


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """Return the link that opens a Discord message."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def sexed_people(views: Iterable[StatementView | None]) -> list[int]:
    """Return the people whose sex the views' sentences say: a parent reads as father or mother (`BY_SEX`)."""
    return [v.subject.id for v in views if v is not None and v.statement.predicate.upper() in BY_SEX]


def tied_people(views: Iterable[StatementView | None]) -> list[int]:
    """Return those at either end of the views' ties to another: a tie to one who is dead reads in the past
    (`canon.wording.dead_ties`)."""
    return [
        i
        for v in views
        if v is not None and v.object is not None and v.statement.kind == StatementKind.RELATION
        for i in (v.subject.id, v.object.id)
    ]


async def wording_for(
    session: AsyncSession,
    reader: CanonReader,
    evidence: Iterable[Evidence] = (),
    *,
    people: Iterable[int] = (),
    mortals: Iterable[int] = (),
    cited_scenes: Mapping[int, Scene] | None = None,
    facts: Iterable[int] = (),
    as_of: AsOf = NOW,
) -> Wording:
    """Return the wording of the reader's campaign for its viewer, knowing the scenes `evidence` cites, the
    sex of the `people` (where canon says it, as this viewer may read it) and what the `facts` proposals cite
    say (those this viewer may read); `cited_scenes`: the cited scenes read already, by id (else read here);
    `as_of`: the point the people's sex is read at (a card's, so a character learns it when they learned it)."""
    wanted: dict[int, set[int]] = {}
    for item in evidence:
        if item.kind != EvidenceKind.TURNS or item.scene_id is None:
            continue
        numbers = wanted.setdefault(item.scene_id, set())
        if item.turn_from is not None:
            last = item.turn_to or item.turn_from
            numbers.update(range(item.turn_from, min(last, item.turn_from + MAX_TURNS) + 1))
    cited = sorted(wanted)[:MAX_SCENES]
    found = cited_scenes if cited_scenes is not None else await scenes_by_id(session, cited)
    turns_of = await turns_numbered_in(session, {i: wanted[i] for i in cited if i in found})
    calendar = (await reader.calendar()).words()
    scenes: dict[int, SceneWords] = {}
    for scene_id in cited:
        scene = found.get(scene_id)
        if scene is None:
            continue
        scenes[scene_id] = SceneWords(
            order=scene.story_order,
            title=scene.title,
            place=scene.location,
            when=calendar.when(scene.world_date) or None,
            turns={
                t.number: TurnWords(
                    author=t.author_name,
                    url=jump_url(scene.guild_id, scene.channel_id, t.discord_message_id)
                    if t.discord_message_id
                    else None,
                )
                for t in turns_of.get(scene_id, [])
            },
        )
    sexes: dict[int, str] = {}
    wanted_people = list(dict.fromkeys(people))[: MAX_SCENES * 4]
    if wanted_people:
        for fact in await reader.statements(
            subject_ids=wanted_people, predicates=SEX_ATTRIBUTES, with_evidence=False, as_of=as_of
        ):
            if fact.value:
                sexes.setdefault(fact.subject_id, fact.value)
    deaths = await deaths_of(reader, list(dict.fromkeys(mortals))[: MAX_SCENES * 4], as_of)
    words = Wording(calendar=calendar, scenes=scenes, sexes=sexes, deaths=deaths)
    wanted_facts = list(dict.fromkeys(facts))[:MAX_TURNS]
    if not wanted_facts:
        return words
    views = await reader.views(
        await reader.statements(statement_ids=wanted_facts, include_retconned=True, with_evidence=False)
    )
    return replace(
        words,
        facts={v.statement.id: fact_name(v, words) for v in views},
        hidden_facts=frozenset(v.statement.id for v in views if view_hidden(v)),
    )


async def tensed_at(session: AsyncSession, reader: CanonReader, words: Wording, as_of: AsOf) -> Wording:
    """Return a card's words saying what is over in the past (`canon.wording.tense`): at the date the card is
    asked as of, else at the story's date as the viewer reads it (none known: whatever has ended); a card read
    as of a scene keeps the present."""
    if as_of.scene is not None:
        return words
    now = as_of.world_key
    if now is None:
        now = today_key(await story_date(session, reader.steps, reader))
    return replace(words, tensed=True, now_key=now)
