"""Numbers written in words, the one table of them: each reader takes what it reads ("a" as one in an amount,
"second" as a time and not an ordinal in a question, ...). Pure."""

from __future__ import annotations

__all__ = ["CARDINALS", "ORDINALS", "TENS"]

#: "zero" to "nineteen".
CARDINALS = {
    w: n
    for n, w in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
            *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"),
            "nineteen",
        )
    )
}
#: "twenty" to "ninety".
TENS = {
    w: n
    for n, w in zip(
        range(20, 100, 10),
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"),
        strict=True,
    )
}
#: "first" to "nineteenth", and "twentieth" to "ninetieth".
ORDINALS = {
    **{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8},
    **{"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12},
    **{f"{w}th": n for w, n in CARDINALS.items() if 13 <= n <= 19},
    **{f"{w[:-1]}ieth": n for w, n in TENS.items()},
}
