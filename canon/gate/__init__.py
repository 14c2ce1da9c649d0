"""The canonization gate: proposals are drafted, reviewed one by one, and committed together with evidence.

Turns never write canon. A proposal waits (pending) until the GM accepts or rejects it; each decision is one
conditional UPDATE, so two GMs clicking at once, or a double click, make exactly one decision. Commit writes
every accepted proposal of a scene, its evidence and the decision, in the caller's single transaction, and
records the continuity findings of what it wrote. The campaign's authority policy says which authorities need
review: by default imported sources and the GM are accepted automatically, players and the system (an LLM) go
through the GM.

The modules: `drafts` (a proposal checked before it is stored), `proposal_rows` (the proposals table and its
decisions), `writing` (accepted proposals written into the graph), `commit` (the commit, its policy and its
rehearsal), `canonization` (`CanonizationGate`, which the services use).
"""

from canon.gate.canonization import CanonizationGate
from canon.gate.commit import (
    AUTO_ACCEPT_MIN_CONFIDENCE,
    DEFAULT_POLICY,
    UNDECIDED_AT_COMMIT,
    CommitResult,
    CommitTarget,
    authority_policy,
    kept_when_undecided,
)
from canon.gate.drafts import Draft, default_entity_type
from canon.gate.proposal_rows import proposal_from_row
from canon.gate.writing import ProposalWriter, StateHistory

__all__ = [
    "AUTO_ACCEPT_MIN_CONFIDENCE",
    "DEFAULT_POLICY",
    "UNDECIDED_AT_COMMIT",
    "CanonizationGate",
    "CommitResult",
    "CommitTarget",
    "Draft",
    "ProposalWriter",
    "StateHistory",
    "authority_policy",
    "default_entity_type",
    "kept_when_undecided",
    "proposal_from_row",
]
