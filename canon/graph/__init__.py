"""The canon graph of one campaign (or branch), read and written as of any point.

`CanonReader` answers questions: resolve a name, an entity's card, its timeline, what depends on a fact, the
neighbourhood within n hops. `CanonWriter` appends rows under one changeset. Both see a campaign through its
lineage (see `canon.campaigns`): a branch reads its ancestors' rows up to its fork point, never later ones,
and writes only its own.

The modules, bottom up:
- `keys`: names folded for matching, statements' place in story order;
- `lineage`: the SQL conditions for rows seen through a lineage, and for rows valid at an as-of point;
- `rows`: rows as values (`RowReader`), the columns a validity fills, rows joined with their retcons;
- `reads`: `LineageReader`, the entities, statements and evidence one viewer may see;
- `naming`: which entity a typed name means for one viewer, and the words that tell several apart;
- `name_lookup`: `NameLookup`, entities found by exact name, alias or key, by close spelling, for autocomplete;
- `reader`: `CanonReader`, the questions asked of them;
- `bulk`: many rows in one insert, with or without their new ids;
- `writer`: `CanonWriter`.
"""

from canon.graph.bulk import bulk_insert, insert_returning_ids
from canon.graph.keys import fold, statement_sort_key, validity_sort_key
from canon.graph.lineage import in_lineage, lineage_filter
from canon.graph.name_lookup import NameRows, visible_names
from canon.graph.reader import FUZZY_CUTOFF, CanonReader, believed_at
from canon.graph.reads import LineageReader
from canon.graph.rows import (
    AUTHORITY_OF,
    PROVENANCE_COLUMNS,
    RETCON_COLUMNS,
    STATEMENT_KIND_OF,
    VALIDITY_COLUMNS,
    VISIBILITY_OF,
    RowReader,
    validity_columns,
)
from canon.graph.writer import CanonWriter, NewEntity

__all__ = [
    "AUTHORITY_OF",
    "FUZZY_CUTOFF",
    "PROVENANCE_COLUMNS",
    "RETCON_COLUMNS",
    "STATEMENT_KIND_OF",
    "VALIDITY_COLUMNS",
    "VISIBILITY_OF",
    "CanonReader",
    "CanonWriter",
    "LineageReader",
    "NameRows",
    "NewEntity",
    "RowReader",
    "believed_at",
    "bulk_insert",
    "fold",
    "in_lineage",
    "insert_returning_ids",
    "lineage_filter",
    "statement_sort_key",
    "validity_columns",
    "validity_sort_key",
    "visible_names",
]
