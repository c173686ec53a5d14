"""A running tournament's rounds: each round's tables become rooms, each set's end is stored as
its table's result, and once every table of a round has one, the next round is paired and its
rooms made, until the last round: the tournament is ``finished`` (docs/TOURNAMENTS.md, "Playing").

A tournament's table is an ordinary room (``rooms.tournament_id`` and ``round``) with the
tournament's settings (a knockout's bracket rounds: ``bracket_settings`` if given), never listed
(``public`` false) and with nobody taking a bot's seat but the player who left it; every entrant
is seated (Ganda: a pair across, seats 0/2 and 1/3) and the set starts at once. Its host is its
first seated player, who may not start, close or change it (``lifecycle``: ``tournament_room``).

Exactly once, on any number of nodes: a result is written in the transaction of the move that
ended the set, only where the table has none yet (``store_result``), and advancing takes the
tournament's lock (``store.tournaments.lock_tournament``) and pairs only a round whose tables
all have results and which is not ``finished``, marking it so in the same transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

import engine
from app.players import clubs, ratings, social
from app.presets import DEFAULT_BOT, Mode
from app.rooms import lifecycle, quickplay
from app.store import clubs as club_rows
from app.store import players, rooms
from app.store import tournaments as store
from app.store.models import (
    GameSet,
    Notification,
    Player,
    SetPlayer,
    Tournament,
    TournamentEntry,
    TournamentRound,
    TournamentTable,
)
from app.store.models import Seat as SeatRow
from app.store.types import utcnow
from app.tournaments import knockout, swiss
from app.tournaments.formats import (
    TABLE_ENTRANTS,
    Bye,
    Entrant,
    Pairing,
    Stage,
    Table,
    TableResult,
    result_from_scores,
)

# The seating search takes a few tenths of a second for a large entry: it runs off the loop.
_THREAD_FROM = 64


@dataclass
class Progress:
    """What a start or an advance did, for the live layer to tell after the commit."""

    tournament_id: int
    rooms: list[str] = field(default_factory=list)  # made now, their sets started: go live
    rounds: list[int] = field(default_factory=list)  # rounds whose rooms were made now
    finished_round: int | None = None  # the round that ended now
    finished: bool = False  # the tournament ended now
    # (player, payload) of each ``tournament_round`` notification to store once the round is live
    seated: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    started: bool = False  # the tournament started now: its clubs' members are told (announce)


def entrant_seats(mode: str, index: int) -> tuple[int, ...]:
    """The seats of the table's ``index``-th entrant: a player's one seat, a pair's two across."""
    return (index,) if mode == "tunggal" else (index, index + 2)


def seat_players(
    mode: str, entrants: Sequence[int], entries: Mapping[int, TournamentEntry]
) -> dict[int, tuple[str, int]]:
    """Seat -> (player, entrant) for a table's entrants in seat order."""
    placed: dict[int, tuple[str, int]] = {}
    for index, entrant in enumerate(entrants):
        entry = entries[entrant]
        members = [entry.player_id] if mode == "tunggal" else [entry.player_id, entry.partner_id]
        for seat, player_id in zip(entrant_seats(mode, index), members, strict=True):
            assert player_id is not None  # a pair's partner: only complete entries are seated
            placed[seat] = (player_id, entrant)
    return placed


def pool_rounds(tournament: Tournament) -> int:
    """How many rounds a knockout's pool stage has (0: a swiss, or no pools)."""
    if tournament.format != "knockout" or not tournament.pools:
        return 0
    mode: Mode = tournament.mode  # type: ignore[assignment]  # DB check
    return len(knockout.pool_stage(mode, _pools(tournament)))


def round_stage(tournament: Tournament, number: int) -> Stage:
    """The stage round ``number`` belongs to: every round of a Swiss is ``swiss``; a knockout's
    first ``pool_rounds`` are ``pool``, the rest ``bracket`` (the one home of this fact: the
    view says it, the client reads it)."""
    if tournament.format != "knockout":
        return "swiss"
    return "pool" if number <= pool_rounds(tournament) else "bracket"


