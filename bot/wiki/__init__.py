"""The campaign wiki: read-only pages of a campaign on the web, each person seeing what the bot would show them.

`server` (aiohttp: routes, security headers, the link check on every request), `tokens` (personal signed links),
`context` (who reads, and where links point), `pages/` (one module per page family), `store` (its SQL),
`html` (layout and escaping), `static/` (the style sheet). Pictures at full size add routes to the server.
"""
