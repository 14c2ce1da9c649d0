"""The chunker's values: its options (`ChunkingOptions`) and what it makes (`Chunk`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Bump whenever a change to this package can change the chunks of an unchanged document.
CHUNKING_VERSION = "md-headings-2"


class ChunkingOptions(BaseModel):
    """How big chunks should be; token counts are o200k tokens of a chunk's `text`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_tokens: int = Field(default=300, ge=1)
    max_tokens: int = Field(default=800, ge=50)
    #: Tokens repeated from the end of the previous piece of a section; at most a quarter of max_tokens.
    overlap_tokens: int = Field(default=40, ge=0)
    #: A parent with this many uniquely titled child sections is a glossary: its children are never merged.
    glossary_min_entries: int = Field(default=3, ge=2)

    @model_validator(mode="after")
    def _min_not_above_max(self) -> ChunkingOptions:
        if self.min_tokens > self.max_tokens:
            raise ValueError("min_tokens must not be greater than max_tokens")
        return self

    @property
    def effective_overlap(self) -> int:
        """Return the overlap actually used: `overlap_tokens`, capped at a quarter of `max_tokens`."""
        return min(self.overlap_tokens, self.max_tokens // 4)


class Chunk(BaseModel):
    """One retrievable piece of a document."""

    model_config = ConfigDict(frozen=True)

    index: int
    #: Titles of the enclosing headings, outermost first (the document's `# Title`, then `## Section`...).
    heading_path: list[str]
    #: What is embedded and indexed: the heading context, a blank line, then the body.
    text: str
    #: The body alone (inert markdown), when it differs from `text`.
    display_text: str | None = None
    #: o200k tokens in `text`.
    token_count: int
    #: sha256 (hex) of `text` encoded as UTF-8.
    content_hash: str
    #: The span of the original document the body was taken from (a repeated table header or code fence,
    #: and the heading context, are not part of it). Overlapping chunks have overlapping spans.
    char_start: int
    char_end: int
    #: Where the text is in the book it was read from ("p. 112", "ch. 3"; `memory.books`); None for Markdown.
    place: str | None = None
    #: The fields the chunk holds as stored rows, read ahead off the event loop (`memory.knowledge.fields`);
    #: None when not read yet (the writer reads them then).
    fields: list[list[str]] | None = None
    #: In a section marked GM-only (`memory.chunking.secret`): for the GM alone.
    secret: bool = False
