"""The secret guard (memory.leaks): a hidden fact is caught by what a text says, however it is dressed."""

from __future__ import annotations

import pytest

from bench.leaks import run
from memory.leaks import Secret, SecretKind, find_leaks, words

PUBLIC = ["The fishermen sing for the dead at dusk; Brann the smith hammers at the forge."]
BRANN_DEAD = Secret.state(("Brann", "the Smith of Dunmore"), "dead", label="hidden canon about Brann")


def test_the_issues_example_is_caught_though_every_word_is_public() -> None:
    (leak,) = find_leaks("Brann is dead.", [Secret(text="Brann is dead", label="x")], PUBLIC)
    assert leak.label == "x" and leak.phrase == "Brann is dead"
    assert find_leaks("Brann is dead.", [BRANN_DEAD], PUBLIC)[0].phrase == "Brann is dead"


@pytest.mark.parametrize(
    "reply",
    [
        "Brann is dead.",
        "Word came at dawn: Brann was slain in the night.",
        "They found Brann's corpse by the anvil.",
        "The Smith of Dunmore has perished.",
        "Brann? He passed away last winter.",
        "*lowers her voice* Brann? Slain, last winter.",
        "Br\u00adann is de\u00adad.",  # soft hyphens
        "B\u200brann is d\u200cead.",  # zero-width space and non-joiner
        "\u0412rann is d\u0435ad.",  # Cyrillic Ve and ie
        "Br4nn 1s d34d, k1ll3d by r4id3r5.",  # leetspeak
        "Br@nn was ki11ed.",
        "Brann is de-\nad.",  # a word broken at a line's end
        "BRANN IS DEAD",
        "Ｂｒａｎｎ ｉｓ ｄｅａｄ",  # full-width forms (NFKC)
        "Brann\U000e0041 is dead\U000e007f.",  # tag characters
    ],
)
def test_a_hidden_state_is_caught_in_every_dress(reply: str) -> None:
    (leak,) = find_leaks(reply, [BRANN_DEAD], PUBLIC)
    assert leak.label == "hidden canon about Brann"


@pytest.mark.parametrize(
    "reply",
    [
        "The fishermen sing for the dead; Brann hammers at the forge.",
        "Brann hammers at the forge. They sing for the dead at dusk.",
        "Brann wipes his brow; dead leaves blow past the door.",
        "Brann drinks to the dead every winter.",
        "Brann counts the coins twice; none are dead.",
        "The dead do not rest here. Brann keeps the forge hot.",
        "Brann the smith is alive and well, and busy.",
        "",
        "   ",
    ],
)
def test_innocent_texts_sharing_the_secrets_words_pass(reply: str) -> None:
    assert find_leaks(reply, [BRANN_DEAD], PUBLIC) == []


def test_gm_only_entities_are_caught_by_name_however_obfuscated() -> None:
    pact = Secret.entity(("the Crimson Pact", "the Red Hand"), "the Crimson Pact (Faction)", label="pact")
    for reply in (
        "She serves the Crimson Pact.",
        "She serves the Crim\u00adson Pa\u00adct.",
        "She serves the \u0421rimson \u0420act.",
        "She serves the Cr1ms0n P4ct.",
        "She bears the mark of the red hand.",
        "the crimson-pact's agents",
    ):
        assert [leak.label for leak in find_leaks(reply, [pact], [])] == ["pact"], reply
    public = ["Crimson banners hang in the guild hall; the guilds keep a pact."]
    assert find_leaks("Crimson banners hang over the pact of the guilds.", [pact], public) == []


def test_a_relation_is_caught_by_both_ends_and_what_joins_them() -> None:
    secret = Secret.relation(("Mira",), "MEMBER_OF", ("the Crimson Pact",), label="mira")
    public = ["Mira keeps the Drowned Rat.", "The Crimson Pact is a guild of dyers in Thornwall."]
    assert find_leaks("Mira is sworn to the Crimson Pact.", [secret], public)
    assert find_leaks("Mira is a member of the Crimson Pact.", [secret], public)
    assert find_leaks("Mira pours ale; the Crimson Pact meets upstairs.", [secret], public) == []


@pytest.mark.parametrize(
    "reply",
    [
        "Mira has sworn herself to the C r i m s o n P a c t.",  # what the narrator posted
        "Mira has sworn herself to the C.r.i.m.s.o.n P.a.c.t.",
        "Mira has sworn herself to the C-r-i-m-s-o-n P-a-c-t.",
        "Mira has sworn herself to the C_r_i_m_s_o_n P_a_c_t.",
        "M i r a has sworn herself to the C . r . i . m . s . o . n Pact.",
        "Mira has sworn herself to the C r 1 m s 0 n P 4 c t.",
    ],
)
def test_letters_spelled_out_one_by_one_are_read_as_the_word(reply: str) -> None:
    allegiance = Secret.fact(("Mira",), "true_allegiance", "the Crimson Pact", label="allegiance")
    member = Secret.relation(("Mira",), "MEMBER_OF", ("the Crimson Pact",), label="member")
    public = ["Mira keeps the Drowned Rat.", "The Crimson Pact dyes cloth in Thornwall."]
    assert {leak.label for leak in find_leaks(reply, [allegiance, member], public)} >= {"member"}, reply
    assert find_leaks(reply, [allegiance], public), reply
    # All in small letters the name runs together ("crimsonpact"), which still names the pact.
    assert find_leaks(reply.lower().replace("mira", "Mira"), [member], public), reply


