"""The jargon scan itself: what it catches in what players see, and what it leaves (the GM's private answers)."""

from __future__ import annotations

from typing import Any

from bot.offline.emulator.models import Guild, Member, User
from tests.e2e.jargon import JargonRecorder, jargon_in

GM_ROLE = 7


def guild() -> Guild:
    found = Guild(id=1, name="The Tavern")
    found.members[10] = Member(User(id=10, name="Gina"), found, role_ids=[GM_ROLE])
    found.members[11] = Member(User(id=11, name="Pat"), found)
    return found


def message(text: str, *, ephemeral_for: int | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"id": "1", "content": text, "flags": 0, **extra}
    if ephemeral_for is not None:
        data["flags"] = 64
        data["interaction_metadata"] = {"user": {"id": str(ephemeral_for)}}
    return data


def test_the_scan_catches_each_kind_of_jargon() -> None:
    for text in (
        "Corvan Marrow PARENT_OF → this",
        "(3rd_age.year_327 – 3rd_age.year_352)",
        "a change the ontology does not allow",
        "Forked from greyhaven nights at changeset 5",
        "Proposal #1 by Gina",
        "titles = Harbourmaster of Greyhaven `#12`",
        "2 statements",
        "Set LOREKEEPER_LLM__BASE_URL and restart",
        "Turn on `wiki.enabled`",
        "the llm.base_url setting",
    ):
        assert jargon_in(text), text


def test_the_scan_reads_no_links_card_numbers_or_echoes() -> None:
    for text in (
        "said in scene 1, [turn 2](https://discord.com/channels/1/2/3#4)",
        "#1 · ⏳ pending",
        'The date must be a date like 3rd_age.300; got "3rd_age.year_abc"',
        "Corvan Marrow is Ysolde Marrow's father (year 327 of the Third Age)",
        "lore.md was imported; wiki.md too",
    ):
        assert not jargon_in(text), text


def test_both_sides_are_scanned_the_gms_private_answers_too() -> None:
    recorder = JargonRecorder()
    recorder.seen += [
        (message("Corvan PARENT_OF Ysolde", ephemeral_for=10), {}),  # the GM's private answer
        (message("Corvan is Ysolde's father (fact 12)", ephemeral_for=10), {}),  # a handle, even the GM's
        (message("fact #12 for Pat", ephemeral_for=11), {}),  # a player's private answer
        (
            message(
                "in public", embeds=[{"title": "Canon", "fields": [{"name": "x", "value": "entity #3"}]}]
            ),
            {},
        ),
        (message("a file"), {"notes.md": b"at 3rd_age.year_300", "picture.png": b"3rd_age.year_1"}),
        (message("", components=[{"components": [{"label": "Accept ALLY_OF", "custom_id": "lk:1"}]}]), {}),
    ]
    problems = recorder.problems(guild(), GM_ROLE)
    assert len(problems) == 6, problems
    assert any(p.startswith("the GM, ") and "PARENT_OF" in p for p in problems)
    assert any(p.startswith("the GM, ") and "(fact 12)" in p for p in problems)
    assert any(p.startswith("a player, ") and "fact #12" in p for p in problems)
    assert any("entity #3" in p for p in problems)
    assert any("file notes.md" in p for p in problems) and not any("picture.png" in p for p in problems)
    assert any("controls" in p for p in problems)


def test_the_scan_reads_text_as_discord_renders_it() -> None:
    # A markdown escape hides nothing: `3rd\_age.year\_352` is shown as 3rd_age.year_352.
    assert jargon_in(r"Born in 3rd\_age.year\_352") == ["a raw date key: '3rd_age.year_352'"]
    assert jargon_in(r"Corvan \`#12\`")
    assert not jargon_in(r"secret passage, **bold** \*not bold\*")


def test_forms_and_suggestions_the_bot_answers_with_are_scanned() -> None:
    recorder = JargonRecorder()

    class Asked:
        class user:
            id = 10

    modal = {
        "title": "Accept despite warnings",
        "components": [
            {
                "type": 18,
                "label": "Why accept it anyway?",
                "component": {"type": 4, "custom_id": "x", "placeholder": "Dead since 3rd_age.year_352"},
            }
        ],
    }
    recorder.record_answer(Asked, {"type": 9, "data": modal})
    recorder.record_answer(
        Asked, {"type": 8, "data": {"choices": [{"name": "Corvan ALLY_OF Mara", "value": "1"}]}}
    )
    recorder.record_answer(
        Asked, {"type": 8, "data": {"choices": [{"name": "Corvan is dead (fact 3)", "value": "x"}]}}
    )
    problems = recorder.problems(guild(), GM_ROLE)
    assert len(problems) == 3, problems
    assert "(form)" in problems[0] and "3rd_age.year_352" in problems[0]
    assert "(suggestions)" in problems[1] and "ALLY_OF" in problems[1]
    assert "(suggestions)" in problems[2] and "(fact 3)" in problems[2]