def _pools(tournament: Tournament) -> list[knockout.Pool]:
    return [knockout.Pool(p["name"], tuple(p["members"])) for p in tournament.pools or []]


def room_settings(tournament: Tournament, number: int) -> dict[str, Any]:
    """The room settings of round ``number``'s tables."""
    bracket = (
        tournament.bracket_settings is not None and round_stage(tournament, number) == "bracket"
    )
    settings = tournament.bracket_settings if bracket else tournament.settings
    assert settings is not None
    return {
        **settings,
        "mode": tournament.mode,
        "rated": tournament.rated,
        "public": False,
        "allow_join_bots": False,
    }


async def open_round(
    session: AsyncSession, *, tournament: Tournament, number: int, new_code: Callable[[], str]
) -> Progress:
    """Round ``number`` (paired and stored) is played: a room per table with every entrant
    seated (a withdrawn entrant's seats: bots) and its set started; the round is ``playing``.
    Each seated player is to get a ``tournament_round`` notification with their table
    (``Progress.seated``; ``notify_round`` stores them once the round is live)."""
    progress = Progress(tournament.id, rounds=[number])
    entries = {e.id: e for e in await store.get_entries(session, tournament_id=tournament.id)}
    settings = room_settings(tournament, number)
    tables = await store.tables_of_round(session, tournament_id=tournament.id, number=number)
    seated = []
    for table in tables:
        placed = seat_players(tournament.mode, table.entrants, entries)
        present = {s: p for s, (p, e) in placed.items() if entries[e].withdrawn_at is None}
        seated.append((placed, present))
    # The round's rooms, their seats and their sets' start: a few statements for every table.
    made = await quickplay.open_tables(
        session,
        hosts=[next(iter(present.values()), placed[0][0]) for placed, present in seated],
        settings=settings,
        quickplay=False,
        new_code=new_code,
        tournament_id=tournament.id,
        round=number,
    )
    await rooms.fill_rooms(
        session,
        occupants={
            room.id: {
                seat: (present[seat], None) if seat in present else (None, DEFAULT_BOT)
                for seat in placed
            }
            for room, (placed, present) in zip(made, seated, strict=True)
        },
    )
    await lifecycle.start_sets(session, room_ids=[room.id for room in made], by=None)
    for table, room, (_, present) in zip(tables, made, seated, strict=True):
        table.room_id = room.id
        progress.rooms.append(room.id)
        extra = {
            "tournament_id": tournament.id,
            "tournament": tournament.name,
            "round": number,
            "table": room.code,
        }
        progress.seated += [(player_id, extra) for player_id in present.values()]
    found = await session.get(TournamentRound, (tournament.id, number))
    assert found is not None
    found.status = "playing"
    await session.flush()
    return progress


async def notify_round(session: AsyncSession, *, progress: Progress) -> list[Notification]:
    """Store the ``tournament_round`` notifications of the rounds ``progress`` opened (from the
    organizer), and at the start a club event's ``club_tournament_started``. Apart from the
    round's own transaction, so its rooms are dealt first."""
    if not progress.seated and not progress.started:
        return []
    tournament = await store.get_tournament(session, tournament_id=progress.tournament_id)
    assert tournament is not None
    organizer = await players.get_player(session, player_id=tournament.organizer_id)
    assert organizer is not None
    notices = []
    if progress.seated:
        notices += await social.notify_all(
            session, kind=social.TOURNAMENT_ROUND, about=organizer, extras=progress.seated
        )
    if progress.started:
        notices += await announce(session, tournament=tournament, organizer=organizer, started=True)
    return notices


def _event_clubs(tournament: Tournament, battle: Sequence[int]) -> list[int]:
    """The clubs whose members hear of the event: its club, or a team battle's clubs."""
    return [tournament.club_id] if tournament.club_id is not None else list(battle)


