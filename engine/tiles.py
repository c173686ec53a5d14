"""Tiles of the double-six set, ``a-b`` notation, and the int tables the hot path uses.

Inside the engine a tile is an index 0..27 and a hand is a 28-bit mask; ``Tile`` is the public,
readable face of an index. The tables below are computed once at import time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from engine.errors import BadTile

TOP: Final = 6  # double-six
NUMBERS: Final = tuple(range(TOP + 1))

# Index order: 0-0, 0-1, ..., 0-6, 1-1, ..., 6-6 (low-high, lexicographic).
LOW: Final[tuple[int, ...]] = tuple(a for a in NUMBERS for b in NUMBERS if a <= b)
HIGH: Final[tuple[int, ...]] = tuple(b for a in NUMBERS for b in NUMBERS if a <= b)
COUNT: Final = len(LOW)  # 28
PIPS: Final[tuple[int, ...]] = tuple(a + b for a, b in zip(LOW, HIGH, strict=True))
BALAK_MASK: Final = sum(1 << i for i in range(COUNT) if LOW[i] == HIGH[i])
FULL_MASK: Final = (1 << COUNT) - 1
INDEX: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(next(i for i in range(COUNT) if {LOW[i], HIGH[i]} == {a, b}) for b in NUMBERS)
    for a in NUMBERS
)
# WITH[n]: mask of the tiles bearing the number n (seven of them).
WITH: Final[tuple[int, ...]] = tuple(
    sum(1 << i for i in range(COUNT) if n in (LOW[i], HIGH[i])) for n in NUMBERS
)
# OTHER[i][n]: the other number of tile i when its n side is matched (-1 if it bears no n).
OTHER: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(HIGH[i] if LOW[i] == n else LOW[i] if HIGH[i] == n else -1 for n in NUMBERS)
    for i in range(COUNT)
)
NAMES: Final[tuple[str, ...]] = tuple(f"{a}-{b}" for a, b in zip(LOW, HIGH, strict=True))
# DRAWN[a][b]: "a-b" as drawn on the line (a on the left), any order.
DRAWN: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f"{a}-{b}" for b in NUMBERS) for a in NUMBERS
)


# Lookup tables over 14-bit halves of a hand mask: the hot path never loops over bits.
_HALF: Final = 14
HALF_MASK: Final = (1 << _HALF) - 1


def _half_tables(offset: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    idx: list[tuple[int, ...]] = [()]
    pips = [0]
    for m in range(1, 1 << _HALF):
        low = (m & -m).bit_length() - 1
        idx.append((low + offset, *idx[m & (m - 1)]))
        pips.append(PIPS[low + offset] + pips[m & (m - 1)])
    return tuple(idx), tuple(pips)


_LO: Final = _half_tables(0)
_HI: Final = _half_tables(_HALF)
LO_BITS: Final = _LO[0]
HI_BITS: Final = _HI[0]
_LO_PIPS: Final = _LO[1]
_HI_PIPS: Final = _HI[1]


def bits(mask: int) -> tuple[int, ...]:
    """The tile indices set in ``mask``, ascending."""
    return LO_BITS[mask & HALF_MASK] + HI_BITS[mask >> _HALF]


def mask_count(mask: int) -> int:
    """How many tiles ``mask`` holds (``int.bit_count`` is a method call when compiled)."""
    return len(LO_BITS[mask & HALF_MASK]) + len(HI_BITS[mask >> _HALF])


def mask_pips(mask: int) -> int:
    """Total pips of the tiles in ``mask``."""
    return _LO_PIPS[mask & HALF_MASK] + _HI_PIPS[mask >> _HALF]


# Every way to write a tile, "3-0" and "0-3": only ASCII 0..6 are tile numbers (str.isdigit()
# would also take Arabic-Indic "\u0661" or full-width "\uff11" digits).
_PARSE: Final[dict[str, int]] = {f"{a}-{b}": INDEX[a][b] for a in NUMBERS for b in NUMBERS}


def parse_index(text: object) -> int:
    """``"3-0"`` -> index of 0-3 (surrounding whitespace ignored). Raises ``BadTile`` for
    anything else, a value of another type included (it may come straight from a message)."""
    if isinstance(text, str):
        i = _PARSE.get(text) if len(text) == 3 else _PARSE.get(text.strip())
        if i is not None:
            return i
    raise BadTile(f"{text!r} is not a tile of the double-six set (write it as a-b, 0..{TOP})")


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """An immutable tile; always stored low-high, so ``Tile(3, 0) == Tile(0, 3)``."""

    low: int
    high: int
    index: int = field(init=False, compare=False, repr=False)  # position in ALL_TILES

    def __post_init__(self) -> None:
        ok = isinstance(self.low, int) and isinstance(self.high, int)
        if not (ok and 0 <= self.low <= TOP and 0 <= self.high <= TOP):
            raise BadTile(f"{self.low}-{self.high} is not a tile of the double-six set")
        if self.low > self.high:
            a, b = self.high, self.low
            object.__setattr__(self, "low", a)
            object.__setattr__(self, "high", b)
        object.__setattr__(self, "index", INDEX[self.low][self.high])

    @classmethod
    def parse(cls, text: object) -> Tile:
        return ALL_TILES[parse_index(text)]

    @classmethod
    def of(cls, index: int) -> Tile:
        return ALL_TILES[index]

    @property
    def pips(self) -> int:
        return self.low + self.high

    @property
    def is_balak(self) -> bool:
        return self.low == self.high

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile({self})"


ALL_TILES: Final[tuple[Tile, ...]] = tuple(Tile(a, b) for a, b in zip(LOW, HIGH, strict=True))


def mask_of(tiles: list[Tile] | tuple[Tile, ...]) -> int:
    mask = 0
    for t in tiles:
        mask |= 1 << t.index
    return mask


def mask_of_names(tiles: list[str] | tuple[str, ...]) -> int:
    """The mask of tiles written as ``"a-b"`` strings. Raises ``BadTile``."""
    m = 0
    for t in tiles:
        m |= 1 << parse_index(t)
    return m


def names(mask: int) -> list[str]:
    """The tiles of a mask as canonical strings, in set order."""
    if not mask:  # PORDI deals have no discards and nothing set aside: the common case
        return []
    return [NAMES[i] for i in bits(mask)]
