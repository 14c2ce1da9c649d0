"""A GM imports world files on Discord and reads every problem in plain words, at the line their editor shows;
a file of two kinds is told where its `---` goes, and imports once split."""

from __future__ import annotations

from tests.e2e.canon_flow import embed_text
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_continuity_e2e import import_yaml

pytestmark = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)

WOLVES = "creatures:\n  - name: Grey Wolf\n    size medium\n    habitat: Eastwood\n"
KINGDOM = "name: The Kingdom of Valdorn\nstart: 1\npeople:\n  - name: Ser Aldric\n"


async def test_a_gm_reads_import_problems_in_plain_words(world: World) -> None:
    broken = embed_text((await import_yaml(world, "wolves.yaml", WOLVES)).embeds[0])
    assert "1 problem in wolves.yaml; nothing was written." in broken, broken
    assert (
        "wolves.yaml: line 3, column 5: this line has a name but no colon after it: a field is written "
        "`name: value` (like `size: medium`)"
    ) in broken, broken
    for jargon in ("(s)", "simple key", "could not find expected", "slug", "house_vyr"):
        assert jargon not in broken

    kingdom = embed_text((await import_yaml(world, "valdorn.yaml", KINGDOM)).embeds[0])
    assert "1 problem in valdorn.yaml; nothing was written." in kingdom, kingdom
    assert (
        "this file has no `kind:` line, and its top-level keys (name, start, people) do not say which kind of "
        "world file it is: say which one in a line such as `kind: timeline` at the top; the kinds are timeline, "
        "family tree, gazetteer, bestiary, magic system, culture, characters, factions and items"
    ) in " ".join(kingdom.split()), kingdom


MIXED = "characters:\n  - name: Ann Reed\n    home: Mill Town\nlocations:\n  - name: Mill Town\n    population: 300\n"


async def test_a_gm_told_where_to_split_a_file_of_two_kinds_imports_it_split(world: World) -> None:
    mixed = " ".join(embed_text((await import_yaml(world, "world.yaml", MIXED)).embeds[0]).split())
    assert "1 problem in world.yaml; nothing was written." in mixed, mixed
    assert (
        "each kind needs a part of its own: put a line `---` (three dashes alone on the line, at its left edge) "
        "before `locations:` (line 4), or put each kind in its own file"
    ) in mixed, mixed
    split = MIXED.replace("locations:", "---\nlocations:")
    done = " ".join(embed_text((await import_yaml(world, "world.yaml", split)).embeds[0]).split())
    assert "Imported 1 place, 1 person and 2 facts from world.yaml." in done, done
