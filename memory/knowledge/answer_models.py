"""The short answer of a `/lore` question: a few sentences citing their sources by number."""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AnswerMode", "Citation", "Founding", "Hold", "Kin", "Life", "Office", "Relation", "ShortAnswer"]


class AnswerMode(enum.StrEnum):
    """How a short answer was written."""

    #: From the canon graph: a relation or an entity's description.
    GRAPH = "graph"
    #: The sentences of the best passages that best answer the question (no language model).
    EXTRACTIVE = "extractive"
    #: Written by the language model from the passages and canon facts only.
    LLM = "llm"
    #: Nothing the asker may see answers the question.
    NOTHING = "nothing"


class Relation(BaseModel):
    """A canon relation of an entity named in a question, as a sentence's parts (for answers from the graph)."""

    model_config = ConfigDict(frozen=True)

    subject: str
    predicate: str
    object: str
    #: When it holds from, as canon stores the date (an event's day on the ties placing it: "how old was X at
    #: the Battle of Y"); for reading only, never written out.
    since: str | None = Field(default=None, exclude=True)
    #: The object's entity type ("Lineage": "what family was X born into"); for reading only.
    object_type: str | None = Field(default=None, exclude=True)


class Life(BaseModel):
    """When a living entity was born and died, as canon dates them (stored text, sortable key) and in the
    calendar's words, for answers about ages ("How old was Corran when he died?")."""

    model_config = ConfigDict(frozen=True)

    born: str | None = None
    born_key: int | None = None
    born_words: str | None = None
    died: str | None = None
    died_key: int | None = None
    died_words: str | None = None
    #: The story's date (its latest scene's), stored and in the calendar's words: ages now count to it.
    now: str | None = None
    now_words: str | None = None


class Founding(BaseModel):
    """When a place or a group was founded (its `founded`), as the asker may see it: stored and in the calendar's
    words, with the story's date ages count to ("how old is Saltgate?")."""

    model_config = ConfigDict(frozen=True)

    founded: str
    founded_words: str
    now: str | None = None
    now_words: str | None = None


class Office(BaseModel):
    """A title a person held for a span, as the asker may see it (`retrieval.offices`): its dates as sortable keys
    (None where not known, or hidden from the asker), when in the calendar's words ("from year 690 to 731 of the
    Lantern Age", "since …"), and whether it is over (an end before today, or its holder dead) or held today."""

    model_config = ConfigDict(frozen=True)

    title: str
    start_key: int | None = None
    end_key: int | None = None
    span: str = ""
    ended: bool = False
    current: bool = False


class Hold(BaseModel):
    """One who led, ruled or held an entity for a span (a faction's leaders, an item's holders one after another:
    `retrieval.tenures`), as the asker may see it: the holder's name, the tie (LEADS, RULES, POSSESSES), its dates
    as sortable keys (None where not known, or hidden from the asker), when in the calendar's words, and whether
    it is over or held today. A person's tie to another both ways (`retrieval.bonds`: a rival, an ally) is one
    too: `holder` the other person, `predicate` the tie (RIVAL_OF, ALLY_OF)."""

    model_config = ConfigDict(frozen=True)

    holder: str
    predicate: str
    start_key: int | None = None
    end_key: int | None = None
    span: str = ""
    ended: bool = False
    current: bool = False


class Kin(BaseModel):
    """A person's family two steps out, as far as the asker may see it (`retrieval.kin`), for answers about kin
    ("Who are Tove's cousins?", "When did Bram marry?").

    `ties` names the people of each tie (parents, children, spouses, siblings, grandparents, grandchildren,
    uncles and aunts, nephews and nieces, cousins); `sexes` the sex canon says of those it says it of ("male",
    "female"); `married` when each marriage began in the calendar's words ("on 9 Haying, year 348 of …"), and
    `weddings` the wedding both spouses took part in, by spouse."""

    model_config = ConfigDict(frozen=True)

    ties: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    sexes: dict[str, str] = Field(default_factory=dict)
    married: dict[str, str] = Field(default_factory=dict)
    weddings: dict[str, str] = Field(default_factory=dict)
    #: Where each wedding took place, by spouse ("Highfold"), as far as the asker sees it.
    wedded_at: dict[str, str] = Field(default_factory=dict)
    #: The spouses whose marriage the asker sees dated, in the order they married.
    married_order: tuple[str, ...] = ()
    #: Those of a tie ("parents", "children") the table believes are, where canon does not say it is true.
    reputed: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: Of a tie ("parents", "children"), those the table believes are, read beside the truth by one who sees
    #: it (the GM) and not walked.
    story: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: The entities of each tie, in the order of its names (for a question asked of them: "Tove's uncle's home").
    ids: dict[str, tuple[int, ...]] = Field(default_factory=dict, exclude=True)
    #: The parents each sibling shares with the person, of those canon names both parents of, each side (one:
    #: a half-sibling, two: a full one).
    shared: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: When the person's two parents married, in the calendar's words and as stored, as far as the asker sees.
    parents_married: tuple[str, str] | None = None
    #: Of a tie farther out, by marriage or by adoption (`kin_far`), the chain each one is through, in words
    #: ("through his mother Lark Brannock"), by name.
    via: dict[str, dict[str, str]] = Field(default_factory=dict)
    #: Of a tie walked through a parent (grandparents, uncles and aunts, cousins), the parent each one is through.
    sides: dict[str, dict[str, str]] = Field(default_factory=dict)
    #: Those of the family dead as the asker reads them, with when each died in words ("" when not known): an
    #: answer says them in the past ("Pip Thorne's father was Aldric Thorne (died in year 340 of …)").
    deaths: dict[str, str] = Field(default_factory=dict)


class Citation(BaseModel):
    """One source an answer may cite: its number (as `[n]` in the text), what it is and where it is from.

    Numbers run over the canon facts first, then the passages, in the order the answer lists them.
    """

    model_config = ConfigDict(frozen=True)

    number: int
    kind: str  # "canon" | "passage"
    label: str
    chunk_id: int | None = None
    source_id: int | None = None
    entity_id: int | None = None
    #: Another Canon source disagrees with the passage: which prevails, in words.
    disagrees: str | None = None
    #: Set when a committed fact supersedes what the passage says: the sentence saying what changed.
    out_of_date: str | None = None
    cited: bool = False


class ShortAnswer(BaseModel):
    """A short answer (1-3 sentences) with inline `[n]` citations, or the honest "nothing known"."""

    model_config = ConfigDict(frozen=True)

    text: str
    mode: AnswerMode
    known: bool
    citations: list[Citation] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the command line's JSON shape of the answer."""
        return {
            "text": self.text,
            "mode": self.mode.value,
            "known": self.known,
            "citations": [c.model_dump(mode="json") for c in self.citations if c.cited],
        }
