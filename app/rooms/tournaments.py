"""Tournaments as the service keeps them: created, entered, started and cancelled, and read back
with their standings (the rules are app/tournaments', docs/TOURNAMENTS.md).

Every function takes an ``AsyncSession``; those that change something lock the tournament first
(``store.tournaments.lock_tournament``: its row on PostgreSQL, the write lock on SQLite), so
entries, withdrawals, the start and a cancel happen one at a time on every node, check, write
and flush; the caller commits. A refusal is a ``TournamentRefused`` with a stable code (the API
answers it with the status of ``REFUSALS``); nothing has changed then.

Starting stores the first round's pairing (its tables and byes) and plays it; the rounds after
it are app/rooms/tournament_play.py's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app import cursors
from app.errors import GapleError
from app.players import accounts, clubs
from app.presets import Mode
from app.rooms.tournament_play import (
    Progress,
    open_round,
    rated_entrants,
    round_stage,
    seat_players,
)
from app.store import clubs as club_rows
from app.store import players
from app.store import tournaments as store
from app.store.models import (
    Player,
    Tournament,
    TournamentEntry,
    TournamentRound,
    TournamentTable,
)
from app.store.types import utcnow
from app.tournaments import knockout, swiss
from app.tournaments.formats import (
    BYE_POINTS,
    ENTRANTS_RANGE,
    PLACE_POINTS,
    TABLE_ENTRANTS,
    TIEBREAKS,
    Bye,
    Entrant,
    Format,
    Pairing,
    Table,
    TableResult,
    table_points,
)
from app.tournaments.standings import Standing, club_standings, standings

# Every code a refusal may carry, and the HTTP status the API answers it with.
REFUSALS: dict[str, int] = {
    "invalid": 422,
    "account_required": 403,
    "not_organizer": 403,
    "not_partner": 403,
    "tournament_not_found": 404,
    "entry_not_found": 404,
    "tournament_closed": 409,
    "tournament_full": 409,
    "already_entered": 409,
    "partner_entered": 409,
    "same_address": 409,
    "not_entered": 409,
    "too_few_entrants": 409,
    "tournament_started": 409,
    "tournament_over": 409,
    # a club's event or a team battle (app/players/clubs.py)
    "not_club_member": 403,
    "club_not_found": 404,
    "club_closed": 409,
}

OVER = ("finished", "cancelled")


class TournamentRefused(GapleError):
    """A request about a tournament that is not allowed; ``code`` is one of ``REFUSALS``."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        assert code in REFUSALS, code
        super().__init__(code, message, field=field)


def _invalid(message: str, field: str) -> TournamentRefused:
    return TournamentRefused("invalid", message, field=field)


# --- creating -----------------------------------------------------------------------------------