async def announce(
    session: AsyncSession, *, tournament: Tournament, organizer: Player, started: bool
) -> list[Notification]:
    """The members of the event's clubs get ``club_tournament`` (made) or
    ``club_tournament_started``; none for an event of no club."""
    battle = await club_rows.battle_clubs(session, tournament_id=tournament.id)
    ids = _event_clubs(tournament, battle)
    if not ids:
        return []
    kind = social.CLUB_TOURNAMENT_STARTED if started else social.CLUB_TOURNAMENT
    return await clubs.announce(
        session, kind=kind, tournament=tournament, club_ids=ids, about=organizer
    )


# --- a set's end: the table's result ------------------------------------------------------------


async def record_set(conn: AsyncConnection, *, set_id: int, result: Mapping[str, Any]) -> bool:
    """If the set was a tournament table's, store its result (once): places and deal points
    from the set's final scores; an entrant whose seat went to a bot places last (as in a rated
    set, app/players/ratings.py, whose ``left`` marks this reads after it), and one who withdrew
    below them.
    Runs in the transaction of the move that ended the set. True if a result was stored now."""
    scores = result.get("scores")
    if scores is None or result.get("abandoned"):
        return False
    row = (
        await conn.execute(select(GameSet.room_id, GameSet.rules).where(GameSet.id == set_id))
    ).first()
    if row is None:
        return False
    table = await store.table_of_room(conn, room_id=row.room_id)
    if table is None or table.result is not None:
        return False
    rules = engine.RuleSet.from_dict(dict(row.rules))
    entries = await store.entries_by_id(conn, entry_ids=table.entrants)
    lineup = {
        r.seat: r
        for r in await conn.execute(
            select(SetPlayer.seat, SetPlayer.player_id, SetPlayer.left).where(
                SetPlayer.set_id == set_id
            )
        )
    }
    seated = dict(
        (
            await conn.execute(
                select(SeatRow.seat, SeatRow.player_id).where(SeatRow.room_id == row.room_id)
            )
        ).all()
    )
    mode = rules.mode
    last, forfeit = set(), set()
    for index, entrant in enumerate(table.entrants):
        if entries[entrant].withdrawn_at is not None:
            forfeit.add(entrant)
        elif any(
            s not in lineup or lineup[s].left or seated.get(s) != lineup[s].player_id
            for s in entrant_seats(mode, index)
        ):
            last.add(entrant)
    done = result_from_scores(
        Table(table.round, table.number, tuple(table.entrants)),
        [int(scores[entrant_seats(mode, i)[0]]) for i in range(len(table.entrants))],
        lowest_wins=rules.set_goal == "least_after_deals",
        last=last,
        forfeit=forfeit,
    )
    return await store.store_result(
        conn,
        tournament_id=table.tournament_id,
        round=table.round,
        number=table.number,
        result={"places": list(done.places), "deal_points": list(done.deal_points)},
    )


# --- the next round -----------------------------------------------------------------------------


def _results(tables: Sequence[TournamentTable]) -> list[TableResult]:
    return [
        TableResult(
            Table(t.round, t.number, tuple(t.entrants)),
            tuple(t.result["places"]),
            tuple(t.result["deal_points"]),
        )
        for t in tables
        if t.result is not None
    ]


def _stored_pairing(
    number: int, round_: TournamentRound, tables: Sequence[TournamentTable]
) -> Pairing:
    return Pairing(
        number,
        tuple(Table(number, t.number, tuple(t.entrants)) for t in tables if t.round == number),
        tuple(Bye(number, e) for e in round_.byes),
    )


