"""Say plainly that nothing the asker may see answers a question, in the question's own words where they allow.

"Nothing the table knows says who Ysolde's brother is.": the question turned into a clause when a word moved makes
one ("who is X" -> "who X is"), else quoted as asked ("Nothing the table knows answers “what does X do?”.").
"""

from __future__ import annotations

import re

__all__ = ["nothing_known"]

#: "What does X do?" cannot be turned into "what X does" by moving a word: such questions are quoted.
_AUXILIARIES = frozenset(
    {
        *(
            "do",
            "does",
            "did",
            "can",
            "could",
            "will",
            "would",
            "should",
            "shall",
            "may",
            "might",
            "must",
            "has",
        )
    }
    | {"have", "had"}
)


def nothing_known(question: str) -> str:
    """Return the honest "nothing known" sentence for a question, in its own words where they allow."""
    q = " ".join(question.split()).rstrip("?!. ")
    if not re.search(r"\w", q):  # "?": nothing asked, nothing to re-say
        return "Nothing the table knows answers that."
    worth = re.match(r"(?i)^(how much|what)\s+(is|are|was|were)\s+(.+?)\s+worth$", q)
    if worth and _noun_phrase(worth.group(3)):  # "how much a glim is worth"
        return f"Nothing the table knows says {worth.group(1).lower()} {worth.group(3)} {worth.group(2).lower()} worth."
    match = re.match(r"(?i)^(how (?:old|many|much|long|far|big|tall))\s+(is|are|was|were)\s+(.+)$", q)
    if match and _noun_phrase(match.group(3)):
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(3)} {match.group(2).lower()}."
    match = re.match(r"(?i)^(who|what|where|when|which|how)\s+(is|are|was|were)\s+(.+)$", q)
    if match and match.group(1).casefold() in ("who", "what") and _PASSIVE.match(match.group(3)):
        # "who was born in 999", "what was built at the ford": the question is a clause as it stands.
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(2).lower()} {match.group(3)}."
    if match and not _noun_phrase(match.group(3)):
        return f"Nothing the table knows answers “{q}?”."
    if match:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(3)} {match.group(2).lower()}."
    match = re.match(r"(?i)^(who|what|where|when|which|how|why)\s+(\w+)\b(.*)$", q)
    # "what damage does a mace deal", "what faction is Sabine in": no word moved makes these a clause.
    asks = {w.casefold() for w in q.split()[1:4]} & (_AUXILIARIES | {"is", "are", "was", "were"})
    if match and not asks:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(2)}{match.group(3)}."
    if match:
        return f"Nothing the table knows answers “{q}?”."
    return f"Nothing the table knows answers “{q}”."


#: A passive verb opening what follows "who was": "born in 999", "killed at the ford", "crowned in 412", "known as
#: the Weasel".
_PASSIVE = re.compile(
    r"(?i)^(?:born|slain|built|made|found|held|given|taken|written|sent|lost|won|fought|\w+ed)\s+"
    r"(?:in|at|on|during|by|before|after|to|with|from|for|of)\b"
    # "who is known as the Weasel", "who is called the Weasel": a name asked of someone.
    r"|^(?:(?:known|referred\s+to)\s+as|called|named|nicknamed)\s+\S"
)
#: Words that end a clause rather than a noun phrase ("where was Orrin *born*", "who is Tamsin *married to*",
#: "where is Zorn *held*").
_CLAUSE_END = re.compile(
    r"(?i)(?:ed|born|held|kept|built|lost|found|made|hid|slain|left|sent|bound|to|in|at|of|by|with|for|from|on|"
    r"about|\w+en)$"
)

#: A word that opens a clause inside what follows "who was": "Warden *when* the battle took place".
_CLAUSE_WORD = re.compile(r"(?i)\b(?:when|whenever|while|whilst|if|because|unless|until|though|although)\b")
#: A noun with no article or owner before a preposition: "warden in 470", "Keeper in 300", "king of the north".
_BARE_NOUN = re.compile(
    r"(?i)^(?!(?:the|a|an|this|that|these|those|my|your|his|her|its|our|their|each|every|any|some)\b)"
    r"[a-z][\w-]*(?<!'s)\s+(?:in|of|at|on|during|from|for|before|after|by)\b"
)


def _noun_phrase(rest: str) -> bool:
    """Return whether what follows "who is" is a noun phrase ("the lady of Saltmarch", "Tamsin's husband") that
    "Nothing the table knows says who … is" may hold, not a clause ("Tamsin married to", "older, A or B")."""
    if "," in rest or re.search(r"(?i)\b(?:or|than)\b", rest) or _CLAUSE_WORD.search(rest):
        return False
    if _BARE_NOUN.match(
        rest
    ):  # "warden in 470", "king of the north": no article, "who king of … is" is broken
        return False
    words = rest.split()
    last = words[-1]
    if len(words) == 1 or last[:1].isupper() or words[-2].casefold() in {"the", "a", "an"}:
        return True  # "the Pact of the Sunken", "the pact of the drowned"
    return not _CLAUSE_END.search(last) and not re.match(r"(?i)^(?:older|younger|bigger|taller)\b", rest)
