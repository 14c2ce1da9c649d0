"""GM-only sections of a public source: marked in the file or hidden after import, never reaching a player.

A hidden section is treated exactly as a hidden source (`canon.visibility.passage_hidden`, `sections_seen`): a
player's answer about it is word for word the answer about something the campaign never heard of.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from canon import campaigns, forks
from canon.errors import InvalidInput
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.archive import KnowledgeArchive, export_knowledge, restore_knowledge
from memory.knowledge.models import Answer, KnowledgeClass
from memory.knowledge.retrieval.answer import nothing_known
from memory.knowledge.sections import path_words
from memory.knowledge.service import KnowledgeService
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

MODES = ("default", "lexical", "semantic", "rrf")

PUBLIC_PART = """# Greyhaven

## The Harbour

Greyhaven's harbour shelters fishing boats and salt barges. Gulls circle the lighthouse all day.

## The Markets

Fish, salt and amber are sold on the quay every morning by the guild of chandlers.
"""

WITH_SECRET = (
    PUBLIC_PART
    + """
## The Duke's Plot (GM only)

Duke Varrow Quillane plans to poison the queen with nightbloom at the midwinter feast.

### His Allies

The Obsidian Lantern cult smuggles the nightbloom through the lighthouse cellars.
"""
)

QUESTION = "What is Duke Varrow Quillane plotting with nightbloom?"
SECRET_WORDS = ("Quillane", "nightbloom", "Obsidian", "poison")


def texts(answer: Answer) -> str:
    return "\n".join(r.text for r in answer.results)


async def _ask_all(service: KnowledgeService, campaign: int, question: str, viewer: Viewer) -> list[Answer]:
    return [
        await service.ask(campaign, question, viewer=viewer, limit=limit, config=mode)
        for mode in MODES
        for limit in (1, 25)
    ]


async def test_a_marked_section_never_reaches_a_player_while_the_rest_stays_public(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Greyhaven")
    report = await service.import_bytes(
        campaign, "greyhaven.md", WITH_SECRET.encode(), knowledge_class=KnowledgeClass.CANON
    )
    assert not report.source.hidden and report.source.hidden_chunks >= 1
    for question in (QUESTION, "Obsidian Lantern cult", "Duke's Plot", "His Allies lighthouse cellars"):
        for answer in await _ask_all(service, campaign, question, Viewer.PLAYER):
            shown = texts(answer)
            assert not any(word in shown for word in SECRET_WORDS), (question, shown)
            assert all(not c.hidden for c in answer.trace.candidates)
            assert not any("Duke" in c.heading for c in answer.trace.candidates)
    # The rest of the source is public.
    harbour = await service.ask(campaign, "What shelters in Greyhaven's harbour?", viewer=Viewer.PLAYER)
    assert "salt barges" in texts(harbour)
    # A misspelling close to a heading word of the hidden section is never "corrected" towards it.
    typo = await service.ask(campaign, "who are his Alies?", viewer=Viewer.PLAYER)
    assert "allies" not in " ".join(typo.trace.warnings).lower()
    # The GM reads it, marked hidden; the heading shows without its marker.
    gm = await service.ask(campaign, QUESTION, viewer=Viewer.GM)
    top = gm.results[0]
    assert "nightbloom" in top.text and top.hidden and top.heading_path[-1] == "The Duke's Plot"
    assert all(not r.hidden for r in gm.results if "harbour" in r.text and "nightbloom" not in r.text)
    # A stored GM answer shown to a player holds nothing of it.
    assert gm.retrieval_id is not None
    shown = await service.get_retrieval(campaign, gm.retrieval_id, viewer=Viewer.PLAYER)
    assert "nightbloom" not in "".join(r.text for r in shown.results)


async def test_a_players_answer_about_a_hidden_section_is_word_for_word_an_unknown_things(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    secret_campaign = await new_campaign(db, "With the plot")
    plain_campaign = await new_campaign(db, "Never heard of it")
    await service.import_bytes(secret_campaign, "greyhaven.md", WITH_SECRET.encode())
    await service.import_bytes(plain_campaign, "greyhaven.md", PUBLIC_PART.encode())
    hidden = await service.ask(secret_campaign, QUESTION, viewer=Viewer.PLAYER)
    unknown = await service.ask(plain_campaign, QUESTION, viewer=Viewer.PLAYER)
    assert hidden.reply is not None and unknown.reply is not None
    assert hidden.reply.text == unknown.reply.text == nothing_known(QUESTION)
    assert not hidden.reply.known
    assert [r.text for r in hidden.results] == [r.text for r in unknown.results]


async def test_the_gm_hides_and_reveals_a_section_after_import_and_it_survives_a_new_version(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")
    report = await service.import_bytes(campaign, "greyhaven.md", WITH_SECRET.encode())
    sections = {s.words: s for s in await service.sections(campaign, report.source.id)}
    assert sections["Greyhaven › The Duke's Plot"].hidden
    assert sections["Greyhaven › The Duke's Plot › His Allies"].hidden
    assert not sections["Greyhaven › The Markets"].hidden

    # Hide a public section by its heading in words; players lose it, the GM keeps it.
    change = await service.set_section(campaign, report.source.id, "the markets", True)
    assert change.hidden and change.path == ["Greyhaven", "The Markets"] and change.changed >= 1
    # The Markets shared a passage with the Harbour: the source is chunked again so that the Markets alone change.
    assert change.rechunked and not change.also
    harbour = await service.ask(campaign, "What shelters in Greyhaven's harbour?", viewer=Viewer.PLAYER)
    assert "salt barges" in texts(harbour) and "amber" not in texts(harbour)
    market = "Who sells amber on the quay?"
    assert "amber" not in texts(await service.ask(campaign, market, viewer=Viewer.PLAYER, config="lexical"))
    assert "amber" in texts(await service.ask(campaign, market, viewer=Viewer.GM, config="lexical"))
    # Reveal the marked one: players read it now.
    await service.set_section(campaign, report.source.id, "Greyhaven › The Duke's Plot", False)
    revealed = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    assert "nightbloom" in texts(revealed)

    # A new version of the file keeps the GM's choices.
    newer = WITH_SECRET.replace("every morning", "every dawn")
    updated = await service.import_bytes(campaign, "greyhaven.md", newer.encode())
    assert updated.source.version == 2
    after = {s.words: s for s in await service.sections(campaign, report.source.id)}
    assert after["Greyhaven › The Markets"].hidden and not after["Greyhaven › The Duke's Plot"].hidden

    # Bad names: said plainly, nothing changed.
    for typed in ("", "The Dragon's Lair"):
        with pytest.raises(InvalidInput):
            await service.set_section(campaign, report.source.id, typed, True)
    assert {s.words: s.hidden for s in await service.sections(campaign, report.source.id)} == {
        s.words: s.hidden for s in after.values()
    }


@pytest.mark.parametrize(
    "heading",
    ["## The Duke's Plot [secret]", "## (GM only) The Duke's Plot", "## The Duke's Plot\n<!-- gm-only -->"],
)
async def test_each_marker_hides_the_section(db: Database, tmp_path: Path, heading: str) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")
    text = WITH_SECRET.replace("## The Duke's Plot (GM only)", heading)
    report = await service.import_bytes(campaign, "greyhaven.md", text.encode())
    sections = {s.words: s for s in await service.sections(campaign, report.source.id)}
    assert sections["Greyhaven › The Duke's Plot"].hidden, path_words(list(sections))
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    assert "nightbloom" not in texts(answer)


async def test_an_exported_campaign_keeps_the_gms_section_choices(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")
    report = await service.import_bytes(campaign, "greyhaven.md", WITH_SECRET.encode())
    await service.set_section(campaign, report.source.id, "The Markets", True)
    await service.set_section(campaign, report.source.id, "The Duke's Plot", False)
    archive = KnowledgeArchive.model_validate_json(
        (await export_knowledge(service, campaign)).model_dump_json()
    )

    other = knowledge_service(db, tmp_path / "elsewhere", semantic=False)
    target = await new_campaign(db, "Restored")
    [restored] = await restore_knowledge(other, target, archive)
    sections = {s.words: s.hidden for s in await other.sections(target, restored.source.id)}
    assert sections["Greyhaven › The Markets"] and not sections["Greyhaven › The Duke's Plot"]
    assert sections == {s.words: s.hidden for s in await service.sections(campaign, report.source.id)}
    market = await other.ask(target, "Who sells amber on the quay?", viewer=Viewer.PLAYER, config="lexical")
    assert "amber" not in texts(market)


def _docx_with_a_secret_style() -> bytes:
    import io

    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    document.add_heading("Greyhaven", 1)
    document.add_heading("The Harbour", 2)
    document.add_paragraph("Greyhaven's harbour shelters fishing boats and salt barges.")
    style = document.styles.add_style("GM Only Heading 2", WD_STYLE_TYPE.PARAGRAPH)
    style.base_style = document.styles["Heading 2"]
    document.add_paragraph("The Duke's Plot", style="GM Only Heading 2")
    document.add_paragraph("Duke Varrow Quillane plans to poison the queen with nightbloom.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


HTML_BOOK = """<html><body><h1>Greyhaven</h1><h2>The Harbour</h2>
<p>Greyhaven's harbour shelters fishing boats and salt barges.</p>
<h2>The Duke's Plot (GM only)</h2><p>Duke Varrow Quillane plans to poison the queen with nightbloom.</p>
</body></html>"""


@pytest.mark.parametrize("name", ["greyhaven.docx", "greyhaven.html"])
async def test_a_books_marked_section_is_hidden_too(db: Database, tmp_path: Path, name: str) -> None:
    """A Word heading styled "GM Only Heading 2" (based on Heading 2), an HTML heading with the word."""
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")
    data = _docx_with_a_secret_style() if name.endswith(".docx") else HTML_BOOK.encode()
    report = await service.import_bytes(campaign, name, data)
    sections = {s.words: s.hidden for s in await service.sections(campaign, report.source.id)}
    assert sections["Greyhaven › The Duke's Plot"] and not sections["Greyhaven › The Harbour"], sections
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    assert "nightbloom" not in texts(answer)
    assert "nightbloom" in texts(await service.ask(campaign, QUESTION, viewer=Viewer.GM, config="lexical"))


async def test_showing_a_section_never_reaches_a_branch_forked_before(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Greyhaven")
    report = await service.import_bytes(campaign, "greyhaven.md", WITH_SECRET.encode())
    parent = await db.run(lambda s: campaigns.get_campaign(s, campaign))
    point = forks.ForkPoint(changeset_id=forks.OPEN_END, up_to_time=campaigns.utc_now())
    branch = await db.run(
        lambda s: campaigns.create_branch(s, parent, "Greyhaven what if", point, guild_id=None)
    )
    await service.set_section(campaign, report.source.id, "The Duke's Plot", False)
    assert "nightbloom" in texts(
        await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    )
    assert "nightbloom" not in texts(
        await service.ask(branch.id, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    )


async def test_a_paragraph_labelled_secret_in_a_public_section_is_told_to_the_gm(
    db: Database, tmp_path: Path
) -> None:
    """A label ("GM only:", "**Secret:**") hides nothing, only a heading's marker does: the import tells the GM
    where such a paragraph stands open, and says nothing of one under a marked heading."""
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Greyhaven")
    text = (
        WITH_SECRET.replace(
            "Gulls circle the lighthouse all day.",
            "Gulls circle the lighthouse all day.\n\n**Secret:** the harbourmaster takes bribes.",
        )
        + "\nGM only: the cult meets at the new moon.\n"
    )
    report = await service.import_bytes(campaign, "greyhaven.md", text.encode())
    (warning,) = report.warnings
    assert warning.startswith(
        "“**Secret:** the harbourmaster takes bribes.” (under The Harbour) reads as a secret"
    )
    assert "add (GM only) to that section's heading" in warning
    plain = await service.import_bytes(
        campaign, "plain.md", WITH_SECRET.replace("Greyhaven", "Saltby").encode()
    )
    assert plain.warnings == []
