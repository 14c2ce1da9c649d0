"""`lorekeeper memory ...`: the GM's operations on NPC memories (the same `NpcMemoryDesk` as `/npc memories`).

    lorekeeper memory list -c C [--npc N] [--scope P] [--category X] [--meta k=v] [--search TEXT]
                           [--min-score S] [--no-private] [--page N]
    lorekeeper memory edit -c C ID [--text T] [--importance I] [--categories a,b] [--private/--public] [--meta k=v]
    lorekeeper memory delete -c C [--npc N] [--scope P] [--category X] [--meta k=v] [--older-than-days D]
    lorekeeper memory info -c C [--npc N | --scope P]
    lorekeeper memory scopes -c C

A scope is a path (`/campaign/3/npc/12`) or one under the campaign's (`npc/12/scene/7`).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, Typer, emit, run_async, settings_or_exit, with_services

memory_app = Typer(help="NPC memories: list, search, edit, delete, scopes.", no_args_is_help=True)

NpcOption = Annotated[str | None, typer.Option("--npc", help="Whose memories")]
ScopeOption = Annotated[str | None, typer.Option("--scope", help="A scope path, like npc/12")]
CategoryOption = Annotated[str | None, typer.Option("--category", help="With this category")]
MetaOption = Annotated[str | None, typer.Option("--meta", help="With this metadata: key=value, ...")]


def register(app: typer.Typer) -> None:
    """Add `lorekeeper memory ...` to the main app."""
    app.add_typer(memory_app, name="memory")


def _line(memory: dict[str, Any], score: float | None = None) -> str:
    bits = [f"#{memory['id']} {memory['npc_name']}"]
    if score is not None:
        bits.append(f"score {score:.2f}")
    bits.append(f"importance {memory['importance']:.2f}")
    if memory["categories"]:
        bits.append(", ".join(memory["categories"]))
    if memory["private"]:
        bits.append("private")
    return " · ".join(bits) + f": {memory['content']}"


@memory_app.command("list")
def list_memories(
    campaign: CampaignOption,
    npc: NpcOption = None,
    scope: ScopeOption = None,
    category: CategoryOption = None,
    meta: MetaOption = None,
    search: Annotated[str | None, typer.Option("--search", help="Most like this text first")] = None,
    min_score: Annotated[float | None, typer.Option("--min-score", help="With --search: 0 to 1")] = None,
    private: Annotated[bool, typer.Option("--private/--no-private", help="Include private memories")] = True,
    page: Annotated[int, typer.Option("--page", min=1)] = 1,
    as_json: JsonOption = False,
) -> None:
    """List (or search) the memories meeting every criterion given."""
    settings = settings_or_exit()

    async def work(services: Any) -> dict[str, Any]:
        target = await services.campaigns.by_name(campaign)
        desk = services.npc_memories
        query = await desk.query(
            target, npc=npc, scope=scope, categories=category, meta=meta, include_private=private
        )
        found = await desk.find(target, query, text=search, min_score=min_score, page=page)
        data: dict[str, Any] = found.model_dump(mode="json")
        return data

    result = run_async(lambda: with_services(settings, work))
    emit(
        result,
        as_json=as_json,
        text=lambda: "\n".join(
            [_line(f["memory"], f["score"]) for f in result["found"]]
            + [f"Page {result['page']} of {result['pages']}, {result['total']} memories."]
        ),
    )


@memory_app.command("edit")
def edit(
    campaign: CampaignOption,
    memory: Annotated[int, typer.Argument(help="The memory's number")],
    text: Annotated[str | None, typer.Option("--text", help="Its new text")] = None,
    importance: Annotated[float | None, typer.Option("--importance", help="0 to 1")] = None,
    categories: Annotated[str | None, typer.Option("--categories", help="a, b ('' for none)")] = None,
    private: Annotated[bool | None, typer.Option("--private/--public", help="Only the GM's")] = None,
    meta: MetaOption = None,
    as_json: JsonOption = False,
) -> None:
    """Change a memory's text (embedded again), importance, categories, privacy or metadata."""
    settings = settings_or_exit()

    async def work(services: Any) -> dict[str, Any]:
        target = await services.campaigns.by_name(campaign)
        record = await services.npc_memories.edit(
            target,
            memory,
            text=text,
            importance=importance,
            categories=categories,
            private=private,
            meta=meta,
        )
        data: dict[str, Any] = record.model_dump(mode="json")
        return data

    result = run_async(lambda: with_services(settings, work))
    emit(result, as_json=as_json, text=lambda: "Changed: " + _line(result))


@memory_app.command("delete")
def delete(
    campaign: CampaignOption,
    npc: NpcOption = None,
    scope: ScopeOption = None,
    category: CategoryOption = None,
    meta: MetaOption = None,
    older_than_days: Annotated[float | None, typer.Option("--older-than-days", min=0)] = None,
    as_json: JsonOption = False,
) -> None:
    """Delete (forget) every memory meeting all the criteria given (at least one)."""
    settings = settings_or_exit()

    async def work(services: Any) -> list[int]:
        target = await services.campaigns.by_name(campaign)
        desk = services.npc_memories
        query = await desk.query(
            target, npc=npc, scope=scope, categories=category, meta=meta, older_than_days=older_than_days
        )
        gone: list[int] = await desk.delete(target, query)
        return gone

    gone = run_async(lambda: with_services(settings, work))
    emit({"deleted": gone}, as_json=as_json, text=lambda: f"Deleted {len(gone)} memories (links included).")


@memory_app.command("info")
def info(
    campaign: CampaignOption, npc: NpcOption = None, scope: ScopeOption = None, as_json: JsonOption = False
) -> None:
    """Count what a scope holds: memories, oldest and newest, per category and kind."""
    settings = settings_or_exit()

    async def work(services: Any) -> dict[str, Any]:
        target = await services.campaigns.by_name(campaign)
        found = await services.npc_memories.scope_info(target, scope=scope, npc=npc)
        data: dict[str, Any] = found.model_dump(mode="json")
        return data

    result = run_async(lambda: with_services(settings, work))
    emit(
        result,
        as_json=as_json,
        text=lambda: (
            f"{result['scope']}: {result['count']} memories ({result['private']} private), "
            f"oldest {result['oldest']}, newest {result['newest']}; by category "
            + (", ".join(f"{c} {n}" for c, n in result["per_category"].items()) or "none")
        ),
    )


@memory_app.command("scopes")
def scopes(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """List every scope holding memories (with its ancestors) and how many each holds."""
    settings = settings_or_exit()

    async def work(services: Any) -> dict[str, int]:
        target = await services.campaigns.by_name(campaign)
        found: dict[str, int] = await services.npc_memories.scopes(target)
        return found

    result = run_async(lambda: with_services(settings, work))
    emit(
        result,
        as_json=as_json,
        text=lambda: "\n".join(f"{s}: {n}" for s, n in result.items()) or "No memories.",
    )
