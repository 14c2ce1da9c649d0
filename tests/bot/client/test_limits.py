"""The bot's own Discord limits and the functions that fit text inside them (`bot.client.limits`)."""

from __future__ import annotations

import pytest

from bot.client import limits
from bot.offline.emulator.discord_rules import ApiError, check_webhook_name


def test_fit_lines_and_pages_never_pass_the_limit() -> None:
    lines = [f"line {n}: " + "x" * 90 for n in range(100)]
    fitted = limits.fit_lines(lines, 2000)
    assert len(fitted) <= 2000 and fitted.endswith("more") and fitted.startswith("line 0:")
    found = limits.pages(lines, 2000)
    assert all(len(page) <= 2000 for page in found)
    assert "\n".join(found).splitlines() == lines  # every line, in order, none cut
    assert limits.pages(["y" * 3000], 2000) == ["y" * 1999 + "…"]  # a line longer than a page is cut


def test_fit_inline_says_how_many_were_left_out() -> None:
    names = [f"Name {n}" for n in range(50)]
    text = limits.fit_inline(names, 60)
    assert len(text) <= 60 and text.startswith("Name 0, Name 1") and text.endswith("more")
    assert limits.fit_inline(names[:2], 60) == "Name 0, Name 1"
    assert len(limits.fit_inline(["z" * 500, "w"], 40)) <= 40


def test_a_text_file_is_split_at_line_ends_under_the_size_limit() -> None:
    """Worst case: a months-long scene, past Discord's 10 MiB a file (and lines of multi-byte characters)."""
    line = "**12. Pat** 18:00:00\n" + "Ære og ære, ærlig talt — " * 80 + "\n"
    text = line * 9000
    assert len(text.encode()) > 2 * limits.FILE_BYTES
    parts = limits.split_text_file(text, limits.FILE_BYTES)
    assert len(parts) >= 3 and all(len(p) <= limits.FILE_BYTES for p in parts)
    assert b"".join(parts).decode("utf-8") == text  # nothing lost, nothing cut inside a character
    assert all(p.endswith(b"\n") for p in parts)
    assert limits.split_text_file("short", 100) == [b"short"]
    long_line = "é" * 100  # no line end to cut at: cut between characters
    assert b"".join(limits.split_text_file(long_line, 15)).decode() == long_line


@pytest.mark.parametrize(
    "name",
    ["Clyde the Innkeeper", "Lady DISCORDIA", "everyone", "Here", "clydeclyde", "  ", "Q" * 200, "Brann"],
)
def test_a_webhook_username_is_made_one_discord_accepts(name: str) -> None:
    made = limits.webhook_username(name)
    check_webhook_name(made, "username", username=True)  # the emulator's rule, from Discord's documentation
    if name == "Brann":
        assert made == "Brann"
    if name.strip() and len(name) <= 80:
        assert len(made) == len(name.strip())  # the same length: only a letter changed, to its look-alike


def test_the_refused_names_are_refused_as_they_are() -> None:
    for name in ("Clyde the Innkeeper", "everyone", "Q" * 81):
        with pytest.raises(ApiError):
            check_webhook_name(name, "username", username=True)
