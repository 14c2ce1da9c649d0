"""/lore embeds each text a question searches by meaning once: a misspelt question as corrected only, a comparison's
whole and parts in one call, and the vectors are the ones each text gets on its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from canon.models import Viewer
from canon.storage import Database
from tests.helpers.knowledge_helpers import EMBEDDER, knowledge_service, new_campaign

OGRES = "# Ogre\n\nAn ogre has 59 hit points and swings a greatclub.\n"
TROLLS = "# Troll\n\nA troll has 84 hit points and regenerates each turn.\n"


class CountingEmbedder:
    """The real model, counting its calls and the texts of each."""

    model_name = EMBEDDER.model_name
    dimensions = EMBEDDER.dimensions

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    @property
    def model_version(self) -> str:
        return EMBEDDER.model_version

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return EMBEDDER.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.calls.append([text])
        return EMBEDDER.embed_query(text)


async def _world(db: Database, tmp_path: Path) -> tuple[CountingEmbedder, object, int]:
    counting = CountingEmbedder()
    service = knowledge_service(db, tmp_path, embedder=counting)
    campaign = await new_campaign(db, "Vectors")
    await service.import_bytes(campaign, "ogres.md", OGRES.encode())
    await service.import_bytes(campaign, "trolls.md", TROLLS.encode())
    counting.calls.clear()  # the import's own
    return counting, service, campaign


async def test_a_misspelt_question_is_embedded_once_as_corrected(db: Database, tmp_path: Path) -> None:
    counting, service, campaign = await _world(db, tmp_path)
    answer = await service.ask(  # type: ignore[attr-defined]
        campaign, "how many hit points does a trol have", viewer=Viewer.PLAYER, record=False
    )

    assert answer.trace.corrections == {"trol": "troll"}
    asked = [text for call in counting.calls for text in call]
    assert asked == ["how many hit points does a troll have"]
    assert answer.reply is not None and "84" in answer.reply.text


async def test_a_comparison_embeds_its_whole_and_parts_in_one_call(db: Database, tmp_path: Path) -> None:
    counting, service, campaign = await _world(db, tmp_path)
    answer = await service.ask(  # type: ignore[attr-defined]
        campaign, "which has more hit points, an ogre or a troll?", viewer=Viewer.PLAYER, record=False
    )

    assert len({r.source_id for r in answer.results}) == 2  # each part found its own
    searched = [call for call in counting.calls if len(call) > 1]
    assert len(searched) == 1 and len(searched[0]) == 3  # the whole question, then each part
    assert all(len(call) == 1 for call in counting.calls if call is not searched[0])  # the answer's sentences
    # Embedded together, each text gets the vector it gets alone.
    together = np.asarray(EMBEDDER.embed_documents(searched[0]))
    alone = np.asarray([EMBEDDER.embed_query(text) for text in searched[0]])
    assert np.array_equal(together, alone)


async def test_a_misspelt_comparison_part_is_embedded_as_its_search_corrects_it(
    db: Database, tmp_path: Path
) -> None:
    counting, service, campaign = await _world(db, tmp_path)
    answer = await service.ask(  # type: ignore[attr-defined]
        campaign, "which has more hit points, an ogre or a trol?", viewer=Viewer.PLAYER, record=False
    )

    assert len({r.source_id for r in answer.results}) == 2
    asked = [text for call in counting.calls for text in call]
    assert not any("trol " in f"{text} " for text in asked)  # never the misspelling
    assert len(asked) == len(set(asked))  # nothing embedded twice


async def test_the_meaning_check_reads_the_question_from_the_search_vectors(
    db: Database, tmp_path: Path
) -> None:
    counting, service, campaign = await _world(db, tmp_path)
    question = "what does the ogre fight with"
    answer = await service.ask(  # type: ignore[attr-defined]
        campaign, question, viewer=Viewer.PLAYER, record=False
    )

    # The answer holds one of the question's words: its meaning is read, under its heading, beside the question's
    # vector the search embedded (not embedded a second time).
    assert counting.calls == [[question], ["Ogre: An ogre has 59 hit points and swings a greatclub."]]
    assert answer.reply is not None and "greatclub" in answer.reply.text
