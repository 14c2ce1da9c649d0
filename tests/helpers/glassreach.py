"""Glassreach: a small world of our own, written as a game master writes one from the user docs alone (a calendar
with a GM-only sub-era, a guild whose masters are titles on its people, a lamp passed from hand to hand, marriages,
an adoption, a treaty whose terms the GM keeps, a death whose truth the GM keeps, a bible naming the money), for the
/lore answers its GM would ask of it. Lines marked "# secret" are what a player may not read (`public_written`)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli.main import app

CAMPAIGN = "glassreach"
FILES = {
    "calendar": """
kind: calendar
eras:
  - {name: The Age of Ash, abbreviation: AA, start: 1, end: 99}
  - {name: The Kindled Count, abbreviation: KC, start: 100}
  - name: The Grey Stewardship  # secret
    abbreviation: GS  # secret
    start: 300  # secret
    end: 310  # secret
    parent_era: The Kindled Count  # secret
    visibility: gm_only  # secret
    description: The years when Osk Marrow ruled the Reach from behind the steward's chair.  # secret
months: [{name: Thaw, days: 30}, {name: Bloom, days: 30}, {name: Reap, days: 30}, {name: Rime, days: 30}]
today: 2 Reap, 340 KC
""",
    "places": """
kind: gazetteer
locations:
  - name: Ember Hall
  - name: Highfold
  - name: Grey Mere
""",
    "folk": """
kind: characters
characters:
  - name: Edda Holm
    sex: female
    born: 80 AA
    died: 150 KC
    titles:
      - {title: Warden of the Glassmakers' Guild, from: 110 KC, to: 140 KC}
  - name: Tam Reed
    sex: male
    born: 120 KC
    faction: The Glassmakers' Guild
    titles:
      - {title: Warden of the Glassmakers' Guild, from: 140 KC, to: 200 KC}
  - name: Ysa Reed
    sex: female
    born: 170 KC
    faction: The Glassmakers' Guild
    titles:
      - {title: Warden of the Glassmakers' Guild, from: 200 KC}
  - name: Osk Marrow
    sex: male
    born: 240 KC
  - name: Wynn Holt
    sex: male
    aliases: [Wynn the Wanderer]
    born: 280 KC
    status: missing
  - name: Ilse Fairweather
    sex: female  # secret
    gm_only: [sex]  # secret
    born: 282 KC
    status: missing
""",
    "guild": """
kind: factions
factions:
  - name: The Glassmakers' Guild
    founder: Edda Holm
    founded: 110 KC
    leader: Ysa Reed
    members: [Tam Reed, Ysa Reed]
""",
    "holts": """
kind: family tree
name: House Holt
members:
  - name: Bran Holt
    sex: male
    born: 250 KC
    died: 9 Bloom, 300 KC
    died_at: Grey Mere
    cause_of_death: held under the water by a hired blade
    public_cause_of_death: drowned when his boat overturned on the Grey Mere
    killed_by: Osk Marrow  # secret
    gm_only: [killed_by]  # secret
    spouses:
      - {name: Mave Holt, married: 4 Reap, 285 KC}
      - {name: Lida Holt, married: 270 KC}
  - name: Lida Holt
    sex: female
    lineage: null
    maiden_name: Lida Crane
    born: 252 KC
    died: 280 KC
  - name: Mave Holt
    sex: female
    lineage: null
    maiden_name: Mave Sorrel
    born: 262 KC
  - name: Cole Holt
    sex: male
    born: 272 KC
    parents: [Bran Holt, Lida Holt]
    spouse: {name: Neve Holt, married: 5 Bloom, 305 KC}
  - name: Neve Holt
    sex: female
    lineage: null
    born: 280 KC
  - name: Pip Sorrel
    sex: male
    born: 312 KC
    adoptive_parents:
      - {name: Cole Holt, adopted: 3 Thaw, 318 KC}
      - {name: Neve Holt, adopted: 3 Thaw, 318 KC}
""",
    "things": """
kind: items
items:
  - name: The Lamp of First Dawn
    held_by: Cole Holt
    held_since: 1 Rime, 301 KC
    holders:
      - {name: Edda Holm, from: 110 KC, to: 140 KC}
      - {name: Bran Holt, from: 270 KC, to: 300 KC}
      - {name: Osk Marrow, from: 300 KC, to: 301 KC, gm_only: true}  # secret
""",
    "chronicle": """
kind: timeline
events:
  - name: The Kiln Fall
    date: 14 Reap, 285 KC
    location: Ember Hall
    description: The kiln roof fell during a firing and killed six glassmakers.
  - name: The Wedding of Cole and Neve
    date: 5 Bloom, 305 KC
    location: Highfold
    participants: [Cole Holt, Neve Holt]
    description: Cole Holt wed Neve in the great hall.
  - name: The Wedding of Bran and Mave
    date: 4 Reap, 285 KC
    location: Grey Mere  # secret
    gm_only: [location, description]  # secret
    participants: [Bran Holt, Mave Holt]
    description: Bran Holt wed Mave Sorrel on a boat on the mere.  # secret
  - name: The Hiring of the Blade  # secret
    date: 1 Rime, 285 KC  # secret
    location: Grey Mere  # secret
    description: Osk Marrow paid a blade to wait by the Grey Mere.  # secret
    visibility: gm_only  # secret
  - name: The Pact of Greymere
    date: 20 Reap, 290 KC
    location: Highfold
    participants: [Bran Holt, Osk Marrow]
    outcome: peace between the Holts and the Marrows, the mere's fish shared half and half
    terms: the fish are shared; and should a Holt die leaving a child heir, a Marrow shall sit as steward  # secret
    gm_only: [terms]  # secret
""",
}
BIBLE = """# Glassreach

## The Market

Glassreach trades in blue glass and salt fish. Money is the shard, a chip of blue glass; a hundred shards make one
bar of silver.
"""


def import_glassreach(campaign: str, folder: Path, files: dict[str, str]) -> CliRunner:
    """Return a runner on the test's database with Glassreach written into `folder` and imported as its GM does:
    every YAML file in one import, the calendar first, then the bible as Canon."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", campaign]).exit_code == 0
    folder.mkdir()
    paths = []
    for name, text in files.items():
        path = folder / f"{name}.yaml"
        path.write_text(text.lstrip(), encoding="utf-8")
        paths.append(str(path))
    said = runner.invoke(app, ["ingest", *paths, "-c", campaign])
    assert said.exit_code == 0 and "No warnings." in said.output, said.output
    bible = folder / "bible.md"
    bible.write_text(BIBLE, encoding="utf-8")
    said = runner.invoke(app, ["ingest", str(bible), "-c", campaign, "--class", "canon"])
    assert said.exit_code == 0, said.output
    return runner
