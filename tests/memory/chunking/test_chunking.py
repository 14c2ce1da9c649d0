"""The markdown chunker: heading paths, blocks kept whole or split, overlap, limits, offsets, inert text."""

from __future__ import annotations

import hashlib
import itertools
import random
import re
import statistics
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from memory.chunking import CHUNKING_VERSION, Chunk, ChunkingOptions, chunk_markdown, inert_markdown
from memory.tokens import count_tokens
from tests.helpers.paths import SHARED

SRD51 = SHARED / "corpora" / "srd" / "raw" / "srd51-wiki"
SRD52 = SHARED / "corpora" / "srd" / "raw" / "srd52" / "src"

# min_tokens=1: no section is ever "small", so every section keeps its own chunk.
SEPARATE = ChunkingOptions(min_tokens=1, max_tokens=200, overlap_tokens=20)


def words(count: int, seed: int) -> str:
    rng = random.Random(seed)
    vocabulary = ["amber", "river", "stone", "lantern", "quiet", "harbor", "ember", "winter", "falcon"]
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def body(chunk: Chunk) -> str:
    return chunk.display_text if chunk.display_text is not None else chunk.text


def chunk_with(chunks: list[Chunk], marker: str) -> Chunk:
    found = [chunk for chunk in chunks if marker in chunk.text]
    assert len(found) == 1, f"{marker!r} is in {len(found)} chunks"
    return found[0]


def check_invariants(document: str, chunks: list[Chunk], options: ChunkingOptions) -> None:
    """Limits, counts, hashes, indexes, offsets, and coverage of every non-blank character."""
    covered = bytearray(len(document))
    for index, chunk in enumerate(chunks):
        assert chunk.index == index
        assert chunk.token_count == count_tokens(chunk.text)
        assert chunk.token_count <= options.max_tokens, (chunk.heading_path, chunk.token_count)
        assert chunk.content_hash == hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
        assert 0 <= chunk.char_start < chunk.char_end <= len(document)
        assert chunk.text.endswith(body(chunk))
        covered[chunk.char_start : chunk.char_end] = b"\x01" * (chunk.char_end - chunk.char_start)
    # A byte-order mark is not text; everything else that is not blank must be in some chunk.
    missing: list[int] = []
    position = covered.find(0)
    while position != -1 and len(missing) < 5:
        if not document[position].isspace() and document[position] != "\ufeff":
            missing.append(position)
        position = covered.find(0, position + 1)
    assert not missing, f"uncovered text at {missing[:5]}: {document[missing[0] : missing[0] + 40]!r}"


# ------------------------------------------------------------------------------------------ headings


def test_heading_paths_follow_levels_up_down_and_skipped() -> None:
    document = "\n\n".join(
        [
            "Preamble before any heading MARK0.",
            "# Book",
            "Book intro MARK1.",
            "## Part One",
            "Part one text MARK2.",
            "#### Deep Skip",
            "Skipped levels MARK3.",
            "### Chapter A",
            "Chapter text MARK4.",
            "## Part Two ##",
            "Part two text MARK5.",
            "# Appendix",
            "###### Tiny",
            "Tiny text MARK6.",
            "## Glossary Notes",
            "Back up a level MARK7.",
        ]
    )
    chunks = chunk_markdown(document, "My Book", SEPARATE)
    expected = {
        "MARK0": [],
        "MARK1": ["Book"],
        "MARK2": ["Book", "Part One"],
        "MARK3": ["Book", "Part One", "Deep Skip"],
        "MARK4": ["Book", "Part One", "Chapter A"],
        "MARK5": ["Book", "Part Two"],
        "MARK6": ["Appendix", "Tiny"],
        "MARK7": ["Appendix", "Glossary Notes"],
    }
    for marker, path in expected.items():
        assert chunk_with(chunks, marker).heading_path == path, marker
    # The text carries the heading lines above the chunk; a chunk with no heading gets the title.
    assert chunk_with(chunks, "MARK4").text.startswith("# Book\n## Part One\n\n### Chapter A\n\n")
    assert chunk_with(chunks, "MARK0").text.startswith("My Book\n\n")
    check_invariants(document, chunks, SEPARATE)


