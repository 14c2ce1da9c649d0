"""What the wiki reads through: the services it uses, handed in by the composition root (`bot.app`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.canon_access import CanonAccess
from bot.services.canon_queries import CanonQueries
from bot.services.gm_notes import GmNoteDesk
from bot.services.lore_answer import LoreAnswers
from bot.services.pictures import PictureService
from canon.storage import Database
from config.settings import WikiSettings
from memory.knowledge.service import KnowledgeService

from .tokens import WikiLinks


@dataclass(frozen=True)
class WikiDeps:
    """The services the wiki's pages read through (all read-only uses)."""

    settings: WikiSettings
    db: Database
    access: CanonAccess
    links: WikiLinks
    #: `/lore`'s hybrid search and answers.
    answers: LoreAnswers
    queries: CanonQueries
    notes: GmNoteDesk
    knowledge: KnowledgeService
    #: The family tree and the timeline, drawn at full size (SVG).
    pictures: PictureService
