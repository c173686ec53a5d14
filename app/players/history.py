"""Every deal on the record: a player's sets, and a set's deals rebuilt for replay.

Nothing here folds a deal by itself: a set's finished deals are re-played from their stored
secrets (or, dealt before docs/FAIRNESS.md, seeds) and moves through ``engine.replay_match``
(the same ``start_deal`` and ``play`` as the live table), and what the engine's events say is
what a replay shows.

A deal still in play is listed by number and start time only. Its moves are never even loaded,
so no hand, tile, secret or seed of a live deal can reach an answer. Finished deals come first
in a set (deals are played one after another), so they are always a prefix of the set's deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

import engine
from app import cursors
from app.players.profiles import change_view
from app.store.models import (
    FAIR_SHUFFLE,
    Deal,
    GameSet,
    Move,
    Player,
    RatingChange,
    Room,
    Score,
    SetPlayer,
)
from engine import notation

FINISHED, IN_PLAY = "finished", "in_play"
MOVE_KINDS = ("played", "discarded")  # a stored move's own event (engine: events[0] of play)


def replay_path(set_id: int) -> str:
    """The client's replay page of a set (the one place its address is written on the server)."""
    return f"/replay/{set_id}"


# --- a player's sets ----------------------------------------------------------------------------


async def player_sets(
    session: AsyncSession, *, player_id: str, limit: int, cursor: str | None = None
) -> dict[str, Any] | None:
    """A page of the sets the player sat down to (a seat when the set started), newest first;
    None for an unknown player."""
    if await session.get(Player, player_id) is None:
        return None
    query = (
        select(SetPlayer, GameSet, Room.code)
        .join(GameSet, GameSet.id == SetPlayer.set_id)
        .join(Room, Room.id == GameSet.room_id)
        .where(SetPlayer.player_id == player_id)
    )
    if cursor is not None:  # pages run newest first, by set id
        (after,) = cursors.decode(cursor, int)
        query = query.where(GameSet.id < after)
    rows = (await session.execute(query.order_by(GameSet.id.desc()).limit(limit + 1))).all()
    more, rows = len(rows) > limit, rows[:limit]
    set_ids = [game_set.id for _, game_set, _ in rows]
    points = await _points(session, set_ids)
    changes = {
        change.set_id: change_view(change)["change"]
        for change in await session.scalars(
            select(RatingChange).where(
                RatingChange.player_id == player_id, RatingChange.set_id.in_(set_ids)
            )
        )
    }
    seats = await _lineups(session, set_ids)
    items = [
        {
            "set_id": game_set.id,
            "room": {"code": code},
            "number": game_set.number,
            "preset": game_set.rules.get("preset", "pordi"),
            "mode": game_set.rules.get("mode", "tunggal"),
            "players": int(game_set.rules.get("players", 4)),
            "status": FINISHED if game_set.ended_at is not None else IN_PLAY,
            "started_at": game_set.started_at,
            "ended_at": game_set.ended_at,
            "seat": me.seat,
            "standing": _standing(me, game_set),
            "points": points.get((game_set.id, me.seat), 0),
            "rated": me.rated,
            "rating_change": changes.get(game_set.id),
            "seats": _seat_list(seats.get(game_set.id, {}), int(game_set.rules.get("players", 4))),
            "link": replay_path(game_set.id),
        }
        for me, game_set, code in rows
    ]
    last = set_ids[-1] if more and set_ids else None
    return {"sets": items, "next_cursor": None if last is None else cursors.encode(last)}


def _standing(me: SetPlayer, game_set: GameSet) -> dict[str, Any] | None:
    """Where the player finished (ratings.rate_set books it when the set ends)."""
    if game_set.ended_at is None or me.rank is None:
        return None
    return {"rank": me.rank, "won": bool(me.won), "left": me.left}


async def _points(session: AsyncSession, set_ids: list[int]) -> dict[tuple[int, int], int]:
    if not set_ids:
        return {}
    rows = await session.execute(
        select(Score.set_id, Score.seat, Score.points).where(Score.set_id.in_(set_ids))
    )
    return {(row.set_id, row.seat): row.points for row in rows}


async def _lineups(
    session: AsyncSession, set_ids: list[int]
) -> dict[int, dict[int, tuple[SetPlayer, str]]]:
    """Who sat where as each set started: the humans (a seat without one began with a bot)."""
    by_set: dict[int, dict[int, tuple[SetPlayer, str]]] = {set_id: {} for set_id in set_ids}
    if not set_ids:
        return by_set
    rows = await session.execute(
        select(SetPlayer, Player.name)
        .join(Player, Player.id == SetPlayer.player_id)
        .where(SetPlayer.set_id.in_(set_ids))
    )
    for row, name in rows:
        by_set[row.set_id][row.seat] = (row, name)
    return by_set


