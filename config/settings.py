"""Lorekeeper's settings: environment variables, a `.env` file and an optional TOML file.

Precedence, highest first: arguments passed in code, environment variables (`LOREKEEPER_...`, nested sections
with `__`, e.g. `LOREKEEPER_LLM__MODEL`), the `.env` file, the TOML file named by `LOREKEEPER_CONFIG`
(default `lorekeeper.toml` in the working directory, if present), then the defaults below.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

ENV_PREFIX = "LOREKEEPER_"
CONFIG_FILE_ENV = "LOREKEEPER_CONFIG"
DEFAULT_CONFIG_FILE = "lorekeeper.toml"

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class LLMSettings(BaseModel):
    """Any OpenAI-compatible endpoint; leave `base_url` and `model` empty to run without an LLM."""

    base_url: str | None = None
    model: str | None = None
    api_key: SecretStr = SecretStr("not-needed")
    timeout_seconds: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    temperature: float = Field(default=0.7, ge=0, le=2)

    @property
    def configured(self) -> bool:
        """Return whether an LLM endpoint and model are both set."""
        return bool(self.base_url and self.model)


class EmbeddingSettings(BaseModel):
    """The offline embedding model behind semantic search."""

    enabled: bool = True
    batch_size: int = Field(default=32, ge=1, le=512)


class ChromaSettings(BaseModel):
    """Embedded Chroma by default; set `host` to use a Chroma server."""

    host: str | None = None
    port: int = Field(default=8000, ge=1, le=65535)


class LoreSettings(BaseModel):
    """Imports and retrieval of the campaign's world bible."""

    max_file_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    #: A book (PDF, DOCX, EPUB, HTML) may be larger: its pictures and fonts are most of it.
    max_book_bytes: int = Field(default=60 * 1024 * 1024, ge=1024)
    #: Seconds a book's reading may take before it is refused (a file built to be slow to read).
    book_read_seconds: float = Field(default=300.0, gt=0)
    #: OCR of scanned PDF pages (when the GM asks for it on an import): the Tesseract program, its language
    #: data (`eng`, `eng+deu`...), seconds a page and a book may take, and pages a book may have read by OCR.
    ocr_command: str = Field(default="tesseract", min_length=1, max_length=500)
    ocr_language: str = Field(default="eng", pattern=r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$", max_length=100)
    ocr_page_seconds: float = Field(default=60.0, gt=0, le=3600)
    ocr_seconds: float = Field(default=1800.0, gt=0, le=86400)
    ocr_max_pages: int = Field(default=500, ge=1, le=3000)
    chunk_min_tokens: int = Field(default=300, ge=20)
    chunk_max_tokens: int = Field(default=800, ge=50)
    chunk_overlap_tokens: int = Field(default=40, ge=0)


class VaultSettings(BaseModel):
    """Where the original of every imported file is kept: a folder by default, an S3-compatible store by choice.

    Setting `s3_endpoint` chooses the object store (MinIO, AWS S3 and others); otherwise the originals are files
    of `folder` (default `data_dir/sources`).
    """

    #: The folder of the originals when no object store is set (default: `data_dir/sources`).
    folder: Path | None = None
    #: An S3-compatible endpoint, such as `http://minio:9000` or `https://s3.eu-west-1.amazonaws.com`.
    s3_endpoint: str | None = None
    s3_bucket: str = Field(default="lorekeeper-vault", pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
    #: Object names start with this (several installations may share a bucket under prefixes of their own).
    s3_prefix: str = Field(default="sources/", max_length=200, pattern=r"^[A-Za-z0-9._/-]*$")
    s3_region: str | None = None
    s3_access_key: SecretStr | None = None
    s3_secret_key: SecretStr | None = None

    @field_validator("s3_endpoint")
    @classmethod
    def _endpoint_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip().rstrip("/")
        match = re.fullmatch(r"(https?)://([^/\s?#@]+)", value)
        if match is None:
            raise ValueError(
                "must be the store's address with its scheme and nothing after the host and port, "
                "such as http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com"
            )
        return value

    @property
    def uses_s3(self) -> bool:
        """Return whether the originals go to an object store rather than a folder."""
        return self.s3_endpoint is not None


class VoiceSettings(BaseModel):
    """The game-master's voice: narration, proposal extraction and NPC memory (most of it needs an LLM)."""

    #: Seconds of quiet after a player's turn before the narrator writes (narrator mode on).
    narrator_debounce_seconds: float = Field(default=20.0, ge=0, le=3600)
    #: Tokens of context (canon, turns, lore, memories) the narrator and NPCs are given at most.
    context_tokens: int = Field(default=6000, ge=500, le=200_000)
    #: How many recent turns the narrator sees at most (within the budget).
    recent_turns: int = Field(default=30, ge=1, le=500)
    narration_max_tokens: int = Field(default=500, ge=16, le=8000)
    npc_reply_max_tokens: int = Field(default=300, ge=16, le=8000)
    #: A transcript longer than this many tokens is extracted in pieces.
    extraction_piece_tokens: int = Field(default=3000, ge=200, le=100_000)
    extraction_max_tokens: int = Field(default=2000, ge=100, le=16_000)
    #: NPC memories recalled for one reply.
    npc_recall: int = Field(default=4, ge=1, le=20)


class OpsSettings(BaseModel):
    """Scheduled jobs and backups: idle-scene reminders, session reminders, the nightly check, backups."""

    #: Run the job scheduler in the bot process (jobs are kept in the database). Of several processes, the one
    #: holding the scheduler's lease in the database runs it.
    scheduler_enabled: bool = True
    #: How long the scheduler's lease lasts unrenewed (seconds): when its process stops, another takes over
    #: the scheduled jobs within this time. Renewed every third of it.
    scheduler_lease_seconds: float = Field(default=30.0, ge=3, le=600)
    #: A server's default time zone (IANA name) until a GM sets one with `/admin timezone`.
    default_timezone: str = "UTC"
    #: Remind the GM when an active scene has had no turn for this long (0: never); GMs may override it.
    idle_scene_minutes: int = Field(default=240, ge=0, le=60 * 24 * 30)
    #: How often active scenes are checked for quiet (seconds).
    idle_check_seconds: int = Field(default=300, ge=5, le=86_400)
    #: How long before a scheduled session its players are reminded.
    session_reminder_minutes: int = Field(default=30, ge=0, le=60 * 24 * 7)
    #: Hour (0-23, UTC) of the nightly whole-graph continuity check; -1 switches it off.
    continuity_hour_utc: int = Field(default=4, ge=-1, le=23)
    #: Hours between online backups of a SQLite database (0: never).
    backup_interval_hours: float = Field(default=24.0, ge=0, le=24 * 30)
    #: How many backups to keep (the oldest are removed).
    backup_keep: int = Field(default=7, ge=1, le=1000)
    #: Where backups go; default `data_dir/backups`.
    backup_dir: Path | None = None
    #: A job that fell due while the bot was down still runs (once) if it is at most this late.
    misfire_grace_seconds: int = Field(default=12 * 3600, ge=1)


class WikiSettings(BaseModel):
    """The campaign wiki: read-only pages of a campaign, reached by the personal links `/wiki` gives.

    Off by default. When on, the bot's process serves it on `host`:`port`; `base_url` is the address people
    open (behind a reverse proxy, the proxy's public address and path), and links are made with it.
    """

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    #: The address links start with, e.g. `https://lore.example.org/wiki` (default: http://host:port).
    base_url: str | None = None
    #: How long a personal link works (days).
    link_days: float = Field(default=30.0, gt=0, le=365)
    #: The key links are signed with; by default one is made once and kept in the database.
    secret: SecretStr | None = None
    #: Requests one link may make per minute (pages and searches).
    requests_per_minute: int = Field(default=240, ge=1, le=100_000)
    #: Megabytes of finished pages kept per process until the next write to the database (0: none kept).
    page_cache_mb: int = Field(default=64, ge=0, le=4096)

    @field_validator("base_url")
    @classmethod
    def _http_base(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip().rstrip("/")
        if not re.match(r"^https?://[^/\s]+(/[^\s?#]*)?$", value):
            raise ValueError(
                "the wiki's base URL is an http or https address, such as https://lore.example.org/wiki"
            )
        return value

    def public_url(self) -> str:
        """Return the address links start with (no trailing slash)."""
        return self.base_url or f"http://{self.host}:{self.port}"


class Settings(BaseSettings):
    """Every setting the bot reads; see the README's configuration table."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        # A .env file is often shared with Docker Compose (POSTGRES_PASSWORD...): only our own lines count.
        dotenv_filtering="match_prefix",
        extra="forbid",
        validate_default=True,
    )

    discord_token: SecretStr | None = None
    data_dir: Path = Path("./data")
    database_url: str | None = None
    gm_role: str = Field(default="GM", min_length=1, max_length=100)
    dev_guild_id: int | None = Field(default=None, gt=0)
    log_level: LogLevel = "INFO"
    shard_count: int | None = Field(default=None, ge=1)
    #: The shards this process runs, of `shard_count` (e.g. `[0, 1]` of 4): several processes split the shards.
    shard_ids: list[int] | None = None
    llm: LLMSettings = LLMSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    chroma: ChromaSettings = ChromaSettings()
    lore: LoreSettings = LoreSettings()
    voice: VoiceSettings = VoiceSettings()
    ops: OpsSettings = OpsSettings()
    vault: VaultSettings = VaultSettings()
    wiki: WikiSettings = WikiSettings()

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "must start with sqlite+aiosqlite:// or postgresql+asyncpg:// "
                "(for example postgresql+asyncpg://user@127.0.0.1:5432/lorekeeper)"
            )
        return value

    @field_validator("shard_ids")
    @classmethod
    def _shard_ids_within_count(cls, value: list[int] | None, info: ValidationInfo) -> list[int] | None:
        if value is None:
            return None
        count = info.data.get("shard_count")
        if not count:
            raise ValueError("needs shard_count as well (the number of shards of all the processes together)")
        if not value or len(set(value)) != len(value):
            raise ValueError("must list one or more different shard numbers, such as [0, 1]")
        if outside := [i for i in value if not 0 <= i < count]:
            raise ValueError(f"{outside} are outside 0..{count - 1} (shard_count is {count})")
        return value

    @property
    def runs_scheduler(self) -> bool:
        """Return whether this process stands for running the scheduled jobs.

        Every process does when they are switched on; the one holding the scheduler's lease in the database runs
        them (`bot.ops.lease`), so two schedulers never share one job store, whatever the shards.
        """
        return self.ops.scheduler_enabled

    @property
    def resolved_database_url(self) -> str:
        """Return the database URL, defaulting to a SQLite file in the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'lorekeeper.sqlite3').resolve()}"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        if toml_path.is_file():
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)


