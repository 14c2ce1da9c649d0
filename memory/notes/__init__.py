"""The GM's notes: ideas, TODOs and reminders about the campaign, private to the GM (`memory.notes.service`)."""

from memory.notes.service import GmNote, GmNotePage, GmNoteService

__all__ = ["GmNote", "GmNotePage", "GmNoteService"]
