"""The `lorekeeper` command line (typer): `main` holds the app, `run`, `sandbox`, `db` and `campaign`, and adds
each command group from its own module (`archive`, `branches`, `canon`, `lore`, `ops`, `render`, `voice`); every
module shares the helpers of `common` (settings or a clear exit, errors as messages, JSON or text, services) and
none imports `main`, so the modules form no circle."""
