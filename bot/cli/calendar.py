"""`lorekeeper canon calendar`: see, set or clear the campaign's calendar, and read a date on it.

    lorekeeper canon calendar -c Saltmarch                      # the calendar in sentences, as a player reads it
    lorekeeper canon calendar -c Saltmarch --as gm              # the GM's: GM-only eras marked, and the block
    lorekeeper canon calendar -c Saltmarch --set calendar.yaml  # eras, months, seasons (docs/calendar.md)
    lorekeeper canon calendar -c Saltmarch --clear              # drop the block; canon's eras stay
    lorekeeper canon calendar -c Saltmarch --read "363 TA"      # how a typed date is understood

A date that cannot be read exits 1 with the sentence (and the readings to choose from) on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, ViewerChoice, emit, fail, with_campaign


def canon_calendar(
    campaign: CampaignOption,
    set_file: Annotated[
        Path | None, typer.Option("--set", help="A calendar file (YAML): eras, months, seasons, to set")
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Drop the calendar block (canon's eras stay)")
    ] = False,
    read: Annotated[str | None, typer.Option("--read", help="A date to read, as the table types it")] = None,
    viewer: Annotated[
        ViewerChoice | None,
        typer.Option(
            "--as",
            help="Read as a player (the default: no GM-only era) or as the GM (GM-only eras marked, the block)",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show the campaign's calendar, set or clear it (as the GM), or read a date on it."""
    if sum([set_file is not None, clear, read is not None]) > 1:
        fail("Give one of --set, --clear and --read.", code=2)
    if (set_file is not None or clear) and viewer == ViewerChoice.PLAYER:
        fail("Only the GM sets or clears the calendar: leave out --as player.", code=2)
    # Setting is the GM's act, and says the calendar as the GM reads it; anything else reads as a player by default.
    gm = viewer == ViewerChoice.GM or set_file is not None or clear
    text: str | None = None
    if set_file is not None:
        try:
            text = set_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            fail(f"Cannot read {set_file}: {getattr(error, 'strerror', None) or 'not a text file'}.", code=1)
    elif clear:
        text = ""

    async def work(services: Any, found: Any) -> dict[str, Any]:
        from canon.models import Viewer

        calendars = services.calendars
        seen = Viewer.GM if gm else Viewer.PLAYER
        if read is not None:
            reading = await calendars.read(found, read, viewer=seen)
            if reading.date is None:
                return {"refused": reading.sentence(), "choices": list(reading.choices)}
            calendar = await calendars.calendar(found, seen)
            return {"date": str(reading.date), "words": calendar.say(reading.date), "note": reading.note}
        if not gm:  # as `/calendar show` answers a player: the sentences, no GM-only era, no block
            calendar = await calendars.calendar(found, Viewer.PLAYER)
            return {"calendar": calendar.model_dump(mode="json"), "sentences": calendar.describe()}
        view = await (calendars.set_block(found, text) if text is not None else calendars.view(found))
        return {
            "calendar": view.calendar.model_dump(mode="json"),
            "sentences": view.sentences,
            "block": view.block,
        }

    payload = {"campaign": campaign, **with_campaign(campaign, work)}
    if "refused" in payload:
        if as_json:
            emit(payload, as_json=True, text=str)
        fail(payload["refused"], code=1)
    if read is not None:
        emit(
            payload, as_json=as_json, text=lambda: " ".join(filter(None, [payload["words"], payload["note"]]))
        )
        return
    lead = (
        "The calendar is set.\n"
        if set_file is not None
        else "The calendar block is cleared.\n"
        if clear
        else ""
    )
    emit(payload, as_json=as_json, text=lambda: lead + payload["sentences"])
