"""app.cursors: a page cursor decodes to what was encoded, and nothing else decodes at all."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app import cursors
from app.cursors import BadCursor
from app.errors import GapleError

AT = datetime(2026, 12, 1, 10, 0, 0, 123456, tzinfo=UTC)


def _raw(text: str) -> str:
    """A cursor made by hand, the way encode spells one."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_round_trips() -> None:
    assert cursors.decode(cursors.encode(41), int) == (41,)
    assert cursors.decode(cursors.encode(0), int) == (0,)
    assert cursors.decode(cursors.encode(-3.25, "p-1"), float, str) == (-3.25, "p-1")
    assert cursors.decode(cursors.encode(0.1 + 0.2, "é"), float, str) == (0.1 + 0.2, "é")
    assert cursors.decode(cursors.encode(AT, "room"), datetime, str) == (AT, "room")
    east = AT.astimezone(timezone(timedelta(hours=7)))
    (back,) = cursors.decode(cursors.encode(east), datetime)
    assert back == AT and back.utcoffset() == timedelta(hours=7)


def test_the_spelling_is_compact_json_in_url_safe_base64_without_padding() -> None:
    assert cursors.encode(41) == _raw("[41]") == "WzQxXQ"
    assert cursors.encode(1.5, "abc") == _raw('[1.5,"abc"]')
    assert cursors.encode(AT, "r") == _raw('["2026-12-01T10:00:00.123456+00:00","r"]')
    for values in [(1,), (12,), (123,), (AT, "x"), ("ÿÿ?>",)]:
        cursor = cursors.encode(*values)
        assert "=" not in cursor and set(cursor) <= set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        )


def test_an_integer_is_a_float_where_a_float_is_asked_for() -> None:
    # JSON has one kind of number: a whole float may be spelled without its ".0".
    number, name = cursors.decode(_raw('[1500,"x"]'), float, str)
    assert (number, name) == (1500.0, "x") and isinstance(number, float)


def test_cursors_of_the_earlier_json_spelling_still_decode() -> None:
    # The leaderboard and the lobby list wrote json.dumps' default separators.
    assert cursors.decode("WzEuMjMsICJhYmMiXQ", float, str) == (1.23, "abc")
    assert cursors.decode(_raw('["2026-12-01T10:00:00+00:00", "r"]'), datetime, str) == (
        datetime(2026, 12, 1, 10, tzinfo=UTC),
        "r",
    )


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "not-a-cursor",
        "nonsense",
        "c2V0Oi0x",  # "set:-1", a player's-sets cursor before this codec
        "c2V0OjQx",  # "set:41"
        "!!!!",
        "WzQxXQ==",  # padded
        "WzQxXQ=",
        "WzQx XQ",  # a stray character base64 would skip
        "WzQxXR",  # the same bytes, with bits encode never sets
        "W",  # not whole bytes
        "/w",  # the standard alphabet: encode writes _ for /
        "wq7Cpg",  # UTF-8, not JSON
        "_w",  # not UTF-8
        "ẞzQxXQ",  # not ASCII
        _raw("41"),  # a scalar, not a list
        _raw('{"a": 41}'),
        _raw("null"),
    ],
)
def test_garbage_is_refused(cursor: str) -> None:
    with pytest.raises(BadCursor):
        cursors.decode(cursor, int)


@pytest.mark.parametrize("text", ["[]", "[41,42]", "[[41]]"])
def test_the_wrong_number_of_values_is_refused(text: str) -> None:
    with pytest.raises(BadCursor):
        cursors.decode(_raw(text), int)
    assert cursors.decode(_raw("[41]"), int) == (41,)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ('["41"]', (int,)),
        ("[41.0]", (int,)),
        ("[true]", (int,)),
        ("[null]", (int,)),
        ("[41]", (str,)),
        ("[true]", (float,)),
        ('["1.5"]', (float,)),
        ("[NaN]", (float,)),
        ("[Infinity]", (float,)),
        ("[-Infinity]", (float,)),
        ("[1e400]", (float,)),  # reads as inf
        (f"[{10**400}]", (float,)),  # no float that large
        ("[1]", (datetime,)),
        ('["yesterday"]', (datetime,)),
        ('["2026-12-01T10:00:00"]', (datetime,)),  # no offset: not comparable with the store's
        ('[1.5,"x"]', (str, float)),  # the right values in the wrong order
    ],
)
def test_the_wrong_types_are_refused(text: str, shape: tuple[type[cursors.Scalar], ...]) -> None:
    with pytest.raises(BadCursor):
        cursors.decode(_raw(text), *shape)  # type: ignore[call-overload]


def test_encode_refuses_what_decode_would() -> None:
    with pytest.raises(ValueError):
        cursors.encode(datetime(2026, 12, 1, 10))
    with pytest.raises(ValueError):
        cursors.encode(float("nan"))


def test_a_bad_cursor_is_the_services_invalid_input_named_cursor() -> None:
    with pytest.raises(BadCursor) as caught:
        cursors.decode("nonsense", int)
    error = caught.value
    assert isinstance(error, GapleError)
    assert (error.code, error.field) == ("invalid", "cursor")
    assert error.message == "cursor is not one this server gave out"
