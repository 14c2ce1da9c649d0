"""The `lorekeeper` command line (typer): `main` holds the app, `sandbox`, `db` and `campaign`, and adds each
command group from its own module (`archive`, `branches`, `canon` with `canon_add`, `lore`, `ops`, `render`,
`voice`; `run` starts the bot, `progress` shows an import as it runs). Every module shares the helpers of
`common` (settings or a clear exit, errors as messages, JSON or text, services, plain help) and none imports
`main`, so the modules form no circle. At start they import only typer and `common`: each command imports
what it uses, so help and a mistyped command answer at once."""
