"""The first of the two overlapping worlds of the retrieval tests, which the ranking tests search as well."""

from __future__ import annotations

ALPHA_WORLD = """# Westhaven

## The Crown of Westhaven

King Aldric Stormborn rules Westhaven from the Gull Throne. His sigil is a silver gull over black waves.

## The Old Abbey

The abbey bears a broken-circle symbol. Its monks keep the Ledger of Tides.
"""
