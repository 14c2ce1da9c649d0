"""Imported knowledge: a campaign's .md/.txt world-bible files, their versions, chunks and indexes, and answers.

The rest of the program uses `memory.knowledge.service.KnowledgeService`, a thin facade over the use cases:

- `importer`: importing a file (validate, normalise, decide, write, embed), step by step in its docstring;
- `sources`: the source inspector and its changes (class, visibility, tags, enable, delete);
- `reindex`: rebuilding a campaign's derived indexes from its sources, and their state;
- `ask`: answering a lore question and keeping the answer for the "Why these?" inspector;
- `files`: what may be imported (name, kind, encoding, tags, title) and the stored copies of the bytes;
- `vectors`: the chunks' vectors in the campaign's collection, and their bookkeeping;
- `archive`: a campaign's sources exported and restored elsewhere;
- `progress`: reporting how far an import has got to whoever watches it.

Values the rest of the program sees are the pydantic models in `models`; the SQL tables are in `tables`, and
the SQL itself in the repository modules: `repository` (what a campaign sees: its own and inherited sources,
chunks, versions), `import_rows` (an import's rows, a re-chunking, a restored history), `source_rows`
(changing, enabling and deleting a source), `pinning` (a branch's own copy of an inherited source),
`index_state` (vector status and index state) and `retrievals` (stored answers). Services own the transactions.

This module imports nothing: `memory.knowledge.retrieval` reads the tables and the repository, and the facade uses the
retriever, so a re-export here would make an import circle.
"""
