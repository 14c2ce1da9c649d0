"""`/session` texts fit Discord's 2000 characters at their worst and show titles as typed."""

from __future__ import annotations

import datetime as dt
import re

from bot.ops.operations import ScheduledSession
from cogs import operations_embeds as render

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


def session(n: int, title: str, *, role: int | None = 987654321098765432) -> ScheduledSession:
    return ScheduledSession(
        id=n,
        guild_id=1,
        channel_id=123456789012345678,
        title=title,
        starts_at=NOW + dt.timedelta(days=n),
        timezone="America/New_York",
        repeat="weekly",
        status="scheduled",
        created_by_id=None,
        reminded_for=None,
        ping_role_id=role,
    )


def test_fifty_sessions_with_the_longest_titles_and_a_role_fit_in_pages() -> None:
    """Worst case: 50 weekly sessions (a server may have that many), 200-character titles full of markdown."""
    title = ("*_`|~" * 40)[:200]
    sessions = [session(n, title) for n in range(1, 51)]
    pages = render.sessions_pages(sessions, NOW)
    assert len(pages) > 1
    texts = [render.sessions_text(sessions, NOW, page) for page in range(1, len(pages) + 1)]
    assert all(len(text) <= 2000 for text in texts)
    shown = [int(n) for text in texts for n in re.findall(r"^(\d+)\. ", text, re.MULTILINE)]
    assert shown == list(range(1, 51))  # every session once, in order
    assert "`/session list page:2`" in texts[0] and "page:" not in texts[-1]
    assert render.sessions_text(sessions, NOW, 999) == texts[-1]


def test_twenty_sessions_of_a_usual_title_used_to_pass_the_limit() -> None:
    sessions = [session(n, f"Chapter {n}: the road to the Sunken Keep") for n in range(1, 21)]
    assert (
        len("\n".join(render.session_line(s, NOW, n) for n, s in enumerate(sessions, 1))) > 2000
    )  # what broke before
    assert len(render.sessions_text(sessions, NOW)) <= 2000


def test_titles_are_shown_as_typed_in_the_list_and_the_confirmation() -> None:
    typed = "**Big** _plan_ `x` ||spoiler|| <@&123456789012345678> @here [link](https://a.b) end\\"
    line = render.session_line(session(1, typed), NOW, 1)
    confirmation = render.scheduled_text(session(1, typed), 30, NOW)
    for text in (line, confirmation):
        bolded = text.split("**", 1)[1].rsplit("**", 1)[0]  # inside the bold of the title
        assert "\\*\\*Big\\*\\*" in bolded and "\\_plan\\_" in bolded and "\\`x\\`" in bolded
        assert "\\|\\|spoiler\\|\\|" in bolded and "\\[link]" in bolded
        assert "<@&123456789012345678>" not in bolded and "@here" not in bolded  # no mention shown
        assert bolded.endswith("end\\\\")  # a trailing backslash cannot eat the closing **


def test_the_confirmation_tells_the_gm_when_the_role_cannot_be_pinged() -> None:
    pingable = render.scheduled_text(session(1, "Heist"), 30, NOW, role_pingable=True)
    assert "pinging <@&987654321098765432>." in pingable and "⚠️" not in pingable
    silent = render.scheduled_text(session(1, "Heist"), 30, NOW, role_pingable=False)
    assert "⚠️ Discord will not notify <@&987654321098765432>" in silent
    assert "Allow anyone to @mention this role" in silent and "Mention Everyone" in silent
    assert len(render.scheduled_text(session(1, "T" * 200), 30, NOW, role_pingable=False)) <= 2000
    nobody = render.scheduled_text(session(1, "Heist", role=None), 30, NOW, role_pingable=False)
    assert "⚠️" not in nobody
