"""Settings from the environment, a .env file and a TOML file, and the screen a bad setting gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from config.settings import Settings, SettingsError, load_settings

TOKEN = "MTIzNDU2Nzg5.secret-token-value"


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in an empty directory with no LOREKEEPER_ variable set, as on a fresh machine."""
    for name in list(os.environ):
        if name.startswith("LOREKEEPER_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def screen_of(**overrides: object) -> str:
    with pytest.raises(SettingsError) as caught:
        load_settings(**overrides)
    return str(caught.value)


def test_defaults_on_a_fresh_machine() -> None:
    settings = load_settings()
    assert settings.discord_token is None and settings.gm_role == "GM" and settings.log_level == "INFO"
    assert settings.data_dir == Path("data")
    url = make_url(settings.resolved_database_url)
    assert url.drivername == "sqlite+aiosqlite"
    assert Path(url.database or "") == (Path.cwd() / "data" / "lorekeeper.sqlite3")


def test_the_default_database_follows_the_data_directory(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "elsewhere")
    assert Path(make_url(settings.resolved_database_url).database or "") == (
        tmp_path / "elsewhere" / "lorekeeper.sqlite3"
    )
    explicit = load_settings(database_url="postgresql+asyncpg://lk@127.0.0.1:5432/lk")
    assert explicit.resolved_database_url == "postgresql+asyncpg://lk@127.0.0.1:5432/lk"


def test_environment_variables_take_the_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREKEEPER_DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("LOREKEEPER_GM_ROLE", "Keeper")
    monkeypatch.setenv("LOREKEEPER_DEV_GUILD_ID", "123456789012345678")
    monkeypatch.setenv("LOREKEEPER_LOG_LEVEL", "debug")
    monkeypatch.setenv("GM_ROLE", "not ours")  # no prefix: not a Lorekeeper setting
    settings = load_settings()
    assert settings.discord_token is not None and settings.discord_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(settings)
    assert (settings.gm_role, settings.dev_guild_id, settings.log_level) == (
        "Keeper",
        123456789012345678,
        "DEBUG",
    )


def test_nested_sections_use_a_double_underscore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREKEEPER_LLM__BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("LOREKEEPER_LLM__MODEL", "llama3")
    monkeypatch.setenv("LOREKEEPER_OPS__IDLE_SCENE_MINUTES", "15")
    settings = load_settings()
    assert settings.llm.configured and settings.llm.model == "llama3"
    assert settings.ops.idle_scene_minutes == 15
    assert settings.ops.backup_keep == 7  # the rest of the section keeps its defaults


def test_a_dotenv_file_is_read_and_other_tools_lines_are_left_alone(clean_environment: Path) -> None:
    (clean_environment / ".env").write_text(
        f"LOREKEEPER_DISCORD_TOKEN={TOKEN}\n"
        "LOREKEEPER_VOICE__RECENT_TURNS=12\n"
        "# Docker Compose reads this file too:\n"
        "POSTGRES_PASSWORD=CHANGE-ME\n"
        "COMPOSE_PROJECT_NAME=lorekeeper\n",
        encoding="utf-8",
    )
    settings = load_settings()
    assert settings.discord_token is not None and settings.discord_token.get_secret_value() == TOKEN
    assert settings.voice.recent_turns == 12


def test_a_toml_file_named_by_lorekeeper_config(
    clean_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = clean_environment / "conf" / "campaign.toml"
    config.parent.mkdir()
    config.write_text(
        'gm_role = "Storyteller"\nlog_level = "WARNING"\n\n[llm]\nmodel = "from-toml"\n\n'
        "[ops]\nbackup_keep = 3\n",
        encoding="utf-8",
    )
    assert load_settings().gm_role == "GM"  # not named, and no lorekeeper.toml here: not read
    monkeypatch.setenv("LOREKEEPER_CONFIG", str(config))
    settings = load_settings()
    assert (settings.gm_role, settings.log_level, settings.llm.model, settings.ops.backup_keep) == (
        "Storyteller",
        "WARNING",
        "from-toml",
        3,
    )


def test_lorekeeper_toml_in_the_working_directory_is_the_default(clean_environment: Path) -> None:
    (clean_environment / "lorekeeper.toml").write_text('gm_role = "Narrator"\n', encoding="utf-8")
    assert load_settings().gm_role == "Narrator"


def test_environment_beats_dotenv_beats_toml(
    clean_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean_environment / "lorekeeper.toml").write_text(
        'gm_role = "from toml"\nlog_level = "ERROR"\n\n[lore]\nchunk_overlap_tokens = 7\n', encoding="utf-8"
    )
    (clean_environment / ".env").write_text(
        "LOREKEEPER_GM_ROLE=from dotenv\nLOREKEEPER_LOG_LEVEL=WARNING\n", encoding="utf-8"
    )
    monkeypatch.setenv("LOREKEEPER_GM_ROLE", "from env")
    settings = load_settings()
    assert (settings.gm_role, settings.log_level, settings.lore.chunk_overlap_tokens) == (
        "from env",
        "WARNING",
        7,
    )


def test_a_bad_setting_names_the_setting_and_what_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREKEEPER_DEV_GUILD_ID", "my-server")
    monkeypatch.setenv("LOREKEEPER_LLM__TIMEOUT_SECONDS", "-5")
    screen = screen_of()
    assert screen.startswith("Lorekeeper cannot start: a setting is wrong.")
    assert "[LOREKEEPER_DEV_GUILD_ID] (got 'my-server')" in screen and "valid integer" in screen
    assert "llm.timeout_seconds  [LOREKEEPER_LLM__TIMEOUT_SECONDS]" in screen and "greater than 0" in screen
    assert "Traceback" not in screen and ".env" in screen and "LOREKEEPER_CONFIG" in screen


def test_a_misspelt_setting_in_dotenv_never_shows_its_secret(clean_environment: Path) -> None:
    (clean_environment / ".env").write_text(f"LOREKEEPER_DISCORD_TOKNE={TOKEN}\n", encoding="utf-8")
    screen = screen_of()
    assert TOKEN not in screen and "secret-token" not in screen
    assert "LOREKEEPER_DISCORD_TOKNE" in screen and "LOREKEEPER_LOREKEEPER_" not in screen
    assert "is not a Lorekeeper setting; did you mean LOREKEEPER_DISCORD_TOKEN?" in screen


def test_an_unknown_toml_key_is_named_without_its_value(clean_environment: Path) -> None:
    (clean_environment / "lorekeeper.toml").write_text(f'[discord]\ntoken = "{TOKEN}"\n', encoding="utf-8")
    screen = screen_of()
    assert TOKEN not in screen
    assert "discord in the TOML file" in screen and "is not a Lorekeeper setting" in screen


def test_a_secret_of_the_wrong_shape_is_not_echoed(clean_environment: Path) -> None:
    (clean_environment / "lorekeeper.toml").write_text(
        '[llm]\napi_key = ["sk-live-0123456789abcdef"]\n', encoding="utf-8"
    )
    screen = screen_of()
    assert "llm.api_key  [LOREKEEPER_LLM__API_KEY]" in screen and "valid string" in screen
    assert "sk-live" not in screen and "secret: not shown" in screen


def test_a_database_url_is_shown_with_its_password_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREKEEPER_DATABASE_URL", "postgres://lorekeeper:hunter2@db:5432/lorekeeper")
    screen = screen_of()
    assert "database_url  [LOREKEEPER_DATABASE_URL]" in screen and "postgresql+asyncpg://" in screen
    assert "hunter2" not in screen and "postgres://lorekeeper:***@db:5432/lorekeeper" in screen


def test_lorekeeper_config_in_dotenv_is_explained(clean_environment: Path) -> None:
    (clean_environment / ".env").write_text("LOREKEEPER_CONFIG=other.toml\n", encoding="utf-8")
    assert "LOREKEEPER_CONFIG is read from the environment only" in screen_of()


def test_a_malformed_toml_file_is_one_readable_screen(clean_environment: Path) -> None:
    (clean_environment / "lorekeeper.toml").write_text('gm_role = "unterminated\n', encoding="utf-8")
    screen = screen_of()
    assert screen.startswith("Lorekeeper cannot start: the configuration file could not be read.")


def test_settings_built_in_code_can_skip_the_dotenv_file(clean_environment: Path) -> None:
    (clean_environment / ".env").write_text("LOREKEEPER_GM_ROLE=from dotenv\n", encoding="utf-8")
    assert Settings(_env_file=None).gm_role == "GM"  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("count", "ids", "complaint"),
    [
        (None, "[1]", "needs shard_count as well"),
        ("2", "[0, 3]", "[3] are outside 0..1 (shard_count is 2)"),
        ("4", "[1, 1]", "different shard numbers"),
        ("4", "[]", "different shard numbers"),
    ],
)
def test_shard_ids_must_fit_the_shard_count(
    monkeypatch: pytest.MonkeyPatch, count: str | None, ids: str, complaint: str
) -> None:
    if count is not None:
        monkeypatch.setenv("LOREKEEPER_SHARD_COUNT", count)
    monkeypatch.setenv("LOREKEEPER_SHARD_IDS", ids)
    screen = screen_of()
    assert "shard_ids  [LOREKEEPER_SHARD_IDS]" in screen and complaint in screen


def test_every_process_stands_for_the_scheduler_unless_it_is_switched_off() -> None:
    """Whatever its shards: the scheduler's lease in the database elects the one that runs the jobs."""

    def runs(**values: object) -> bool:
        return Settings(_env_file=None, **values).runs_scheduler  # type: ignore[arg-type]

    assert runs() and runs(shard_count=4) and runs(shard_count=4, shard_ids=[0, 1])
    assert runs(shard_count=4, shard_ids=[2, 3])
    assert not runs(ops={"scheduler_enabled": False})
