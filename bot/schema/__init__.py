"""The database schema: applying the Alembic migrations of `bot/migrations` and the metadata of every table
(`database`), and the SQL tables of the operations side (`ops_tables`), of channel bindings
(`branch_tables`) and of where review cards were posted (`review_cards`)."""
