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
