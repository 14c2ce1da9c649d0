"""Who knows what, on a real database: reveals to characters and the party, from a date, undone; the lens each
player reads canon through (cards, autocomplete, the directory) and the bad inputs: a character of another
campaign or one nobody plays, a reveal dated before its fact, a GM-only entity's fact (its name comes, nothing
else), a member who leaves, two GMs undoing at once.

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.app import build_canon
from bot.services.canon_queries import parse_as_of
from bot.services.characters import CharacterDesk, Member
from bot.services.directory import Directory
from bot.services.knowledge import KnowledgeDesk
from canon import campaigns
from canon.campaigns import Campaign, lineage
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.graph import believed_at
from canon.knowledge import learned
from canon.models import NOW, Viewer, Visibility
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import Database
from memory.knowledge.retrieval.config import preset
from memory.knowledge.retrieval.entities import EntityFinder
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="Gina", is_gm=True)
PAT, QUINN, RIO = Member(2, "Pat"), Member(3, "Quinn"), Member(4, "Rio")
HIDDEN = Visibility.GM_ONLY


class Table:
    """A campaign with Sable (Pat), Brann (Quinn), Rio playing nothing, and secrets."""

    def __init__(self, db: Database, campaign: Campaign) -> None:
        self.canon = build_canon(db, SceneService(db))
        self.characters = CharacterDesk(db, self.canon.access)
        self.desk = KnowledgeDesk(db, self.canon.access, self.canon.queries, SceneService(db))
        self.campaign = campaign
        self.facts: dict[str, int] = {}

    async def entity(self, name: str, kind: str, *, hidden: bool = False) -> None:
        content = EntityContent(
            name=name, entity_type=kind, visibility=HIDDEN if hidden else Visibility.PUBLIC
        )
        await self.canon.canon.add_direct(self.campaign, content, GM, command="/canon add")

    async def fact(self, subject: str, attribute: str, value: str, *, when: str | None = None) -> int:
        content = FactContent(
            subject=Ref(name=subject), attribute=attribute, value=value, when=when, visibility=HIDDEN
        )
        result = await self.canon.canon.add_direct(self.campaign, content, GM, command="/canon add")
        self.facts[value] = result.statement_ids[0]
        return result.statement_ids[0]

    async def card(self, name: str, member: Member | None, *, at: str | None = None) -> str:
        lens = await self.desk.lens(self.campaign, member.id) if member else None
        as_of = parse_as_of(at_date=at) if at else parse_as_of()
        card, _ = await self.canon.queries.worded_card(
            self.campaign, name, viewer=Viewer.PLAYER, as_of=as_of, knowing=lens
        )
        return " | ".join(
            [
                card.entity.description or "",
                *(f"{v.statement.predicate}={v.statement.value}" for v in card.facts),
            ]
        )


@pytest.fixture
async def table(db: Database) -> Table:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))
    table = Table(db, campaign)
    for name, kind in (("Sable", "PC"), ("Brann", "PC"), ("The Duke", "NPC")):
        await table.entity(name, kind)
    await table.entity("Vell", "Person", hidden=True)
    await table.fact("The Duke", "secret", "a spy", when="310")
    await table.fact("The Duke", "debt", "ten thousand crowns")
    await table.fact("Vell", "title", "the last heir")
    await table.fact("Vell", "hideout", "under the mill")
    await table.characters.assign(campaign, "Sable", PAT, GM)
    await table.characters.assign(campaign, "Brann", QUINN, GM)
    return table


async def test_each_player_sees_what_their_character_knows_from_when_they_learned_it(table: Table) -> None:
    c = table.campaign
    await table.desk.reveal(
        c, GM, to="Sable", reason="she read his letter", fact=table.facts["a spy"], from_date="312"
    )
    await table.desk.reveal(
        c, GM, to="the party", reason="town gossip", fact=table.facts["ten thousand crowns"]
    )
    sable, brann_card, rio_card = [await table.card("The Duke", m) for m in (PAT, QUINN, RIO)]
    assert "secret=a spy" in sable and "debt=ten thousand crowns" in sable
    assert "a spy" not in brann_card and "debt=ten thousand crowns" in brann_card
    # Rio plays nothing: not in the party, public canon only.
    assert "a spy" not in rio_card and "crowns" not in rio_card
    # As of a date before she learned it, Sable does not know it; the party's gossip is undated.
    before = await table.card("The Duke", PAT, at="311")
    assert "a spy" not in before and "crowns" in before
    assert "a spy" in await table.card("The Duke", PAT, at="313")
    # The GM's "as Brann sees it" is Brann's player's view.
    name, as_brann = await table.desk.lens_of(c, "brann")
    assert name == "Brann"
    card, _ = await table.canon.queries.worded_card(c, "The Duke", viewer=Viewer.PLAYER, knowing=as_brann)
    assert [v.statement.value for v in card.facts] == ["ten thousand crowns"]


async def test_break_the_rule_and_a_player_reads_another_characters_secret(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule matters: when the lens lets through what the reader did not learn, this test's check fails."""
    c = table.campaign
    await table.desk.reveal(c, GM, to="Sable", reason="letter", fact=table.facts["a spy"])
    assert "a spy" not in await table.card("The Duke", QUINN)
    import canon.graph.reads as reads

    monkeypatch.setattr(reads, "statement_seen", lambda *args: True)
    assert "a spy" in await table.card("The Duke", QUINN)  # broken on purpose: the secret shows


