"""Events: every change of a match is one. ``Event.to_dict()`` is JSON-safe.

Raw events hold everything needed to rebuild the state (``deal_started`` carries the dealt
hands), so they are for storage only; what a seat or spectator may see of one is decided by
``engine.views.event_view``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

KINDS = (
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
FIELDS: dict[str, tuple[str, ...]] = {
    "played": ("deal_number", "seat", "tile", "end", "placed", "left", "right"),
    "passed": ("deal_number", "seat", "left", "right"),
    "discarded": ("deal_number", "seat", "tile", "left", "right"),
    # ``drew`` (draw rules): ``tile`` is secret to the drawer until the deal ends; ``boneyard``
    # is how many tiles are left to draw after it (public).
    "drew": ("deal_number", "seat", "tile", "boneyard"),
}


class Event(NamedTuple):
    """An immutable event: ``kind`` and its fields (``data``, a fresh JSON-safe dict).

    A NamedTuple rather than a frozen dataclass: the same read-only fields, but several times
    cheaper to build, and the engine builds one or more per move (see docs/ENGINE.md).
    """

    kind: str
    payload: tuple[Any, ...] | dict[str, Any]

    @classmethod
    def of(cls, kind: str, data: dict[str, Any]) -> Event:
        return cls(kind, dict(data))

    @property
    def data(self) -> dict[str, Any]:
        p = self.payload
        if isinstance(p, tuple):
            return dict(zip(FIELDS[self.kind], p, strict=True))
        return _copy(p)

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
