"""Hybrid retrieval for `/lore`: lexical + semantic + canon-graph entities, fused, filtered, reranked, budgeted.

One question, step by step (`Retriever.search`, in `retriever`):

1. Filter first. The sources the campaign sees (its own and, for a branch, its ancestors') are narrowed to the
   ones this viewer may draw from: enabled, and not hidden unless the viewer is the GM. Every candidate list
   below is restricted to those source ids (inside the SQL for full-text search; by collection and then by id
   for vectors), so nothing filtered out is ever ranked, fused or counted, and no typo is "corrected" towards
   a word only a hidden source contains.
2. Typos (`words`). A question word of four letters or more that appears nowhere in the allowed sources and
   is close to a word of their headings or a field's word they hold (same first letter, rapidfuzz ratio >=
   `typo_cutoff`, or one slip apart in a long enough word: "trenat" -> "treant") or, from six letters, to any
   word of their chunks (`vocabulary`: "posion" -> "poison") is searched as that word too ("Hyra" -> "hydra"),
   by words and by meaning.
3. Candidates, each list scored on its own (`candidates` holds the lists):
   - lexical: FTS5 bm25 (headings weighted) or PostgreSQL ts_rank over the question's content words (in a
     large campaign, its rarest few: `words`);
   - semantic (`semantic`): cosine similarity of the question to each chunk's best view (`memory.embed_text`)
     in the campaign's vector collection;
   - entity (`entities`): canon-graph entities named in the question (exact names and aliases on word windows
     of the question, then fuzzy, so typos still match); chunks whose headings carry an entity's name get a
     bonus, and the entities' cards become `canon_facts`.
4. Fusion (`candidates`; `fusion="score"`, the default): each list's scores are divided by its best score, then
   combined as `lexical_weight * lexical + semantic_weight * semantic + entity bonus`; a chunk missing from a
   list gets that list's lowest kept score. This beat reciprocal rank fusion on the SRD dev set
   (`bench/lore_quality.py`): rank fusion throws away how much better the first hit is than the second.
   `fusion="rrf"` is kept as a preset for comparison. Duplicates (the same text in two sources) keep the best
   copy.
5. Rerank (`assemble`): the best candidates gain by how much of the question's telling words they hold
   (`coverage`: the idf-weighed share) and, for a field asked of a subject, by how much of their title the
   question names (`titles`); then relevance first, class second: the score is multiplied by a class weight
   close to 1 (Canon > Reference > Inspiration), so authority breaks near-ties but never lifts an irrelevant
   passage.
6. Budget (`assemble`): results are taken best first while their class's token budget allows, up to `limit`.
   Chunks of always-include Canon sources come first and are always there within the Canon budget.

Every result keeps its provenance (source, file, class, heading path, chunk id, score, reasons). Inspiration
is labelled as not being fact (`LoreResult.is_fact`). How a question is searched is a `SearchConfig`
(`config`), with named presets.
"""

from __future__ import annotations

from memory.knowledge.retrieval.config import PRESETS, SearchConfig, preset
from memory.knowledge.retrieval.question_reads import Reads
from memory.knowledge.retrieval.retriever import Retriever

__all__ = ["PRESETS", "Reads", "Retriever", "SearchConfig", "preset"]