def _seat_list(lineup: dict[int, tuple[SetPlayer, str]], players: int) -> list[dict[str, Any]]:
    seats = []
    for seat in range(players):
        found = lineup.get(seat)
        seats.append(
            {
                "seat": seat,
                "player_id": found[0].player_id if found else None,
                "name": found[1] if found else None,
                "bot": found is None,
                "left": bool(found and found[0].left),
            }
        )
    return seats


# --- one set, deal by deal ----------------------------------------------------------------------


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
        "seats": _seat_list((await _lineups(session, [set_id]))[set_id], rules.players),
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


def _events_by_deal(
    rules: engine.RuleSet, deals: Sequence[tuple[int | str, Sequence[engine.Move]]]
) -> tuple[list[list[dict[str, Any]]], dict[str, Any] | None]:
    """Each deal's events as the engine re-plays the set, and the set's end (``set_ended``)."""
    _, events = engine.replay_match(rules, deals)
    by_number: dict[int, list[dict[str, Any]]] = {}  # in the order of the deals
    set_ended = None
    for event in events:
        data = event.to_dict()
        if data["kind"] == "set_ended":
            set_ended = data
            continue
        by_number.setdefault(data["deal_number"], []).append(data)
    return list(by_number.values()), set_ended


def _replay(rules: engine.RuleSet, deals: Sequence[_StoredDeal]) -> list[dict[str, Any]]:
    """Each finished deal as the engine re-plays it from its secret (or seed) and stored moves."""
    if not deals:
        return []
    by_deal, _ = _events_by_deal(
        rules,
        [
            (d.row.source, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in d.moves])
            for d in deals
        ],
    )
    return [_deal(d, events) for d, events in zip(deals, by_deal, strict=True)]


def _deal(stored: _StoredDeal, events: list[dict[str, Any]]) -> dict[str, Any]:
    """One finished deal: what was dealt, every move with what followed it, the result."""
    replayed = _replayed_deal(events)
    moves = [_move(m, e) for m, e in zip(stored.moves, replayed["moves"], strict=True)]
    started = next(e for e in events if e["kind"] == "deal_started")
    return {
        **replayed,
        "started_at": stored.row.started_at,
        "ended_at": stored.row.ended_at,
        "moves": moves,
        "fairness": _fairness(stored.row, started),
    }


def _replayed_deal(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A finished deal from its events alone: what was dealt, every move with what followed
    it (``seq`` counted from 1), the result. A stored deal adds its times and fairness."""
    started = next(e for e in events if e["kind"] == "deal_started")
    ended = next(e for e in events if e["kind"] == "deal_ended")
    steps: list[dict[str, Any]] = []
    opening_draws: list[dict[str, Any]] = []  # Draw Domino: a stuck first mover draws first
    for event in events:
        if event["kind"] in MOVE_KINDS:
            steps.append(event)
        elif event["kind"] == "passed" and steps:
            steps[-1].setdefault("passes", []).append(event["seat"])
        elif event["kind"] == "drew":
            drawn = {"seat": event["seat"], "tile": event["tile"]}
            (steps[-1].setdefault("draws", []) if steps else opening_draws).append(drawn)
    result = {
        key: value
        for key, value in ended.items()
        if key not in ("kind", "deal_number", "points", "scores", "secret")
    }
    return {
        "number": started["deal_number"],
        "status": FINISHED,
        "opener": started["opener"],
        "first": started["first"],
        "additional": started["additional"],
        "redeals": started["redeals"],
        "hands": started["hands"],
        "start": started.get("start"),
        "set_aside": started.get("set_aside", []),
        "draws": opening_draws,
        "moves": [_step(seq, e) for seq, e in enumerate(steps, start=1)],
        "result": result,
        "points": ended["points"],
        "scores": ended["scores"],
    }


def _step(seq: int, event: dict[str, Any]) -> dict[str, Any]:
    discard = event["kind"] == "discarded"
    return {
        "seq": seq,
        "seat": event["seat"],
        "tile": event["tile"],
        "end": engine.DISCARD if discard else event["end"],
        "placed": None if discard else event["placed"],
        "ends": {"left": event["left"], "right": event["right"]},
        "passes": event.get("passes", []),
        "draws": event.get("draws", []),
    }


def _move(stored: Move, step: dict[str, Any]) -> dict[str, Any]:
    if stored.seat != step["seat"] or engine.Tile.parse(stored.tile) != engine.Tile.parse(
        step["tile"]
    ):
        # The store and the engine disagree: the history is damaged, not merely old.
        raise RuntimeError(f"deal {stored.deal_id} move {stored.seq} does not replay as stored")
    return {**step, "seq": stored.seq, "auto": stored.auto, "at": stored.created_at}


def _fairness(deal: Deal, started: dict[str, Any]) -> dict[str, Any]:
    """How a finished deal was shuffled, for checking it (only finished deals come here).

    A ``fair`` deal (docs/FAIRNESS.md) shows its secret, the commitment its players were shown,
    the shuffle's version and the dealing its players were shown with it (what recomputes the
    deal besides the secret); one dealt before it shows its seed and no commitment.
    """
    if deal.shuffle == FAIR_SHUFFLE:
        return {
            "shuffle": deal.shuffle,
            "version": started["shuffle"],
            "seed": None,
            "commitment": started["commitment"],
            "dealing": started["dealing"],
            "secret": deal.secret,
        }
    return {
        "shuffle": deal.shuffle,
        "version": None,
        "seed": deal.seed,
        "commitment": None,
        "dealing": None,
        "secret": None,
    }


# --- what analyses a deal -----------------------------------------------------------------------


@dataclass(frozen=True)
class DealSource:
    """A finished deal as the engine re-plays it: the set's rules and every deal up to it."""

    deal_id: int
    rules: dict[str, Any]
    deals: list[tuple[int | str, list[dict[str, Any]]]]  # (secret or seed, moves), in order


