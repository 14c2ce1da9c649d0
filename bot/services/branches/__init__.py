"""What-if branches: fork a campaign at a point of its story, play on in bound channels, rebase, promote, retire.

A fork writes one campaign row and nothing else (`canon.campaigns.create_branch`): the branch reads its
ancestors through its lineage, cut at the fork point, and writes only its own rows, so nothing it commits can
reach its parent or a sibling, and nothing its parent commits later reaches it. The fork point is

- the parent's latest changeset (default): its canon as it stands, its completed scenes, its sources so far;
- `at_scene N`: the changeset that committed scene N (and anything decided outside play before it), scenes up
  to N, sources imported before it; rows of later scenes stay out even if their commit came first;
- `at_date WHEN`: the latest changeset, minus every inherited row dated in the world after WHEN; and, since
  scenes carry no in-world date of their own, the story is cut before the first scene that wrote canon dated
  after WHEN (that scene and every later one stay out, with their turns, NPC memories and summaries).

Then, in this package: channel and category bindings (which campaign a channel plays in); the tree of branches;
rebase (move the fork point to the parent's latest changeset after showing the continuity conflicts the
move would bring, and only once confirmed; the branch's own scenes then follow the parent's new ones);
promotion (a branch fact proposed to the parent through the parent's own review: nothing moves until the GM
accepts it); abandon (a branch stops answering and nothing of it is ever promoted or forked again) and delete
(the branch's own rows, collections and bindings; never an ancestor's). `lineage_rows` gives export what a branch
sees, inherited rows included.

Modules: `fork` (fork points and forking), `bindings` (channels and categories), `tree` (the tree and a
campaign's place in it), `rebase`, `promote`, `retire` (abandon and delete), `service` (`BranchService`, the
facade the cogs and the command line call), `repository` (their SQL), `models` (the values they return),
`lineage_rows` (a campaign's rows, its inherited ones included, for export). The package gives its callers
the service, the values and the few queries they use.
"""

from bot.services.branches.fork import date_cut, latest_point, scene_point
from bot.services.branches.models import Binding, BranchInfo, BranchNode, DeleteReport, Promotion, RebasePlan
from bot.services.branches.repository import bindings_of, bound_campaign_id, delete_campaign_rows
from bot.services.branches.service import BranchService

__all__ = [
    "Binding",
    "BranchInfo",
    "BranchNode",
    "BranchService",
    "DeleteReport",
    "Promotion",
    "RebasePlan",
    "bindings_of",
    "bound_campaign_id",
    "date_cut",
    "delete_campaign_rows",
    "latest_point",
    "scene_point",
]