async def test_a_gm_only_entitys_fact_brings_its_name_and_nothing_else(table: Table) -> None:
    c = table.campaign
    with pytest.raises(NotFound) as unknown:
        await table.card("Vell", PAT)
    await table.desk.reveal(
        c, GM, to="Sable", reason="a dying man's words", fact=table.facts["the last heir"]
    )
    shown = await table.card("Vell", PAT)
    assert "title=the last heir" in shown and "under the mill" not in shown
    # Quinn still gets the very words an unknown name gets.
    with pytest.raises(NotFound) as hidden:
        await table.card("Vell", QUINN)
    assert str(hidden.value) == str(unknown.value)
    names = await table.canon.queries.autocomplete(
        c, "Ve", viewer=Viewer.PLAYER, knowing=await table.desk.lens(c, PAT.id)
    )
    assert "Vell" in [n.name for n in names]
    names = await table.canon.queries.autocomplete(
        c, "Ve", viewer=Viewer.PLAYER, knowing=await table.desk.lens(c, QUINN.id)
    )
    assert "Vell" not in [n.name for n in names]
    directory = Directory(table.canon.canon.db, table.canon.access)
    pat_list = await directory.page(
        c, Viewer.PLAYER, kind=None, text=None, knowing=await table.desk.lens(c, PAT.id)
    )
    quinn_list = await directory.page(
        c, Viewer.PLAYER, kind=None, text=None, knowing=await table.desk.lens(c, QUINN.id)
    )
    assert "Vell" in [e.name for e in pat_list.entries] and "Vell" not in [e.name for e in quinn_list.entries]


async def test_bad_reveals_are_refused_and_write_nothing(db: Database, table: Table) -> None:
    c = table.campaign
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=21))
    spy = table.facts["a spy"]
    with pytest.raises(NotFound):  # a character of another campaign is no character here
        await table.desk.reveal(other, GM, to="Sable", reason="x", fact=spy)
    with pytest.raises(NotFound, match="That fact no longer stands"):  # nor is a fact of this one there
        await table.desk.reveal(other, GM, to="the party", reason="x", fact=spy)
    await table.entity("Old Tom", "NPC")
    with pytest.raises(NotFound, match="Nobody plays Old Tom"):
        await table.desk.reveal(c, GM, to="Old Tom", reason="x", fact=spy)
    with pytest.raises(NotFound):
        await table.desk.reveal(c, GM, to="Rio", reason="x", fact=spy)  # a member who plays nothing
    with pytest.raises(InvalidInput, match="holds only from 310"):
        await table.desk.reveal(c, GM, to="Sable", reason="x", fact=spy, from_date="305")
    with pytest.raises(InvalidInput, match="one thing"):
        await table.desk.reveal(c, GM, to="Sable", reason="x", fact=spy, entity="Vell")
    with pytest.raises(InvalidInput, match="public already"):
        await table.desk.reveal(c, GM, to="Sable", reason="x", entity="The Duke")
    with pytest.raises(NotAllowed):
        await table.desk.reveal(c, Actor(id=2, name="Pat"), to="Sable", reason="x", fact=spy)
    assert await table.desk.known(c, GM, standing=False) == []
    with pytest.raises(NotFound, match="That reveal is not in this campaign"):
        await table.desk.undo(c, 99, GM, "x")