async def create(
    session: AsyncSession,
    *,
    organizer: Player,
    name: str,
    format: Format,
    mode: Mode,
    rounds: int | None,
    settings: dict[str, Any],
    bracket_settings: dict[str, Any] | None,
    starts_at: datetime,
    min_entrants: int,
    max_entrants: int,
    rated: bool,
    public: bool,
    club_id: int | None = None,
    battle_clubs: Sequence[int] = (),
    battle_best: int | None = None,
    now: datetime | None = None,
) -> Tournament:
    """A new tournament, ``registering``, organized by ``organizer`` (an account, not a guest).

    ``settings`` (and ``bracket_settings``) are room settings already checked as a room's are
    (``app.api.lobby.resolve_settings``); the tables' rooms follow the tournament's ``rated``
    and are never listed in the lobby, so those two are written into them here. Refuses
    (``invalid``, naming the field) what the body's schema cannot see alone.
    """
    now = now or utcnow()
    if await accounts.account_of(session, player_id=organizer.id) is None:
        raise TournamentRefused(
            "account_required", "save an account first: a guest cannot organize a tournament"
        )
    if starts_at <= now:
        raise _invalid("starts_at must be in the future", "starts_at")
    if format == "swiss" and rounds is None:
        raise _invalid("a swiss needs its number of rounds", "rounds")
    if format == "knockout" and rounds is not None:
        raise _invalid("a knockout's rounds follow from its entries; leave rounds out", "rounds")
    if format == "swiss" and bracket_settings is not None:
        raise _invalid("a swiss has no bracket", "bracket_settings")
    least = TABLE_ENTRANTS[mode]
    if min_entrants < least:
        raise _invalid(f"a {mode} tournament needs at least {least} entrants", "min_entrants")
    if min_entrants > max_entrants:
        raise _invalid("min_entrants must not exceed max_entrants", "min_entrants")
    if not ENTRANTS_RANGE[0] <= max_entrants <= ENTRANTS_RANGE[1]:
        raise _invalid(f"max_entrants is {ENTRANTS_RANGE[0]}..{ENTRANTS_RANGE[1]}", "max_entrants")
    if club_id is not None and battle_clubs:
        raise _invalid("a team battle is among clubs: leave club_id out", "club_id")
    if len(set(battle_clubs)) != len(battle_clubs):
        raise _invalid("a club is listed twice", "club_battle.clubs")
    if (battle_best is None) != (not battle_clubs):
        raise _invalid("a team battle lists its clubs and its best", "club_battle")
    with _club_refusals():
        if club_id is not None:
            await clubs.usable_club(session, club_id=club_id, player_id=organizer.id)
        found = await club_rows.get_clubs(session, club_ids=battle_clubs)
        for listed in battle_clubs:
            if listed not in found:
                raise clubs.ClubError("club_not_found", f"no club {listed}", field="club_battle")
            if found[listed].closed_at is not None:
                raise clubs.ClubError(
                    "club_closed", f"the club {found[listed].name} is closed", field="club_battle"
                )
    table = {"mode": mode, "rated": rated, "public": False}
    tournament = await store.create_tournament(
        session,
        name=name,
        format=format,
        mode=mode,
        rounds=rounds,
        settings={**settings, **table},
        bracket_settings=None if bracket_settings is None else {**bracket_settings, **table},
        starts_at=starts_at,
        min_entrants=min_entrants,
        max_entrants=max_entrants,
        rated=rated,
        public=public,
        organizer_id=organizer.id,
        club_id=club_id,
        battle_best=battle_best,
    )
    if battle_clubs:
        await club_rows.add_battle_clubs(
            session, tournament_id=tournament.id, club_ids=list(battle_clubs)
        )
    return tournament


@contextmanager
def _club_refusals() -> Iterator[None]:
    """A club's refusal (app/players/clubs.py) as the tournament's, with the same code."""
    try:
        yield
    except clubs.ClubError as exc:
        raise TournamentRefused(exc.code, exc.message, field=exc.field) from None


async def _entry_club(
    session: AsyncSession,
    tournament: Tournament,
    player: Player,
    partner_id: str | None,
    club_id: int | None,
) -> int | None:
    """The club the entry plays for in a team battle (None otherwise), after checking that the
    player (and a Ganda partner) may enter: a club's event takes its members only; a battle's
    entrant belongs to one of its clubs, and names it when they belong to several."""
    battle = await club_rows.battle_clubs(session, tournament_id=tournament.id)
    if not battle:
        if club_id is not None:
            raise _invalid("only a team battle's entry names a club", "club_id")
        if tournament.club_id is not None:
            with _club_refusals():
                for who, field in ((player.id, None), (partner_id, "partner_id")):
                    if who is not None:
                        await clubs.require_member(
                            session, club_id=tournament.club_id, player_id=who, field=field
                        )
        return None
    mine = await club_rows.memberships_among(session, player_id=player.id, club_ids=battle)
    if club_id is None:
        if len(mine) > 1:
            raise _invalid("you belong to several clubs of this battle: name one", "club_id")
        if not mine:
            raise TournamentRefused(
                "not_club_member", "only members of the battle's clubs enter", field="club_id"
            )
        club_id = next(iter(mine))
    if club_id not in battle:
        raise _invalid("that club is not in this battle", "club_id")
    with _club_refusals():
        await clubs.require_member(session, club_id=club_id, player_id=player.id, field="club_id")
        if partner_id is not None:
            await clubs.require_member(
                session, club_id=club_id, player_id=partner_id, field="partner_id"
            )
    return club_id


# --- entries ------------------------------------------------------------------------------------


def is_complete(entry: TournamentEntry) -> bool:
    """An entrant: a player, or a pair whose partner has confirmed."""
    return entry.partner_id is None or entry.partner_confirmed


async def _locked(session: AsyncSession, tournament_id: int) -> Tournament:
    tournament = await store.lock_tournament(session, tournament_id=tournament_id)
    if tournament is None:
        raise TournamentRefused("tournament_not_found", "no such tournament")
    return tournament


