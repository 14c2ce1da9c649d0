"""The Dockerfile and docker-compose.yml, checked by reading them (no Docker engine runs in the tests)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict[str, Any]:
    return YAML(typ="safe").load((ROOT / "docker-compose.yml").read_text())  # type: ignore[no-any-return]


def test_the_bot_runs_alone_on_its_embedded_defaults() -> None:
    spec = compose()
    services = spec["services"]
    always_on = [name for name, service in services.items() if not service.get("profiles")]
    assert always_on == ["bot"]
    bot = services["bot"]
    assert bot["build"] == "."
    assert "lorekeeper-data:/data" in bot["volumes"]
    env = bot["environment"]
    assert env["LOREKEEPER_DISCORD_TOKEN"].startswith("${LOREKEEPER_DISCORD_TOKEN:?")
    # Unset means embedded: an empty database URL and Chroma host.
    assert env["LOREKEEPER_DATABASE_URL"] == "${LOREKEEPER_DATABASE_URL:-}"
    assert env["LOREKEEPER_CHROMA__HOST"] == "${LOREKEEPER_CHROMA__HOST:-}"
    assert bot["env_file"] == [{"path": ".env", "required": False}]
    # The scale services are optional dependencies: absent without the profile.
    for name in ("postgres", "chroma"):
        assert bot["depends_on"][name] == {"condition": "service_healthy", "required": False}
    assert re.fullmatch(r"\d+s", bot["stop_grace_period"])


def test_the_scale_profile_adds_postgres_and_a_chroma_server() -> None:
    spec = compose()
    services = spec["services"]
    assert services["postgres"]["profiles"] == ["scale"]
    assert services["chroma"]["profiles"] == ["scale"]
    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:15")
    assert postgres["environment"]["POSTGRES_DB"] == "lorekeeper"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    chroma = services["chroma"]
    assert chroma["entrypoint"] == ["chroma"] and chroma["command"][0] == "run"
    assert chroma["command"][chroma["command"].index("--port") + 1] == "8000"
    assert "/api/v2/heartbeat" in " ".join(chroma["healthcheck"]["test"])
    named = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert named == set(spec["volumes"]) == {"lorekeeper-data", "postgres-data", "chroma-data"}
    # The URL the README gives for the profile is one the settings accept.
    header = (ROOT / "docker-compose.yml").read_text()
    url = re.search(r"LOREKEEPER_DATABASE_URL=(\S+)", header).group(1)  # type: ignore[union-attr]
    from config.settings import Settings

    assert Settings(_env_file=None, database_url=url).database_url == url  # type: ignore[call-arg]


def test_dockerfile_is_slim_non_root_with_a_volume_and_a_healthcheck() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)", text, flags=re.M)
    assert stages and all(s.startswith("python:3.11-slim") for s in stages)
    final = text.split("\nFROM ")[-1]
    assert re.search(r"^USER lorekeeper$", final, flags=re.M)
    assert "useradd" in final and "--uid 10001" in final
    assert 'VOLUME ["/data"]' in final and "LOREKEEPER_DATA_DIR=/data" in final
    assert re.search(r'HEALTHCHECK .*CMD \["lorekeeper", "doctor", "--quiet"\]', final)
    assert "STOPSIGNAL SIGTERM" in final
    assert 'ENTRYPOINT ["lorekeeper"]' in final and 'CMD ["run"]' in final
    # Every package the program imports is copied into the image.
    for package in ("bot", "cogs", "memory", "canon", "config"):
        assert f"COPY {package} ./{package}" in text


def test_the_healthcheck_command_exists() -> None:
    from typer.testing import CliRunner

    from bot.cli import app

    result = CliRunner().invoke(app, ["doctor", "--help"])
    assert result.exit_code == 0 and "--quiet" in result.output
