"""Provably fair deals: the shuffle of docs/FAIRNESS.md, its commitment, and verification.

docs/FAIRNESS.md is the specification and this module its reference implementation: a deal is
a function of a secret ``S`` (64 lowercase hex characters) and the rules. The server publishes
``commitment(S)`` when the deal opens and ``S`` when it ends; anyone can then recompute the deal.

Pure like the rest of the engine: the secret is an input. ``new_secret`` only formats bytes the
caller draws (the service passes ``secrets.token_bytes``), so no OS randomness enters engine/.
The command line, ``python -m engine.fairness verify ...``, is ``main`` with its output injected.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.errors import BadInput, BadRules
from engine.rules import RuleSet, rules_from_settings
from engine.tiles import ALL_TILES, COUNT, Tile, parse_index

SHUFFLE_VERSION: Final = "sha256-v1"  # stored with every deal dealt by this module
SECRET_BYTES: Final = 32
HEX_LENGTH: Final = 2 * SECRET_BYTES
_HEX_DIGITS: Final = frozenset("0123456789abcdef")
_SEAT_LABEL: Final = "seat"
_BALAK: Final = frozenset(t.index for t in ALL_TILES if t.is_balak)


class BadSecret(BadInput):
    """A secret or commitment that is not 64 lowercase hex characters."""

    code = "bad_secret"


def check_hex(value: object, what: str = "secret") -> str:
    """``value`` if it is 64 lowercase hex characters; ``BadSecret`` saying what is wrong.

    The message never repeats the value: a malformed secret is still close to a secret.
    """
    if not isinstance(value, str):
        raise BadSecret(f"the {what} must be a string of {HEX_LENGTH} hex characters")
    if len(value) == HEX_LENGTH and _HEX_DIGITS.issuperset(value):
        return value
    if len(value) != HEX_LENGTH:
        raise BadSecret(
            f"the {what} must be {HEX_LENGTH} lowercase hex characters, not {len(value)}"
        )
    for pos, ch in enumerate(value, start=1):
        if ch not in _HEX_DIGITS:
            hint = " (write hex digits in lowercase)" if ch in "ABCDEF" else ""
            raise BadSecret(f"character {pos} of the {what} is not one of 0-9, a-f{hint}")
    return value


def new_secret(randbytes: Callable[[int], bytes]) -> str:
    """A deal's secret from ``randbytes(32)``; the service passes ``secrets.token_bytes``."""
    data = randbytes(SECRET_BYTES)
    if not isinstance(data, bytes) or len(data) != SECRET_BYTES:
        raise ValueError(f"randbytes({SECRET_BYTES}) must return {SECRET_BYTES} bytes")
    return data.hex()


def commitment(secret: str) -> str:
    """SHA-256 of the secret's 64 ASCII characters, as 64 lowercase hex characters."""
    return hashlib.sha256(check_hex(secret).encode("ascii")).hexdigest()


def verify(secret: str, committed: str) -> bool:
    """Whether ``secret`` is the one ``committed`` commits to (both checked first)."""
    check_hex(committed, "commitment")
    return hmac.compare_digest(commitment(secret), committed)


def _draw(message: bytes) -> int:
    """The first 8 bytes of SHA-256(``message``) as a big-endian unsigned integer."""
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big")


def _order(secret: str, k: int) -> list[int]:
    """Shuffle ``k`` as tile indices; ``secret`` and ``k`` already checked."""
    order = list(range(COUNT))
    prefix = f"{secret}:{k}:".encode("ascii")
    for i in range(COUNT - 1, 0, -1):
        j = _draw(prefix + b"%d" % i) % (i + 1)  # message "{S}:{k}:{i}"
        order[i], order[j] = order[j], order[i]
    return order


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"the shuffle number k is an integer from 0, not {k!r}")
    return k


