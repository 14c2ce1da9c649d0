"""The review card's words for what Accept all left undecided: one sentence, the next step in it."""

from __future__ import annotations

from cogs.review_words import not_accepted_note


def test_accept_all_names_every_proposal_it_left_and_the_next_step() -> None:
    one = not_accepted_note([(3, "Aldric is alive", "Aldric died in scene 1.")])
    assert one == (
        "Accept all did not accept #3 (Aldric is alive) because it conflicts with canon: Aldric died in scene 1; "
        "decide it on its own: pick it, then Accept with your reason, or Reject."
    )
    several = not_accepted_note([(1, "a", "x."), (4, "b", "y."), (6, "c", "z.")])
    assert several.startswith("Accept all did not accept #1, #4 and #6 because each conflicts with canon")
    assert several.endswith("decide each on its own: pick it, then Accept with your reason, or Reject.")
    assert several.count(".") == 1  # one sentence