def test_setext_headings_and_front_matter() -> None:
    document = (
        "---\ntitle: not a heading\n---\n\nWorld Bible\n===========\n\nIntro MARK1.\n\n"
        "The North\n---------\n\nCold MARK2.\n\n- a list item\n---\n\nAfter the rule MARK3.\n"
    )
    chunks = chunk_markdown(document, "t", SEPARATE)
    assert chunk_with(chunks, "MARK1").heading_path == ["World Bible"]
    assert chunk_with(chunks, "MARK2").heading_path == ["World Bible", "The North"]
    # "---" under a list item is a thematic break, not a heading.
    assert chunk_with(chunks, "MARK3").heading_path == ["World Bible", "The North"]
    assert chunk_with(chunks, "title: not a heading").heading_path == []
    check_invariants(document, chunks, SEPARATE)


def test_headings_inside_fenced_code_are_not_headings() -> None:
    document = (
        "# Real\n\nBefore MARK1.\n\n```markdown\n# Fake One\n## Fake Two\n```\n\n"
        "~~~~\n### Fake Three\n```\n## Still code\n~~~~\n\n## Real Two\n\nAfter MARK2.\n\n"
        "````\n# Unclosed fence runs to the end\n\n## Fake Four\n"
    )
    chunks = chunk_markdown(document, "t", SEPARATE)
    paths = {tuple(chunk.heading_path) for chunk in chunks}
    assert all("Fake" not in title for path in paths for title in path)
    assert chunk_with(chunks, "# Fake One").heading_path == ["Real"]
    assert chunk_with(chunks, "## Still code").heading_path == ["Real"]
    assert chunk_with(chunks, "MARK2").heading_path == ["Real", "Real Two"]
    assert chunk_with(chunks, "## Fake Four").heading_path == ["Real", "Real Two"]
    check_invariants(document, chunks, SEPARATE)


def test_heading_titles_lose_markup_but_keep_their_words() -> None:
    document = "# **Aid** #\n\nA spell.\n\n## [Sahuagin](https://example.org/s) {#sahuagin}\n\nSea devils."
    chunks = chunk_markdown(document, "t", SEPARATE)
    assert [chunk.heading_path for chunk in chunks] == [["Aid"], ["Aid", "Sahuagin"]]


def test_glossary_entries_each_get_their_own_chunk() -> None:
    """One `## Name` per monster: never merged, even though each is far below min_tokens."""
    names = ["Aboleth", "Kobold", "Sahuagin", "Sahuagin Priestess", "Troll", "Vrock"]
    sections = [
        f"## {name}\n\n*Medium monstrosity.* {words(25, i)}\n\n### Actions\n\n"
        f"***Bite.*** {name} bites. {words(15, i + 50)}"
        for i, name in enumerate(names)
    ]
    document = "# Monsters A-Z\n\nA list of monsters.\n\n" + "\n\n".join(sections)
    chunks = chunk_markdown(document, "Bestiary")
    by_last = {chunk.heading_path[-1]: chunk for chunk in chunks}
    for name in names:
        chunk = by_last[name]
        assert chunk.heading_path == ["Monsters A-Z", name]
        # "Actions" repeats under every monster: it is a label, packed with its monster.
        assert f"{name} bites." in chunk.text
        assert sum(1 for other in names if f"## {other}\n" in chunk.text) == 1
    assert not any(chunk.heading_path[-1:] == ["Actions"] for chunk in chunks)
    check_invariants(document, chunks, ChunkingOptions())


def test_small_sibling_sections_merge_under_a_non_glossary_parent() -> None:
    document = "# Mira the Smith\n\nA smith. MARK0\n\n## Goals\n\nGold. MARK1\n\n## Secret\n\nA debt. MARK2"
    chunks = chunk_markdown(document, "NPCs")
    assert len(chunks) == 1
    assert chunks[0].heading_path == ["Mira the Smith"]
    assert all(marker in chunks[0].text for marker in ("MARK0", "MARK1", "MARK2"))


