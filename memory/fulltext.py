"""Full-text search over knowledge chunks: SQLite FTS5 (bm25, headings weighted) or PostgreSQL tsvector.

The index itself is made by migration 0003 (see its docstring) and kept in sync with `knowledge_chunks` by the
database (SQLite triggers, a PostgreSQL generated column), so writing a chunk writes its full-text row in the
same transaction. This module only builds queries: a question becomes an OR of its content words (English
stopwords dropped; both engines stem), so a question's wording never has to match a passage exactly, and every
search is restricted to the source ids the caller allows (campaign, enabled, visibility) inside the SQL, less
the chunks it names `without` (the GM-only sections of allowed sources a player may not read).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = [
    "STOPWORDS",
    "document_frequencies",
    "heading_search",
    "lexical_search",
    "query_words",
    "rebuild",
    "word_exists",
    "words_existing",
]

# English function words (and a few words every lore question carries) that would match nearly every chunk.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren as at be because been before being below
    between both but by can cannot could couldn did didn do does doesn doing don down during each few for from
    further get gets got had hadn has hasn have haven having he her here hers herself him himself his how i if in
    into is isn it its itself just let me more most mustn my myself no nor not of off on once only or other ought
    our ours ourselves out over own same shan she should shouldn so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was wasn we were weren what
    when where which while who whom why will with won would wouldn you your yours yourself yourselves
    s t d ll m re ve y
    tell describe explain know anything something thing things please
    """
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_WORDS = 32


def query_words(question: str) -> list[str]:
    """Return a question's searchable words: folded, de-duplicated, stopwords dropped (all kept if none is left)."""
    folded = unicodedata.normalize("NFKC", question).casefold()
    words = [w for w in _WORD.findall(folded) if len(w) > 1 or w.isdigit()]
    content = [w for w in words if w not in STOPWORDS]
    chosen = content or words
    return list(dict.fromkeys(chosen))[:MAX_QUERY_WORDS]


def fts5_query(words: Sequence[str]) -> str:
    """Return an FTS5 MATCH expression: the words as quoted strings joined by OR (nothing is an operator)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def scoped(expression: str, campaigns: Sequence[int]) -> str:
    """Return an FTS5 expression restricted to chunks of the given campaigns (the table holds every campaign).

    The campaign id is an indexed column: FTS5 intersects its posting list with the words', so the chunks of
    other campaigns are never scored (a small campaign is not slowed down by a large one).
    """
    ids = " OR ".join(f'"{int(c)}"' for c in campaigns)
    return f"campaign_id : ({ids}) AND ({expression})"


def tsquery(words: Sequence[str]) -> str:
    """Return a PostgreSQL to_tsquery expression: the words quoted and joined by |."""
    return " | ".join("'" + w.replace("'", "''").replace("\\", "") + "'" for w in words)


# The chunks a SQLite full-text query may return: its MATCH is scoped to the campaigns (`scoped`), so leaving out
# every chunk of those campaigns' sources that are not allowed leaves exactly the allowed sources' chunks. This
# reads the ids of the (few) chunks left out from an index, where joining each match to its chunk row to check
# its source would read a table row per match (most of a large campaign's query time).
_ONLY_ALLOWED = """knowledge_fts.rowid NOT IN (
    SELECT c.id FROM knowledge_chunks AS c WHERE c.source_id IN (
        SELECT s.id FROM knowledge_sources AS s WHERE s.campaign_id IN :campaigns AND s.id NOT IN :ids
    )
) AND knowledge_fts.rowid NOT IN :without"""
# PostgreSQL's twin of the last line: chunks of allowed sources left out all the same.
_PG_WITHOUT = "AND c.id NOT IN :without"


def _sqlite(sql: str) -> TextClause:
    """Return a SQLite full-text statement with the allowed-chunks filter's expanding parameters."""
    return text(sql.replace("{only_allowed}", _ONLY_ALLOWED)).bindparams(
        bindparam("ids", expanding=True),
        bindparam("campaigns", expanding=True),
        bindparam("without", expanding=True),
    )


def _pg(sql: str, *names: str) -> TextClause:
    """Return a PostgreSQL full-text statement with its expanding parameters (`without` always among them)."""
    return text(sql.replace("{without}", _PG_WITHOUT)).bindparams(
        *(bindparam(name, expanding=True) for name in (*names, "without"))
    )