def shuffle(secret: str, k: int = 0) -> tuple[Tile, ...]:
    """The 28 tiles in the order of shuffle ``k`` of ``secret`` (FAIRNESS.md, "The shuffle")."""
    return tuple(ALL_TILES[i] for i in _order(check_hex(secret), _check_k(k)))


def random_seat(secret: str, players: int) -> int:
    """The deal's random seat, 0..players-1: where the rules let chance pick the first mover."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise ValueError(f"players must be a positive integer, not {players!r}")
    return _draw(f"{check_hex(secret)}:{_SEAT_LABEL}".encode("ascii")) % players


@dataclass(frozen=True, slots=True)
class FairDeal:
    """What a secret deals under a rule set: the shuffle used and where each tile went."""

    shuffle: str  # SHUFFLE_VERSION
    k: int  # the shuffle dealt: 0, or the number of redeals before it
    order: tuple[Tile, ...]  # shuffle k, position 0 first
    hands: tuple[tuple[Tile, ...], ...]  # per seat, in canonical order (a hand is a set)
    start: Tile | None  # the face-up start tile (Klasik), drawn low number on the left
    set_aside: tuple[Tile, ...]  # in shuffled order
    first_seat: int | None  # the random first mover, when the rules let chance pick one

    @property
    def hand_masks(self) -> tuple[int, ...]:
        return tuple(sum(1 << t.index for t in hand) for hand in self.hands)

    @property
    def set_aside_mask(self) -> int:
        return sum(1 << t.index for t in self.set_aside)

    @property
    def start_drawn(self) -> tuple[int, int] | None:
        """The start tile as the line shows it: (left end, right end)."""
        return None if self.start is None else (self.start.low, self.start.high)

    def to_dict(self) -> dict[str, Any]:
        return {
            "shuffle": self.shuffle,
            "k": self.k,
            "hands": [[str(t) for t in hand] for hand in self.hands],
            "start": None if self.start is None else str(self.start),
            "set_aside": [str(t) for t in self.set_aside],
            "first_seat": self.first_seat,
        }


def _too_many_balak(rules: RuleSet, hands: list[list[int]]) -> bool:
    limit = rules.redeal_min_balak
    return limit > 0 and any(sum(i in _BALAK for i in h) >= limit for h in hands)


def deal(secret: str, rules: RuleSet) -> FairDeal:
    """Deal shuffle k = 0, 1, ... until no hand holds ``rules.redeal_min_balak`` balak.

    Seat ``s`` gets positions ``s*n .. s*n+n-1``; with a face-up start tile the next position
    is the start tile; the rest are set aside in order (FAIRNESS.md, "Dealing").
    """
    check_hex(secret)
    n, players = rules.hand_size, rules.players
    k = 0
    while True:
        order = _order(secret, k)
        hands = [order[s * n : s * n + n] for s in range(players)]
        if not _too_many_balak(rules, hands):
            break
        k += 1
    rest = order[players * n :]
    start = ALL_TILES[rest.pop(0)] if rules.face_up_start else None
    return FairDeal(
        shuffle=SHUFFLE_VERSION,
        k=k,
        order=tuple(ALL_TILES[i] for i in order),
        hands=tuple(tuple(ALL_TILES[i] for i in sorted(h)) for h in hands),
        start=start,
        set_aside=tuple(ALL_TILES[i] for i in rest),
        first_seat=random_seat(secret, players) if rules.first_opener == "random" else None,
    )


def dealing(rules: RuleSet, k: int) -> dict[str, Any]:
    """What a client needs besides the secret to recompute a deal (FAIRNESS.md §3), as the
    server publishes it with the deal: the shuffle dealt and how the rules deal it out."""
    return {
        "k": _check_k(k),
        "players": rules.players,
        "hand_size": rules.hand_size,
        "start_tile": rules.face_up_start,
        "redeal_min_balak": rules.redeal_min_balak,
    }


def first_deal_opener(rules: RuleSet, dealt: FairDeal) -> tuple[int, str]:
    """Who moves first if this is a set's first deal, and why (later deals: the last winner)."""
    if rules.first_opening_tile is not None:
        tile = ALL_TILES[parse_index(rules.first_opening_tile)]
        holder = next(s for s, hand in enumerate(dealt.hands) if tile in hand)
        return holder, f"holds {tile} and opens with it"
    if dealt.first_seat is None:  # no rule set today: every first deal has a rule
        raise BadRules("these rules name no first mover")
    return dealt.first_seat, "the random seat"