def test_a_big_section_is_split_with_overlap_and_keeps_its_path() -> None:
    paragraphs = [
        " ".join(f"Sentence {p}.{s} tells of the {words(6, p * 10 + s)}." for s in range(6))
        for p in range(12)
    ]
    document = "# Chronicle\n\n## The Long War\n\n" + "\n\n".join(paragraphs)
    options = ChunkingOptions(min_tokens=50, max_tokens=300, overlap_tokens=40)
    chunks = chunk_markdown(document, "t", options)
    assert len(chunks) >= 3
    assert {tuple(chunk.heading_path) for chunk in chunks} == {("Chronicle", "The Long War")}
    for previous, current in itertools.pairwise(chunks):
        assert current.char_start < previous.char_end, "no overlap"
        overlap = document[current.char_start : previous.char_end]
        assert body(previous).endswith(overlap)
        assert body(current).startswith(overlap)
        assert 0 < count_tokens(overlap) <= options.overlap_tokens
        assert re.match(r"Sentence \d+\.\d+ ", overlap), "overlap should start at a sentence"
        # Continuation pieces repeat the whole heading path as context.
        assert current.text.startswith("# Chronicle\n## The Long War\n\n")
    check_invariants(document, chunks, options)


# ------------------------------------------------------------------------------------------ blocks


def table(rows: int, seed: int = 0) -> str:
    lines = ["| Name | Cost | Weight | Notes |", "|:-----|-----:|:------:|-------|"]
    lines += [f"| Item{i} | {i} gp | {i % 7} lb | {words(4, seed + i)} |" for i in range(rows)]
    return "\n".join(lines)


def test_a_table_that_fits_stays_whole() -> None:
    before = "\n\n".join(words(60, i) for i in range(4))
    after = "\n\n".join(words(60, i + 10) for i in range(4))
    document = f"# Gear\n\n{before}\n\n{table(25)}\n\n{after}"
    options = ChunkingOptions(min_tokens=50, max_tokens=500, overlap_tokens=30)
    chunks = chunk_markdown(document, "t", options)
    assert len(chunks) >= 2
    holder = chunk_with(chunks, "| Item0 |")
    assert table(25) in holder.text
    check_invariants(document, chunks, options)


def test_a_big_table_is_split_by_rows_with_its_header_repeated() -> None:
    document = f"# Price List\n\nEverything a shop sells.\n\n{table(150)}\n\nPrices may vary."
    options = ChunkingOptions(min_tokens=50, max_tokens=300, overlap_tokens=30)
    chunks = chunk_markdown(document, "t", options)
    header = "| Name | Cost | Weight | Notes |\n|:-----|-----:|:------:|-------|\n"
    holders = [chunk for chunk in chunks if "| Item" in chunk.text]
    assert len(holders) >= 4
    for chunk in holders:
        table_part = body(chunk)[body(chunk).index("| Name |") :]
        assert table_part.startswith(header)
    for i in range(150):
        assert sum(f"| Item{i} |" in chunk.text for chunk in chunks) == 1, i
    check_invariants(document, chunks, options)


def test_a_big_code_block_is_split_by_lines_with_its_fence_repeated() -> None:
    code = "\n".join(f"    spawn('goblin_{i}', hp={i % 9 + 3})  # {words(3, i)}" for i in range(120))
    document = f"# Script\n\n```python\n{code}\n```\n\nThe end."
    options = ChunkingOptions(min_tokens=50, max_tokens=300, overlap_tokens=30)
    chunks = chunk_markdown(document, "t", options)
    holders = [chunk for chunk in chunks if "spawn(" in chunk.text]
    assert len(holders) >= 3
    for chunk in holders:
        assert body(chunk).startswith("```python\n") or body(chunk).startswith("# Script\n\n```python\n")
        assert "\n```" in body(chunk)
    for i in range(120):
        assert sum(f"'goblin_{i}'" in chunk.text for chunk in chunks) == 1
    check_invariants(document, chunks, options)


