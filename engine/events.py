"""Events: every change of a match is one. ``Event.to_dict()`` is JSON-safe.

Raw events hold everything needed to rebuild the state (``deal_started`` carries the dealt
hands), so they are for storage only; what a seat or spectator may see of one is decided by
``engine.views.event_view``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from engine.record import Record, mypyc_attr

KINDS: Final = (
    "redeal",
    "deal_started",
    "played",
    "passed",
    "discarded",
    "drew",
    "deal_ended",
    "set_ended",
)
# The kinds made on every move keep a compact tuple payload; ``data`` names its fields.
# ``discarded`` (Klasik): ``tile`` is secret to the discarder until the deal ends; ``left`` and
# ``right`` are the open ends it could not play on (public).
FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "played": ("deal_number", "seat", "tile", "end", "placed", "left", "right"),
    "passed": ("deal_number", "seat", "left", "right"),
    "discarded": ("deal_number", "seat", "tile", "left", "right"),
    # ``drew`` (draw rules): ``tile`` is secret to the drawer until the deal ends; ``boneyard``
    # is how many tiles are left to draw after it (public).
    "drew": ("deal_number", "seat", "tile", "boneyard"),
}


class Lazy:
    """A dict payload built the first time it is read: ``make(*args)``, then kept.

    ``deal_started`` and ``deal_ended`` carry the names of every hand; spelling them out is
    left to whoever first reads the event (storage, a view), not to every ``start_deal`` and
    last ``play``. It compares equal to the dict it stands for (and is unhashable, like it),
    so an event read back from storage equals the one the engine made.
    """

    __slots__ = ("_args", "_dict", "_make")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, make: Callable[..., dict[str, Any]], *args: Any) -> None:
        self._make = make
        self._args = args
        self._dict: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        """The payload (the caller must not change it: ``Event.data`` hands out copies)."""
        d = self._dict
        if d is None:
            d = self._dict = self._make(*self._args)
            self._args = ()
        return d

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lazy):
            other = other.get()
        return self.get() == other

    def __repr__(self) -> str:
        return repr(self.get())


@mypyc_attr(acyclic=True, free_list_len=1)
class Event(Record):
    """An immutable event: ``kind`` and its fields (``data``, a fresh JSON-safe dict).

    A ``Record``: the same read-only fields as a frozen dataclass, several times cheaper to
    build, and the engine builds one or more per move (see docs/ENGINE.md). ``payload``: a
    tuple in ``FIELDS[kind]`` order, a dict, or a ``Lazy`` dict.
    """

    __slots__ = ("kind", "payload")
    _fields = ("kind", "payload")

    def __init__(self, kind: str, payload: tuple[Any, ...] | dict[str, Any] | Lazy) -> None:
        self.kind = kind
        self.payload = payload

    @classmethod
    def of(cls, kind: str, data: dict[str, Any]) -> Event:
        return cls(kind, dict(data))

    @property
    def data(self) -> dict[str, Any]:
        p = self.payload
        if isinstance(p, tuple):
            return dict(zip(FIELDS[self.kind], p, strict=True))
        return _copy(p.get() if isinstance(p, Lazy) else p)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        out.update(self.data)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        data = _copy(d)
        kind = data.pop("kind")
        if kind in FIELDS:
            return cls(kind, tuple(data[k] for k in FIELDS[kind]))
        return cls(kind, data)


def _copy(d: dict[str, Any]) -> dict[str, Any]:
    # One level of lists/dicts is enough for our payloads; keeps callers from sharing them.
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, list):
            out[k] = [list(x) if isinstance(x, list) else x for x in v]
        elif isinstance(v, dict):
            out[k] = dict(v)
        else:
            out[k] = v
    return out