async def deal_source(session: AsyncSession, *, set_id: int, number: int) -> DealSource | str:
    """What re-plays deal ``number`` of the set, or why not: ``"missing"`` (no such set or
    deal) or ``"in_play"`` (the deal has not ended: nothing of it may be shown)."""
    game_set = await session.get(GameSet, set_id)
    if game_set is None:
        return "missing"
    deal_rows = list(
        await session.scalars(
            select(Deal).where(Deal.set_id == set_id, Deal.number <= number).order_by(Deal.number)
        )
    )
    if not deal_rows or deal_rows[-1].number != number:
        return "missing"
    if len(_finished_prefix(deal_rows)) != len(deal_rows):
        return IN_PLAY
    moves = await _moves_of(session, [d.id for d in deal_rows])
    return DealSource(
        deal_id=deal_rows[-1].id,
        rules=dict(game_set.rules),
        deals=[
            (d.source, [{"tile": m.tile, "end": m.end} for m in moves.get(d.id, [])])
            for d in deal_rows
        ],
    )


async def set_record(session: AsyncSession, *, set_id: int) -> str | None:
    """The set's finished deals as a Gaple record (docs/NOTATION.md); None for an unknown set.
    A deal still in play is left out (nothing of it may be shown)."""
    game_set = await session.get(GameSet, set_id)
    if game_set is None:
        return None
    deal_rows = list(
        await session.scalars(select(Deal).where(Deal.set_id == set_id).order_by(Deal.number))
    )
    finished = _finished_prefix(deal_rows)
    moves = await _moves_of(session, [d.id for d in finished])
    rules = engine.RuleSet.from_dict(game_set.rules)
    seats = _seat_list((await _lineups(session, [set_id]))[set_id], rules.players)
    names = [s["name"] or f"bot {s['seat'] + 1}" for s in seats]
    deals = [
        (d.source, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in moves.get(d.id, [])])
        for d in finished
    ]
    return notation.write(notation.record_of(rules, names, deals))


# --- a record opened from a file ----------------------------------------------------------------


def record_replay(text: str) -> dict[str, Any]:
    """A Gaple record (docs/NOTATION.md) checked and re-played as the replay page draws a set:
    the set's shape of ``set_detail`` without what only the service knows (ids, times, the
    room, accounts, a deal's commitment). Nothing is stored. Raises ``notation.BadRecord``
    (its line and column) for a record that does not parse or does not replay as recorded."""
    record = notation.check(text)
    rules = engine.RuleSet.from_dict(record.rules)
    deals = [
        (deal.source, [engine.Move(engine.Tile.parse(m.tile), m.end) for m in deal.moves])
        for deal in record.deals
    ]
    by_deal, set_ended = _events_by_deal(rules, deals) if deals else ([], None)
    replayed = [_replayed_deal(events) for events in by_deal]
    return {
        "preset": rules.preset,
        "mode": rules.mode,
        "players": rules.players,
        "rules": rules.to_dict(),
        "status": FINISHED if record.scores is not None else IN_PLAY,
        "seats": [{"seat": i, "name": name} for i, name in enumerate(record.seats)],
        "scores": replayed[-1]["scores"] if replayed else [0] * rules.players,
        "result": set_ended,
        "deals": replayed,
    }
