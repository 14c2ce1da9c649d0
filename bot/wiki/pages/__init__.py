"""The wiki's pages, one module per family: the journal, entities, scenes, search, the GM's own pages."""
