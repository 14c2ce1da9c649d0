"""The Dockerfile and the Compose files, checked by reading them (no Docker engine runs in the tests)."""

from __future__ import annotations

import json
import re
from typing import Any

from ruamel.yaml import YAML

from tests.helpers.paths import REPO

ROOT = REPO


def compose(name: str = "docker-compose.yml") -> dict[str, Any]:
    return YAML(typ="safe").load((ROOT / name).read_text())  # type: ignore[no-any-return]


def required_variables(spec: Any) -> set[str]:
    """Return the variables a Compose file requires (`${NAME:?message}`), wherever they are."""
    return set(re.findall(r"\$\{(\w+):\?", json.dumps(spec)))


def test_the_bot_runs_alone_on_its_embedded_defaults() -> None:
    spec = compose()
    services = spec["services"]
    assert list(services) == ["bot"]
    bot = services["bot"]
    assert bot["build"] == "."
    assert "lorekeeper-data:/data" in bot["volumes"]
    env = bot["environment"]
    # Compose reads every service of a file whatever its profile: the token is all this file may require.
    assert required_variables(spec) == {"LOREKEEPER_DISCORD_TOKEN"}
    assert env["LOREKEEPER_DISCORD_TOKEN"].startswith("${LOREKEEPER_DISCORD_TOKEN:?")
    # Unset means embedded: an empty database URL and Chroma host.
    assert env["LOREKEEPER_DATABASE_URL"] == "${LOREKEEPER_DATABASE_URL:-}"
    assert env["LOREKEEPER_CHROMA__HOST"] == "${LOREKEEPER_CHROMA__HOST:-}"
    assert bot["env_file"] == [{"path": ".env", "required": False}]
    assert "depends_on" not in bot
    assert re.fullmatch(r"\d+s", bot["stop_grace_period"])
    assert set(spec["volumes"]) == {"lorekeeper-data"}


def test_the_scale_file_adds_postgres_and_a_chroma_server_and_requires_a_password() -> None:
    spec = compose("docker-compose.scale.yml")
    services = spec["services"]
    assert set(services) == {"bot", "bot-shard-1", "postgres", "chroma"}
    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:15")
    assert postgres["environment"]["POSTGRES_DB"] == "lorekeeper"
    # PostgreSQL refuses to start without a password: Compose says so before anything starts.
    assert postgres["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert required_variables(spec) == {"POSTGRES_PASSWORD"}
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    chroma = services["chroma"]
    assert chroma["entrypoint"] == ["chroma"] and chroma["command"][0] == "run"
    assert chroma["command"][chroma["command"].index("--port") + 1] == "8000"
    assert "/api/v2/heartbeat" in " ".join(chroma["healthcheck"]["test"])
    named = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert named == set(spec["volumes"]) == {"postgres-data", "chroma-data"}
    # The bot is pointed at both, and waits for them to be healthy.
    bot = services["bot"]
    assert bot["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "chroma": {"condition": "service_healthy"},
    }
    assert bot["environment"]["LOREKEEPER_CHROMA__HOST"] == "chroma"
    url = bot["environment"]["LOREKEEPER_DATABASE_URL"].replace(
        "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}", "choose-one"
    )
    from config.settings import Settings

    settings = Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
    assert settings.database_url == "postgresql+asyncpg://lorekeeper:choose-one@postgres:5432/lorekeeper"
    # A second bot process, the same image and settings, runs the other shard (2 in all).
    second = services["bot-shard-1"]
    assert second["extends"] == {"file": "docker-compose.yml", "service": "bot"}
    assert second["depends_on"] == bot["depends_on"]
    for name, value in bot["environment"].items():
        if name != "LOREKEEPER_SHARD_IDS":
            assert second["environment"][name] == value, name
    shards = [s["environment"]["LOREKEEPER_SHARD_IDS"] for s in (bot, second)]
    assert bot["environment"]["LOREKEEPER_SHARD_COUNT"] == "2" and shards == ["[0]", "[1]"]
    for ids in shards:
        assert Settings(_env_file=None, shard_count=2, shard_ids=json.loads(ids)).runs_scheduler  # type: ignore[call-arg]
    # The header's way of adding the file is the one Compose reads from .env.
    assert (
        "COMPOSE_FILE=docker-compose.yml:docker-compose.scale.yml"
        in (ROOT / "docker-compose.yml").read_text()
    )


def test_dockerfile_is_slim_non_root_with_a_volume_and_a_healthcheck() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)", text, flags=re.M)
    assert stages and all(s.startswith("python:3.11-slim") for s in stages)
    final = text.split("\nFROM ")[-1]
    assert re.search(r"^USER lorekeeper$", final, flags=re.M)
    assert "useradd" in final and "--uid 10001" in final
    assert 'VOLUME ["/data"]' in final and "LOREKEEPER_DATA_DIR=/data" in final
    assert re.search(r'HEALTHCHECK .*CMD \["lorekeeper", "doctor", "--quiet", "--live"\]', final)
    assert "STOPSIGNAL SIGTERM" in final
    assert 'ENTRYPOINT ["lorekeeper"]' in final and 'CMD ["run"]' in final
    # Every package the program imports is copied into the image.
    for package in ("bot", "cogs", "memory", "canon", "config"):
        assert f"COPY {package} ./{package}" in text


