"""What a seat's view says about the hidden tiles, and deals of them consistent with it.

Used by the hard bot (determinized Monte Carlo): from ``engine.views.view`` alone it learns the
unseen tiles, how many each seat holds and has discarded, how many lie set aside, and what a
seat cannot hold: one that passed or discarded on ends ``a|b`` holds no ``a`` and no ``b``
for the rest of the deal (and its later discards came from that hand). ``sample`` deals the
unseen tiles at random within those limits.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.errors import BadInput
from engine.rules import RuleSet, klasik, pordi
from engine.tiles import FULL_MASK, WITH, bits, mask_of_names


@dataclass(frozen=True, slots=True)
class Knowledge:
    """A seat's knowledge of a deal, as masks and counts."""

    me: int
    hand: int
    discards: int  # my own
    unseen: int  # tiles neither on the line, nor in my hand, nor among my discards
    held: tuple[int, ...]  # tiles in each seat's hand
    discarded: tuple[int, ...]  # tiles each seat has discarded
    hand_bans: tuple[int, ...]  # tiles each seat's hand cannot hold (mask)
    discard_bans: tuple[int, ...]  # tiles each seat's discards cannot be (mask)
    left: int  # -1 before the opening
    right: int


def knowledge(view: dict[str, Any]) -> Knowledge:
    me = view["viewer"]
    if me is None:
        raise BadInput("a spectator has no hand to play")
    n = view["players"]
    hand = mask_of_names(view["hand"])
    mine = mask_of_names(view.get("discards") or [])
    board = mask_of_names([e["tile"] for e in view["line"]])
    hand_bans = [0] * n
    discard_bans = [0] * n
    for p in view["passes"]:
        hand_bans[p["seat"]] |= WITH[p["left"]] | WITH[p["right"]]
    for p in view.get("discarded", ()):
        s = p["seat"]
        ban = WITH[p["left"]] | WITH[p["right"]]
        if not discard_bans[s]:
            discard_bans[s] = ban  # its first discard, and every later one, came from a hand
        hand_bans[s] |= ban  # that held neither number
    ends = view["ends"]
    left, right = (-1, -1) if ends is None else (ends["left"], ends["right"])
    return Knowledge(
        me,
        hand,
        mine,
        FULL_MASK & ~board & ~hand & ~mine,
        tuple(view["counts"]),
        tuple(view.get("discard_counts") or [0] * n),
        tuple(hand_bans),
        tuple(discard_bans),
        left,
        right,
    )


def sample(k: Knowledge, rng: random.Random, tries: int = 8) -> tuple[list[int], list[int]]:
    """Hidden hands and discards dealt from the unseen tiles, consistent with ``k``.

    The most constrained seat is dealt first; after ``tries`` dead ends the bans are dropped
    (a view can only be inconsistent with them by a bug, never by the rules).
    """
    n = len(k.held)
    others = [s for s in range(n) if s != k.me]
    for attempt in range(tries + 1):
        strict = attempt < tries
        rest = k.unseen
        hands = [0] * n
        discards = [0] * n
        hands[k.me], discards[k.me] = k.hand, k.discards
        jobs = [(s, k.held[s], k.hand_bans[s] if strict else 0, hands) for s in others]
        jobs += [(s, k.discarded[s], k.discard_bans[s] if strict else 0, discards) for s in others]
        jobs.sort(key=lambda j: (rest & ~j[2]).bit_count() - j[1])
        for s, need, ban, into in jobs:
            if not need:
                continue
            pool = bits(rest & ~ban)
            if len(pool) < need:
                break
            for i in rng.sample(pool, need):
                into[s] |= 1 << i
                rest &= ~(1 << i)
        else:
            return hands, discards
    raise AssertionError("the unseen tiles cannot fill the hands the view counts")


_RULES: dict[tuple[Any, ...], RuleSet] = {}


def rules_of(view: dict[str, Any]) -> RuleSet:
    """The deal's rules as far as they change play, read from the view (cached).

    PORDI: the mode. Klasik: players, the hand size (seven each is the deal with no start tile),
    the scoring, what a stuck seat does (the view's ``stuck``); the 0-0 option cannot be
    seen and counts as off.
    """
    if view["preset"] == "pordi":
        key: tuple[Any, ...] = ("pordi", view["mode"])
    else:
        n = view["players"]
        seven = n == 4 and view["start"] is None  # only seven tiles each has no start tile
        stuck = view.get("stuck")  # views older than the stuck option: guess from the moves
        if stuck is None:
            stuck = "discard" if view.get("discarded") or not view["passes"] else "pass"
        key = ("klasik", n, seven, view["scoring"], stuck)
    rules = _RULES.get(key)
    if rules is None:
        if key[0] == "pordi":
            rules = pordi(key[1])
        else:
            rules = klasik(key[1], seven_tiles=key[2], scoring=key[3], stuck=key[4])
        _RULES[key] = rules
    return rules


def value(rules: RuleSet, me: int, points: tuple[int, ...]) -> float:
    """What a deal's points are worth to seat ``me``: its side's lead over the others.

    Ganda: the team's points less the other team's. Otherwise its points less the average of
    the others' (penalty scoring: the other way round, a low total wins).
    """
    n = len(points)
    if rules.teams:
        return float(points[me] - points[(me + 1) % n])
    lead = points[me] - (sum(points) - points[me]) / (n - 1)
    return -lead if rules.scoring == "penalty" else lead


def boneyard_of(k: Knowledge, hands: list[int], rng: random.Random) -> list[int]:
    """Draw rules: the unseen tiles no sampled hand holds, in a random drawing order."""
    rest = k.unseen
    for h in hands:
        rest &= ~h
    pile = list(bits(rest))
    rng.shuffle(pile)
    return pile


def opening_of(view: dict[str, Any]) -> int:
    """The opening mask implied by the view's legal moves (only read before the first tile)."""
    return mask_of_names([o["tile"] for o in view["legal"]]) if view["ends"] is None else 0


__all__ = ["Knowledge", "boneyard_of", "knowledge", "opening_of", "rules_of", "sample", "value"]
