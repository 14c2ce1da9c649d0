"""A campaign indexed before the names view, as an older installation left it (shared by the names-view tests)."""

from __future__ import annotations

from sqlalchemy import null, update

from canon.storage import Database
from memory.embed_text import BASE_VIEWS_VERSION
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeIndexStateRow
from memory.vector_index import ChromaVectorIndex

BESTIARY = "\n\n".join(
    f"## {name}\n\n*{kind}*\n\n- **Armor Class** {ac}\n- **Hit Points** {hp}\n\n***{trait}.*** {text}"
    for name, kind, ac, hp, trait, text in [
        (
            "Pit Fiend",
            "Large fiend (devil), lawful evil",
            19,
            300,
            "Fear Aura",
            "Any creature hostile to the pit fiend that starts its turn near it must make a Wisdom saving throw.",
        ),
        (
            "Owlbear",
            "Large monstrosity, unaligned",
            13,
            59,
            "Keen Sight and Smell",
            "The owlbear has advantage on Wisdom checks that rely on sight or smell.",
        ),
        (
            "Troll",
            "Large giant, chaotic evil",
            15,
            84,
            "Regeneration",
            "The troll regains 10 hit points at the start of its turn unless it took acid or fire damage.",
        ),
        (
            "Harpy",
            "Medium monstrosity, chaotic evil",
            11,
            38,
            "Luring Song",
            "The harpy sings a magical melody that charms every humanoid within 300 feet that hears it.",
        ),
        (
            "Mimic",
            "Medium monstrosity, neutral",
            12,
            58,
            "Adhesive",
            "The mimic adheres to anything that touches it and the creature is grappled by it.",
        ),
        (
            "Kraken",
            "Gargantuan monstrosity, chaotic evil",
            18,
            472,
            "Siege Monster",
            "The kraken deals double damage to objects and structures it strikes with its tentacles.",
        ),
    ]
)


async def indexed_before(service: KnowledgeService, db: Database, campaign: int) -> None:
    """Leave a campaign as an installation before the names view did: no names vectors, the old views' state,
    and chunks without their fields."""
    assert isinstance(service.vectors, ChromaVectorIndex)
    collection = service.vectors._collection(campaign, create=False)
    assert collection is not None
    names = [i for i in collection.get(include=[])["ids"] if i.endswith(":n")]
    collection.delete(ids=names)

    async def work(session: object) -> None:
        await session.execute(  # type: ignore[attr-defined]
            update(KnowledgeIndexStateRow)
            .where(KnowledgeIndexStateRow.campaign_id == campaign)
            # Cut by the chunker of that time, too: the names view is made from the chunks as they are.
            .values(embedding_views=BASE_VIEWS_VERSION, chunking_version="md-headings-1")
        )
        await session.execute(  # type: ignore[attr-defined]
            # SQL NULL, as the migration left the column (None alone would store JSON null).
            update(KnowledgeChunkRow).where(KnowledgeChunkRow.campaign_id == campaign).values(fields=null())
        )

    await db.run(work)
    service.retriever.forget_index_state(campaign)