async def lexical_search(
    session: AsyncSession,
    words: Sequence[str],
    source_ids: Sequence[int],
    *,
    campaigns: Sequence[int],
    limit: int,
    heading_weight: float,
    without: Sequence[int] = (),
) -> list[tuple[int, float]]:
    """Return up to `limit` (chunk id, score) pairs of the allowed sources, best first (higher is better)."""
    if not words or not source_ids or not campaigns or limit <= 0:
        return []
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        # bm25() is lower-is-better; its column weights are literal floats from the search config.
        statement = _sqlite(
            f"""
            SELECT knowledge_fts.rowid, bm25(knowledge_fts, {float(heading_weight):.4f}, 1.0, 0.0) AS score
            FROM knowledge_fts WHERE knowledge_fts MATCH :query AND {{only_allowed}}
            ORDER BY score LIMIT :limit
            """
        )
        query = scoped("{heading_text text} : (" + fts5_query(words) + ")", campaigns)
        rows = await session.execute(
            statement,
            {
                "query": query,
                "ids": list(source_ids),
                "campaigns": list(campaigns),
                "limit": limit,
                "without": list(without),
            },
        )
        return [(int(chunk_id), -float(score)) for chunk_id, score in rows.all()]
    # ts_rank weights are {D, C, B, A}: headings are A, text is B.
    text_weight = min(1.0, 1.0 / max(heading_weight, 1e-3))
    statement = _pg(
        f"""
        SELECT c.id, ts_rank('{{0.1, 0.2, {text_weight:.4f}, 1.0}}'::float4[], c.search_vector, q, 1) AS score
        FROM knowledge_chunks AS c, to_tsquery('english', :query) AS q
        WHERE c.search_vector @@ q AND c.source_id IN :ids AND c.campaign_id IN :campaigns {{without}}
        ORDER BY score DESC, c.id LIMIT :limit
        """,
        "ids",
        "campaigns",
    )
    rows = await session.execute(
        statement,
        {
            "query": tsquery(words),
            "ids": list(source_ids),
            "campaigns": list(campaigns),
            "limit": limit,
            "without": list(without),
        },
    )
    return [(int(chunk_id), float(score)) for chunk_id, score in rows.all()]


async def heading_search(
    session: AsyncSession,
    names: Sequence[str],
    source_ids: Sequence[int],
    *,
    campaigns: Sequence[int],
    limit: int,
    without: Sequence[int] = (),
) -> list[tuple[int, float, str]]:
    """Return (chunk id, score, name) of allowed chunks whose headings contain one of `names` as a phrase."""
    phrases = [
        (name, [w for w in _WORD.findall(unicodedata.normalize("NFKC", name).casefold())]) for name in names
    ]
    phrases = [(name, words) for name, words in phrases if words]
    if not phrases or not source_ids or not campaigns or limit <= 0:
        return []
    found: dict[int, tuple[float, str]] = {}
    dialect = session.get_bind().dialect.name
    for name, words in phrases:
        if dialect == "sqlite":
            statement = _sqlite(
                """
                SELECT knowledge_fts.rowid, bm25(knowledge_fts, 1.0, 0.0, 0.0) AS score
                FROM knowledge_fts WHERE knowledge_fts MATCH :query AND {only_allowed}
                ORDER BY score LIMIT :limit
                """
            )
            query = scoped("{heading_text} : " + '"' + " ".join(words) + '"', campaigns)
            rows = (
                await session.execute(
                    statement,
                    {
                        "query": query,
                        "ids": list(source_ids),
                        "campaigns": list(campaigns),
                        "limit": limit,
                        "without": list(without),
                    },
                )
            ).all()
            scored = [(int(chunk_id), -float(score)) for chunk_id, score in rows]
        else:
            statement = _pg(
                """
                SELECT c.id, ts_rank(c.search_vector, q) AS score
                FROM knowledge_chunks AS c, phraseto_tsquery('english', :query) AS q
                WHERE c.search_vector @@ q AND ts_filter(c.search_vector, '{a}') @@ q AND c.source_id IN :ids
                {without}
                ORDER BY score DESC, c.id LIMIT :limit
                """,
                "ids",
            )
            values = {
                "query": " ".join(words),
                "ids": list(source_ids),
                "limit": limit,
                "without": list(without),
            }
            rows = (await session.execute(statement, values)).all()
            scored = [(int(chunk_id), float(score)) for chunk_id, score in rows]
        for chunk_id, score in scored:
            if chunk_id not in found or found[chunk_id][0] < score:
                found[chunk_id] = (score, name)
    ranked = sorted(found.items(), key=lambda item: (-item[1][0], item[0]))[:limit]
    return [(chunk_id, score, name) for chunk_id, (score, name) in ranked]