# ------------------------------------------------------------------------------------------ inert text


def test_images_become_alt_text_and_links_stay_inert_text() -> None:
    document = (
        "# Handout\n\n"
        'A map: ![The old map](https://tracker.example/pixel.png "title") and '
        "![](./local/image.jpg) and ![ref style][logo].\n\n"
        "<p>Inline <img src='https://tracker.example/x.gif' alt=\"a wyvern\" width=1> here.</p>\n\n"
        "See [the wiki](https://wiki.example/page?a=1) or <https://auto.example/>.\n\n"
        "<script>alert(1)</script>\n\n"
        "```\n![kept in code](https://code.example/c.png)\n```\n"
    )
    chunks = chunk_markdown(document, "t")
    text = "\n".join(chunk.text for chunk in chunks)
    assert "tracker.example" not in text
    assert "local/image.jpg" not in text
    assert "[image: The old map]" in text
    assert "[image]" in text
    assert "[image: ref style]" in text
    assert "[image: a wyvern]" in text
    assert "[the wiki](https://wiki.example/page?a=1)" in text
    assert "<https://auto.example/>" in text
    assert "<script>alert(1)</script>" in text
    assert "![kept in code](https://code.example/c.png)" in text
    check_invariants(document, chunks, ChunkingOptions())


# ------------------------------------------------------------------------------------------ offsets


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_offsets_point_at_the_source_of_each_chunk(newline: str) -> None:
    paragraphs = [f"Paragraph {i}. " + words(70, i) + "." for i in range(10)]
    document = newline.join(
        ["# Title", "", "Intro ![pic](http://x.example/p.png) text.", "", "## Section", ""]
        + [line for paragraph in paragraphs for line in (paragraph, "")]
    )
    options = ChunkingOptions(min_tokens=50, max_tokens=250, overlap_tokens=30)
    chunks = chunk_markdown(document, "t", options)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert inert_markdown(document[chunk.char_start : chunk.char_end]) == body(chunk)
    check_invariants(document, chunks, options)


# ------------------------------------------------------------------------------------------ odd input


def test_empty_and_blank_documents_have_no_chunks() -> None:
    assert chunk_markdown("", "t") == []
    assert chunk_markdown(" \n\r\n\t\n", "t") == []


def test_a_document_without_headings() -> None:
    document = "\n\n".join(words(80, i) for i in range(20))
    options = ChunkingOptions()
    chunks = chunk_markdown(document, "Loose Notes", options)
    assert len(chunks) >= 2
    assert all(chunk.heading_path == [] for chunk in chunks)
    assert all(chunk.text.startswith("Loose Notes\n\n") for chunk in chunks)
    check_invariants(document, chunks, options)


def test_a_document_of_headings_only() -> None:
    chunks = chunk_markdown("# Classes\n## Empty\n", "t")
    assert len(chunks) == 1
    assert chunks[0].text == "# Classes\n## Empty"


def test_a_50000_character_line_without_spaces() -> None:
    rng = random.Random(7)
    line = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzéß0123456789") for _ in range(50_000))
    options = ChunkingOptions()
    chunks = chunk_markdown(line, "t", options)
    assert len(chunks) > 10
    # Cut between tokens: the pieces put back together are the line, and each fits.
    assert "".join(body(chunk) for chunk in chunks) == line
    check_invariants(line, chunks, options)


def test_zero_width_right_to_left_and_other_unicode() -> None:
    document = (
        "\ufeff# \u200bשלום עולם\u202e\n\nמה שלומך? \u200f\u202bنص عربي\u202c zero\u200bwidth "
        "👩\u200d👩\u200d👧 e\u0301\u0301\u0301 \U0001f409\n\n## 日本語の見出し\n\n本文です。"
        "改行なしの長い文章が続きます。\n\nlone \ud800 surrogate\u0000NUL\x1b[31m"
    )
    chunks = chunk_markdown(document, "Unicode", SEPARATE)
    assert [chunk.heading_path for chunk in chunks] == [["שלום עולם"], ["שלום עולם", "日本語の見出し"]]
    assert "\u202bنص عربي\u202c" in chunks[0].text  # content keeps its controls; titles drop them
    assert "\ud800" not in "".join(chunk.text for chunk in chunks)
    check_invariants(document, chunks, SEPARATE)


