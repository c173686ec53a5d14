"""Every deal on the record: a player's sets, and a set's deals rebuilt for replay.

Nothing here folds a deal by itself: a set's finished deals are re-played from their stored seeds
and moves through ``engine.replay_match`` (the same ``start_deal`` and ``play`` as the live
table), and what the engine's events say is what a replay shows.

A deal still in play is listed by number and start time only. Its moves are never even loaded,
so no hand, tile or seed of a live deal can reach an answer. Finished deals come first in a set
(deals are played one after another), so they are always a prefix of the set's deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

import engine
from app.store.models import Deal, GameSet, Move, Room, Score

FINISHED, IN_PLAY = "finished", "in_play"
MOVE_KINDS = ("played", "discarded")  # a stored move's own event (engine: events[0] of play)
# Today's deals are shuffled from a stored seed; FAIRNESS.md's committed secret comes later and
# fills the same place (see ``_fairness``).
SEED_SHUFFLE = "seed"


def replay_path(set_id: int) -> str:
    """The client's replay page of a set (the one place its address is written on the server)."""
    return f"/replay/{set_id}"


@dataclass(frozen=True)
class _StoredDeal:
    row: Deal
    moves: list[Move]


async def set_detail(session: AsyncSession, *, set_id: int) -> dict[str, Any] | None:
    """The set with its deals; None for an unknown set."""
    game_set = await session.get(GameSet, set_id)
    if game_set is None:
        return None
    room = await session.get(Room, game_set.room_id)
    assert room is not None  # a set's room is deleted with it (ON DELETE CASCADE)
    deal_rows = list(
        await session.scalars(select(Deal).where(Deal.set_id == set_id).order_by(Deal.number))
    )
    finished = _finished_prefix(deal_rows)
    moves = await _moves_of(session, [d.id for d in finished])
    score_rows = await session.execute(
        select(Score.seat, Score.points).where(Score.set_id == set_id)
    )
    scores = {row.seat: row.points for row in score_rows}
    rules = engine.RuleSet.from_dict(game_set.rules)
    replayed = _replay(rules, [_StoredDeal(d, moves.get(d.id, [])) for d in finished])
    live = [
        {"number": d.number, "status": IN_PLAY, "started_at": d.started_at}
        for d in deal_rows[len(finished) :]
    ]
    return {
        "set_id": game_set.id,
        "room": {"code": room.code},
        "number": game_set.number,
        "preset": rules.preset,
        "mode": rules.mode,
        "players": rules.players,
        "rules": dict(game_set.rules),
        "status": FINISHED if game_set.ended_at is not None else IN_PLAY,
        "started_at": game_set.started_at,
        "ended_at": game_set.ended_at,
        "seats": [],  # who sat where: the set's lineup
        "scores": [scores.get(seat, 0) for seat in range(rules.players)],
        "result": game_set.result,
        "link": replay_path(game_set.id),
        "deals": replayed + live,
    }


def _finished_prefix(deals: Sequence[Deal]) -> list[Deal]:
    done = []
    for deal in deals:
        if deal.ended_at is None:
            break
        done.append(deal)
    return done


async def _moves_of(session: AsyncSession, deal_ids: list[int]) -> dict[int, list[Move]]:
    by_deal: dict[int, list[Move]] = {deal_id: [] for deal_id in deal_ids}
    if not deal_ids:
        return by_deal
    rows = await session.scalars(
        select(Move).where(Move.deal_id.in_(deal_ids)).order_by(Move.deal_id, Move.seq)
    )
    for move in rows:
        by_deal[move.deal_id].append(move)
    return by_deal


def _replay(rules: engine.RuleSet, deals: Sequence[_StoredDeal]) -> list[dict[str, Any]]:
    """Each finished deal as the engine re-plays it from its seed and stored moves."""
    if not deals:
        return []
    _, events = engine.replay_match(
        rules,
        [
            (d.row.seed, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in d.moves])
            for d in deals
        ],
    )
    by_number: dict[int, list[dict[str, Any]]] = {d.row.number: [] for d in deals}
    for event in events:
        data = event.to_dict()
        if data["kind"] == "set_ended":
            continue  # the set's own result, stored with the set
        by_number[data["deal_number"]].append(data)
    return [_deal(d, by_number[d.row.number]) for d in deals]


def _deal(stored: _StoredDeal, events: list[dict[str, Any]]) -> dict[str, Any]:
    """One finished deal: what was dealt, every move with what followed it, the result."""
    started = next(e for e in events if e["kind"] == "deal_started")
    ended = next(e for e in events if e["kind"] == "deal_ended")
    steps: list[dict[str, Any]] = []
    for event in events:
        if event["kind"] in MOVE_KINDS:
            steps.append(event)
        elif event["kind"] == "passed" and steps:
            steps[-1].setdefault("passes", []).append(event["seat"])
    moves = [_move(m, e) for m, e in zip(stored.moves, steps, strict=True)]
    result = {
        key: value
        for key, value in ended.items()
        if key not in ("kind", "deal_number", "points", "scores")
    }
    return {
        "number": stored.row.number,
        "status": FINISHED,
        "started_at": stored.row.started_at,
        "ended_at": stored.row.ended_at,
        "opener": started["opener"],
        "first": started["first"],
        "additional": started["additional"],
        "redeals": started["redeals"],
        "hands": started["hands"],
        "start": started.get("start"),
        "set_aside": started.get("set_aside", []),
        "moves": moves,
        "result": result,
        "points": ended["points"],
        "scores": ended["scores"],
        "fairness": _fairness(stored.row),
    }


def _move(stored: Move, event: dict[str, Any]) -> dict[str, Any]:
    if stored.seat != event["seat"] or engine.Tile.parse(stored.tile) != engine.Tile.parse(
        event["tile"]
    ):
        # The store and the engine disagree: the history is damaged, not merely old.
        raise RuntimeError(f"deal {stored.deal_id} move {stored.seq} does not replay as stored")
    discard = event["kind"] == "discarded"
    return {
        "seq": stored.seq,
        "seat": stored.seat,
        "tile": event["tile"],
        "end": engine.DISCARD if discard else event["end"],
        "placed": None if discard else event["placed"],
        "ends": {"left": event["left"], "right": event["right"]},
        "auto": stored.auto,
        "at": stored.created_at,
        "passes": event.get("passes", []),
    }


def _fairness(deal: Deal) -> dict[str, Any]:
    """How the deal was shuffled, for checking it. Seed-shuffled deals (all of them today) carry
    no commitment: their seed is shown once the deal is over, and ``engine.start_deal`` deals
    from it. The committed secret of docs/FAIRNESS.md goes in ``secret``/``commitment``."""
    return {"shuffle": SEED_SHUFFLE, "seed": deal.seed, "commitment": None, "secret": None}
