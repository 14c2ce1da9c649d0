"""An amount asked as a limit, and a table row read under its columns' names.

The books here are a starfreight trading game's rules (a cargo hold's entry, a table of hull classes), unlike
the reference books the answer step was tuned on.
"""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.amount_limits import asks_limit, row_headers, says_limit, says_limit_asked
from memory.knowledge.retrieval.answer_extractive import extract
from memory.knowledge.retrieval.answer_first import from_first
from memory.knowledge.retrieval.answer_sentence import asks_amount
from tests.memory.knowledge.retrieval.test_answer import passage

SMUGGLER_CRATE = passage(
    "## Smuggler's Crate\n\nA folded crate lined with scanner-dampening foil. The crate masses 9 kilos, empty "
    "or full. The foil pocket can hold up to 300 kilos of cargo without showing on a customs scan. Opening it "
    "takes a full shift.",
    "Gear",
    "Smuggler's Crate",
)
HULLS = passage(
    "## Hull Classes\n\n| Hull | Berths | Jump |\n|---|---|---|\n| Courier | 2 crew | 3 parsecs |\n"
    "| Hauler | 6 crew | 2 parsecs |\n| Liner | 40 crew | 1 parsec |\n\nA hull's class is fixed when it is laid "
    "down in the yard.",
    "Ships",
    "Hull Classes",
)
CONTRACTS = passage(
    "## Contracts\n\nA captain signs contracts with the guild. A captain can hold no more than four open "
    "contracts at once; a fifth is refused by the guild clerk. Contracts pay on delivery.",
    "Trade",
    "Contracts",
)


def test_a_maximum_or_a_number_of_things_asks_an_amount() -> None:
    assert asks_amount("max number of contracts a captain can have")
    assert asks_amount("maximum amount of cargo in a crate")
    assert asks_amount("the number of berths on a hauler")
    assert not asks_amount("what does a smuggler's crate do")


def test_a_question_asking_the_most_something_takes_asks_a_limit() -> None:
    assert asks_limit("how much cargo can a smuggler's crate hold")
    assert asks_limit("max number of contracts")
    assert asks_limit("up to how many crew on a liner")
    assert not asks_limit("how much does a smuggler's crate weigh")
    assert says_limit("Its pocket can hold up to 300 kilos.") and says_limit("no more than four contracts")
    assert not says_limit("The crate masses 9 kilos, empty or full.")


def test_how_much_a_thing_can_take_is_its_capacity_not_its_own_mass() -> None:
    said = extract("how much mass can a smuggler's crate take", [SMUGGLER_CRATE], 1)
    assert said and "300 kilos" in said[0].text, said
    own = extract("how much does a smuggler's crate mass", [SMUGGLER_CRATE], 1)
    assert own and "9 kilos" in own[0].text, own


def test_a_maximum_asked_is_answered_by_the_sentence_saying_the_limit() -> None:
    said = extract("max number of contracts a captain can hold", [CONTRACTS], 1)
    assert said and "no more than four" in said[0].text, said


def test_a_table_row_stands_under_its_columns_names() -> None:
    headers = row_headers(HULLS.text)
    assert headers["Hauler 6 crew 2 parsecs"] == "Hull Berths Jump"
    assert "A hull's class is fixed when it is laid down in the yard." not in headers
    said = extract("how many berths does a hauler have", [HULLS], 1)
    assert said and "6 crew" in said[0].text, said


CARGO_DRONE = passage(
    "## Cargo Drone\n\nA hovering drone answers its owner's wrist console. You can send the drone up to 50 metres "
    "from you each time you command it. The drone can't fight, open sealed hatches, or lift more than 12 pounds. "
    "It powers down after an hour.",
    "Gear",
    "Cargo Drone",
)
CARGO_RULES = passage(
    "## Loading Cargo\n\nEvery crate's weight counts against the hold's rating. A drone's lift is no crate.",
    "Trade",
    "Loading Cargo",
)


def test_a_limit_said_as_what_cannot_be_done_past_an_amount_is_a_limit() -> None:
    assert says_limit("The drone can't fight, open sealed hatches, or lift more than 12 pounds.")
    assert says_limit("It cannot carry more than two passengers.")
    assert not says_limit("The drone weighs more than 12 pounds.")  # a fact, no limit


def test_a_weight_asked_as_a_limit_is_said_in_weights_not_in_distances() -> None:
    # "up to 50 metres" is a limit with an amount, but of how far the drone goes, not of what it lifts.
    said = extract("how much weight can the cargo drone lift", [CARGO_DRONE, CARGO_RULES], 1)
    assert said and "12 pounds" in said[0].text, said
    far = extract("how far can the cargo drone go from you", [CARGO_DRONE], 1)
    assert far and "50 metres" in far[0].text, far


STASIS_POD = passage(
    "## Stasis Pod\n\nThe pod is a sealed cylinder roughly 2 metres long and 1 metre wide. A sleeper inside the "
    "pod can survive for up to 30 days without air. The pod can hold up to 200 kilos of frozen cargo instead of "
    "a sleeper.",
    "Gear",
    "Stasis Pod",
)


def test_the_most_a_thing_holds_is_said_by_a_limit_of_holding_not_of_anything() -> None:
    # "survive for up to 30 days" is a limit with an amount, but of time: not what the pod holds.
    said = extract("how much can a stasis pod hold", [STASIS_POD, CARGO_RULES], 1)
    assert said and "200 kilos" in said[0].text, said
    assert says_limit_asked("how much can it hold", "The pod can hold up to 200 kilos of frozen cargo.")
    assert says_limit_asked("how much weight can it lift", "It can't lift more than 12 pounds.")
    assert not says_limit_asked(
        "how much can it hold", "A sleeper can survive for up to 30 days without air."
    )


def test_the_named_passage_answers_how_much_it_holds_with_its_limit() -> None:
    # The question names the pod ("stasis pod") and says a word of its size sentence ("inside"): the limit asked
    # is what answers, not the first sentence sharing a word.
    found = from_first(
        analyse("we got a stasis pod, big on the inside. how much stuff can it hold?"), [STASIS_POD], 1
    )
    assert found is not None and any("200 kilos" in s for s in found.sentences), found
