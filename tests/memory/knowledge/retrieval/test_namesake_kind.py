"""A kind no source holds of an entry the books do hold: "the armour of a *grey* Bogwarden" of a bestiary whose
Bogwarden has no grey kind is "nothing known", word for word as of a name nobody wrote, in whatever layout its
fields are set; the entry named alone, or a kind the books hold ("elder"), still answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_nothing import nothing_known
from memory.knowledge.retrieval.answer_scope import unheld_kind
from memory.knowledge.retrieval.answer_step import reply
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage

FENREACH_MD = """# Fenreach Bestiary

The beasts of the Fenreach, as the reed-wardens know them.

## Bogwarden

A hulking keeper of the reed-marshes, slow to anger and slower to forget.

**Armour:** 15
**Vigour:** 22
**Habitat:** sunken peat-barrows

## Elder Bogwarden

The oldest of them grow moss on their backs.

**Armour:** 18
**Vigour:** 40

## Mire Stalker

A long-legged bird that spears frogs.

Armour 2 / Vigour 6 / Attack: Beak, 2 damage

## Beasts at a glance

| Beast | Armour | Vigour |
|---|---|---|
| Gulper | 3 | 7 |
| Newt | 1 | 2 |
"""

FENREACH_HTML = """<html><body><h1>Fenreach Bestiary</h1>
<p>The beasts of the Fenreach, as the reed-wardens know them.</p>
<h2>Bogwarden</h2>
<p>A hulking keeper of the reed-marshes, slow to anger and slower to forget.</p>
<p><b>Armour:</b> 15<br><b>Vigour:</b> 22<br><b>Habitat:</b> sunken peat-barrows</p>
<h2>Elder Bogwarden</h2>
<p>The oldest of them grow moss on their backs.</p>
<p><b>Armour:</b> 18<br><b>Vigour:</b> 40</p>
<h2>Mire Stalker</h2>
<p>A long-legged bird that spears frogs.</p>
<p>Armour 2 / Vigour 6 / Attack: Beak, 2 damage</p>
<h2>Beasts at a glance</h2>
<table><tr><th>Beast</th><th>Armour</th><th>Vigour</th></tr>
<tr><td>Gulper</td><td>3</td><td>7</td></tr><tr><td>Newt</td><td>1</td><td>2</td></tr></table>
</body></html>
"""


@pytest.mark.parametrize(("name", "book"), [("fenreach.md", FENREACH_MD), ("fenreach.html", FENREACH_HTML)])
async def test_a_kind_no_source_holds_before_an_entrys_name_has_no_field(
    db: Database, tmp_path: Path, name: str, book: str
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Fenreach")
    await service.import_bytes(campaign, name, book.encode())

    async def ask(question: str) -> str:
        answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, record=False)
        assert answer.reply is not None
        return answer.reply.text

    for question in (
        "what is the armour of a grey bogwarden?",
        "grey bogwarden armour",
        "the grey bogwarden's vigour",
        "what is the habitat of a grey bogwarden",
        "what is the armour of a speckled mire stalker?",
        "what is the vigour of a spotted gulper?",
        "what is the armour of a snarlwight?",  # a name nobody wrote: the same sentence
    ):
        assert await ask(question) == nothing_known(question), question
    # The entry named alone, or by a kind the books hold, answers.
    for question in ("what is the armour of a bogwarden?", "the bogwarden's armour"):
        assert "15" in await ask(question), question
    assert "18" in await ask("what is the armour of an elder bogwarden?")
    assert "2" in await ask("what is the armour of a mire stalker?")
    assert "7" in await ask("what is the vigour of a gulper?")
    # Asked whole, a kind no source holds is nothing known too.
    for question in ("what is a grey bogwarden?", "tell me about the grey bogwarden", "grey bogwarden stats"):
        assert await ask(question) == nothing_known(question), question
    assert "moss" in await ask("tell me about the elder bogwarden")


def test_an_owner_or_a_question_asking_no_field_is_no_unheld_kind() -> None:
    bogwarden = passage(
        "## Bogwarden\n\nA hulking keeper of the reed-marshes.\n\n**Armour:** 15\n**Vigour:** 22",
        "Fenreach Bestiary",
        "Bogwarden",
    )
    glance = passage(
        "## Beasts at a glance\n\n| Beast | Armour | Vigour |\n|---|---|---|\n| Gulper | 3 | 7 |\n| Newt | 1 | 2 |",
        "Fenreach Bestiary",
        "Beasts at a glance",
    )
    assert unheld_kind(analyse("the armour of a grey bogwarden"), ["grey"], [bogwarden])
    assert unheld_kind(analyse("how tough is a spotted gulper, its vigour?"), ["spotted"], [glance])
    # The entry named alone, or by an owner the books do not know ("tasha's hideous laughter"), is the entry.
    assert not unheld_kind(analyse("the armour of a bogwarden"), [], [bogwarden])
    assert not unheld_kind(analyse("ysolde's bogwarden armour"), ["ysolde"], [bogwarden])
    # Asked whole, the made-up kind is asked all the same; a misspelling is no kind.
    assert unheld_kind(analyse("grey bogwarden"), ["grey"], [bogwarden])
    assert not unheld_kind(analyse("bogwaden armour"), ["bogwaden"], [bogwarden])
    assert not unheld_kind(analyse("tell me about the bogwaden"), ["bogwaden"], [bogwarden])


def test_a_kind_no_source_holds_asked_whole_is_an_unheld_kind() -> None:
    bogwarden = passage(
        "## Bogwarden\n\nA hulking keeper of the reed-marshes.\n\n**Armour:** 15\n**Vigour:** 22",
        "Fenreach Bestiary",
        "Bogwarden",
    )
    for question in (
        "what is a grey bogwarden?",
        "tell me about the grey bogwarden",
        "grey bogwarden stats",
        "describe the mossbacked bogwardens",
        "so what are grey bogwardens",
    ):
        unknown = [w for w in ("grey", "mossbacked") if w in question]
        assert unheld_kind(analyse(question), unknown, [bogwarden]), question
    for question, unknown in (
        ("what is a bogwarden?", []),
        ("ysolde's bogwarden", ["ysolde"]),
        ("tell me about ysoldes bogwarden", ["ysoldes"]),  # an owner typed without its apostrophe
        ("what's that big bogwarden thing", ["big"]),  # a word describing loosely
        ("what is an old bogwarden", ["old"]),
        ("grey bogwarden lair tactics", ["grey", "lair", "tactics"]),  # more asked than the entry
        ("what is a grey wolf", ["grey", "wolf"]),  # another thing named
    ):
        assert not unheld_kind(analyse(question), unknown, [bogwarden]), question


def test_a_kind_no_source_holds_asked_whole_is_nothing_known_word_for_word() -> None:
    reedcat = passage(
        "## Reedcat\n\nA lean cat of the reed beds that hunts herons at dusk. Reedcats are shy of fire.\n\n"
        "**Armour:** 12\n**Vigour:** 9",
        "Saltmarsh Wildlife",
        "Reedcat",
    )
    for question, unknown in (
        ("what is a grey reedcat?", ["grey"]),
        ("tell me about the grey reedcat", ["grey"]),
        ("grey reedcat", ["grey"]),
        ("tell me about the striped reedcats", ["striped"]),
    ):
        answer = reply(analyse(question), [], [reedcat], unknown)
        assert not answer.known and answer.text == nothing_known(question), question
    # The entry itself, by its name, an owner or a loose description, answers.
    for question, unknown in (
        ("what is a reedcat", []),
        ("ysolde's reedcat", ["ysolde"]),
        ("what's that big reedcat thing", ["big"]),
        ("tell me about the reedcta", ["reedcta"]),  # a misspelling of its name
    ):
        answer = reply(analyse(question), [], [reedcat], unknown)
        assert answer.known and "reed" in answer.text.lower(), question
