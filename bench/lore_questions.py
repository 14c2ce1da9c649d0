"""A large `/lore` question set made from the SRD world's own structure, phrased several ways.

Every monster, spell, piece of equipment, race, class and language of `../shared/corpora/srd/world/*.md` is a
`## Name` section whose fields are bold-led list items (`- **Armor Class** 17 (natural armor)`). Each field
becomes questions in several phrasings a player might use (full sentences, clipped "owlbear hp", slang,
misspelt names), with the field's value as the fact a right answer must hold and the section's name as the
subject it must name. Unanswerable questions ask the same things of creatures, spells and items the SRD does
not have (invented names, and well-known ones it leaves out). A hand-written set (`bench/data/lore_hand.jsonl`:
paraphrases, slang, comparisons, two-step questions, rules) joins them.

The set is deterministic (phrasings and samples are picked by a hash of each question's id), so the split into
a tuning and an untouched half (`bench.lore_quality.split`) is stable between runs.

    .venv/bin/python -m bench.lore_questions [--count]      # print the questions as JSON lines
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HAND = Path(__file__).resolve().parent / "data" / "lore_hand.jsonl"
_SECTION = re.compile(r"^## (.+)$", re.MULTILINE)
_FIELD = re.compile(r"^- \*\*([^*]+)\*\* (.+)$", re.MULTILINE)
_ITALIC = re.compile(r"^\*([^*].*)\*$", re.MULTILINE)


@dataclass(slots=True)
class Entry:
    """One `## Name` section: its file, name, italic line and bold-led fields."""

    file: str
    name: str
    tagline: str
    fields: dict[str, str] = field(default_factory=dict)


def entries(world: Path) -> list[Entry]:
    """Return every section of the world's files with its fields."""
    found: list[Entry] = []
    for path in sorted(world.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        marks = list(_SECTION.finditer(text))
        for i, mark in enumerate(marks):
            body = text[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
            tagline = _ITALIC.search(body)
            entry = Entry(path.name, mark.group(1).strip(), tagline.group(1) if tagline else "")
            entry.fields = {m.group(1).strip(): m.group(2).strip() for m in _FIELD.finditer(body)}
            found.append(entry)
    return found


def _pick(key: str, options: Sequence[str]) -> str:
    return options[hashlib.sha256(key.encode()).digest()[1] % len(options)]


def _chance(key: str, share: float) -> bool:
    return hashlib.sha256(("p" + key).encode()).digest()[2] < share * 256


def _article(name: str) -> str:
    return ("an " if name[:1].casefold() in "aeiou" else "a ") + name


def _typo(word: str, key: str) -> str:
    """Return a name with two neighbouring letters swapped (past its first three), as a hurried typist does."""
    letters = [i for i in range(3, len(word) - 1) if word[i].isalpha() and word[i + 1].isalpha()]
    if not letters:
        return word
    i = letters[hashlib.sha256(key.encode()).digest()[3] % len(letters)]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


#: Question phrasings by field, `{a}` the name with its article, `{n}` the bare name.
MONSTER = {
    "Armor Class": (
        "What is the armor class of {a}?",
        "{n} AC?",
        "What AC does {a} have?",
        "how hard is it to hit {a}, what's its armor class",
        "whats the AC on {a}",
        "Armor class of the {n}?",
    ),
    "Hit Points": (
        "How many hit points does {a} have?",
        "{n} hp",
        "how much health does {a} have",
        "What are the hit points of {a}?",
        "how many HP has the {n} got?",
    ),
    "Speed": (
        "How fast is {a}?",
        "What is the speed of {a}?",
        "{n} speed?",
        "how far can {a} move in a turn",
    ),
    "Challenge": (
        "What is the challenge rating of {a}?",
        "{n} CR",
        "what CR is {a}?",
        "How dangerous is {a}, challenge rating wise?",
    ),
    "Languages": (
        "What languages does {a} speak?",
        "which languages does the {n} know",
        "{n} languages?",
    ),
}
SPELL = {
    "Range": ("What is the range of {n}?", "{n} range?", "how far does the {n} spell reach", "range of {n}"),
    "Duration": ("How long does {n} last?", "What is the duration of {n}?", "{n} duration"),
    "Casting Time": (
        "What is the casting time of {n}?",
        "how long does it take to cast {n}",
        "{n} casting time?",
    ),
    "Classes": ("Which classes can cast {n}?", "who gets {n} on their spell list", "what classes have {n}?"),
    "Components": ("What are the components of {n}?", "{n} components", "what do I need to cast {n}?"),
    "Level": ("What level spell is {n}?", "{n} spell level?", "what level is the {n} spell"),
}
ITEM = {
    "Cost": ("How much does {a} cost?", "{n} price?", "what's the cost of {a}", "how much gold for {a}"),
    "Weight": ("How much does {a} weigh?", "{n} weight?", "what is the weight of {a}"),
    "Damage": ("What damage does {a} deal?", "{n} damage?", "how hard does {a} hit"),
    "Range": ("What is the range of {a}?", "{n} range?", "how far does {a} shoot"),
    "Armor Class": ("What armor class does {a} give?", "{n} AC?", "how much AC is {a}"),
    "Properties": ("What properties does {a} have?", "{n} properties?"),
}
RACE = {
    "Speed": ("What is the base walking speed of {a}?", "how fast does {a} walk", "{n} speed?"),
    "Languages": ("What languages does {a} know?", "{n} languages?"),
    "Size": ("What size is {a}?", "{n} size?"),
    "Ability Score Increase": ("What ability score increase does {a} get?", "{n} ASI?"),
}
CLASS = {
    "Hit Die": ("What is the hit die of {a}?", "{n} hit die?", "what hit dice does {a} use"),
    "Saving Throws": ("Which saving throws is {a} proficient in?", "{n} saves?"),
    "Spellcasting Ability": ("What is the spellcasting ability of {a}?", "{n} casting stat?"),
}
LANGUAGE = {
    "Script": ("What script is {n} written in?", "{n} script?", "which alphabet does {n} use"),
    "Typical Speakers": ("Who typically speaks {n}?", "who speaks {n}?"),
}
KINDS = {
    "bestiary.md": MONSTER,
    "spells.md": SPELL,
    "equipment.md": ITEM,
    "races.md": RACE,
    "classes.md": CLASS,
    "languages.md": LANGUAGE,
}
#: Of the many sections, the share asked about per field (deterministic sample).
SHARE = {"bestiary.md": 0.2, "spells.md": 0.18, "equipment.md": 0.3}

#: Names the SRD world does not have: invented, and well-known ones the SRD leaves out.
MISSING = {
    "bestiary.md": (
        "Beholder",
        "Mind Flayer",
        "Githyanki Knight",
        "Displacer Beast",
        "Carrion Crawler",
        "Umber Hulk",
        "Yuan-ti Abomination",
        "Frost Wyrmling Hydra",
        "Grellmoth",
        "Thornback Drake",
        "Ashen Revenant",
        "Bog Strangler",
        "Kuo-toa Whip",
        "Slaad Lord",
        "Death Tyrant",
        "Ironjaw Basilisk",
        "Mirewight",
        "Starspawn Grue",
        "Hollow Knight",
        "Cinder Wolf",
    ),
    "spells.md": (
        "Toll the Dead",
        "Booming Blade",
        "Shadow Blade",
        "Frostfire Lance",
        "Whispering Ward",
        "Chaos Bolt",
        "Silvery Barbs",
        "Ember Veil",
        "Greater Mending",
        "Arcane Tether",
        "Soul Lantern",
    ),
    "equipment.md": (
        "Musket",
        "Pistol",
        "Katana",
        "Hand Crossbow of Ice",
        "Grappling Gun",
        "Bandolier",
        "Tower Shield",
        "Spyglass Lens Kit",
        "Brass Knuckles",
        "Sword Cane",
    ),
}


def _value_facts(file: str, key: str, value: str, entry: Entry) -> list[str] | None:
    """Return the strings a right answer to one field holds (its value, trimmed to what is asked)."""
    if key == "Level":
        tag = entry.tagline.casefold()
        return ["cantrip"] if "cantrip" in tag else [tag.split()[0]] if tag else None
    if key in ("Armor Class", "Hit Points"):
        return [value.split()[0]]
    if key == "Challenge":
        return [value.split()[0]]
    if key in ("Classes", "Languages", "Saving Throws", "Properties"):
        parts = [p.strip() for p in value.split(",") if p.strip()]
        parts = [p for p in parts if "telepathy" not in p and p not in ("—", "-")]
        return parts[:2] or None
    if key == "Components":
        return [value.split("(")[0].strip().rstrip(",")]
    if key in ("Speed",) and file == "bestiary.md":
        return [value.split(",")[0].strip()]
    if key == "Damage":
        return [value.split()[0]]
    if key == "Range":
        return [value.split()[0] if file == "equipment.md" else value]
    if key == "Duration" or key == "Casting Time":
        return [value.split(",")[-1].strip() if key == "Duration" else value]
    if key in ("Cost", "Weight"):
        return [value.rstrip(".")] if not value.startswith("0 ") else None
    return [value]


def generated(world: Path) -> Iterator[dict[str, Any]]:
    """Yield the questions made from the world's structure, answerable and not."""
    for entry in entries(world):
        templates = KINDS.get(entry.file)
        if not templates:
            continue
        fields = dict(entry.fields)
        if entry.file == "spells.md":
            fields["Level"] = entry.tagline
        for key, phrasings in templates.items():
            if key not in fields:
                continue
            qid = f"g-{entry.file[:-3]}-{entry.name}-{key}".casefold().replace(" ", "_")
            if not _chance(qid, SHARE.get(entry.file, 1.0)):
                continue
            facts = _value_facts(entry.file, key, fields[key], entry)
            if not facts:
                continue
            name = entry.name if entry.file in ("spells.md", "languages.md") else entry.name.casefold()
            if _chance(qid + "typo", 0.1):
                name = _typo(name, qid)
            text = _pick(qid, phrasings).format(a=_article(name), n=name)
            yield {
                "id": qid,
                "q": text,
                "fact": facts,
                "subject": entry.name,
                "file": entry.file,
                "heading": entry.name,
                "field": key,
            }
    for file, names in MISSING.items():
        templates = KINDS[file]
        for name in names:
            for key, phrasings in list(templates.items())[:3]:
                qid = f"u-{file[:-3]}-{name}-{key}".casefold().replace(" ", "_")
                if not _chance(qid, 0.8):
                    continue
                shown = name if file == "spells.md" else name.casefold()
                text = _pick(qid, phrasings).format(a=_article(shown), n=shown)
                yield {"id": qid, "q": text, "unanswerable": True, "field": key}


def hand_written() -> list[dict[str, Any]]:
    """Return the hand-written questions (paraphrase, slang, comparisons, two-step, rules)."""
    if not HAND.is_file():
        return []
    return [json.loads(line) for line in HAND.read_text(encoding="utf-8").splitlines() if line.strip()]


def question_set(world: Path) -> list[dict[str, Any]]:
    """Return the whole set: the generated questions and the hand-written ones."""
    return [*generated(world), *hand_written()]


def main(argv: Sequence[str]) -> None:
    from bench.lore_quality import SRD, split

    world = SRD / "world"
    if not world.is_dir():
        print(json.dumps({"skipped": f"SRD corpus not found at {SRD}"}))
        return
    questions = question_set(world)
    if "--count" in argv:
        halves = split(questions)
        answerable = sum(1 for q in questions if not q.get("unanswerable"))
        print(
            json.dumps(
                {
                    "questions": len(questions),
                    "answerable": answerable,
                    "unanswerable": len(questions) - answerable,
                    **{half: len(qs) for half, qs in halves.items()},
                }
            )
        )
        return
    for q in questions:
        print(json.dumps(q, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
