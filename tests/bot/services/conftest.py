"""Fixtures of the structured-import tests, for every test here: a campaign, the canon services and the importer.

They are defined in `tests/helpers/structured_import.py`, where tests elsewhere import them from.
"""

from tests.helpers.structured_import import campaign, canon, importer

__all__ = ["campaign", "canon", "importer"]
