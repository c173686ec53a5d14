"""A room's settings, written once: presets, defaults, choices, seat counts, bot kinds.

The API schemas (app/api/schemas.py) build their types and defaults from these names,
``GET /api/presets`` serves them to clients (which build their create form from it), the lobby
fills in defaults with ``new_room_defaults`` and the tables hand ``rule_settings`` to the engine.
The engine still decides whether a combination is playable (``engine.rules_from_settings``), and
the rules' defaults are its presets' (``engine.pordi()``, ``engine.klasik()``); the turn clock
and everything else about a room are the server's own, set here.
Pure data and functions: no I/O, importable from the models and the engine's callers alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

import engine
from engine.scoring import ZERO_ZERO_PENALTY

# --- statuses (the transitions between them live in app/rooms/lifecycle.py) ---------------------

Status = Literal["open", "playing", "closed", "abandoned"]
ROOM_STATUSES: tuple[Status, ...] = get_args(Status)
LISTED: tuple[Status, ...] = ("open", "playing")  # the statuses the lobby may list
CloseReason = Literal["host_closed", "idle", "no_host", "admin"]
CLOSE_REASONS: tuple[CloseReason, ...] = get_args(CloseReason)

# --- the choices --------------------------------------------------------------------------------

Preset = Literal["pordi", "klasik"]
Mode = Literal["tunggal", "ganda"]
Players = Literal[4, 5]
Scoring = Literal["difference", "penalty"]
Stuck = Literal[
    "discard", "pass", "draw"
]  # engine RuleSet.stuck: what a seat that cannot place does
TurnSeconds = Literal[15, 30, 60]  # RULES.md §1.6
BotKind = Literal["easy", "normal", "hard"]  # engine.BOTS: the levels a host picks per seat
# Names the bots had before the levels, still accepted (and stored as) their levels.
BOT_ALIASES: dict[str, BotKind] = {"random": "easy", "heuristic": "normal"}

PRESETS: tuple[Preset, ...] = get_args(Preset)
MODES: tuple[Mode, ...] = get_args(Mode)
PLAYER_COUNTS: tuple[Players, ...] = get_args(Players)
SCORINGS: tuple[Scoring, ...] = get_args(Scoring)
STUCK_CHOICES: tuple[Stuck, ...] = get_args(Stuck)
# The three games of the Gaple family a Klasik room can be (the create form's named choices; the
# client translates them under the same keys).
STUCK_NAMES: dict[Stuck, str] = {
    "discard": "Gaple Klasik",
    "pass": "Block Domino",
    "draw": "Draw Domino",
}
TURN_SECONDS: tuple[TurnSeconds, ...] = get_args(TurnSeconds)
BOT_KINDS: tuple[BotKind, ...] = get_args(BotKind)

DEFAULT_PRESET: Preset = "pordi"
DEFAULT_MODE: Mode = "tunggal"
DEFAULT_TURN_SECONDS: TurnSeconds = 15
# The rules a room plays when the host chooses nothing: the engine's presets without options.
_PORDI = engine.pordi()
_KLASIK = engine.klasik()
DEFAULT_DEALS_PER_SET = _PORDI.deals_per_set
DEALS_PER_SET_RANGE = (1, 21)
DEFAULT_PUBLIC = True
DEFAULT_RATED = False  # a host's room counts for ratings only when created rated (app/players)
QUICKPLAY_RATED = True  # quick-play tables are public and rated
DEFAULT_BOT: BotKind = "normal"  # what the host seats unless they choose
QUICKPLAY_BOT: BotKind = "normal"  # the bots that fill a quick-play table
# Practice (POST /api/practice): a private, unrated table of one human and bots of this level
# unless the player chooses another.
PRACTICE_BOT: BotKind = "normal"
PRACTICE_PUBLIC = False
PRACTICE_RATED = False
DEFAULT_CHAT = True  # players may type at the table (reactions and phrases are always on)

SEATS_PER_TABLE = 4  # PORDI, and Klasik unless the host chose 5 players
MAX_SEATS = max(PLAYER_COUNTS)  # the seats table allows 0..MAX_SEATS-1

# The host's Klasik options (RULES.md §2). A PORDI room has none of them: they are absent from its
# settings (and from the JSON), and sending one with preset "pordi" is a 422.
KLASIK_OPTIONS = ("players", "seven_tiles", "stuck", "zero_zero_25", "scoring")

# What the host leaves out, by preset. PORDI's target (Ganda) must never reach a Klasik room.
PRESET_DEFAULTS: dict[Preset, dict[str, Any]] = {
    "pordi": {"target_points": _PORDI.target_points},
    "klasik": {
        "target_points": _KLASIK.target_points,
        "players": _KLASIK.players,
        "seven_tiles": _KLASIK.hand_size == 7,  # the option deals seven tiles each
        "stuck": _KLASIK.stuck,
        "zero_zero_25": _KLASIK.zero_zero_25,
        "scoring": _KLASIK.scoring,
    },
}
TARGET_POINTS_MAX: dict[Preset, int] = {"pordi": 99, "klasik": 1000}
TARGET_POINTS_LIMIT = max(TARGET_POINTS_MAX.values())
PRESET_MODES: dict[Preset, tuple[Mode, ...]] = {"pordi": MODES, "klasik": ("tunggal",)}
# The settings whose meaning or default depends on the preset: a PATCH that changes the preset
# resets them to the new preset's defaults unless it sets them too.
PRESET_DEPENDENT = ("target_points", *KLASIK_OPTIONS)

# The room settings that are rules, in the order the lobby offers them to the engine when it looks
# for the one it refuses (turn_seconds, public and allow_join_bots are the server's own).
RULE_KEYS = (
    "preset",
    "mode",
    "players",
    "seven_tiles",
    "stuck",
    "zero_zero_25",
    "scoring",
    "deals_per_set",
    "target_points",
)

# Quick play offers a few tables only, so that people meet: these presets, modes and clocks.
QuickplayPreset = Literal["pordi"]
QUICKPLAY_PRESETS: tuple[QuickplayPreset, ...] = get_args(QuickplayPreset)
QUICKPLAY_MODES: tuple[Mode, ...] = MODES
QUICKPLAY_TURN_SECONDS: tuple[TurnSeconds, ...] = TURN_SECONDS


def rule_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A room's settings as the engine's ``rules_from_settings`` input: the rule keys it has.

    ``settings`` as the API validated them or ``with_defaults`` read them from a stored row (an
    old row's ``discard`` is read there, not here)."""
    return {key: settings[key] for key in RULE_KEYS if settings.get(key) is not None}


