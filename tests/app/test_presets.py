"""GET /api/presets serves the settings' one source; rooms made from it get exactly those
defaults; the API takes JSON types strictly."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app import presets as rs
from app.live import NullLiveTables
from app.settings import Settings
from tests.conftest import Guest


@pytest.fixture
def live_factory() -> Any:
    return lambda app: NullLiveTables()


@pytest.fixture
def settings(settings: Settings, request: pytest.FixtureRequest) -> Settings:
    """The conftest's settings with room creation unthrottled: these tests make a room for
    every served choice, from one address (the rate limits are tested in test_ratelimit.py).
    Parametrized indirectly, the longest player name."""
    update: dict[str, Any] = {"rate_rooms": "1000/minute", "rate_tournaments": "1000/minute"}
    if hasattr(request, "param"):
        update["max_name_length"] = request.param
    return settings.model_copy(update=update)


async def _presets(api: httpx.AsyncClient) -> dict[str, Any]:
    response = await api.get("/api/presets")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_presets_shape(api: httpx.AsyncClient) -> None:
    body = await _presets(api)
    assert body["default_preset"] == "pordi"
    assert [p["preset"] for p in body["presets"]] == ["pordi", "klasik"]
    pordi, klasik = body["presets"]
    assert pordi["defaults"] == {
        "preset": "pordi",
        "mode": "tunggal",
        "turn_seconds": 15,
        "deals_per_set": 7,
        "target_points": 7,
        "public": True,
        "allow_join_bots": True,
        "rated": False,
        "chat": True,
    }
    assert pordi["seats"] == 4 and klasik["seats"] == 4
    fields = {f["key"]: f for f in pordi["fields"]}
    assert list(fields) == [
        "mode",
        "turn_seconds",
        "deals_per_set",
        "target_points",
        "public",
        "allow_join_bots",
        "rated",
        "chat",
    ]
    assert fields["mode"] == {
        "key": "mode",
        "type": "choice",
        "choices": ["tunggal", "ganda"],
        "default": "tunggal",
    }
    assert fields["turn_seconds"]["choices"] == [15, 30, 60]
    assert fields["target_points"] == {
        "key": "target_points",
        "type": "int",
        "min": 1,
        "max": 99,
        "default": 7,
        "when": {"mode": ["ganda"]},
    }
    assert fields["allow_join_bots"]["default_if_private"] is False
    assert fields["rated"] == {"key": "rated", "type": "bool", "default": False}
    kfields = {f["key"]: f for f in klasik["fields"]}
    # The three games of the family, named, above the other Klasik options.
    assert klasik["fields"][0] == {
        "key": "stuck",
        "type": "choice",
        "choices": ["discard", "pass", "draw"],
        "default": "discard",
        "names": {"discard": "Gaple Klasik", "pass": "Block Domino", "draw": "Draw Domino"},
    }
    assert klasik["defaults"]["stuck"] == "discard"
    assert kfields["mode"]["choices"] == ["tunggal"]
    assert kfields["players"]["choices"] == [4, 5]
    assert kfields["target_points"]["max"] == 1000
    assert kfields["deals_per_set"]["when"] == {"scoring": ["penalty"]}
    assert set(kfields) == set(fields) | set(rs.KLASIK_OPTIONS)
    assert body["bots"] == {"kinds": ["easy", "normal", "hard"], "default": "normal"}
    assert body["quickplay"] == {
        "presets": ["pordi"],
        "modes": ["tunggal", "ganda"],
        "turn_seconds": [15, 30, 60],
        "bot": "normal",
        "rated": True,
        "default": {"preset": "pordi", "mode": "tunggal", "turn_seconds": 15},
    }


async def test_a_room_made_with_nothing_chosen_has_the_served_defaults(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    host: Guest = await make_guest("Host")
    for preset in (await _presets(api))["presets"]:
        made = await api.post("/api/rooms", json={"preset": preset["preset"]}, headers=host.headers)
        assert made.status_code == 201, made.text
        assert made.json()["settings"] == preset["defaults"]
        assert len(made.json()["seats"]) == preset["seats"]
    private = await api.post("/api/rooms", json={"public": False}, headers=host.headers)
    assert private.json()["settings"]["allow_join_bots"] is False


async def test_every_served_choice_is_accepted(api: httpx.AsyncClient, make_guest: Any) -> None:
    host: Guest = await make_guest("Host")
    for preset in (await _presets(api))["presets"]:
        for field in preset["fields"]:
            values = field.get("choices") or [field.get("min"), field.get("max")]
            if field["type"] == "bool":
                values = [True, False]
            for value in values:
                body = {"preset": preset["preset"], field["key"]: value}
                if field["key"] == "seven_tiles" and value:
                    body["players"] = 4
                made = await api.post("/api/rooms", json=body, headers=host.headers)
                assert made.status_code == 201, (body, made.text)
                code = made.json()["code"]
                assert made.json()["settings"][field["key"]] == value
                # The host limit: each room is closed again.
                closed = await api.delete(f"/api/rooms/{code}", headers=host.headers)
                assert closed.status_code == 200, closed.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"public": "yes"}, "public"),
        ({"public": 1}, "public"),
        ({"deals_per_set": 7.0}, "deals_per_set"),
        ({"deals_per_set": "7"}, "deals_per_set"),
        ({"turn_seconds": "15"}, "turn_seconds"),
        ({"turn_seconds": 15.0}, "turn_seconds"),
        ({"target_points": True}, "target_points"),
        ({"preset": "klasik", "players": 4.0}, "players"),
        ({"allow_join_bots": "true"}, "allow_join_bots"),
    ],
)
async def test_strict_types(
    api: httpx.AsyncClient, make_guest: Any, body: dict[str, Any], field: str
) -> None:
    host: Guest = await make_guest("Host")
    response = await api.post("/api/rooms", json=body, headers=host.headers)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    made = (await api.post("/api/rooms", headers=host.headers)).json()
    patched = await api.patch(
        f"/api/rooms/{made['code']}/settings", json=body, headers=host.headers
    )
    assert patched.status_code == 422 and patched.json()["error"]["field"] == field
    quick = await api.post(
        "/api/quickplay", json={"turn_seconds": "15", "mode": "tunggal"}, headers=host.headers
    )
    assert quick.status_code == 422 and quick.json()["error"]["field"] == "turn_seconds"
    assert (await api.get("/api/rooms/" + made["code"])).json()["settings"] == made["settings"]


async def test_openapi_shows_the_new_calls(api: httpx.AsyncClient) -> None:
    paths = (await api.get("/openapi.json")).json()["paths"]
    assert "200" in paths["/api/presets"]["get"]["responses"]
    quick = paths["/api/quickplay"]["post"]
    assert {"200", "401", "422"} <= set(quick["responses"])
    close = paths["/api/rooms/{code}"]["delete"]
    assert {"200", "401", "403", "404", "409"} <= set(close["responses"])
    listing = paths["/api/rooms"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"limit", "cursor"}
    schemas = (await api.get("/openapi.json")).json()["components"]["schemas"]
    assert schemas["RoomOut"]["properties"]["status"]["$ref"] == "#/components/schemas/RoomStatus"
    assert schemas["RoomStatus"]["enum"] == ["open", "playing", "closed", "abandoned"]
    assert "next_cursor" in schemas["RoomList"]["properties"]


async def test_presets_serve_the_chat_choices(api: httpx.AsyncClient) -> None:
    chat = (await _presets(api))["chat"]
    assert chat["max_chars"] == 200
    assert chat["emoji"] == ["👍", "😂", "😮", "😡", "🙏", "🔥", "👏", "😭"]
    phrases = {p["id"]: p for p in chat["phrases"]}
    assert phrases["mantap"] == {"id": "mantap", "id_text": "Mantap!", "en_text": "Nice one!"}
    assert all(p["id_text"] and p["en_text"] for p in chat["phrases"])


async def test_presets_serve_the_rule_books_numbers(api: httpx.AsyncClient) -> None:
    """What a rules page shows comes from here: tiles per seat, the opening tile, the redeal and
    the scoring tables as the engine plays them (RULES.md §1.1-1.3, §2)."""
    pordi, klasik = (await _presets(api))["presets"]
    assert pordi["rules"] == {
        "tables": [
            {
                "players": 4,
                "hand_size": 7,
                "face_up_start": False,
                "set_aside": 0,
                "first_opening_tile": "6-6",
            }
        ],
        "redeal_min_balak": 5,
        "domi_points": {
            "biasa": 1,
            "balak": 2,
            "ceki": 2,
            "ceki_habis": 3,
            "ceki_balak": 3,
            "ceki_palang": 4,
        },
        "ceki_one_used_up_points": {"dead": 2, "live": 1},
        "kandang": {
            "tunggal": {
                "locker_lower": 3,
                "tie_opponent": 1,
                "tie_locker": 0,
                "locker_higher": [3, 2, 1],
            },
            "ganda": {"locker_lower": 2, "tie_opponent": 1, "tie_locker": 0, "locker_higher": [3]},
        },
    }
    shapes = [
        (
            t["players"],
            t["seven_tiles"],
            t["hand_size"],
            t["set_aside"],
            t["face_up_start"],
            t.get("first_opening_tile"),
        )
        for t in klasik["rules"]["tables"]
    ]
    assert shapes == [
        (4, False, 6, 3, True, None),
        (4, True, 7, 0, False, "0-0"),
        (5, False, 5, 2, True, None),
    ]
    assert klasik["rules"]["zero_zero_points"] == 25
    assert klasik["rules"]["redeal_min_balak"] == 5
    assert "domi_points" not in klasik["rules"]


async def test_presets_describe_practice(api: httpx.AsyncClient) -> None:
    body = await _presets(api)
    assert body["practice"] == {"bot": rs.PRACTICE_BOT, "public": False, "rated": False}
    assert body["practice"]["bot"] in body["bots"]["kinds"]


@pytest.mark.parametrize("settings", [9], indirect=True)
async def test_the_name_limit_served_is_the_one_guests_are_held_to(
    api: httpx.AsyncClient,
) -> None:
    body = await _presets(api)
    assert body["names"] == {"max_length": 9}
    limit = body["names"]["max_length"]
    # Counted in characters (code points), after trimming, as the name field counts them.
    ok = await api.post("/api/guests", json={"name": f"  {'🀄' * limit}  "})
    assert ok.status_code == 201 and ok.json()["name"] == "🀄" * limit
    long = await api.post("/api/guests", json={"name": "x" * (limit + 1)})
    assert long.status_code == 422
    assert long.json()["error"]["field"] == "name"
    assert f"at most {limit}" in long.json()["error"]["message"]


async def test_the_default_name_limit_is_served(api: httpx.AsyncClient, settings: Settings) -> None:
    body = await _presets(api)
    assert body["names"] == {"max_length": settings.max_name_length}


async def test_presets_serve_the_tournament_forms_limits_that_creating_holds(
    api: httpx.AsyncClient, make_guest: Any
) -> None:
    from datetime import UTC, datetime, timedelta

    served = (await _presets(api))["tournaments"]
    assert served["formats"] == ["swiss", "knockout"]
    assert served["modes"] == list(rs.MODES)
    low, high = served["rounds"]
    guest: Guest = await make_guest("Penyelenggara")
    saved = await api.post(
        "/api/accounts",
        json={"username": "penyelenggara", "password": "kartu-balak-66"},
        headers=guest.headers,
    )
    assert saved.status_code == 201, saved.text
    body = {
        "name": "Piala RT",
        "format": "swiss",
        "mode": "tunggal",
        "rounds": served["defaults"]["rounds"],
        "settings": {"preset": "pordi"},
        "starts_at": (datetime.now(UTC) + timedelta(hours=2)).isoformat(),
        "min_entrants": served["table_entrants"]["tunggal"],
        "max_entrants": served["defaults"]["max_entrants"],
    }
    for field, bad in (
        ("rounds", high + 1),
        ("rounds", low - 1),
        ("max_entrants", served["entrants"][1] + 1),
        ("min_entrants", served["table_entrants"]["ganda"] - 1),
        ("name", "x" * (served["name_length"][0] - 1)),
        ("name", "x" * (served["name_length"][1] + 1)),
    ):
        refused = await api.post(
            "/api/tournaments", json={**body, field: bad}, headers=guest.headers
        )
        assert refused.status_code == 422, (field, bad, refused.text)
        assert refused.json()["error"]["field"] == field
    made = await api.post("/api/tournaments", json={**body, "rounds": high}, headers=guest.headers)
    assert made.status_code == 201, made.text
