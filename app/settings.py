"""Service settings, read from the environment with the ``GAPLE_`` prefix.

The defaults are the *embedded* setup: a SQLite file and a secret key under ``./var``, an
in-process bus (no Redis). That is what ``python3 dev.py serve`` runs; production sets
``GAPLE_PRODUCTION=true`` and must then name a secret key explicitly.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SECRET_KEY_FILE = "secret_key"
# The operators' roles (GAPLE_ADMIN_TOKENS): a moderator handles reports and mutes; an admin may
# do that and everything else under /api/admin (bans, closing rooms, removing players).
OPERATOR_ROLES = ("moderator", "admin")
# GAPLE_ADMIN_TOKEN alone: one operator of this name, an admin.
LEGACY_OPERATOR = "admin"
# Production refuses a shorter secret key or admin token (bytes of UTF-8): 32 random bytes is
# what `secrets.token_hex(32)` gives, and what a guessed or typed value never has.
MIN_SECRET_BYTES = 32
# The database drivers the service runs on (async SQLAlchemy); any other URL is refused at start.
DATABASE_DRIVERS = {"postgresql": "asyncpg", "sqlite": "aiosqlite"}


@dataclass(frozen=True)
class Operator:
    """A person who may call /api/admin: ``name`` goes into the audit log, never the token."""

    name: str
    role: Literal["moderator", "admin"]
    token: SecretStr = field(repr=False)


class Settings(BaseSettings):
    # hide_input_in_errors: a refused value may be a token; the error says what is wrong.
    model_config = SettingsConfigDict(
        env_prefix="GAPLE_", extra="ignore", hide_input_in_errors=True
    )

    # Storage and infrastructure
    data_dir: Path = Path("var")
    database_url: str = ""  # empty: the embedded SQLite file under data_dir
    redis_url: str | None = None  # None: in-process bus, single node
    redis_prefix: str = "gaple:"  # every Redis key starts with this (tests use their own)
    # Several nodes: a table's owner renews its lease well within this; when the owner dies,
    # another node takes the table once the lease lapses (and its next check comes round).
    lease_ttl_seconds: float = Field(default=3.0, gt=0)
    cluster_check_seconds: float = Field(default=1.0, gt=0)
    migrate_on_start: bool | None = None  # None: only for the embedded SQLite default

    # Security
    secret_key: SecretStr | None = None
    production: bool = False
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["http://127.0.0.1:8000", "http://localhost:8000"]
    )
    public_url: str | None = None  # base of share links; None: the request's own base URL
    # The operators' bearer token for /api/admin (app/api/admin.py); None or empty: no admin API.
    admin_token: SecretStr | None = None
    # Named operators, "name:role:token" separated by commas (role: moderator | admin); with
    # admin_token, that one is one more operator, "admin" (an admin).
    admin_tokens: Annotated[tuple[Operator, ...], NoDecode] = ()
    # Production only: the proxies whose X-Forwarded-For/-Proto are believed. uvicorn's own
    # variable (no GAPLE_ prefix), so one value serves the app and `uvicorn --proxy-headers`.
    forwarded_allow_ips: str = Field(
        default="127.0.0.1,::1",
        validation_alias=AliasChoices("forwarded_allow_ips", "FORWARDED_ALLOW_IPS"),
    )

    # Operations
    log_format: Literal["json", "text"] | None = None  # None: json in production, else text
    # After a SIGTERM's drain, keep answering "draining" this long before the listener closes.
    drain_grace_seconds: float = Field(default=0.0, ge=0)

    # Limits
    max_body_bytes: int = Field(default=65536, gt=0)  # a REST call's body; larger: 413
    max_ws_frame_bytes: int = Field(default=4096, gt=0)
    ws_messages_per_second: float = Field(default=10.0, gt=0)
    ws_burst: int = Field(default=20, gt=0)
    # Chat, reactions and phrases per sender at a table, on top of the socket's limit.
    chat_rate_count: int = Field(default=5, gt=0)
    chat_rate_seconds: float = Field(default=10.0, gt=0)
    max_name_length: int = Field(default=24, gt=0, le=64)
    rooms_per_player: int = Field(default=3, gt=0)
    # Per client address (app/api/ratelimit.py), in the `limits` notation: "10/minute",
    # "100/hour;10/minute" (every part must hold).
    rate_guests: str = "10/minute"
    rate_rooms: str = "10/minute"
    rate_quickplay: str = "20/minute"
    rate_practice: str = "10/minute"  # POST /api/practice: each call opens a table with bots
    rate_seats: str = "60/minute"  # sit, leave, seat a bot
    rate_login: str = "10/minute;100/hour"  # POST /api/sessions, per address
    rate_login_user: str = "5/minute;30/hour"  # POST /api/sessions, per username (any address)
    rate_admin: str = "60/minute"  # every /api/admin call, per address (checked before the token)
    rate_reports: str = "5/minute;30/day"  # POST /api/reports, per address
    # A mute's length by how many the player had before: the first, the second, then every
    # later one (seconds: 1 day, 1 week, 30 days); "a,b,c" in the environment.
    mute_seconds: Annotated[tuple[int, ...], NoDecode] = (86400, 604800, 2592000)
    # Quick play never seats two accounts from one address at one table, and a tournament takes
    # one entry per address (docs/FAIRPLAY.md).
    apart_by_address: bool = False
    # Chat lines said at rated tables are kept this long for the moderators, then removed.
    chat_retention_days: float = Field(default=30.0, gt=0)
    # POST /api/friends/{id} (requests and acceptances): per address, and per player (any address)
    rate_friends: str = "20/minute;200/day"
    rate_blocks: str = "30/minute"  # POST and DELETE /api/blocks/{id}, per address
    rate_lookups: str = "30/minute"  # GET /api/players/by-username/{name}, per address
    max_friends: int = Field(default=500, gt=0)  # friendships per player
    # POST /api/challenges and POST /api/parties: per address, and per player (any address)
    rate_challenges: str = "10/minute;100/day"
    rate_parties: str = "10/minute;100/day"
    challenge_seconds: float = Field(default=120.0, gt=0)  # a challenge unanswered: expired
    rate_tournaments: str = "5/minute;20/day"  # POST /api/tournaments
    rate_tournament_entries: str = "30/minute"  # enter, confirm, withdraw
    rate_clubs: str = "5/minute;20/day"  # POST /api/clubs
    rate_club_members: str = "30/minute"  # join, leave, a leader's answers and changes
    max_clubs: int = Field(default=10, gt=0)  # clubs (not closed) a player belongs to
    rate_records: str = "20/minute"  # POST /api/records/replay: each call re-plays a whole set
    max_sockets_per_address: int = Field(default=50, gt=0)  # WebSockets at once, per node

    # A room's life (app/rooms/lifecycle.py, app/rooms/sweeper.py)
    host_away_seconds: float = Field(default=30.0, gt=0)  # open room: the host passes on
    open_room_idle_seconds: float = Field(default=300.0, gt=0)  # open, no human online: closed
    abandoned_table_seconds: float = Field(default=120.0, gt=0)  # playing, no human: stops
    quickplay_bot_fill_seconds: float = Field(default=20.0, ge=0)  # then bots fill, set starts
    sweep_seconds: float = Field(default=5.0, gt=0)  # how often the sweeper looks

    # Game pacing
    deal_pause_seconds: float = Field(default=5.0, ge=0)
    bot_min_delay: float = Field(default=0.6, ge=0)
    bot_max_delay: float = Field(default=1.6, ge=0)
    bot_workers: int = Field(default=1, ge=1)  # processes that think for hard bots
    # A finished deal's analysis (engine.analysis), worked out in those processes: the solver's
    # budget of positions per move, the hard bot's playouts per move.
    analysis_max_nodes: int = Field(default=2_000_000, ge=1)
    analysis_playouts: int = Field(default=400, ge=1)

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        # Accept "a,b" as well as a JSON list: a comma list is what people type in a shell.
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator(
        "rate_guests",
        "rate_rooms",
        "rate_quickplay",
        "rate_practice",
        "rate_seats",
        "rate_login",
        "rate_login_user",
        "rate_admin",
        "rate_friends",
        "rate_blocks",
        "rate_lookups",
        "rate_challenges",
        "rate_parties",
        "rate_tournaments",
        "rate_tournament_entries",
        "rate_clubs",
        "rate_club_members",
        "rate_records",
        "rate_reports",
    )
    @classmethod
    def _rate(cls, value: str) -> str:
        from limits import parse_many

        try:
            parse_many(value)
        except ValueError:
            raise ValueError(
                f"{value!r} is not a rate limit (write e.g. '10/minute' or '100/hour;10/minute')"
            ) from None
        return value

    @field_validator("admin_tokens", mode="before")
    @classmethod
    def _operators(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return tuple(parse_operator(part.strip()) for part in value.split(",") if part.strip())

    @field_validator("mute_seconds", mode="before")
    @classmethod
    def _mute_steps(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = tuple(int(part) for part in value.split(","))
            except ValueError:
                raise ValueError(
                    "write whole seconds separated by commas, e.g. 86400,604800"
                ) from None
        if not value or any(step <= 0 for step in value):
            raise ValueError("every mute length must be a positive number of seconds")
        return value

    @field_validator("redis_url", "public_url", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        # GAPLE_REDIS_URL= (set but empty) means "not configured", as .env files write it.
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("admin_token", mode="before")
    @classmethod
    def _empty_token_is_none(cls, value: Any) -> Any:
        # An empty or blank value turns the admin API off, as an unset one does.
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return check_database_url(value) if value else value

    @field_validator("public_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else None

    @model_validator(mode="after")
    def _fill_defaults(self) -> Settings:
        if self.bot_min_delay > self.bot_max_delay:
            raise ValueError("bot_min_delay must not exceed bot_max_delay")
        if not self.database_url:
            self.database_url = f"sqlite+aiosqlite:///{self.data_dir / 'gaple.sqlite3'}"
        if self.log_format is None:
            self.log_format = "json" if self.production else "text"
        if self.migrate_on_start is None:
            self.migrate_on_start = self.is_sqlite and not self.production
        if self.secret_key is None or not self.secret_key.get_secret_value():
            if self.production:
                # A generated key would silently change on every new container and log
                # everyone out; production must say which key it uses.
                raise ValueError(
                    "GAPLE_SECRET_KEY is required when GAPLE_PRODUCTION=true "
                    "(generate one with: python3 -c 'import secrets; print(secrets.token_hex(32))')"
                )
            self.secret_key = SecretStr(_load_or_create_secret(self.data_dir))
        if self.production:
            _check_length("GAPLE_SECRET_KEY", self.secret_key)
            _check_length("GAPLE_ADMIN_TOKEN", self.admin_token)
            for operator in self.admin_tokens:
                _check_length(f"GAPLE_ADMIN_TOKENS ({operator.name})", operator.token)
        _check_operators(self.operators)
        return self

    @property
    def operators(self) -> tuple[Operator, ...]:
        """Everyone who may call /api/admin; empty: the admin API is off."""
        legacy: tuple[Operator, ...] = ()
        if self.admin_token is not None:
            legacy = (Operator(LEGACY_OPERATOR, "admin", self.admin_token),)
        return legacy + self.admin_tokens

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def secret(self) -> str:
        assert self.secret_key is not None  # filled by the validator
        return self.secret_key.get_secret_value()


def check_database_url(url: str) -> str:
    """The URL, if SQLAlchemy can open it with one of the service's async drivers; else a
    ValueError that names the URL to write instead (``postgres://`` is what many hosts hand out)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(
            "GAPLE_DATABASE_URL is not a database URL "
            "(write e.g. postgresql+asyncpg://user:password@host/gaple)"
        ) from None
    backend = "postgresql" if parsed.get_backend_name() in ("postgres", "postgresql") else None
    backend = backend or parsed.get_backend_name()
    driver = DATABASE_DRIVERS.get(backend)
    if driver is None:
        raise ValueError(
            f"GAPLE_DATABASE_URL: {parsed.get_backend_name()!r} is not a supported database "
            "(use postgresql+asyncpg:// or sqlite+aiosqlite://)"
        )
    if parsed.drivername != f"{backend}+{driver}":
        fixed = parsed.set(drivername=f"{backend}+{driver}")
        raise ValueError(
            f"GAPLE_DATABASE_URL must name the {driver} driver: write "
            f"{fixed.render_as_string(hide_password=True)}"
        )
    return url