class SettingsError(Exception):
    """Settings could not be loaded; `str()` is a screen written for the person running the bot."""


def env_name(path: Sequence[str]) -> str:
    """Return the environment variable of a setting path, e.g. `LOREKEEPER_LLM__API_KEY` for llm.api_key."""
    return ENV_PREFIX + "__".join(part.upper() for part in path)


def _setting_fields(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], FieldInfo]:
    """Return every setting of a model by its path, nested sections' settings included."""
    found: dict[tuple[str, ...], FieldInfo] = {}
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        found[path] = info
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            found.update(_setting_fields(info.annotation, path))
    return found


def _is_secret(info: FieldInfo | None) -> bool:
    annotation = info.annotation if info is not None else None
    return annotation is SecretStr or SecretStr in get_args(annotation)


_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")


def _shown(value: object) -> str:
    """Return a bad value as the screen shows it: a URL's password masked, long values cut."""
    text = _URL_PASSWORD.sub(r"\1***@", repr(value))
    return text if len(text) <= 80 else text[:79] + "…"


def describe_validation_error(error: ValidationError) -> str:
    """Render a settings validation error as one screen naming each setting and what is wrong.

    A value is echoed only when it can be no secret: never for secret settings, never for an unknown one
    (a misspelt LOREKEEPER_DISCORD_TOKNE holds a token), and with any password in a URL masked.
    """
    fields = _setting_fields(Settings)
    known = {"__".join(path): path for path in fields}
    lines = ["Lorekeeper cannot start: a setting is wrong.", ""]
    for problem in error.errors():
        path = tuple(str(part) for part in problem["loc"])
        if problem["type"] == "extra_forbidden":
            # Unknown keys arrive with the prefix already stripped (.env) or as written (TOML).
            key = "__".join(path).lower()
            lines.append(f"  {env_name(key.split('__'))}  (or {'.'.join(path)} in the TOML file)")
            if key == CONFIG_FILE_ENV[len(ENV_PREFIX) :].lower():
                lines.append(f"    {CONFIG_FILE_ENV} is read from the environment only, not from a file.")
                continue
            hint = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            guess = f"; did you mean {env_name(known[hint[0]])}?" if hint else "."
            lines.append(f"    is not a Lorekeeper setting{guess} (its value is not shown)")
            continue
        value = problem.get("input")
        if _is_secret(fields.get(path)):
            shown = " (the value is a secret: not shown)"
        elif isinstance(value, dict):
            shown = ""
        else:
            shown = f" (got {_shown(value)})"
        lines.append(f"  {'.'.join(path)}  [{env_name(path)}]{shown}")
        lines.append(f"    {problem['msg']}")
    lines += [
        "",
        "Settings come from environment variables, a .env file in the working directory, "
        f"or the TOML file named by {CONFIG_FILE_ENV} (default {DEFAULT_CONFIG_FILE}).",
    ]
    return "\n".join(lines)


def load_settings(**overrides: object) -> Settings:
    """Load settings from every source, raising `SettingsError` with a readable screen when one is bad."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        raise SettingsError(describe_validation_error(error)) from None
    except (OSError, ValueError) as error:  # an unreadable or malformed TOML / .env file
        raise SettingsError(
            f"Lorekeeper cannot start: the configuration file could not be read.\n\n  {error}"
        ) from None