def seat_count(settings: Mapping[str, Any]) -> int:
    """How many seats a room with these (validated) settings has: its rules' ``players``."""
    return int(settings.get("players") or SEATS_PER_TABLE)


def allow_join_bots_default(public: bool) -> bool:
    """Strangers may take a bot's seat in a public room; a private room is the host's friends'."""
    return public


def new_room_defaults(
    preset: Preset = DEFAULT_PRESET, *, public: bool = DEFAULT_PUBLIC, rated: bool = DEFAULT_RATED
) -> dict[str, Any]:
    """Every setting of a new room of this preset when the host chooses nothing else."""
    return {
        "preset": preset,
        "mode": DEFAULT_MODE,
        "turn_seconds": DEFAULT_TURN_SECONDS,
        "deals_per_set": DEFAULT_DEALS_PER_SET,
        **PRESET_DEFAULTS[preset],
        "public": public,
        "allow_join_bots": allow_join_bots_default(public),
        "rated": rated,
        "chat": DEFAULT_CHAT,
    }


def with_defaults(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored room's settings with what older rows lack (``turn_seconds``,
    ``allow_join_bots``, ``rated``, ``chat``) filled in, and their ``discard`` flag read as
    ``stuck`` (``engine.stuck_alias``)."""
    settings = engine.stuck_alias(stored)
    settings.setdefault("turn_seconds", DEFAULT_TURN_SECONDS)
    if settings.get("allow_join_bots") is None:
        settings["allow_join_bots"] = allow_join_bots_default(
            bool(settings.get("public", DEFAULT_PUBLIC))
        )
    settings.setdefault("rated", DEFAULT_RATED)
    settings.setdefault("chat", DEFAULT_CHAT)
    return settings


def _choice(key: str, choices: tuple[Any, ...], default: Any) -> dict[str, Any]:
    return {"key": key, "type": "choice", "choices": list(choices), "default": default}


def _number(key: str, low: int, high: int, default: int, **extra: Any) -> dict[str, Any]:
    return {"key": key, "type": "int", "min": low, "max": high, "default": default, **extra}


def _flag(key: str, default: bool, **extra: Any) -> dict[str, Any]:
    return {"key": key, "type": "bool", "default": default, **extra}


def _fields(preset: Preset) -> list[dict[str, Any]]:
    """The create form of one preset, in display order. ``when`` says which other setting a
    field matters under (the engine ignores it otherwise)."""
    defaults = new_room_defaults(preset)
    low, high = DEALS_PER_SET_RANGE
    deals_when = {"mode": ["tunggal"]} if preset == "pordi" else {"scoring": ["penalty"]}
    target_when = {"mode": ["ganda"]} if preset == "pordi" else {"scoring": ["difference"]}
    fields = [_choice("mode", PRESET_MODES[preset], defaults["mode"])]
    if preset == "klasik":
        # The game itself comes first, the other options under it: Gaple Klasik, Block Domino
        # or Draw Domino (no draw with seven tiles: the engine refuses it, a 422 on `stuck`).
        stuck = {**_choice("stuck", STUCK_CHOICES, defaults["stuck"]), "names": dict(STUCK_NAMES)}
        fields.insert(0, stuck)
        fields += [
            _choice("players", PLAYER_COUNTS, defaults["players"]),
            _flag("seven_tiles", defaults["seven_tiles"], when={"players": [4]}),
            _flag("zero_zero_25", defaults["zero_zero_25"]),
            _choice("scoring", SCORINGS, defaults["scoring"]),
        ]
    fields += [
        _choice("turn_seconds", TURN_SECONDS, defaults["turn_seconds"]),
        _number("deals_per_set", low, high, defaults["deals_per_set"], when=deals_when),
        _number(
            "target_points",
            1,
            TARGET_POINTS_MAX[preset],
            defaults["target_points"],
            when=target_when,
        ),
        _flag("public", defaults["public"]),
        # Its default follows `public`: true for a public room, false for a private one.
        _flag("allow_join_bots", defaults["allow_join_bots"], default_if_private=False),
        _flag("rated", defaults["rated"]),  # ratings: with a human in every seat at the start
        _flag("chat", defaults["chat"]),
    ]
    return fields


# The table shapes each preset offers: the options that change how many tiles each seat holds.
_SHAPES: dict[Preset, tuple[dict[str, Any], ...]] = {
    "pordi": ({},),
    "klasik": (
        {"players": 4, "seven_tiles": False},
        {"players": 4, "seven_tiles": True},
        {"players": 5, "seven_tiles": False},
    ),
}


def rule_numbers(preset: Preset) -> dict[str, Any]:
    """The rule book's numbers for a preset, read from the engine's rule sets of its default
    room and of each table shape: tiles in hand, tiles left over, the opening tile, the redeal,
    and the scoring tables (PORDI) or the 0-0 option's count (Klasik). The rules page shows these
    rather than writing numbers of its own."""
    defaults = new_room_defaults(preset)
    base = engine.rules_from_settings(rule_settings(defaults))
    tables = []
    for shape in _SHAPES[preset]:
        rules = engine.rules_from_settings(rule_settings({**defaults, **shape}))
        tables.append(
            {
                **shape,
                "players": rules.players,
                "hand_size": rules.hand_size,
                "face_up_start": rules.face_up_start,
                "set_aside": rules.set_aside_count,
                "first_opening_tile": rules.first_opening_tile,
            }
        )
    out: dict[str, Any] = {"tables": tables, "redeal_min_balak": base.redeal_min_balak}
    if base.counts:
        out["zero_zero_points"] = ZERO_ZERO_PENALTY
    else:
        dead, live = base.ceki_one_used_up_points
        out["domi_points"] = dict(base.domi_points)
        out["ceki_one_used_up_points"] = {"dead": dead, "live": live}
        out["kandang"] = {
            "tunggal": base.kandang_tunggal.to_dict(),
            "ganda": base.kandang_ganda.to_dict(),
        }
    return out


def catalogue() -> dict[str, Any]:
    """Everything a client needs to build the create form and the play-now choices
    (``GET /api/presets``; docs/API.md shows the shape)."""
    return {
        "default_preset": DEFAULT_PRESET,
        "presets": [
            {
                "preset": preset,
                "defaults": new_room_defaults(preset),
                "seats": seat_count(new_room_defaults(preset)),
                "fields": _fields(preset),
                "rules": rule_numbers(preset),
            }
            for preset in PRESETS
        ],
        "bots": {"kinds": list(BOT_KINDS), "default": DEFAULT_BOT},
        "practice": {
            "bot": PRACTICE_BOT,
            "public": PRACTICE_PUBLIC,
            "rated": PRACTICE_RATED,
        },
        "quickplay": {
            "presets": list(QUICKPLAY_PRESETS),
            "modes": list(QUICKPLAY_MODES),
            "turn_seconds": list(QUICKPLAY_TURN_SECONDS),
            "bot": QUICKPLAY_BOT,
            "rated": QUICKPLAY_RATED,
            "default": {
                "preset": QUICKPLAY_PRESETS[0],
                "mode": DEFAULT_MODE,
                "turn_seconds": DEFAULT_TURN_SECONDS,
            },
        },
    }
