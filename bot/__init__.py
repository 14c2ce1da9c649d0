"""Lorekeeper's composition root: the Discord client, the command line, the services and operations.

Each subpackage says what it holds in its own docstring; docs/development.md maps them.
"""