# -- the command line -------------------------------------------------------------------------
def _hex_arg(what: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        try:
            return check_hex(text, what)
        except BadSecret as exc:
            raise argparse.ArgumentTypeError(exc.message) from exc

    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.fairness",
        description="Recompute a finished deal from its secret (docs/FAIRNESS.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    v = commands.add_parser("verify", help="check a secret against its commitment, show the deal")
    v.add_argument("--secret", required=True, type=_hex_arg("secret"))
    v.add_argument("--commitment", required=True, type=_hex_arg("commitment"))
    v.add_argument("--preset", required=True, choices=("pordi", "klasik"))
    v.add_argument("--mode", choices=("tunggal", "ganda"))
    v.add_argument("--players", type=int, choices=(4, 5))
    v.add_argument("--seven-tiles", action="store_true", help="klasik: seven tiles each")
    return parser


def _rules(args: argparse.Namespace) -> RuleSet:
    settings: dict[str, Any] = {"preset": args.preset}
    if args.mode is not None:
        settings["mode"] = args.mode
    if args.players is not None:
        settings["players"] = args.players
    if args.seven_tiles:
        if args.preset != "klasik":
            raise BadRules("--seven-tiles is a klasik option")
        settings["seven_tiles"] = True
    return rules_from_settings(settings)


def _tiles(tiles: Sequence[Tile]) -> str:
    return " ".join(str(t) for t in tiles) or "(none)"


def report(secret: str, committed: str, rules: RuleSet) -> tuple[bool, list[str]]:
    """Whether the commitment matches, and the lines the CLI prints."""
    ok = verify(secret, committed)
    dealt = deal(secret, rules)
    redeals = "no redeal" if dealt.k == 0 else f"{dealt.k} redeal{'s' * (dealt.k > 1)}"
    lines = [
        f"commitment:  {committed}",
        f"SHA-256(S):  {commitment(secret)}",
        "match:       yes, this secret is the one committed to"
        if ok
        else "match:       NO, this secret is not the one committed to",
        f"rules:       {rules.preset} {rules.mode}, {rules.players} players, "
        f"{rules.hand_size} tiles each",
        f"shuffle:     {dealt.shuffle}, k = {dealt.k} ({redeals})",
    ]
    lines += [f"seat {s}:      {_tiles(hand)}" for s, hand in enumerate(dealt.hands)]
    if rules.face_up_start:
        lines.append(f"start tile:  {dealt.start}")
    if rules.set_aside_count:
        lines.append(f"set aside:   {_tiles(dealt.set_aside)}")
    seat, why = first_deal_opener(rules, dealt)
    lines.append(f"first deal:  seat {seat} moves first ({why}), if this is a set's first deal")
    later = " (a balak, else the next seat holding one)" if rules.opening_lead == "balak" else ""
    lines.append(f"later deals: the previous deal's winner leads{later}")
    return ok, lines


def main(argv: Sequence[str] | None, write: Callable[[str], None]) -> int:
    """The CLI with its output injected: 0 when the commitment matches, 1 when it does not.

    Bad arguments exit with status 2 and a message on stderr (argparse's convention).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        rules = _rules(args)
    except BadRules as exc:
        parser.error(exc.message)
    ok, lines = report(args.secret, args.commitment, rules)
    for line in lines:
        write(line)
    return 0 if ok else 1


if __name__ == "__main__":
    # The process edge: argparse reads the command line, print writes the report.
    raise SystemExit(main(None, print))