async def test_an_undone_reveal_is_kept_and_two_gms_undoing_at_once_get_a_clear_answer(table: Table) -> None:
    c = table.campaign
    (item,) = await table.desk.reveal(c, GM, to="Sable", reason="letter", fact=table.facts["a spy"])
    other_gm = Actor(id=9, name="Gus", is_gm=True)
    results = await asyncio.gather(
        table.desk.undo(c, item.reveal.id, GM, "too early"),
        table.desk.undo(c, item.reveal.id, other_gm, "mistake"),
        return_exceptions=True,
    )
    assert sum(isinstance(r, Conflict) for r in results) == 1, results
    assert "a spy" not in await table.card("The Duke", PAT)
    (kept,) = await table.desk.known(c, GM, standing=False)
    assert kept.reveal.undone_at is not None and kept.reveal.undone_by in {"Gina", "Gus"}
    assert await table.desk.known(c, GM) == []


async def test_knowledge_stays_with_the_character_when_its_player_leaves(table: Table) -> None:
    c = table.campaign
    await table.desk.reveal(c, GM, to="Sable", reason="letter", fact=table.facts["a spy"])
    await table.characters.release(c, "Sable", PAT, GM)  # Pat left the server
    assert "a spy" not in await table.card("The Duke", PAT)
    await table.characters.assign(c, "Sable", RIO, GM)  # Sable's new player knows what Sable knows
    assert "a spy" in await table.card("The Duke", RIO)
    (item,) = await table.desk.known(c, Actor(id=RIO.id, name="Rio"))
    assert item.who == "Sable" and "spy" in item.what


async def test_a_belief_is_never_canon_and_is_confirmed_or_exposed_once(table: Table) -> None:
    from bot.services.beliefs import BeliefDesk

    c, pat = table.campaign, Actor(id=PAT.id, name="Pat")
    db = table.canon.canon.db
    beliefs = BeliefDesk(db, table.canon.access, table.canon.canon, SceneService(db))
    kept = await beliefs.believe(
        c,
        GM,
        character="Sable",
        about="The Duke",
        attribute="treasure",
        value="in the well",
        source="a drunk",
    )
    assert (
        kept.sentence
        == "Sable believes The Duke's treasure: in the well (heard from a drunk). A belief, not canon."
    )
    with pytest.raises(NotAllowed):
        await beliefs.believe(
            c, pat, character="Sable", about="The Duke", attribute="x", value="y", source="z"
        )
    with pytest.raises(NotFound, match="Nobody plays"):
        await beliefs.believe(
            c, GM, character="The Duke", about="Sable", attribute="x", value="y", source="z"
        )
    with pytest.raises(InvalidInput):
        await beliefs.believe(
            c, GM, character="Sable", about="The Duke", attribute="a: b", value="y", source="z"
        )
    # Never canon: not on anyone's card, the GM's included.
    gm_card, _ = await table.canon.queries.worded_card(c, "The Duke", viewer=Viewer.GM)
    assert all("well" not in (v.statement.value or "") for v in gm_card.facts)
    assert [b.sentence for b in await beliefs.shown(c, pat)] == [kept.sentence]
    assert await beliefs.shown(c, Actor(id=QUINN.id, name="Quinn")) == []  # Brann believes nothing
    # Confirmed and exposed at once: one wins, the other is told.
    results = await asyncio.gather(
        beliefs.confirm(c, GM, kept.belief.id), beliefs.expose(c, GM, kept.belief.id), return_exceptions=True
    )
    assert sum(isinstance(r, Conflict) for r in results) == 1, results
    (after,) = await beliefs.shown(c, pat)
    if after.belief.status == "confirmed":
        assert "treasure=in the well" in await table.card("The Duke", PAT)  # canon now, and Sable knows it
        assert "in the well" not in await table.card("The Duke", QUINN)
    else:
        assert after.sentence.endswith("and it is false.")
        assert "in the well" not in await table.card("The Duke", PAT)


async def test_an_exposed_belief_reads_false_and_a_confirmed_one_is_known_canon(table: Table) -> None:
    from bot.services.beliefs import BeliefDesk

    c, db = table.campaign, table.canon.canon.db
    beliefs = BeliefDesk(db, table.canon.access, table.canon.canon, SceneService(db))
    lie = await beliefs.believe(
        c, GM, character="Sable", about="The Duke", attribute="age", value="90", source="x"
    )
    truth = await beliefs.believe(
        c, GM, character="Sable", about="The Duke", attribute="horse", value="Grey", source="a groom"
    )
    exposed = await beliefs.expose(c, GM, lie.belief.id)
    assert exposed.sentence == "Sable believed The Duke's age: 90 (heard from x), and it is false."
    with pytest.raises(Conflict, match="exposed already"):
        await beliefs.confirm(c, GM, lie.belief.id)
    await beliefs.confirm(c, GM, truth.belief.id)
    assert "horse=Grey" in await table.card("The Duke", PAT) and "Grey" not in await table.card(
        "The Duke", QUINN
    )