def test_the_healthcheck_command_exists() -> None:
    from typer.testing import CliRunner

    from bot.cli.main import app

    result = CliRunner().invoke(app, ["doctor", "--help"])
    assert result.exit_code == 0 and "--quiet" in result.output and "--live" in result.output


def test_the_readme_invite_asks_for_exactly_the_permissions_the_bot_is_tested_with() -> None:
    """The e2e tests run the bot with `INVITE_PERMISSIONS`: the README's invite must ask for the same ones."""
    from bot.client.client import INVITE_PERMISSIONS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    step = readme.split("Under **OAuth2 → URL Generator**", 1)[1].split("\n5.", 1)[0]
    asked = {" ".join(name.split()).casefold() for name in re.findall(r"\*([A-Z][A-Za-z \n]+)\*", step)}
    wanted = {name.replace("_", " ").casefold() for name, on in INVITE_PERMISSIONS if on}
    # discord.py names View Channels "view_channel", and lists its old name "read_messages" too.
    wanted = {"view channels" if w in {"view channel", "read messages"} else w for w in wanted}
    assert wanted <= asked, wanted - asked
    assert asked - wanted == {"mention everyone"}  # the one the README calls optional


def _pins(name: str) -> dict[str, str]:
    lines = (ROOT / name).read_text().splitlines()
    return dict(line.split("==", 1) for line in lines if "==" in line and not line.startswith("#"))


def test_the_image_installs_the_runtime_set_alone_pinned_as_the_full_lock() -> None:
    """requirements.runtime.lock: the same pins as requirements.lock, no test or dev tool, no kubernetes."""
    text = (ROOT / "Dockerfile").read_text()
    assert "--no-deps -r requirements.runtime.lock" in text and "requirements.lock" not in text.replace(
        "requirements.runtime.lock", ""
    )
    full, runtime = _pins("requirements.lock"), _pins("requirements.runtime.lock")
    assert runtime and all(full.get(name) == version for name, version in runtime.items()), runtime
    for left_out in ("pytest", "hypothesis", "selenium", "ruff", "mypy", "import-linter", "kubernetes"):
        assert left_out not in runtime and left_out in full
    # What the product and the image's `chroma run` import is in: a declared dependency of each kind.
    for needed in ("chromadb", "onnxruntime", "discord-py", "sqlalchemy", "requests", "typer", "pillow"):
        assert needed in runtime, needed


def test_the_footprint_benchmark_measures_the_image_against_the_full_set() -> None:
    from bench.footprint import measure

    line = measure()
    assert line["image_runtime_lock_mb"] < line["baseline_full_lock_mb"]
    assert line["test_and_dev_in_image"] == [] and "kubernetes" in line["left_out_of_image"]
    assert line["per_dependency"]["chromadb"]["with_mb"] > 0