def _check_over(tournament: Tournament) -> None:
    if tournament.status in OVER:
        raise TournamentRefused("tournament_over", f"the tournament is {tournament.status}")


async def entries_open(session: AsyncSession, tournament: Tournament) -> bool:
    """Whether the tournament takes an entry now: while registering, and in a running Swiss
    while ``swiss.late_join_allowed`` says so."""
    if tournament.status == "registering":
        return True
    if tournament.status != "running":
        return False
    started = await store.count_rounds(session, tournament_id=tournament.id)
    planned = max(tournament.rounds or 0, started)  # a knockout has no planned count
    format: Format = tournament.format  # type: ignore[assignment]  # DB check
    return swiss.late_join_allowed(format, rounds=planned, started=started)


async def enter(
    session: AsyncSession,
    *,
    tournament_id: int,
    player: Player,
    partner_id: str | None,
    mark: str | None = None,
    apart_by_address: bool = False,
    club_id: int | None = None,
) -> TournamentEntry:
    """``player`` enters (Ganda: with ``partner_id``, who then confirms). Refused when the
    tournament takes no entry now, is full (every entry not withdrawn holds a place, a pair
    waiting for its partner too), either player already holds an entry in it, or (with
    ``apart_by_address``) an entry not withdrawn came from the same address ``mark``."""
    tournament = await _locked(session, tournament_id)
    _check_over(tournament)
    if tournament.mode == "ganda" and partner_id is None:
        raise _invalid("a ganda entry names its partner", "partner_id")
    if tournament.mode == "tunggal" and partner_id is not None:
        raise _invalid("a tunggal entry is one player; leave partner_id out", "partner_id")
    if partner_id == player.id:
        raise _invalid("a player cannot be their own partner", "partner_id")
    if partner_id is not None and await players.get_player(session, player_id=partner_id) is None:
        raise _invalid("no such player", "partner_id")
    if not await entries_open(session, tournament):
        raise TournamentRefused("tournament_closed", "the tournament takes no more entries")
    entry_club = await _entry_club(session, tournament, player, partner_id, club_id)
    if await store.entry_of(session, tournament_id=tournament.id, player_id=player.id):
        raise TournamentRefused("already_entered", "you already hold an entry in this tournament")
    if partner_id is not None and await store.entry_of(
        session, tournament_id=tournament.id, player_id=partner_id
    ):
        raise TournamentRefused(
            "partner_entered", "your partner already holds an entry in this tournament"
        )
    if (
        apart_by_address
        and mark is not None
        and await store.entry_with_mark(session, tournament_id=tournament.id, mark=mark)
    ):
        raise TournamentRefused(
            "same_address", "an entry from your address is already in this tournament"
        )
    taken = await store.count_entries(session, tournament_id=tournament.id)
    if taken >= tournament.max_entrants:
        raise TournamentRefused(
            "tournament_full", f"the tournament is full ({tournament.max_entrants} entries)"
        )
    return await store.add_entry(
        session,
        tournament_id=tournament.id,
        player_id=player.id,
        partner_id=partner_id,
        client_mark=mark,
        club_id=entry_club,
    )


async def confirm(
    session: AsyncSession, *, tournament_id: int, entry_id: int, player: Player
) -> TournamentEntry:
    """The partner named by a Ganda entry confirms it (again: no change)."""
    tournament = await _locked(session, tournament_id)
    entry = await store.get_entry(session, tournament_id=tournament.id, entry_id=entry_id)
    if entry is None or entry.withdrawn_at is not None:
        raise TournamentRefused("entry_not_found", "no such entry in this tournament")
    if entry.partner_id != player.id:
        raise TournamentRefused("not_partner", "only the partner this entry names can confirm it")
    if entry.partner_confirmed:
        return entry
    _check_over(tournament)
    if not await entries_open(session, tournament):
        raise TournamentRefused("tournament_closed", "the tournament takes no more entries")
    await store.confirm_partner(session, entry=entry)
    return entry


