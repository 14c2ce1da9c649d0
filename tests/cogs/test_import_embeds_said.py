"""What the Discord import reply says beside its counts: that the checks found nothing, and how a prose file
imported as Reference becomes canon."""

from __future__ import annotations

from canon.structured.reports import ChangeCounts, FileReport, IngestReport, IngestWarning
from cogs import lore_import_embeds
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ImportOutcome
from tests.cogs.test_lore_embeds import import_report, source
from tests.helpers.lore_samples import text_of


def _yaml_report(status: str, warnings: tuple[IngestWarning, ...] = ()) -> IngestReport:
    return IngestReport(
        campaign_id=1,
        status=status,  # type: ignore[arg-type]
        files=(
            FileReport(file="folk.yaml", kind="characters", status="created", content_hash="f", entries=2),
        ),
        counts={"NPC": 2},
        entities=ChangeCounts(created=2),
        warnings=warnings,
    )


def test_a_yaml_import_without_warnings_says_so_and_one_with_them_lists_them() -> None:
    for status in ("ingested", "unchanged"):
        fields = lore_import_embeds.structured_embed(_yaml_report(status), "folk.yaml").to_dict()["fields"]
        assert {"name": "Warnings", "value": "No warnings.", "inline": False} in fields
    warned = _yaml_report("ingested", (IngestWarning(kind="truth_shown", message="folk.yaml, line 6: told"),))
    text = text_of(lore_import_embeds.structured_embed(warned, "folk.yaml"))
    assert "A truth told otherwise, left public: folk.yaml, line 6" in text and "No warnings." not in text


def test_a_new_prose_file_read_as_reference_says_how_to_make_it_canon() -> None:
    reference = text_of(lore_import_embeds.import_embed(import_report()))
    assert "`class:canon`" in reference
    canon = import_report(source=source(4, knowledge_class=KnowledgeClass.CANON))
    assert "class:canon" not in text_of(lore_import_embeds.import_embed(canon))
    again = import_report(outcome=ImportOutcome.UPDATED)
    assert "class:canon" not in text_of(lore_import_embeds.import_embed(again))