async def test_a_family_tree_shows_a_secret_child_only_to_the_character_who_knows(table: Table) -> None:
    from canon.proposals import RelationshipContent
    from canon.render import family_tree_of

    c = table.campaign
    await table.entity("Little Vell", "NPC", hidden=True)
    content = RelationshipContent(
        subject=Ref(name="The Duke"), relation="PARENT_OF", object=Ref(name="Little Vell"), visibility=HIDDEN
    )
    result = await table.canon.canon.add_direct(c, content, GM, command="/canon add")
    await table.desk.reveal(c, GM, to="Brann", reason="a midwife", fact=result.statement_ids[0])
    seen = {}
    for member in (PAT, QUINN):
        async with table.canon.canon.db.session() as session:
            lens = await table.desk.lens(c, member.id)
            reader = await table.canon.access.reader(session, c, Viewer.PLAYER, lens)
            tree = await family_tree_of(reader, "The Duke")
        seen[member.name] = {p.name for p in tree.people}
        # What a character knows is drawn plainly: the "GM only" tag is the GM's tree's alone.
        assert not any(p.hidden for p in tree.people), tree.people
    assert "Little Vell" in seen["Quinn"] and "Little Vell" not in seen["Pat"], seen
    async with table.canon.canon.db.session() as session:
        gms = await family_tree_of(await table.canon.access.reader(session, c, Viewer.GM), "The Duke")
    assert [p.name for p in gms.people if p.hidden] == ["Little Vell"], gms.people


async def test_a_gm_revealing_a_fact_another_gm_retcons_at_once_shows_nothing_it_should_not(
    table: Table,
) -> None:
    c = table.campaign
    other_gm = Actor(id=9, name="Gus", is_gm=True)
    for i in range(3):  # either may win the race; each pass is one
        fact = await table.fact("The Duke", f"plot{i}", f"poison the king {i}")
        reveal, retcon = await asyncio.gather(
            table.desk.reveal(c, GM, to="Sable", reason=f"a letter {i}", fact=fact),
            table.canon.admin.retcon(
                c, fact, other_gm, rationale="never was", new_value=f"crown the king {i}"
            ),
            return_exceptions=True,
        )
        assert not isinstance(retcon, BaseException), retcon
        # The reveal came first (kept, of a fact now retconned) or found the fact gone: a clear answer.
        assert not isinstance(reveal, BaseException) or (
            isinstance(reveal, NotFound) and "no longer stands" in str(reveal)
        ), reveal
        for member in (PAT, QUINN):  # neither the retconned value nor its GM-only replacement shows
            card = await table.card("The Duke", member)
            assert f"poison the king {i}" not in card and f"crown the king {i}" not in card, card
    # Every reveal written is whole: Sable's, with its reason, of a fact of this campaign.
    for item in await table.desk.known(c, GM, standing=False):
        assert item.who == "Sable" and item.reveal.reason.startswith("a letter")


async def test_a_lens_holds_its_characters_and_the_partys_reveals_and_no_one_elses(table: Table) -> None:
    c = table.campaign
    facts = table.facts
    await table.desk.reveal(c, GM, to="Sable", reason="a letter", fact=facts["a spy"])
    await table.desk.reveal(c, GM, to="Brann", reason="a ledger", fact=facts["ten thousand crowns"])
    await table.desk.reveal(c, GM, to="the party", reason="gossip", fact=facts["under the mill"])
    (rumour,) = await table.desk.reveal(c, GM, to="Sable", reason="a rumour", fact=facts["the last heir"])
    await table.desk.undo(c, rumour.reveal.id, GM, "never said")
    async with table.canon.canon.db.session() as session:
        reader = await table.canon.access.reader(session, c, Viewer.GM)
        ids = {e.name: e.id for e in (await reader.all_entities()).values()}
        # A scene's proposal marked "known only to those present" is a promise of a reveal, no knowledge yet.
        await learned.add_reveals(
            session,
            c.id,
            learned.PRESENT_MARK,
            999,
            [ids["Sable"]],
            world_from=None,
            world_from_key=None,
            story_from=None,
            scene_id=None,
            reason="marked",
            revealed_by="Gina",
        )
        await session.commit()
    pat, quinn = await table.desk.lens(c, PAT.id), await table.desk.lens(c, QUINN.id)
    assert pat is not None and quinn is not None and pat.characters == (ids["Sable"],)
    assert pat.at(NOW).statements == {facts["a spy"], facts["under the mill"]}
    assert pat.at(NOW).named == {ids["The Duke"], ids["Vell"]}  # the ends of what she knows, by name
    assert quinn.at(NOW).statements == {facts["ten thousand crowns"], facts["under the mill"]}
    # The undone reveal is kept for "as believed then", where Sable knew it.
    assert facts["the last heir"] in pat.at(believed_at(rumour.reveal.recorded_at)).statements
    assert {item.kind for item in pat.learned} == {"statement"}
    assert await table.desk.lens(c, RIO.id) is None  # Rio plays nothing: public canon only
    await table.characters.assign(c, "The Duke", RIO, GM)  # a character who learned nothing: the party's
    rio = await table.desk.lens(c, RIO.id)
    assert rio is not None and rio.at(NOW).statements == {facts["under the mill"]}


