"""The errors a user may see. Each message is written for a player or GM, never for a developer."""

from __future__ import annotations


class GameError(Exception):
    """A problem the user can understand and act on; its message is shown to them as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(GameError):
    """The thing the user named does not exist (in this campaign)."""


class NotAllowed(GameError):
    """The user may not do this (for example a player pressing a GM button)."""


class InvalidInput(GameError):
    """The user's input is malformed; the message says what form is expected."""


class Conflict(GameError):
    """The action clashes with the current state (a scene already active, a decision already made)."""


class Unavailable(GameError):
    """A dependency the action needs is not configured or not reachable (for example no LLM)."""


class AskedAttribute(InvalidInput):
    """An attribute typed that the subject's type does not declare, close to some it does: the GM is asked
    which they meant (`suggestions`, in words), never picked for; nothing is written."""

    def __init__(self, typed: str, subject: str, suggestions: tuple[str, ...]) -> None:
        self.typed, self.subject, self.suggestions = typed, subject, suggestions
        super().__init__(self.sentence("add it again, saying it is a new kind of detail"))

    def sentence(self, how: str) -> str:
        """Return the question, with `how` the asker says "a new kind of detail" where they typed it."""
        close = " or ".join(self.suggestions)
        return (
            f"“{self.typed}” is not a detail this campaign keeps for {self.subject}. Did you mean {close}? "
            f"Write it again with that name, or, to keep “{self.typed}” as a new kind of detail, {how}."
        )
