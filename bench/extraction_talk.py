"""The speakers and the table talk of the scripted extraction scenes: dice, rules, snacks, idle plans, weather."""

from __future__ import annotations

P, G, N = "player", "gm", "narrator"

# Table talk that establishes nothing a careful GM would make canon: dice, rules, snacks, idle plans, weather.
BANTER: list[tuple[str, str, str]] = [
    (
        P,
        "Pat",
        "I roll for perception. Fourteen, plus two. Do I notice anything in the room, or is it just people "
        "drinking and talking about the weather?",
    ),
    (
        G,
        "Gina",
        "Nothing out of the ordinary. People drink, talk about the weather and complain about the price of salt.",
    ),
    (
        P,
        "Quinn",
        "Quick rules question: does my advantage from inspiration stack with the bonus from the bard's song, or "
        "do I just take the better one?",
    ),
    (
        G,
        "Gina",
        "Take the better one, they don't stack. We can look it up properly after the session if you want.",
    ),
    (
        P,
        "Pat",
        "Can someone pass the crisps? And does anyone want more tea before we carry on with the scene?",
    ),
    (
        P,
        "Quinn",
        "I keep an eye on the door and nurse my drink. If anyone comes in I want to see them before they see me.",
    ),
    (
        G,
        "Gina",
        "Time drags on. A fire crackles somewhere, a dog snores, and the rain keeps drumming on the roof.",
    ),
    (
        P,
        "Pat",
        "Maybe we should look for work tomorrow and ask around? Or we could just rest. I don't know yet.",
    ),
    (
        P,
        "Quinn",
        "Let's decide tomorrow. I'd rather not make plans while my character is this tired and grumpy, honestly.",
    ),
    (
        P,
        "Pat",
        "How much money do we have left after today? I want to buy new boots at some point, mine are awful.",
    ),
    (
        G,
        "Gina",
        "About thirty silver between you. The boots will have to wait until somebody pays you for something.",
    ),
    (P, "Quinn", "I hum an old song under my breath and tap along on the table with my fingers, badly."),
    (
        P,
        "Pat",
        "Out of character: I need to leave by eleven tonight, so let's keep an eye on the time, please.",
    ),
    (
        G,
        "Gina",
        "Noted, we'll stop at a good point. Back in the scene: for a long while nothing much happens.",
    ),
    (P, "Pat", "I try to remember whether we locked the wagon. Can I make a memory check, or is that silly?"),
    (G, "Gina", "Roll it if you like. Eleven: you honestly can't remember, which is not very reassuring."),
]


def table_talk(count: int, start: int = 0) -> list[tuple[str, str, str]]:
    """Return `count` turns of table talk (from `BANTER`, starting at `start`)."""
    return [BANTER[(start + n) % len(BANTER)] for n in range(count)]