async def test_one_finder_names_for_each_character_what_theirs_knows_and_a_reveal_shows_at_once(
    table: Table,
) -> None:
    """`/lore`'s entity finder keeps its names tables between questions: keyed by the hidden entities a reader
    sees, never by another character's, and a reveal (no canon written) or its undoing counts at once."""
    c = table.campaign
    finder = EntityFinder(table.canon.access.ontology_for)
    db = table.canon.canon.db
    async with db.session() as session:
        steps = await lineage(session, c.id)

    async def finds_vell(member: Member | None) -> bool:
        lens = await table.desk.lens(c, member.id) if member else None
        viewer = Viewer.PLAYER if member else Viewer.GM
        async with db.session() as session:
            facts, _ = await finder.find(session, c, steps, "Who is Vell?", viewer, preset("lexical"), lens)
        return "Vell" in {f.entity_name for f in facts}

    assert await finds_vell(None) and not await finds_vell(PAT) and not await finds_vell(QUINN)
    (heir,) = await table.desk.reveal(
        c, GM, to="Sable", reason="a dying man", fact=table.facts["the last heir"]
    )
    assert await finds_vell(PAT) and not await finds_vell(QUINN) and not await finds_vell(RIO)
    await table.desk.reveal(c, GM, to="Brann", reason="a portrait", entity="Vell")
    assert await finds_vell(QUINN) and await finds_vell(PAT)
    await table.desk.undo(c, heir.reveal.id, GM, "a lie")
    assert not await finds_vell(PAT) and await finds_vell(QUINN) and await finds_vell(None)


async def test_a_card_says_father_only_to_whom_the_sex_is_known(table: Table) -> None:
    """A GM-only sex words a parent as father to the GM and to the character told it; to anyone else the card
    reads word for word as before the sex was written."""
    from canon.proposals import RelationshipContent
    from cogs.entity_embeds import entity_card_embed

    c = table.campaign
    await table.entity("Little Vell", "NPC")
    tie = RelationshipContent(
        subject=Ref(name="The Duke"), relation="PARENT_OF", object=Ref(name="Little Vell")
    )
    await table.canon.canon.add_direct(c, tie, GM, command="/canon add")

    async def card(member: Member | None, at: str | None = None) -> str:
        viewer = Viewer.PLAYER if member else Viewer.GM
        lens = await table.desk.lens(c, member.id) if member else None
        as_of = parse_as_of(at_date=at) if at else NOW
        card, words = await table.canon.queries.worded_card(
            c, "Little Vell", viewer=viewer, as_of=as_of, knowing=lens
        )
        embed = entity_card_embed(card, viewer=viewer, as_of=as_of, words=words, knowing=lens)
        return "\n".join(f"{f.name}: {f.value}" for f in embed.fields)

    before = {m.name: await card(m) for m in (PAT, QUINN)}
    assert "The Duke is Little Vell's parent" in before["Pat"]
    await table.desk.reveal(
        c,
        GM,
        to="Sable",
        reason="a portrait",
        fact=await table.fact("The Duke", "sex", "he/him"),
        from_date="312",
    )
    assert "The Duke is Little Vell's father" in await card(None)
    assert "The Duke is Little Vell's father" in await card(PAT)
    assert "The Duke is Little Vell's father" in await card(PAT, at="313")
    assert "The Duke is Little Vell's parent" in await card(PAT, at="311")  # before Sable saw the portrait
    assert await card(QUINN) == before["Quinn"]
