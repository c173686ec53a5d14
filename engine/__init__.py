"""Gaple rules engine: a pure, deterministic library (see docs/ENGINE_API.md).

No I/O, no clock, no global randomness: seeds and ``random.Random`` instances are inputs.
"""

from engine.bots import BOTS, Bot, HardBot, HeuristicBot, RandomBot
from engine.deal import DISCARD, DealResult, DealState, Move
from engine.errors import (
    BadMove,
    BadRules,
    BadScenario,
    BadTile,
    DealOver,
    DiscardNotAllowed,
    EndRequired,
    EngineError,
    IllegalMove,
    MustOpenWith00,
    MustOpenWith66,
    MustOpenWithBalak,
    MustPlace,
    NoDeal,
    NotYourTurn,
    SetOver,
    TileDoesNotFit,
    TileNotInHand,
    UnknownBot,
    WrongOpening,
)
from engine.events import Event
from engine.match import (
    MatchState,
    hand_of,
    legal_moves,
    new_match,
    play,
    random_legal_move,
    start_deal,
)
from engine.replay import fold, replay_match
from engine.rules import KandangTable, RuleSet, klasik, pordi, rules_from_settings, stuck_alias
from engine.tiles import ALL_TILES, Tile
from engine.views import PUBLIC_EVENTS, event_view, view, views

__all__ = [
    "ALL_TILES",
    "BOTS",
    "DISCARD",
    "PUBLIC_EVENTS",
    "BadMove",
    "BadRules",
    "BadScenario",
    "BadTile",
    "Bot",
    "DealOver",
    "DealResult",
    "DealState",
    "DiscardNotAllowed",
    "EndRequired",
    "EngineError",
    "Event",
    "HardBot",
    "HeuristicBot",
    "IllegalMove",
    "KandangTable",
    "MatchState",
    "Move",
    "MustOpenWith00",
    "MustOpenWith66",
    "MustOpenWithBalak",
    "MustPlace",
    "NoDeal",
    "NotYourTurn",
    "RandomBot",
    "RuleSet",
    "SetOver",
    "Tile",
    "TileDoesNotFit",
    "TileNotInHand",
    "UnknownBot",
    "WrongOpening",
    "event_view",
    "fold",
    "hand_of",
    "klasik",
    "legal_moves",
    "new_match",
    "play",
    "pordi",
    "random_legal_move",
    "replay_match",
    "rules_from_settings",
    "start_deal",
    "stuck_alias",
    "view",
    "views",
]
