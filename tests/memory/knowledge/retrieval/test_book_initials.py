"""The initials of a book's headings and terms read as those terms (`book_initials`), the GM's glossary over them."""

from __future__ import annotations

from memory.knowledge.glossary import expand, merged
from memory.knowledge.retrieval.book_initials import initials_glossary
from memory.knowledge.retrieval.book_terms import book_glossary

# A sky-pirate game's books: headings as a heading path and as markdown titles, a bold defined term.
_RIGGING = """Sailing the Clouds
## Wind Tally
Every captain keeps a Wind Tally; it fills as the sails catch the gale.
## Mast-Top Lookout
A crewmate in the crow's nest spots raiders two leagues off.
"""
_DUELS = """Deck Duels
# Cutlass Feint
Spend one Grit to turn a blade aside.
# Corsair's Pledge
**Blood Oath**: a promise sealed in a cut palm, broken only by death.
# Bilge Ooze
A slime that eats rope.
# Boarding Order
The crew that boards first picks who strikes first.
"""


def test_a_terms_initials_read_as_the_term() -> None:
    glossary = initials_glossary([_RIGGING, _DUELS], ["Blood Oath"])
    assert glossary["wt"] == "wind tally"
    assert glossary["mtl"] == "mast top lookout"  # a hyphen parts words
    assert glossary["cp"] == "corsair's pledge"
    assert glossary["cf"] == "cutlass feint"
    assert glossary["stc"] == "sailing the clouds"  # the heading path counts too
    assert "bo" not in glossary  # "Blood Oath", "Bilge Ooze" and "Boarding Order": which one is not guessed
    assert "dd" in glossary and "cut" not in glossary


def test_initials_the_books_write_as_a_word_or_the_table_says_are_read_as_written() -> None:
    book = (
        "Rules\n## Cargo Unloading Tally\nUnload the cargo; cut the rope.\n## Grit Master\nThe gm says so.\n"
        "## Dodge Chance\nRoll over the TN to dodge.\n## Target Number\nThe TN is 7 unless told otherwise."
    )
    glossary = initials_glossary([book])
    assert "cut" not in glossary  # the books write "cut"
    assert "tn" not in glossary and glossary["dc"] == "dodge chance"  # the books write "TN" as their own
    assert "gm" not in glossary  # the table's own word for its game master


def test_a_question_in_initials_is_read_in_the_books_words_and_the_gms_glossary_wins() -> None:
    glossary = merged(None, (), book_glossary([_RIGGING, _DUELS]))
    assert expand("how fast does my WT fill", glossary)[0] == "how fast does my wind tally fill"
    assert expand("what does a bo do", glossary)[0] == "what does a bo do"
    own = merged({"wt": "weight"}, (), book_glossary([_RIGGING, _DUELS]))
    assert expand("my wt", own)[0] == "my weight"


def test_a_shipped_term_stays_where_the_books_write_its_meaning() -> None:
    with_rests = "Resting\n## Second Roar\nA beast roars twice.\n## Rests\nA short rest takes an hour."
    assert "sr" not in initials_glossary([with_rests])
    without = "Magic\n## Spell Reserve\nA mage's pool of power."
    glossary = merged(None, (), book_glossary([without]))
    assert expand("how big is my sr", glossary)[0] == "how big is my spell reserve"
    assert expand("after a short rest", glossary)[0] == "after a short rest"