async def document_frequencies(
    session: AsyncSession,
    words: Sequence[str],
    source_ids: Sequence[int],
    *,
    campaigns: Sequence[int],
    cap: int,
    without: Sequence[int] = (),
) -> dict[str, int]:
    """Return how many chunks of the sources contain each word, counting no further than `cap` + 1.

    Bounded, so a word in every chunk costs no more than a rare one: this only tells rare from common.
    """
    if not source_ids or not campaigns:
        return dict.fromkeys(words, 0)
    sqlite = session.get_bind().dialect.name == "sqlite"
    if sqlite:
        statement = _sqlite(
            """
            SELECT count(*) FROM (
                SELECT knowledge_fts.rowid FROM knowledge_fts
                WHERE knowledge_fts MATCH :query AND {only_allowed} LIMIT :cap
            )
            """
        )
    else:
        statement = _pg(
            """
            SELECT count(*) FROM (
                SELECT c.id FROM knowledge_chunks AS c
                WHERE c.search_vector @@ to_tsquery('english', :query) AND c.source_id IN :ids {without}
                LIMIT :cap
            ) AS found
            """,
            "ids",
        )
    counts: dict[str, int] = {}
    for word in words:
        query = scoped(fts5_query([word]), campaigns) if sqlite else tsquery([word])
        values = {"query": query, "ids": list(source_ids), "cap": cap + 1, "without": list(without)}
        if sqlite:
            values["campaigns"] = list(campaigns)
        found = await session.execute(statement, values)
        counts[word] = int(found.scalar_one())
    return counts


async def word_exists(
    session: AsyncSession,
    word: str,
    source_ids: Sequence[int],
    *,
    campaigns: Sequence[int],
    without: Sequence[int] = (),
) -> bool:
    """Return whether a word (stemmed as the index stems it) occurs in any chunk of the given sources."""
    if not source_ids or not campaigns:
        return False
    values: dict[str, Any] = {"ids": list(source_ids), "without": list(without)}
    if session.get_bind().dialect.name == "sqlite":
        statement = _sqlite(
            """
            SELECT 1 FROM knowledge_fts WHERE knowledge_fts MATCH :query AND {only_allowed} LIMIT 1
            """
        )
        values.update(query=scoped(fts5_query([word]), campaigns), campaigns=list(campaigns))
    else:
        statement = _pg(
            """
            SELECT 1 FROM knowledge_chunks AS c
            WHERE c.search_vector @@ to_tsquery('english', :query) AND c.source_id IN :ids {without} LIMIT 1
            """,
            "ids",
        )
        values["query"] = tsquery([word])
    found = await session.execute(statement, values)
    return found.first() is not None


async def words_existing(
    session: AsyncSession,
    words: Sequence[str],
    source_ids: Sequence[int],
    *,
    campaigns: Sequence[int],
    without: Sequence[int] = (),
) -> set[str]:
    """Return the words of `words` that `word_exists` finds, read in one statement (one look-up a word)."""
    words = list(dict.fromkeys(words))
    if not words or not source_ids or not campaigns:
        return set()
    values: dict[str, Any] = {"ids": list(source_ids), "without": list(without)}
    if session.get_bind().dialect.name == "sqlite":
        each = "knowledge_fts WHERE knowledge_fts MATCH :q{n} AND {{only_allowed}}"
        values.update({f"q{n}": scoped(fts5_query([w]), campaigns) for n, w in enumerate(words)})
        values["campaigns"] = list(campaigns)
    else:
        each = "knowledge_chunks AS c WHERE c.search_vector @@ to_tsquery('english', :q{n}) AND c.source_id IN :ids {{without}}"
        values.update({f"q{n}": tsquery([w]) for n, w in enumerate(words)})
    sql = " UNION ALL ".join(
        f"SELECT {n} AS n WHERE EXISTS (SELECT 1 FROM {each.format(n=n)})" for n in range(len(words))
    )
    statement = _sqlite(sql) if session.get_bind().dialect.name == "sqlite" else _pg(sql, "ids")
    rows = await session.execute(statement, values)
    return {words[int(n)] for (n,) in rows.all()}


async def rebuild(session: AsyncSession) -> None:
    """Rebuild the full-text index from the chunks (SQLite; PostgreSQL's generated column needs nothing)."""
    if session.get_bind().dialect.name == "sqlite":
        await session.execute(text("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('rebuild')"))


async def integrity_check(session: AsyncSession) -> bool:
    """Return whether the SQLite full-text index matches the chunks (always True on PostgreSQL)."""
    if session.get_bind().dialect.name != "sqlite":
        return True
    try:
        await session.execute(
            text("INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES ('integrity-check', 1)")
        )
    except Exception:  # FTS5 reports a mismatch as a generic SQL error
        return False
    return True
