"""A person's ties to another person that are neither a parent's nor a marriage (`ties:` on a character or a family
tree's member): a mentor and an apprentice, rivals, friends, allies, sworn enemies, and kin the tree does not draw
(an aunt, a niece, a cousin, a grandchild whose parent nobody wrote).

Each item names the other person and what they are to this one: `{name: Idrel Vask, is: mentor}` on Saska Orme
says Idrel is Saska's mentor (MENTOR_OF from Idrel to Saska); `{name: Wenlow Orme, is: niece}` that Wenlow is
Saska's niece (AUNT_OR_UNCLE_OF from Saska to Wenlow). A tie both ways (rival, friend, ally, enemy, cousin,
sibling) is one edge per pair, whichever side says it. `from:` and `to:` on an item date the tie ("rival since
610": `{name: Cade Harrow, is: rival, from: 610}`): the edge holds from one to the other. `gm_only: true` on an
item keeps that tie for the GM, and `gm_only: [ties]` every tie of the entry. The word says the tie, never the sex: "aunt" and "uncle" are one tie,
and answers say which by the person's `sex`.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, ClassVar, Literal

from canon.structured.schemas import Date, LoreModel, Ref, RelationField, RelationType, ScalarKind

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

_STEP_PARENT = ("step-parent", "stepparent", "stepfather", "stepmother")
_STEP_CHILD = ("stepchild", "step-child", "stepson", "stepdaughter")
_PARENT_IN_LAW = ("parent-in-law", "father-in-law", "mother-in-law")
_CHILD_IN_LAW = ("child-in-law", "son-in-law", "daughter-in-law")
_SIBLING_IN_LAW = ("sibling-in-law", "brother-in-law", "sister-in-law")
#: Each word a GM writes after `is:` -> the field its edge is registered under, its relation, and whether the
#: person named is the relation's subject ("mentor": Idrel MENTOR_OF Saska) or its object ("apprentice").
TIE_WORDS: dict[str, tuple[str, RelationType, bool]] = {
    **dict.fromkeys(("mentor", "teacher", "master", "tutor"), ("ties:mentor", "MENTOR_OF", True)),
    **dict.fromkeys(("apprentice", "student", "pupil", "protege"), ("ties:apprentice", "MENTOR_OF", False)),
    "rival": ("ties:rival", "RIVAL_OF", False),
    "friend": ("ties:friend", "FRIEND_OF", False),
    "ally": ("ties:ally", "ALLY_OF", False),
    **dict.fromkeys(("enemy", "sworn enemy", "foe", "nemesis"), ("ties:enemy", "ENEMY_OF", False)),
    **dict.fromkeys(("aunt", "uncle"), ("ties:aunt_or_uncle", "AUNT_OR_UNCLE_OF", True)),
    **dict.fromkeys(("niece", "nephew"), ("ties:niece_or_nephew", "AUNT_OR_UNCLE_OF", False)),
    "cousin": ("ties:cousin", "COUSIN_OF", False),
    **dict.fromkeys(
        ("grandparent", "grandfather", "grandmother"), ("ties:grandparent", "GRANDPARENT_OF", True)
    ),
    **dict.fromkeys(
        ("grandchild", "grandson", "granddaughter"), ("ties:grandchild", "GRANDPARENT_OF", False)
    ),
    **dict.fromkeys(("sibling", "brother", "sister"), ("ties:sibling", "SIBLING_OF", False)),
    **dict.fromkeys(_STEP_PARENT, ("ties:step_parent", "STEP_PARENT_OF", True)),
    **dict.fromkeys(_STEP_CHILD, ("ties:step_child", "STEP_PARENT_OF", False)),
    **dict.fromkeys(("godparent", "godfather", "godmother"), ("ties:godparent", "GODPARENT_OF", True)),
    **dict.fromkeys(("godchild", "godson", "goddaughter"), ("ties:godchild", "GODPARENT_OF", False)),
    **dict.fromkeys(_PARENT_IN_LAW, ("ties:parent_in_law", "PARENT_IN_LAW_OF", True)),
    **dict.fromkeys(_CHILD_IN_LAW, ("ties:child_in_law", "PARENT_IN_LAW_OF", False)),
    **dict.fromkeys(_SIBLING_IN_LAW, ("ties:sibling_in_law", "SIBLING_IN_LAW_OF", False)),
}
TieWord = typing.Annotated[
    Literal[
        "mentor", "teacher", "master", "tutor", "apprentice", "student", "pupil", "protege", "rival", "friend",
        "ally", "enemy", "sworn enemy", "foe", "nemesis", "aunt", "uncle", "niece", "nephew", "cousin",
        "grandparent", "grandfather", "grandmother", "grandchild", "grandson", "granddaughter", "sibling",
        "brother", "sister", "step-parent", "stepparent", "stepfather", "stepmother", "stepchild", "step-child",
        "stepson", "stepdaughter", "godparent", "godfather", "godmother", "godchild", "godson", "goddaughter",
        "parent-in-law", "father-in-law", "mother-in-law", "child-in-law", "son-in-law", "daughter-in-law",
        "sibling-in-law", "brother-in-law", "sister-in-law",
    ],
    ScalarKind.CHOICE,
]  # fmt: skip


class Tie(LoreModel):
    """One tie: the other person, what they are to this one, whether only the GM may read it, and when it held
    (`from`, `to`: dates as a `born:` is written; either may be left out)."""

    name: Ref
    tie: TieWord
    gm_only: bool = False
    since: Date | None = None
    until: Date | None = None

    yaml_aliases: ClassVar[dict[str, str]] = {"is": "tie", "from": "since", "to": "until"}


#: The edges ties write, one field per word's direction (a test checks each against the ontology).
TIE_FIELDS: tuple[RelationField, ...] = tuple(
    RelationField(
        entity_type="Person",
        field=field,
        relation=relation,
        outgoing=not named_is_subject,
        target_types=("Person",),
    )
    for field, relation, named_is_subject in dict.fromkeys(TIE_WORDS.values())
)


def link_ties(n: Normaliser, owner: str, ties: list[Tie], loc: Loc, hidden: tuple[str, ...]) -> None:
    """Record the edge of each tie, at its name's line (the GM's alone when the item or `gm_only: [ties]` says),
    holding from its `from` to its `to` (each checked against the calendar; a `to` before its `from` is an error
    at the `to`'s line, and the tie is not written)."""
    for index, tie in enumerate(ties):
        field, _relation, _subject = TIE_WORDS[tie.tie]
        item = (*loc, "ties", index)
        for part, date in (("since", tie.since), ("until", tie.until)):
            if date is not None:
                n.check_date(owner, date, (*item, part), part)
        if (
            tie.since is not None
            and tie.until is not None
            and n.calendar.compare(tie.until, tie.since) == "before"
        ):
            said = {f: getattr(n.v.positions.get((*item, f)), "value", "") for f in ("since", "until")}
            n.v.report(
                (*item, "until"),
                f'"to" ({said["until"]}) is before "from" ({said["since"]}): a tie holds from one to the other',
            )
            continue
        secret = tie.gm_only or "ties" in hidden
        n.link(
            "Person",
            field,
            owner,
            (*item, "name"),
            tie.name,
            valid_from=tie.since,
            valid_until=tie.until,
            gm_only=secret,
        )
