"""``Record``: the base of the engine's value types (events, a deal's facts and position, a match).

A record reads like a NamedTuple: named fields in a fixed order, built positionally, compared
and hashed by value, unpacked in field order, copied with changes by ``_replace``. It is a plain
class with ``__slots__`` rather than a tuple because the engine builds several per move: a slot
class is cheaper to build and read, and, compiled (docs/ENGINE.md, "Compiled engine"), a native
class whose fields are read without a lookup. Records are values: nothing in the engine changes
one after it is built, and callers must not either; ``_replace`` makes the changed copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, TypeVar

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # not installed: the attributes are read by the compiler only, not at run time

    def mypyc_attr(*attrs: Any, **kwattrs: Any) -> Any:  # type: ignore[misc]
        return lambda cls: cls


__all__ = ["Record", "mypyc_attr"]

R = TypeVar("R", bound="Record")


# Compiled, a record is "acyclic": it holds values and never a reference back to itself, so
# the garbage collector need not track it (cheaper to build and to free). Every subclass says
# so too; the records the engine builds on every move also keep one freed instance to reuse.
@mypyc_attr(acyclic=True)
class Record:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __iter__(self) -> Iterator[Any]:
        return iter([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def _replace(self: R, **changes: Any) -> R:
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return type(self)(*[changes.get(name, getattr(self, name)) for name in self._fields])