async def withdraw(
    session: AsyncSession, *, tournament_id: int, player: Player, now: datetime | None = None
) -> None:
    """``player`` leaves (as an entry's player or partner: the pair's entry goes). Before the
    start, or while a pair still waits for its partner, the entry is removed; once it may have
    played it is marked withdrawn: it keeps its results and forfeits the rounds left."""
    tournament = await _locked(session, tournament_id)
    _check_over(tournament)
    entry = await store.entry_of(session, tournament_id=tournament.id, player_id=player.id)
    if entry is None or entry.withdrawn_at is not None:
        raise TournamentRefused("not_entered", "you hold no entry in this tournament")
    if tournament.status == "registering" or not is_complete(entry):
        await store.delete_entries(session, entry_ids=[entry.id])
    else:
        await store.withdraw_entry(session, entry=entry, at=now or utcnow())


# --- the organizer: start, cancel ---------------------------------------------------------------


def _require_organizer(tournament: Tournament, player: Player) -> None:
    if tournament.organizer_id != player.id:
        raise TournamentRefused("not_organizer", "only the organizer can do this")


def _first_round(
    format: str, mode: Mode, entrants: Sequence[Entrant]
) -> tuple[Pairing, list[dict[str, Any]] | None]:
    """Round 1, and a knockout's pools (``[{"name", "members"}]``; ``[]`` without pools)."""
    if format == "swiss":
        return swiss.pair_round(mode, 1, entrants), None
    pools = knockout.draw_pools(mode, entrants)
    drawn = [{"name": p.name, "members": list(p.members)} for p in pools]
    if pools:
        return knockout.pool_stage(mode, pools)[0], drawn
    seeds = knockout.bracket_seeds(mode, entrants, pools)
    return knockout.bracket_round(mode, 1, seeds), drawn


async def start(
    session: AsyncSession, *, tournament_id: int, player: Player, new_code: Callable[[], str]
) -> Progress:
    """The organizer starts the tournament early: it must hold at least ``min_entrants``
    entrants (see ``begin``)."""
    tournament = await _locked(session, tournament_id)
    _require_organizer(tournament, player)
    _check_over(tournament)
    if tournament.status != "registering":
        raise TournamentRefused("tournament_started", "the tournament has started already")
    return await begin(session, tournament=tournament, new_code=new_code)


async def begin(
    session: AsyncSession, *, tournament: Tournament, new_code: Callable[[], str]
) -> Progress:
    """Start the (locked, registering) tournament: pairs still waiting for their partner are
    dropped, it is ``running``, and its first round is stored and played (app/rooms/
    tournament_play.py: a room per table, every set started). Refused (``too_few_entrants``)
    with fewer than ``min_entrants`` entrants."""
    entries = await store.get_entries(session, tournament_id=tournament.id)
    complete = [e for e in entries if is_complete(e)]
    if len(complete) < tournament.min_entrants:
        raise TournamentRefused(
            "too_few_entrants",
            f"{len(complete)} entrants; the tournament needs {tournament.min_entrants}",
        )
    mode: Mode = tournament.mode  # type: ignore[assignment]  # DB check
    entrants = await rated_entrants(session, mode, complete)
    # The seating search may take a few tenths of a second for a large entry: off the loop.
    pairing, pools = await asyncio.to_thread(_first_round, tournament.format, mode, entrants)
    await store.delete_entries(session, entry_ids=[e.id for e in entries if not is_complete(e)])
    if pools is not None:
        await store.set_pools(session, tournament=tournament, pools=pools)
    await store.add_round(
        session,
        tournament_id=tournament.id,
        number=pairing.round,
        tables=[t.entrants for t in pairing.tables],
        byes=[b.entrant for b in pairing.byes],
    )
    await store.set_status(session, tournament=tournament, status="running")
    progress = await open_round(
        session, tournament=tournament, number=pairing.round, new_code=new_code
    )
    progress.started = True
    return progress


async def start_due(
    session: AsyncSession, *, tournament_id: int, new_code: Callable[[], str], now: datetime
) -> Progress | None:
    """At ``starts_at`` the tournament starts by itself (the sweeper, on whichever node locks
    it first), or is ``cancelled`` with fewer than ``min_entrants`` entrants. None: not due
    (started, cancelled or moved meanwhile)."""
    tournament = await _locked(session, tournament_id)
    if tournament.status != "registering" or tournament.starts_at > now:
        return None
    try:
        return await begin(session, tournament=tournament, new_code=new_code)
    except TournamentRefused as exc:
        if exc.code != "too_few_entrants":
            raise
    await store.set_status(session, tournament=tournament, status="cancelled")
    return Progress(tournament.id)