def parse_operator(text: str) -> Operator:
    """``name:role:token`` as an Operator, or a ValueError that says what is wrong (never with
    the token in it)."""
    parts = text.split(":", 2)
    if len(parts) != 3:
        raise ValueError("GAPLE_ADMIN_TOKENS: write each operator as name:role:token")
    name, role, token = (part.strip() for part in parts)
    if not name or len(name) > 40:
        raise ValueError("GAPLE_ADMIN_TOKENS: an operator's name has 1 to 40 characters")
    if role not in OPERATOR_ROLES:
        raise ValueError(
            f"GAPLE_ADMIN_TOKENS: {name}'s role must be one of {', '.join(OPERATOR_ROLES)}"
        )
    if not token:
        raise ValueError(f"GAPLE_ADMIN_TOKENS: {name} has no token")
    return Operator(name, role, SecretStr(token))  # type: ignore[arg-type]  # checked above


def _check_operators(operators: tuple[Operator, ...]) -> None:
    names = [operator.name for operator in operators]
    if len(set(names)) != len(names):
        raise ValueError("GAPLE_ADMIN_TOKENS: every operator needs a name of their own")
    tokens = [operator.token.get_secret_value() for operator in operators]
    if len(set(tokens)) != len(tokens):
        raise ValueError("GAPLE_ADMIN_TOKENS: every operator needs a token of their own")


def _check_length(name: str, value: SecretStr | None) -> None:
    if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
        raise ValueError(
            f"{name} is shorter than {MIN_SECRET_BYTES} bytes "
            "(generate one with: python3 -c 'import secrets; print(secrets.token_hex(32))')"
        )


def _load_or_create_secret(data_dir: Path) -> str:
    """The embedded default keeps its key in the data dir so guest tokens survive restarts."""
    path = data_dir / SECRET_KEY_FILE
    if path.exists():
        key = path.read_text().strip()
        if key:
            return key
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings from the environment (tests build their own ``Settings``)."""
    return Settings()
