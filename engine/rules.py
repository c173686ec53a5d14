"""Rule sets: every rule and option is a field, every preset is data (RULES.md §1, §2).

Nothing in the engine asks "is this PORDI?" or "is this Klasik?"; it reads these fields. The
scoring tables of RULES.md §1.2-1.3 live here and only here, and each choice of
docs/RULES_CHOICES.md is a single field. A preset (``pordi``, ``klasik``) is a function that
turns the host's options into field values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from engine.errors import BadRules, BadTile
from engine.tiles import parse_index

MODES = ("tunggal", "ganda")
TIE_SHARES = ("higher", "lower")
KANDANG_OPENERS = ("largest_award", "locker")
DOMI_RESULTS = ("biasa", "balak", "ceki", "ceki_habis", "ceki_balak", "ceki_palang")
# "fixed": PORDI tables (§1.2-1.3); "difference": each seat scores, against every seat with a
# higher count, the difference (§2); "penalty": each seat adds its own count (§2).
SCORINGS = ("fixed", "difference", "penalty")
FIRST_OPENERS = ("holder", "random")  # first deal: holder of first_opening_tile / a random seat
OPENING_LEADS = ("any", "balak")  # later deals without a start tile: what the leader opens with
# A seat that cannot place: lays a tile face down ("discard", Gaple Klasik), passes ("pass",
# Block Domino) or draws from the boneyard until it can place ("draw", Draw Domino).
STUCK = ("discard", "pass", "draw")
# How a set ends, from (scoring, mode): a table, not a branch.
SET_GOALS: dict[tuple[str, str], str] = {
    ("fixed", "tunggal"): "most_after_deals",
    ("fixed", "ganda"): "first_to_target",
    ("difference", "tunggal"): "first_to_target",
    ("penalty", "tunggal"): "least_after_deals",
}
# What each preset allows: (players, hand_size) shapes and scorings.
PRESET_SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "pordi": ((4, 7),),
    "klasik": ((4, 6), (4, 7), (5, 5)),
}
PRESET_SCORINGS: dict[str, tuple[str, ...]] = {
    "pordi": ("fixed",),
    "klasik": ("difference", "penalty"),
}
# Fields a preset fixes: the host's options cannot change them.
PRESET_FIXED: dict[str, dict[str, Any]] = {
    "pordi": {
        "stuck": "pass",
        "face_up_start": False,
        "first_opener": "holder",
        "opening_lead": "any",
        "zero_zero_25": False,
    },
    "klasik": {"mode": "tunggal"},
}
TILE_COUNT = 28
MAX_SET_ASIDE = 5  # with a start tile, some seat can always play on it (6 other tiles per number)
# Keys that stored rule sets (``to_dict`` of an earlier RuleSet) may hold but that are not
# options: the turn clock (``turn_seconds`` and its choices) is the server's, a room setting
# (app/presets.py); the engine has no time. ``from_dict`` drops them so those sets still load.
DROPPED_KEYS = ("turn_seconds", "turn_seconds_choices")


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
    redeal_min_balak: int = 5  # redeal while a hand holds this many balak (0: never)
    first_opening_tile: str | None = "6-6"  # first deal of a set: its holder opens with it
    scoring: str = "fixed"  # one of SCORINGS
    # Dealing and opening (Klasik, RULES.md §2) ---------------------------------------------
    # One tile left over after dealing is turned face up to start the line; the rest are set
    # aside unseen (``set_aside_count``).
    face_up_start: bool = False
    # First deal of a set: the holder of ``first_opening_tile`` opens with it ("holder"), or a
    # seat drawn from the deal's seeded generator moves first ("random").
    first_opener: str = "holder"
    # Later deals without a start tile: the previous winner opens with any tile ("any"), or must
    # lead a balak; without one the lead passes to the next seat in turn holding one ("balak").
    opening_lead: str = "any"
    # A seat that cannot place a tile: one of STUCK. Under "draw" the tiles left over after
    # the deal (and the start tile) are the boneyard, drawn from the front in dealt order.
    stuck: str = "pass"
    # Counting (scoring "difference"/"penalty"): 0-0 counts 25 unless its holder also holds
    # another blank tile, then 0.
    zero_zero_25: bool = False
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
    # Derived from the fields above in ``__post_init__``, once: the engine reads them on every
    # deal, and a property would cost a Python call each time. Not options: ``to_dict`` and
    # ``from_dict`` leave them out.
    domi_award: dict[str, int] = field(init=False, compare=False, repr=False)
    """``domi_award[result]``: the points of a Domi result (``domi_points`` as a dict)."""
    discard: bool = field(init=False, compare=False, repr=False)
    """A seat that cannot place discards a tile face down."""
    draws: bool = field(init=False, compare=False, repr=False)
    """A seat that cannot place draws from the boneyard (the tiles left over)."""
    teams: bool = field(init=False, compare=False, repr=False)
    """Ganda: two teams of partners (seats 0+2 and 1+3)."""
    set_aside_count: int = field(init=False, compare=False, repr=False)
    """Tiles left over after dealing that nobody sees until the deal ends."""
    set_goal: str = field(init=False, compare=False, repr=False)
    """How the set ends: most_after_deals, least_after_deals or first_to_target."""
    counts: bool = field(init=False, compare=False, repr=False)
    """Deals are scored on each seat's count (hand + discards), not by the PORDI tables."""
    kandang_table: KandangTable = field(init=False, compare=False, repr=False)
    """The Kandang table of this mode (§1.3)."""
    sides: tuple[int, ...] = field(init=False, compare=False, repr=False)
    """``sides[seat]``: the side it scores for. Ganda: seats 0+2 are team 0, 1+3 team 1;
    Tunggal: every seat is its own side."""
    side_seats: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    """``side_seats[seat]``: the seats that share ``seat``'s counter, itself included."""
    order: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    """``order[seat]``: the seats in turn order after ``seat``, ending with ``seat`` itself."""

    def __post_init__(self) -> None:
        self._check_options()
        for name, value in self._derived().items():
            object.__setattr__(self, name, value)
        self._check_combination()

    def _derived(self) -> dict[str, Any]:
        """The derived fields' values (the options they read are checked by then)."""
        teams = self.mode == "ganda"
        sides = tuple(s % 2 if teams else s for s in range(self.players))
        return {
            "domi_award": dict(self.domi_points),
            "discard": self.stuck == "discard",
            "draws": self.stuck == "draw",
            "teams": teams,
            "set_aside_count": TILE_COUNT - self.players * self.hand_size - self.face_up_start,
            "set_goal": SET_GOALS[(self.scoring, self.mode)],
            "counts": self.scoring != "fixed",
            "kandang_table": self.kandang_ganda if teams else self.kandang_tunggal,
            "sides": sides,
            "side_seats": tuple(
                tuple(t for t in range(self.players) if sides[t] == sides[s])
                for s in range(self.players)
            ),
            "order": tuple(
                tuple((s + self.direction * k) % self.players for k in range(1, self.players + 1))
                for s in range(self.players)
            ),
        }

    def team_of(self, seat: int) -> int:
        """Ganda: seats 0+2 are team 0, 1+3 team 1. Tunggal: every seat is its own side."""
        return self.sides[seat]

    def partners(self, seat: int) -> tuple[int, ...]:
        """The seats that share ``seat``'s counter, itself included."""
        return self.side_seats[seat]

    # -- checking and JSON -----------------------------------------------------------------
    def _check_options(self) -> None:
        """Each option on its own, and the shape, scoring and set goal of the preset."""
        if self.preset not in PRESET_SHAPES:
            raise BadRules(f"unknown preset {self.preset!r} (available: {', '.join(PRESETS)})")
        if self.mode not in MODES:
            raise BadRules(f"unknown mode {self.mode!r} (tunggal or ganda)")
        if self.stuck not in STUCK:
            raise BadRules(f"stuck must be one of {list(STUCK)}, not {self.stuck!r}")
        for name in ("face_up_start", "zero_zero_25", "additional_game_on_tie"):
            if not isinstance(getattr(self, name), bool):
                raise BadRules(f"{name} must be true or false, not {getattr(self, name)!r}")
        shape = (self.players, self.hand_size)
        if shape not in PRESET_SHAPES[self.preset]:
            shapes = PRESET_SHAPES[self.preset]
            allowed = " or ".join(f"{p} players with {h} tiles" for p, h in shapes)
            raise BadRules(f"{self.preset} is {allowed}, not {shape[0]} with {shape[1]}")
        if self.scoring not in PRESET_SCORINGS[self.preset]:
            raise BadRules(
                f"scoring for {self.preset} is one of {list(PRESET_SCORINGS[self.preset])}, "
                f"not {self.scoring!r}"
            )
        for name, value in PRESET_FIXED[self.preset].items():
            if getattr(self, name) != value:
                raise BadRules(f"{self.preset} is played with {name} = {value!r}")
        if (self.scoring, self.mode) not in SET_GOALS:
            raise BadRules(f"{self.scoring} scoring is not played in {self.mode}")
        if self.direction not in (1, -1):
            raise BadRules("direction is 1 (clockwise) or -1")

    def _check_combination(self) -> None:
        """The options together (with the derived fields set)."""
        if self.teams and self.players % 2:
            raise BadRules("ganda needs an even number of players")
        leftover = TILE_COUNT - self.players * self.hand_size
        if self.face_up_start and leftover < 1:
            raise BadRules("a face-up start tile needs a tile left over after dealing")
        if not 0 <= self.set_aside_count <= MAX_SET_ASIDE:
            raise BadRules(f"at most {MAX_SET_ASIDE} tiles can be set aside")
        if self.draws and self.set_aside_count < 1:
            raise BadRules(
                "stuck 'draw' needs a boneyard: with "
                f"{self.hand_size} tiles each no tile is left over to draw"
            )
        if self.first_opener not in FIRST_OPENERS:
            raise BadRules(f"first_opener must be one of {list(FIRST_OPENERS)}")
        if self.opening_lead not in OPENING_LEADS:
            raise BadRules(f"opening_lead must be one of {list(OPENING_LEADS)}")
        if self.first_opening_tile is not None:
            if self.face_up_start:
                raise BadRules("first_opening_tile and a face-up start tile exclude each other")
            if leftover:
                raise BadRules("first_opening_tile needs every tile dealt (its holder opens)")
            try:
                parse_index(self.first_opening_tile)
            except BadTile as exc:
                raise BadRules(f"first_opening_tile: {exc.message}") from exc
        if self.opening_lead == "balak" and self.face_up_start:
            raise BadRules("opening_lead 'balak' is for deals without a face-up start tile")
        for name in ("deals_per_set", "target_points"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1000:
                raise BadRules(f"{name} must be an integer from 1 to 1000, not {v!r}")
        if sorted(self.domi_award) != sorted(DOMI_RESULTS):
            raise BadRules(f"domi_points must give points for each of {list(DOMI_RESULTS)}")
        if len(self.ceki_one_used_up_points) != 2:
            raise BadRules("ceki_one_used_up_points is (dead end, live end)")
        if self.kandang_tie_share not in TIE_SHARES:
            raise BadRules(f"kandang_tie_share must be one of {list(TIE_SHARES)}")
        if self.kandang_opener not in KANDANG_OPENERS:
            raise BadRules(f"kandang_opener must be one of {list(KANDANG_OPENERS)}")
        if self.scoring == "fixed":
            if len(self.kandang_tunggal.locker_higher) != self.players - 1:
                raise BadRules("kandang_tunggal.locker_higher needs one award per opponent")
            if len(self.kandang_ganda.locker_higher) != 1:
                raise BadRules("kandang_ganda.locker_higher is one award for the team")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if not f.init:
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
        known = {f.name for f in fields(cls) if f.init}
        d = stuck_alias(d)
        for key in DROPPED_KEYS:
            d.pop(key, None)
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
            elif k == "ceki_one_used_up_points":
                if not isinstance(v, list | tuple):
                    raise BadRules(f"{k} is a list of integers")
                kw[k] = tuple(_int(x) for x in v)
            else:
                kw[k] = v
        try:
            return cls(**kw)
        except TypeError as exc:
            raise BadRules(str(exc)) from exc


def stuck_alias(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``settings`` with the old boolean ``discard`` read as ``stuck``: true is
    "discard", false "pass". Rooms and rule sets stored before ``stuck`` have it, and clients
    may still send it. None (JSON null) is "not given", for either key. ``BadRules`` when
    ``discard`` is not a boolean or contradicts ``stuck``."""
    out = dict(settings)
    flag = out.pop("discard", None)
    if flag is None:
        return out
    if not isinstance(flag, bool):
        raise BadRules(f"discard must be true or false, not {flag!r}")
    stuck = "discard" if flag else "pass"
    if out.get("stuck") is None:
        out["stuck"] = stuck
    elif out["stuck"] != stuck:
        raise BadRules(f"discard = {flag} contradicts stuck = {out['stuck']!r}")
    return out


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


def klasik(
    players: int = 4,
    *,
    seven_tiles: bool = False,
    stuck: str | None = None,
    zero_zero_25: bool = False,
    scoring: str = "difference",
    target_points: int = 100,
    deals_per_set: int = 7,
    mode: str = "tunggal",
    **options: Any,
) -> RuleSet:
    """The Klasik preset (RULES.md §2, pagat.com / gameonline.co.id) with the host's options.

    ``players`` 4: six tiles each, one of the four left over starts the line face up, three are
    set aside. ``seven_tiles`` (4 players only): seven each, nothing left over, the 0-0 holder
    opens the first deal, later deals are led with a balak. ``players`` 5: five each, one of
    the three left over starts the line, two are set aside. ``stuck``: a seat that cannot
    play discards ("discard"), passes ("pass") or draws from the set-aside tiles ("draw"; not
    with seven tiles; default "discard"); the old ``discard=True|False`` still reads as
    ``stuck``. ``scoring``: "difference" (first to
    ``target_points``) or "penalty" (own counts over ``deals_per_set`` deals, lowest wins).
    """
    if not isinstance(seven_tiles, bool):
        raise BadRules(f"seven_tiles must be true or false, not {seven_tiles!r}")
    if "discard" in options:
        stuck = stuck_alias({"discard": options.pop("discard"), "stuck": stuck})["stuck"]
    if isinstance(players, bool) or players not in (4, 5):
        raise BadRules(f"klasik is played by 4 or 5 players, not {players!r}")
    if seven_tiles and players != 4:
        raise BadRules("seven tiles each is a 4-player option")
    shape: dict[str, Any]
    if seven_tiles:
        shape = {
            "hand_size": 7,
            "face_up_start": False,
            "first_opening_tile": "0-0",
            "first_opener": "holder",
            "opening_lead": "balak",
        }
    else:
        shape = {
            "hand_size": 6 if players == 4 else 5,
            "face_up_start": True,
            "first_opening_tile": None,
            "first_opener": "random",
            "opening_lead": "any",
        }
    d: dict[str, Any] = {
        "preset": "klasik",
        "mode": mode,
        "players": players,
        **shape,
        "stuck": stuck or "discard",
        "zero_zero_25": zero_zero_25,
        "scoring": scoring,
        "target_points": target_points,
        "deals_per_set": deals_per_set,
    }
    d.update(options)
    return RuleSet.from_dict(d)


PRESETS: dict[str, Callable[..., RuleSet]] = {"pordi": pordi, "klasik": klasik}


def rules_from_settings(settings: Any) -> RuleSet:
    """``{"preset": "pordi", "mode": "ganda", ...}`` -> ``RuleSet``; ``BadRules`` otherwise."""
    if not isinstance(settings, dict):
        raise BadRules(f"rules settings must be an object, not {settings!r}")
    d = dict(settings)
    preset = d.pop("preset", "pordi")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise BadRules(f"unknown preset {preset!r} (available: {', '.join(PRESETS)})")
    if not all(isinstance(k, str) for k in d):
        raise BadRules("rule option names are strings")
    return PRESETS[preset](**d)


def with_options(rules: RuleSet, **options: Any) -> RuleSet:
    """A copy of ``rules`` with some fields changed (validated)."""
    return replace(rules, **options)