async def cancel(session: AsyncSession, *, tournament_id: int, player: Player) -> Tournament:
    """The organizer calls the tournament off, before or during it: ``cancelled``, final."""
    tournament = await _locked(session, tournament_id)
    _require_organizer(tournament, player)
    _check_over(tournament)
    await store.set_status(session, tournament=tournament, status="cancelled")
    return tournament


# --- reading ------------------------------------------------------------------------------------

# The list's filter: ``upcoming`` is a tournament still registering. Upcoming and running ones
# are listed soonest first, the others latest first.
LISTING: dict[str, tuple[tuple[str, ...], bool]] = {
    "upcoming": (("registering",), True),
    "running": (("running",), True),
    "finished": (("finished",), False),
    "cancelled": (("cancelled",), False),
}


async def listing(
    session: AsyncSession, *, status: str | None, limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of public tournaments (``status``: a key of ``LISTING``, or every one, latest
    first) and the cursor of the next page (None on the last)."""
    statuses, ascending = LISTING[status] if status is not None else (None, False)
    after = cursors.decode(cursor, datetime, int) if cursor else None
    found = await store.list_tournaments(
        session, statuses=statuses, ascending=ascending, limit=limit + 1, after=after
    )
    more = len(found) > limit
    found = found[:limit]
    counts = await store.count_entries_of(session, tournament_ids=[t.id for t in found])
    names = await players.get_player_names(
        session, player_ids=sorted({t.organizer_id for t in found})
    )
    page = [
        {
            "id": t.id,
            "name": t.name,
            "format": t.format,
            "mode": t.mode,
            "status": t.status,
            "starts_at": t.starts_at,
            "organizer": {"player_id": t.organizer_id, "name": names[t.organizer_id]},
            "entries": counts.get(t.id, 0),
            "max_entrants": t.max_entrants,
            "rated": t.rated,
        }
        for t in found
    ]
    last = found[-1] if more else None
    return {
        "tournaments": page,
        "next_cursor": cursors.encode(last.starts_at, last.id) if last else None,
    }


def _number(value: Fraction) -> int | float:
    """Points as JSON: whole numbers as integers, halves as their exact float."""
    return int(value) if value.denominator == 1 else float(value)


def _table_result(table: TournamentTable) -> TableResult | None:
    if table.result is None:
        return None
    return TableResult(
        Table(table.round, table.number, tuple(table.entrants)),
        tuple(table.result["places"]),
        tuple(table.result["deal_points"]),
    )


def scoring(mode: Mode) -> dict[str, Any]:
    """The scoring constants of ``mode`` (app/tournaments/formats.py), as a client is shown them."""
    return {
        "place_points": list(PLACE_POINTS[mode]),
        "bye_points": _number(BYE_POINTS[mode]),
        "tiebreaks": list(TIEBREAKS),
    }


def _rounds_view(
    tournament: Tournament,
    rounds: Sequence[TournamentRound],
    tables: Sequence[TournamentTable],
    codes: dict[str, str],
    sets: dict[str, int],
    entries: dict[int, TournamentEntry],
    names: dict[str, str],
) -> list[dict[str, Any]]:
    """Each round with its stage, byes and tables; a table's room code and set (its replay), its
    seats (who sits where for which entrant), and its result with the points it scored."""
    mode: Mode = tournament.mode  # type: ignore[assignment]  # DB check
    by_round: dict[int, list[dict[str, Any]]] = {r.number: [] for r in rounds}
    for table in tables:
        result = None
        if table.result is not None:
            points = table_points(mode, table.result["places"])
            result = {**table.result, "points": [_number(p) for p in points]}
        code = codes.get(table.room_id) if table.room_id else None
        seated = seat_players(mode, table.entrants, entries)
        seats = [
            {"seat": seat, "player_id": p, "name": names.get(p, ""), "entrant": e}
            for seat, (p, e) in sorted(seated.items())
        ]
        by_round[table.round].append(
            {
                "number": table.number,
                "code": code,
                "set_id": sets.get(table.room_id) if table.room_id else None,
                "entrants": [*table.entrants],
                "seats": seats,
                "result": result,
            }
        )
    return [
        {
            "number": r.number,
            "status": r.status,
            "stage": round_stage(tournament, r.number),
            "byes": [*r.byes],
            "tables": by_round[r.number],
        }
        for r in rounds
    ]


def _ranked(
    mode: Mode,
    entries: Sequence[TournamentEntry],
    rounds: Sequence[TournamentRound],
    tables: Sequence[TournamentTable],
) -> tuple[Standing, ...]:
    """The standings of every entrant (withdrawn ones too) from the stored results and byes;
    none before the first round."""
    if not rounds:
        return ()
    results = [r for r in map(_table_result, tables) if r is not None]
    byes = [Bye(r.number, e) for r in rounds for e in r.byes]
    return standings(mode, [e.id for e in entries if is_complete(e)], results, byes)


def _club_standings_view(
    ranked: Sequence[Standing],
    entries: Sequence[TournamentEntry],
    battle: Sequence[int],
    best: int | None,
    refs: dict[int, dict[str, Any]],
) -> list[dict[str, Any]]:
    """A team battle's clubs ranked (``standings.club_standings``); none before round 1."""
    if not ranked or not battle or best is None:
        return []
    playing = {e.id: e.club_id for e in entries if e.club_id is not None}
    return [
        {
            "rank": c.rank,
            "club": refs[c.club],
            "points": _number(c.points),
            "counted": list(c.counted),
        }
        for c in club_standings(ranked, playing, battle, best)
    ]


def _standings_view(ranked: Sequence[Standing]) -> list[dict[str, Any]]:
    return [
        {
            "rank": s.rank,
            "entrant": s.entrant,
            "points": _number(s.points),
            "tiebreaks": {k: _number(Fraction(v)) for k, v in s.tiebreaks().items()},
        }
        for s in ranked
    ]


async def view(session: AsyncSession, *, tournament_id: int) -> dict[str, Any]:
    """The tournament as the API shows it (docs/API.md, "Tournaments")."""
    tournament = await store.get_tournament(session, tournament_id=tournament_id)
    if tournament is None:
        raise TournamentRefused("tournament_not_found", "no such tournament")
    mode: Mode = tournament.mode  # type: ignore[assignment]  # DB check
    entries = await store.get_entries(session, tournament_id=tournament.id)
    rounds, tables = await store.get_rounds(session, tournament_id=tournament.id)
    ids = {tournament.organizer_id}
    ids.update(p for e in entries for p in (e.player_id, e.partner_id) if p is not None)
    names = await players.get_player_names(session, player_ids=sorted(ids))
    made = [t.room_id for t in tables if t.room_id]
    codes = await store.room_codes(session, room_ids=made)
    sets = await store.first_sets(session, room_ids=made)
    battle = await club_rows.battle_clubs(session, tournament_id=tournament.id)
    named = {*battle, *(e.club_id for e in entries if e.club_id is not None)}
    if tournament.club_id is not None:
        named.add(tournament.club_id)
    refs = {
        c.id: club_rows.summary(c)
        for c in (await club_rows.get_clubs(session, club_ids=named)).values()
    }
    ranked = _ranked(mode, entries, rounds, tables)

    def who(player_id: str | None) -> dict[str, str] | None:
        return None if player_id is None else {"player_id": player_id, "name": names[player_id]}

    return {
        "id": tournament.id,
        "name": tournament.name,
        "format": tournament.format,
        "mode": mode,
        "status": tournament.status,
        "starts_at": tournament.starts_at,
        "created_at": tournament.created_at,
        "organizer": who(tournament.organizer_id),
        "settings": tournament.settings,
        "bracket_settings": tournament.bracket_settings,
        "round_count": tournament.rounds,
        "min_entrants": tournament.min_entrants,
        "max_entrants": tournament.max_entrants,
        "rated": tournament.rated,
        "public": tournament.public,
        "entries_open": await entries_open(session, tournament),
        "entrants": [
            {
                "id": e.id,
                "player": who(e.player_id),
                "partner": who(e.partner_id),
                "partner_confirmed": e.partner_confirmed,
                "withdrawn": e.withdrawn_at is not None,
                "club": refs.get(e.club_id) if e.club_id is not None else None,
            }
            for e in entries
        ],
        "pools": tournament.pools,
        "rounds": _rounds_view(
            tournament, rounds, tables, codes, sets, {e.id: e for e in entries}, names
        ),
        "standings": _standings_view(ranked),
        "scoring": scoring(mode),
        "club": refs.get(tournament.club_id) if tournament.club_id is not None else None,
        "club_battle": {"clubs": [refs[c] for c in battle], "best": tournament.battle_best}
        if battle
        else None,
        "club_standings": _club_standings_view(
            ranked, entries, battle, tournament.battle_best, refs
        ),
    }