def test_initials_and_lone_letters_are_not_spelled_words() -> None:
    assert words("J. R. R. Tolkien wrote it") == ["jrr", "toikien", "wrote", "it"]
    assert words("I am a smith") == ["i", "am", "a", "smith"]
    assert words("C r i m s o n P a c t") == ["crimson", "pact"]
    public = ["Mira keeps the Drowned Rat.", "The Crimson Pact dyes cloth in Thornwall."]
    allegiance = Secret.fact(("Mira",), "true_allegiance", "the Crimson Pact", label="allegiance")
    innocent = (
        "Mira reads a b c to the children. The banners of the C r i m s o n P a c t hang over the square."
    )
    assert find_leaks(innocent, [allegiance], public) == []


def test_a_hidden_attribute_is_caught_by_its_subject_and_value() -> None:
    secret = Secret.fact(("Mira",), "true_allegiance", "the Crimson Pact", label="mira")
    public = ["Mira keeps the Drowned Rat.", "The Crimson Pact dyes cloth in Thornwall."]
    (leak,) = find_leaks("Mira has always been loyal to the Crimson Pact.", [secret], public)
    assert leak.phrase == "Mira has always been loyal to the Crimson Pact"
    assert find_leaks("Mira buys cloth. The Crimson Pact's dyers are the best.", [secret], public) == []
    spy = Secret.fact(("Mira",), "spy", "true", label="spy")
    assert find_leaks("Mira is a spy.", [spy], ["Mira keeps the Drowned Rat."])
    assert find_leaks("Mira pours ale.", [spy], ["Mira keeps the Drowned Rat."]) == []


def test_what_the_public_material_already_says_is_no_secret() -> None:
    public = ["Everyone in Dunmore knows Brann is dead: the smithy stands cold."]
    assert find_leaks("Brann is dead.", [BRANN_DEAD], public) == []
    # ...but a public denial does not make the truth public.
    denial = ["The priest insists Brann is not dead."]
    assert find_leaks("Brann is dead.", [BRANN_DEAD], denial)
    # A hidden entity's name the players already saw is no secret by itself.
    vell = Secret.entity(("Vell",), "Vell (NPC)", label="vell")
    assert find_leaks("Vell waves.", [vell], ["A stranger called Vell came by."]) == []
    assert find_leaks("Vell waves.", [vell], []) != []


def test_one_leak_per_secret_each_with_its_label() -> None:
    secrets = [BRANN_DEAD, Secret.state(("Vell",), "missing", label="vell")]
    leaks = find_leaks("Brann died. Brann is dead. Vell has vanished.", secrets, [*PUBLIC, "Vell sails."])
    assert [leak.label for leak in leaks] == ["hidden canon about Brann", "vell"]


def test_odd_secrets_are_safe() -> None:
    odd = [
        Secret(text="", label="empty"),
        Secret(text="dead", label="one word"),
        Secret(kind=SecretKind.STATE, text="x", label="no names", subjects=((),), value="dead"),
        Secret.state(("",), "", label="blank"),
        Secret.fact(("Brann",), "", "", label="no value"),
        Secret.entity(("a",), "a", label="short name"),
    ]
    assert find_leaks("Brann is dead, a pity.", odd, PUBLIC) == []


def test_words_are_compared_as_a_reader_sees_them() -> None:
    assert words("Crim\u00adson Pa\u00adct's") == words("crimson pact") == ["crimson", "pact"]
    assert words("\u0421rimson \u0420act") == ["crimson", "pact"]
    assert words("year 310") == ["year", "310"]


def test_the_benchmark_meets_its_goal_on_a_few_worlds() -> None:
    result = run(worlds=4)
    assert result["verbatim_and_normalised_caught"] == 1.0, result["missed"]
    assert result["false_alarm_rate"] < 0.05, result["false_alarms"]
    assert {"letter_spaced", "dotted", "dashed", "underscored"} <= set(result["caught"])


def test_a_secret_about_nobody_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match="needs the entity's name"):
        Secret.state((), "dead", label="x")
    with pytest.raises(ValueError, match="needs the entity's name"):
        Secret.relation(("Mira",), "MEMBER_OF", (), label="x")
