"""The checks an import runs on what its files say, before and beside writing them: the loader's warnings of
each file, and those across entries and files (a leader's years said two ways, a truth one entry tells otherwise
than another). Run on the files an import writes, and on those it finds unchanged, so both show them."""

from __future__ import annotations

from collections.abc import Sequence

from canon.structured.files import LoadedFile
from canon.structured.leader_spans import leader_span_warnings
from canon.structured.reports import IngestWarning
from canon.structured.standing import file_warnings
from canon.structured.told_across import told_across
from canon.wording import PLAIN, Wording


def import_checks(files: Sequence[LoadedFile], words: Wording = PLAIN) -> list[IngestWarning]:
    """Return what the checks of the files' own words find, at each file and line."""
    return [*file_warnings(files), *told_across(files), *leader_span_warnings(files, words)]
