"""Rule sets: every rule and option is a field, every preset is data (RULES.md §1).

Nothing in the engine asks "is this PORDI?"; it reads these fields. The scoring tables of
RULES.md §1.2-1.3 live here and only here, and each choice of docs/RULES_CHOICES.md (RULES.md
§1.7) is a single field.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from engine.errors import BadRules

MODES = ("tunggal", "ganda")
TIE_SHARES = ("higher", "lower")
KANDANG_OPENERS = ("largest_award", "locker")
DOMI_RESULTS = ("biasa", "balak", "ceki", "ceki_habis", "ceki_balak", "ceki_palang")


@dataclass(frozen=True, slots=True)
class KandangTable:
    """Points of a locked board (RULES.md §1.3) for one mode.

    ``locker_lower``: the locker's side when its pips are below every opponent's.
    ``tie_opponent``: each opponent (Ganda: the opposing team) level with the locker.
    ``tie_locker``: the locker in that tie (§1.7: 0; some referees give 1).
    ``locker_higher``: awards to the opponents ranked by pips, fewest first (Ganda: one award).
    """

    locker_lower: int
    tie_opponent: int
    tie_locker: int
    locker_higher: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "locker_lower": self.locker_lower,
            "tie_opponent": self.tie_opponent,
            "tie_locker": self.tie_locker,
            "locker_higher": list(self.locker_higher),
        }

    @classmethod
    def from_dict(cls, d: Any) -> KandangTable:
        try:
            return cls(
                locker_lower=_int(d["locker_lower"]),
                tie_opponent=_int(d["tie_opponent"]),
                tie_locker=_int(d["tie_locker"]),
                locker_higher=tuple(_int(x) for x in d["locker_higher"]),
            )
        except (KeyError, TypeError) as exc:
            raise BadRules(f"bad kandang table {d!r}") from exc


def _int(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise BadRules(f"{x!r} is not an integer")
    return x


PORDI_DOMI_POINTS: tuple[tuple[str, int], ...] = (
    ("biasa", 1),
    ("balak", 2),
    ("ceki", 2),
    ("ceki_habis", 3),
    ("ceki_balak", 3),
    ("ceki_palang", 4),
)
PORDI_KANDANG_TUNGGAL = KandangTable(
    locker_lower=3, tie_opponent=1, tie_locker=0, locker_higher=(3, 2, 1)
)
PORDI_KANDANG_GANDA = KandangTable(locker_lower=2, tie_opponent=1, tie_locker=0, locker_higher=(3,))


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One preset plus the host's options. Frozen; ``to_dict``/``from_dict`` round-trip."""

    preset: str = "pordi"
    mode: str = "tunggal"
    players: int = 4
    hand_size: int = 7
    deals_per_set: int = 7  # Tunggal
    target_points: int = 7  # Ganda
    additional_game_on_tie: bool = True  # Tunggal: one more deal while first place is tied
    turn_seconds: int = 15  # §1.6; the server's clock reads it, the engine does not
    turn_seconds_choices: tuple[int, ...] = (15, 30, 60)
    redeal_min_balak: int = 5  # redeal while a hand holds this many balak (0: never)
    first_opening_tile: str | None = "6-6"  # first deal of a set: its holder opens with it
    scoring: str = "fixed"  # "fixed" (PORDI tables below); Klasik will add "pips"
    domi_points: tuple[tuple[str, int], ...] = PORDI_DOMI_POINTS
    # §1.7 switches -------------------------------------------------------------------------
    # Ceki with exactly one end used up: (board ends dead, a live number stays open).
    ceki_one_used_up_points: tuple[int, int] = (2, 1)
    # Tunggal Kandang, locker above: tied opponents share the "higher" or the "lower" award.
    kandang_tie_share: str = "higher"
    # Tables of §1.3; the locker's points in a Tunggal tie are ``kandang_tunggal.tie_locker``.
    kandang_tunggal: KandangTable = PORDI_KANDANG_TUNGGAL
    kandang_ganda: KandangTable = PORDI_KANDANG_GANDA
    # Who opens after a Kandang: the seat with the largest award (§1.4) or always the locker.
    kandang_opener: str = "largest_award"
    # Play passes from seat s to s + direction (mod players): 1 is clockwise on screen.
    direction: int = 1
    _domi: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_domi", dict(self.domi_points))
        self.validate()

    # -- derived ---------------------------------------------------------------------------
    @property
    def teams(self) -> bool:
        return self.mode == "ganda"

    @property
    def kandang_table(self) -> KandangTable:
        return self.kandang_ganda if self.teams else self.kandang_tunggal

    def domi(self, result: str) -> int:
        return self._domi[result]

    def team_of(self, seat: int) -> int:
        """Ganda: seats 0+2 are team 0, 1+3 team 1. Tunggal: every seat is its own side."""
        return seat % 2 if self.teams else seat

    def partners(self, seat: int) -> tuple[int, ...]:
        """The seats that share ``seat``'s counter, itself included."""
        if self.teams:
            return tuple(s for s in range(self.players) if s % 2 == seat % 2)
        return (seat,)

    # -- checking and JSON -----------------------------------------------------------------
    def validate(self) -> None:
        if self.preset != "pordi":
            raise BadRules(f"unknown preset {self.preset!r} (available: pordi)")
        if self.mode not in MODES:
            raise BadRules(f"unknown mode {self.mode!r} (tunggal or ganda)")
        if self.players != 4 or self.hand_size * self.players != 28:
            raise BadRules("PORDI is 4 players with 7 tiles each")
        if self.teams and self.players % 2:
            raise BadRules("ganda needs an even number of players")
        for name in ("deals_per_set", "target_points"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1000:
                raise BadRules(f"{name} must be an integer from 1 to 1000, not {v!r}")
        if self.turn_seconds not in self.turn_seconds_choices:
            raise BadRules(
                f"turn_seconds must be one of {list(self.turn_seconds_choices)}, "
                f"not {self.turn_seconds!r}"
            )
        if self.scoring != "fixed":
            raise BadRules(f"unknown scoring {self.scoring!r}")
        if sorted(self._domi) != sorted(DOMI_RESULTS):
            raise BadRules(f"domi_points must give points for each of {list(DOMI_RESULTS)}")
        if len(self.ceki_one_used_up_points) != 2:
            raise BadRules("ceki_one_used_up_points is (dead end, live end)")
        if self.kandang_tie_share not in TIE_SHARES:
            raise BadRules(f"kandang_tie_share must be one of {list(TIE_SHARES)}")
        if self.kandang_opener not in KANDANG_OPENERS:
            raise BadRules(f"kandang_opener must be one of {list(KANDANG_OPENERS)}")
        if self.direction not in (1, -1):
            raise BadRules("direction is 1 (clockwise) or -1")
        if len(self.kandang_tunggal.locker_higher) != self.players - 1:
            raise BadRules("kandang_tunggal.locker_higher needs one award per opponent")
        if len(self.kandang_ganda.locker_higher) != 1:
            raise BadRules("kandang_ganda.locker_higher is one award for the team")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name.startswith("_"):
                continue
            v = getattr(self, f.name)
            if isinstance(v, KandangTable):
                out[f.name] = v.to_dict()
            elif f.name == "domi_points":
                out[f.name] = dict(v)
            elif isinstance(v, tuple):
                out[f.name] = list(v)
            else:
                out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, d: Any) -> RuleSet:
        if not isinstance(d, dict):
            raise BadRules(f"rules must be an object, not {d!r}")
        known = {f.name for f in fields(cls) if not f.name.startswith("_")}
        unknown = sorted(set(d) - known)
        if unknown:
            raise BadRules(f"unknown rule option(s): {', '.join(unknown)}")
        kw: dict[str, Any] = {}
        for k, v in d.items():
            if k in ("kandang_tunggal", "kandang_ganda"):
                kw[k] = KandangTable.from_dict(v)
            elif k == "domi_points":
                if not isinstance(v, dict):
                    raise BadRules("domi_points is an object result -> points")
                kw[k] = tuple((str(r), _int(p)) for r, p in v.items())
            elif k in ("ceki_one_used_up_points", "turn_seconds_choices"):
                if not isinstance(v, list | tuple):
                    raise BadRules(f"{k} is a list of integers")
                kw[k] = tuple(_int(x) for x in v)
            else:
                kw[k] = v
        try:
            return cls(**kw)
        except TypeError as exc:
            raise BadRules(str(exc)) from exc


def pordi(
    mode: str = "tunggal", *, deals_per_set: int = 7, target_points: int = 7, **options: Any
) -> RuleSet:
    """The PORDI 2025 preset (RULES.md §1) with the host's options."""
    d: dict[str, Any] = {
        "preset": "pordi",
        "mode": mode,
        "deals_per_set": deals_per_set,
        "target_points": target_points,
    }
    d.update(options)
    return RuleSet.from_dict(d)


PRESETS = {"pordi": pordi}


def rules_from_settings(settings: Any) -> RuleSet:
    """``{"preset": "pordi", "mode": "ganda", ...}`` -> ``RuleSet``; ``BadRules`` otherwise."""
    if not isinstance(settings, dict):
        raise BadRules(f"rules settings must be an object, not {settings!r}")
    d = dict(settings)
    preset = d.pop("preset", "pordi")
    if preset not in PRESETS:
        raise BadRules(f"unknown preset {preset!r} (available: {', '.join(PRESETS)})")
    return PRESETS[preset](**d)


def with_options(rules: RuleSet, **options: Any) -> RuleSet:
    """A copy of ``rules`` with some fields changed (validated)."""
    return replace(rules, **options)
