"""The extraction prompt at /endscene shows how a date is written in the campaign's own calendar words, never a
fixed date of another world; a campaign without a calendar gets a plain year. Through the real LLM client and a
local stub server.
"""

from __future__ import annotations

from pathlib import Path

from bot.app import Services
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import GM, PAT, open_services, play, seed, settings_for
from tests.helpers.voice_stub import VoiceScript, framed, items_reply, outside_frames, prompt_text

CHANNEL = 710
LINES = [(PAT, "I ask Mira what year it is."), (GM, "Mira shrugs and pours another ale.")]
CALENDAR = """\
eras:
  - {name: The Tidewater Age, abbreviation: TW, start: 1}
months:
  - {name: Frostmoot, days: 30}
  - {name: Hearthmoon, days: 31}
  - {name: Brinemoon, days: 30}
"""


async def _prompt(
    made: list[Services], target: DatabaseTarget, tmp_path: Path, stub: LLMStub, calendar: str | None
) -> str:
    script = VoiceScript(extraction=items_reply())
    stub.responder = script
    services = await open_services(target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    if calendar is not None:
        await services.calendars.set_block(world.campaign, calendar)
    await play(services, world, LINES, channel_id=CHANNEL)
    await services.canon.end_scene(CHANNEL)
    (prompt,) = script.seen["extraction"]
    return prompt_text(prompt)


async def test_the_prompt_shows_a_date_in_the_campaign_s_calendar_words(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    text = await _prompt(made, db_target, tmp_path, stub, CALENDAR)
    assert "3rd_age" not in text
    (shown,) = framed(text, "date_examples")
    assert shown == "- year 2 of the Tidewater Age\n- 17 Brinemoon, year 2 of the Tidewater Age"
    # The era's name is the GM's words: data, framed like every name.
    assert "Tidewater" not in outside_frames(text)


async def test_a_campaign_without_a_calendar_gets_a_plain_year(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    text = await _prompt(made, db_target, tmp_path, stub, None)
    assert "3rd_age" not in text
    (shown,) = framed(text, "date_examples")
    assert shown == "- year 412"