def test_random_messy_documents_respect_every_invariant() -> None:
    rng = random.Random(42)
    pieces: list[Callable[[], str]] = [
        lambda: "#" * rng.randint(1, 7) + " " + words(rng.randint(0, 6), rng.randint(0, 999)),
        lambda: words(rng.randint(1, 400), rng.randint(0, 999)),
        lambda: table(rng.randint(0, 90), rng.randint(0, 999)),
        lambda: "```\n" + "\n".join(words(8, i) for i in range(rng.randint(0, 150))) + "\n```",
        lambda: "x" * rng.randint(1, 9000),
        lambda: "Title\n" + rng.choice(["===", "---"]),
        lambda: "- " + "\n- ".join(words(10, i) for i in range(rng.randint(1, 80))),
        lambda: "![img](http://e.example/i.png) <img alt='x' src=y> [l](http://l.example)",
    ]
    for size in (50, 120, 400):
        options = ChunkingOptions(min_tokens=min(size, 300) // 2, max_tokens=size, overlap_tokens=size // 10)
        for _ in range(4):
            newline = rng.choice(["\n", "\r\n"])
            document = (newline * 2).join(rng.choice(pieces)() for _ in range(rng.randint(1, 25)))
            chunks = chunk_markdown(document, "t", options)
            check_invariants(document, chunks, options)
            assert "e.example" not in "".join(chunk.text for chunk in chunks)


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError):
        ChunkingOptions(min_tokens=900, max_tokens=800)
    with pytest.raises(ValidationError):
        ChunkingOptions(max_tokens=10)
    assert ChunkingOptions(min_tokens=50, max_tokens=100, overlap_tokens=90).effective_overlap == 25
    assert CHUNKING_VERSION


# ------------------------------------------------------------------------------------------ corpora


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(
            f"shared corpus not found at {path} (tests read ../shared in place; it is not in the repo)"
        )
    return path


def test_the_srd51_wiki_tree_chunks_sanely() -> None:
    root = require(SRD51)
    options = ChunkingOptions()
    files = sorted(path for path in root.rglob("*.md") if path.is_file())
    assert len(files) > 1000
    sizes: list[int] = []
    for path in files:
        document = path.read_text(encoding="utf-8")
        chunks = chunk_markdown(document, path.stem, options)
        if document.strip():
            assert chunks, path
        check_invariants(document, chunks, options)
        sizes += [chunk.token_count for chunk in chunks]
        if path.name == "Sahuagin.md":
            assert any(chunk.heading_path[-1:] == ["Sahuagin"] for chunk in chunks)
    assert 100 < statistics.mean(sizes) < 600
    assert max(sizes) <= options.max_tokens


def test_the_srd52_concatenation_chunks_sanely() -> None:
    root = require(SRD52)
    files = sorted(root.rglob("*.md"), key=lambda path: path.relative_to(root).as_posix())
    document = "\n\n".join(path.read_text(encoding="utf-8") for path in files)
    assert len(document) > 1_000_000
    options = ChunkingOptions()
    chunks = chunk_markdown(document, "SRD 5.2", options)
    check_invariants(document, chunks, options)
    sizes = [chunk.token_count for chunk in chunks]
    assert 1000 < len(chunks) < 4000
    assert 100 < statistics.mean(sizes) < 600
    targets = {
        ("Monsters A–Z", "Sahuagin Warrior"),
        ("Spells", "Spell Descriptions", "F Spells", "Fireball"),
        ("Rules Glossary", "Rules Definitions", "Advantage"),
    }
    found = {tuple(chunk.heading_path) for chunk in chunks}
    missing = [target for target in targets if not any(path[-len(target) :] == target for path in found)]
    assert not missing
