"""The bot played without Discord.

Two rooms, both outside the application core and both around the real bot rather than part of it:

- `emulator`: a local Discord (REST API v10 and gateway) the real discord.py client connects to. The tests, the
  benches and the demos drive it; it is not started in production.
- `sandbox`: `lorekeeper sandbox`, the whole bot in a browser against the emulator, where you are the GM or one of
  three players. A shipped feature (`docs/sandbox.md`), not a test tool.
"""