def next_pairing(
    tournament: Tournament,
    entrants: Sequence[Entrant],
    withdrawn: set[int],
    rounds: Sequence[TournamentRound],
    tables: Sequence[TournamentTable],
) -> Pairing | None:
    """The round after the last one played (all its results in), or None: the tournament is
    over. ``entrants``: every complete entry (``withdrawn`` ones are paired no more; in a
    knockout's fixed pool schedule their seats are played by bots)."""
    mode: Mode = tournament.mode  # type: ignore[assignment]  # DB check
    size = TABLE_ENTRANTS[mode]
    number = rounds[-1].number + 1
    results = _results(tables)
    byes = [Bye(r.number, e) for r in rounds for e in r.byes]
    if tournament.format == "swiss":
        still_in = [e for e in entrants if e.id not in withdrawn]
        if number > (tournament.rounds or 0) or len(still_in) < size:
            return None
        return swiss.pair_round(mode, number, still_in, results, byes)
    pools = _pools(tournament)
    stage = knockout.pool_stage(mode, pools) if pools else ()
    if number <= len(stage):
        return stage[number - 1]
    in_pools = len(stage)
    drawn = knockout.bracket_seeds(
        mode,
        entrants,
        pools,
        [r for r in results if r.table.round <= in_pools],
        [b for b in byes if b.round <= in_pools],
    )
    order = {e: i for i, e in enumerate(drawn)}
    seeds = [s for s in drawn if s not in withdrawn]
    by_number = {r.number: r for r in rounds}
    for played in range(in_pools + 1, number):
        # A played round's seeds are whom it seated (a withdrawal since changes nothing there).
        pairing = _stored_pairing(played, by_number[played], tables)
        seated = sorted(pairing.entrants(), key=order.__getitem__)
        if knockout.is_final(mode, seated):
            return None  # the final has been played
        going = knockout.advance(mode, pairing, results, seated)
        seeds = [s for s in going if s not in withdrawn]
    if len(seeds) < size:
        return None  # withdrawals left one entrant: it has won
    return knockout.bracket_round(mode, number, seeds)


async def advance(
    session: AsyncSession,
    *,
    tournament_id: int,
    new_code: Callable[[], str],
    now: datetime | None = None,
) -> Progress | None:
    """If every table of the running tournament's last round has its result: the round is
    ``finished`` and the next is paired and played, or the tournament is ``finished``. None
    when nothing is due (a round still playing, or done already by another node)."""
    tournament = await store.lock_tournament(session, tournament_id=tournament_id)
    if tournament is None or tournament.status != "running":
        return None
    rounds, tables = await store.get_rounds(session, tournament_id=tournament.id)
    if not rounds:
        return None
    last = rounds[-1]
    if last.status == "paired":  # stored, but its rooms were never made: make them
        return await open_round(
            session, tournament=tournament, number=last.number, new_code=new_code
        )
    if last.status == "finished" or any(t.result is None for t in tables if t.round == last.number):
        return None
    last.status, last.finished_at = "finished", now or utcnow()
    entries = await store.get_entries(session, tournament_id=tournament.id)
    complete = [e for e in entries if e.partner_id is None or e.partner_confirmed]
    withdrawn = {e.id for e in complete if e.withdrawn_at is not None}
    # A knockout's bracket seeds by rating where pools do not decide; a Swiss, by standings.
    entrants = await rated_entrants(session, tournament.mode, complete)
    args = (tournament, entrants, withdrawn, rounds, tables)
    if len(entrants) >= _THREAD_FROM:
        pairing = await asyncio.to_thread(next_pairing, *args)
    else:
        pairing = next_pairing(*args)
    if pairing is None:
        await store.set_status(session, tournament=tournament, status="finished")
        await session.flush()
        return Progress(tournament.id, finished_round=last.number, finished=True)
    await store.add_round(
        session,
        tournament_id=tournament.id,
        number=pairing.round,
        tables=[t.entrants for t in pairing.tables],
        byes=[b.entrant for b in pairing.byes],
    )
    progress = await open_round(
        session, tournament=tournament, number=pairing.round, new_code=new_code
    )
    progress.finished_round = last.number
    return progress


async def rated_entrants(
    session: AsyncSession, mode: str, entries: Sequence[TournamentEntry]
) -> list[Entrant]:
    """Each entry with the rating that seeds it: its player's ordinal, a pair's the mean of
    both; a player never rated counts as a new one."""
    members = [p for e in entries for p in (e.player_id, e.partner_id) if p is not None]
    known = await store.ratings_of(session, player_ids=members, mode=mode)
    new = ratings.ordinal(ratings.MODEL.mu, ratings.MODEL.sigma)
    out = []
    for entry in entries:
        ids = [p for p in (entry.player_id, entry.partner_id) if p is not None]
        out.append(Entrant(entry.id, sum(known.get(p, new) for p in ids) / len(ids)))
    return out
