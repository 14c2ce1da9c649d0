"""Application services: the use cases the cogs and the command line call, each owning its transactions —
canon lookups, proposals and their review (`canon_service`, `proposal_service`, over the campaign's canon seen
through `canon_access`), importing lore files (`lore_service`, `structured_import`), answering `/lore ask`
(`lore_answer`), the GM's notes (`gm_notes`) and drawing pictures of the canon (`pictures`). `bot.app` builds
them from the settings."""
