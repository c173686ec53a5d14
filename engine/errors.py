"""The engine's typed errors: a small hierarchy with stable codes.

The server turns an ``EngineError`` into a protocol error message as it is: ``code`` is stable
(clients switch on it), ``message`` names the move so a human can read it.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class: ``code`` is stable, ``message`` is for people."""

    code: str = "engine_error"

    def __init__(self, code: str | None = None, message: str = "") -> None:
        if code is not None:
            self.code = code
        self.message = message
        super().__init__(f"{self.code}: {message}")

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class _Coded(EngineError):
    """A subclass with a fixed code: raise it with just the message."""

    def __init__(self, message: str) -> None:
        super().__init__(None, message)


class IllegalMove(_Coded):
    """A move the rules forbid; the state is unchanged."""

    code = "illegal_move"


class NotYourTurn(IllegalMove):
    code = "not_your_turn"


class TileNotInHand(IllegalMove):
    code = "tile_not_in_hand"


class TileDoesNotFit(IllegalMove):
    code = "tile_does_not_fit"


class EndRequired(IllegalMove):
    code = "end_required"


class WrongOpening(IllegalMove):
    """The opening tile breaks the rule of this deal (a named tile, or a balak)."""

    code = "wrong_opening"


class MustOpenWith66(WrongOpening):
    code = "must_open_with_6_6"


class MustOpenWith00(WrongOpening):
    """Klasik, seven tiles each: the first deal of a set is opened with 0-0."""

    code = "must_open_with_0_0"


class MustOpenWithBalak(WrongOpening):
    """Klasik, seven tiles each: a later deal is led with a balak."""

    code = "must_open_with_balak"


class MustPlace(IllegalMove):
    """A discard by a seat that has a legal placement (or that must open)."""

    code = "must_place"


class DiscardNotAllowed(IllegalMove):
    """A discard under rules where a seat that cannot play passes."""

    code = "discard_not_allowed"


class NoLegalMove(IllegalMove):
    """A bot was asked to move for a seat that has nothing to play."""

    code = "no_legal_move"


class PhaseError(_Coded):
    """The request does not fit the match's phase."""

    code = "bad_phase"


class DealInProgress(PhaseError):
    code = "deal_in_progress"


class DealOver(PhaseError):
    code = "deal_over"


class NoDeal(PhaseError):
    code = "no_deal"


class SetOver(PhaseError):
    code = "set_over"


class BadInput(_Coded):
    """Malformed data from outside: a tile string, rules, a scenario."""

    code = "bad_input"


class BadTile(BadInput):
    code = "bad_tile"


class BadMove(BadInput):
    code = "bad_move"


class BadRules(BadInput):
    code = "bad_rules"


class BadScenario(BadInput):
    code = "bad_scenario"


class UnknownBot(BadInput):
    """A bot kind that is not in ``engine.BOTS``."""

    code = "unknown_bot"
