"""engine.fairness against docs/FAIRNESS.md: an independent implementation, the vectors, the CLI.

The ``spec_*`` functions below are a second implementation of FAIRNESS.md written from the
document with hashlib only; they share no code with engine.fairness (not even the tile table),
so a slip in either one shows up as a difference.
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
import re
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import fairness
from engine.rules import RuleSet, rules_from_settings, with_options

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "FAIRNESS.md"

# -- the independent implementation (FAIRNESS.md §2-§4) ---------------------------------------
CANONICAL = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
RANK = {name: i for i, name in enumerate(CANONICAL)}
# FAIRNESS.md §3 table: (players, hand size, face-up start tile); §4: a face-up start tile
# game is the one whose first deal is opened by the random seat.
SHAPE_OF = {"pordi": (4, 7, False), "klasik4": (4, 6, True), "klasik5": (5, 5, True)}
SHAPE_OF["klasik7"] = (4, 7, False)
CASES = {
    "pordi": {"preset": "pordi"},
    "klasik4": {"preset": "klasik", "players": 4},
    "klasik5": {"preset": "klasik", "players": 5},
    "klasik7": {"preset": "klasik", "seven_tiles": True},
}
RULES = {name: rules_from_settings(settings) for name, settings in CASES.items()}


def spec_first8(message: str) -> int:
    return int.from_bytes(hashlib.sha256(message.encode("ascii")).digest()[:8], "big")


def spec_shuffle(secret: str, k: int) -> list[str]:
    p = list(CANONICAL)
    for i in range(27, 0, -1):
        j = spec_first8(f"{secret}:{k}:{i}") % (i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def spec_balak(hand: list[str]) -> int:
    return sum(1 for t in hand if t[0] == t[2])


def spec_deal_shuffle(p: list[str], shape: tuple[int, int, bool]) -> dict[str, Any]:
    players, n, face_up = shape
    hands = [sorted(p[s * n : s * n + n], key=RANK.__getitem__) for s in range(players)]
    rest = p[players * n :]
    start = rest.pop(0) if face_up else None
    return {"hands": hands, "start": start, "set_aside": rest}


def spec_deal(
    secret: str, shape: tuple[int, int, bool], shuffles: dict[int, list[str]] | None = None
) -> dict[str, Any]:
    """The deal of §3-§4; ``shuffles`` caches shuffle k of this secret across rule sets."""
    cache: dict[int, list[str]] = {} if shuffles is None else shuffles
    players, _, face_up = shape
    k = 0
    while True:
        if k not in cache:
            cache[k] = spec_shuffle(secret, k)
        dealt = spec_deal_shuffle(cache[k], shape)
        if all(spec_balak(h) < 5 for h in dealt["hands"]):
            break
        k += 1
    seat = spec_first8(f"{secret}:seat") % players if face_up else None
    return {"k": k, **dealt, "first_seat": seat}


def secret_of(n: int) -> str:
    return hashlib.sha256(f"fairness test {n}".encode()).hexdigest()


def engine_view(dealt: fairness.FairDeal) -> dict[str, Any]:
    d = dealt.to_dict()
    assert d.pop("shuffle") == fairness.SHUFFLE_VERSION
    return d


# -- the engine reproduces the independent implementation ------------------------------------
SWEEP = 10_000


def test_ten_thousand_secrets_deal_as_specified() -> None:
    redeals = dict.fromkeys(CASES, 0)
    for n in range(SWEEP):
        secret = secret_of(n)
        shuffles: dict[int, list[str]] = {}
        orders_checked: set[int] = set()
        for name, rules in RULES.items():
            want = spec_deal(secret, SHAPE_OF[name], shuffles)
            dealt = fairness.deal(secret, rules)
            assert engine_view(dealt) == want, (name, secret)
            if want["k"] not in orders_checked:  # the same shuffle whatever the game
                assert [str(t) for t in dealt.order] == shuffles[want["k"]], (name, secret)
                orders_checked.add(want["k"])
            redeals[name] += want["k"] > 0
    # The sweep crosses the redeal path in every game (about 1.5% of PORDI deals redeal).
    assert all(count > 0 for count in redeals.values()), redeals
    assert 60 < redeals["pordi"] < 300, redeals


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_tile_is_in_exactly_one_place(name: str) -> None:
    rules = RULES[name]
    for n in range(200):
        dealt = fairness.deal(secret_of(n), rules)
        start = 0 if dealt.start is None else 1 << dealt.start.index
        masks = [*dealt.hand_masks, dealt.set_aside_mask, start]
        assert sum(m.bit_count() for m in masks) == 28
        assert sum(masks) == (1 << 28) - 1  # disjoint masks that add up to the full set
        assert all(len(h) == rules.hand_size for h in dealt.hands)
        assert len(dealt.set_aside) == rules.set_aside_count
        if dealt.start is not None:
            assert dealt.start_drawn == (dealt.start.low, dealt.start.high)


# -- redeals -----------------------------------------------------------------------------------
def first_secret(predicate: Any, limit: int = 3000) -> str:
    for n in range(limit):
        secret = secret_of(n)
        if predicate(secret):
            return secret
    raise AssertionError(f"no secret among the first {limit} test secrets qualifies")


def test_a_pordi_redeal_deals_shuffle_one() -> None:
    shape = SHAPE_OF["pordi"]

    def five_balak(secret: str, k: int) -> bool:
        hands = spec_deal_shuffle(spec_shuffle(secret, k), shape)["hands"]
        return any(spec_balak(h) >= 5 for h in hands)

    secret = first_secret(lambda s: five_balak(s, 0) and not five_balak(s, 1))
    dealt = fairness.deal(secret, RULES["pordi"])
    assert dealt.k == 1
    assert engine_view(dealt)["hands"] == spec_deal_shuffle(spec_shuffle(secret, 1), shape)["hands"]
    assert [str(t) for t in dealt.order] == spec_shuffle(secret, 1)
    # Same secret, no threshold: shuffle 0 is played as dealt, five balak and all.
    never = fairness.deal(secret, with_options(RULES["pordi"], redeal_min_balak=0))
    assert never.k == 0
    assert engine_view(never)["hands"] == spec_deal_shuffle(spec_shuffle(secret, 0), shape)["hands"]


def test_two_redeals_deal_shuffle_two() -> None:
    shape = SHAPE_OF["pordi"]
    secret = first_secret(lambda s: spec_deal(s, shape)["k"] == 2, limit=10_000)
    dealt = fairness.deal(secret, RULES["pordi"])
    assert dealt.k == 2
    assert [str(t) for t in dealt.order] == spec_shuffle(secret, 2)


@pytest.mark.parametrize("name", ["klasik4", "klasik5"])
def test_klasik_redeals_on_hands_too(name: str) -> None:
    shape = SHAPE_OF[name]
    secret = first_secret(lambda s: spec_deal(s, shape)["k"] > 0, limit=6000)
    assert fairness.deal(secret, RULES[name]).k == spec_deal(secret, shape)["k"] > 0


def test_balak_outside_the_hands_never_redeal() -> None:
    shape = SHAPE_OF["klasik4"]

    def four_plus_start(secret: str) -> bool:
        dealt = spec_deal_shuffle(spec_shuffle(secret, 0), shape)
        outside = [dealt["start"], *dealt["set_aside"]]
        return max(spec_balak(h) for h in dealt["hands"]) == 4 and spec_balak(outside) >= 1

    secret = first_secret(four_plus_start)
    dealt = fairness.deal(secret, RULES["klasik4"])
    assert dealt.k == 0
    assert max(sum(t.is_balak for t in h) for h in dealt.hands) == 4


# -- the document's test vectors ---------------------------------------------------------------
def doc_vectors() -> list[dict[str, Any]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Test vectors", 1)[1]
    match = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert match is not None, "FAIRNESS.md has a json block under Test vectors"
    vectors: list[dict[str, Any]] = json.loads(match.group(1))
    return vectors


def test_the_documented_vectors_hold() -> None:
    vectors = doc_vectors()
    assert len(vectors) >= 3
    for v in vectors:
        secret = v["secret"]
        assert hashlib.sha256(secret.encode("ascii")).hexdigest() == v["commitment"]
        assert fairness.commitment(secret) == v["commitment"]
        assert fairness.verify(secret, v["commitment"])
        for deal in v["deals"]:
            rules = rules_from_settings(deal["rules"])
            shape = (rules.players, rules.hand_size, rules.face_up_start)
            want = {key: deal[key] for key in ("k", "hands", "start", "set_aside", "first_seat")}
            assert spec_deal(secret, shape) == want, deal["rules"]
            assert engine_view(fairness.deal(secret, rules)) == want, deal["rules"]
    first = vectors[0]
    s = first["secret"]
    assert first["hash_27"]["message"] == f"{s}:0:27"
    assert f"{spec_first8(f'{s}:0:27'):016x}" == first["hash_27"]["first_8_bytes"]
    assert spec_first8(f"{s}:0:27") % 28 == first["hash_27"]["j"]
    assert first["hash_seat"]["message"] == f"{s}:seat"
    assert f"{spec_first8(f'{s}:seat'):016x}" == first["hash_seat"]["first_8_bytes"]
    assert spec_shuffle(s, 0) == first["shuffle_0"]
    assert [str(t) for t in fairness.shuffle(s, 0)] == first["shuffle_0"]
    assert [d["k"] for v in vectors[1:] for d in v["deals"]] == [1, 2]


def test_the_redeal_vector_voids_a_five_balak_hand() -> None:
    secret = doc_vectors()[1]["secret"]
    voided = spec_deal_shuffle(spec_shuffle(secret, 0), SHAPE_OF["pordi"])["hands"]
    assert voided[1] == ["0-0", "0-6", "2-2", "2-4", "3-3", "5-5", "6-6"]  # five balak
    assert engine_view(fairness.deal(secret, RULES["pordi"]))["hands"] != voided


# -- who moves first ---------------------------------------------------------------------------
def test_first_movers() -> None:
    for n in range(50):
        secret = secret_of(n)
        spec4 = spec_deal(secret, SHAPE_OF["klasik4"])
        assert fairness.random_seat(secret, 4) == spec4["first_seat"]
        assert (
            fairness.random_seat(secret, 5) == spec_deal(secret, SHAPE_OF["klasik5"])["first_seat"]
        )
        seat, why = fairness.first_deal_opener(
            RULES["klasik4"], fairness.deal(secret, RULES["klasik4"])
        )
        assert (seat, why) == (spec4["first_seat"], "the random seat")
        for name, opening in (("pordi", "6-6"), ("klasik7", "0-0")):
            hands = spec_deal(secret, SHAPE_OF[name])["hands"]
            holder = next(s for s, h in enumerate(hands) if opening in h)
            dealt = fairness.deal(secret, RULES[name])
            assert dealt.first_seat is None
            assert fairness.first_deal_opener(RULES[name], dealt)[0] == holder


# -- secrets and commitments -------------------------------------------------------------------
def test_commitment_matches_and_mismatches() -> None:
    secret = secret_of(1)
    c = hashlib.sha256(secret.encode("ascii")).hexdigest()
    assert fairness.commitment(secret) == c
    assert fairness.verify(secret, c)
    assert not fairness.verify(secret_of(2), c)
    flipped = c[:-1] + ("0" if c[-1] != "0" else "1")
    assert not fairness.verify(secret, flipped)
    # The digest of the 32 bytes is not the commitment: the hex text is hashed.
    assert not fairness.verify(secret, hashlib.sha256(bytes.fromhex(secret)).hexdigest())


def test_new_secret_formats_the_injected_bytes() -> None:
    assert fairness.new_secret(lambda n: bytes(range(n))) == bytes(range(32)).hex()
    drawn = fairness.new_secret(random.Random(7).randbytes)
    assert fairness.check_hex(drawn) == drawn
    a, b = fairness.new_secret(secrets.token_bytes), fairness.new_secret(secrets.token_bytes)
    assert a != b and len(a) == len(b) == 64
    wrong: list[Callable[[int], Any]] = [lambda n: bytes(n - 1), lambda n: "00" * n]
    for randbytes in wrong:
        with pytest.raises(ValueError, match="32 bytes"):
            fairness.new_secret(randbytes)


BAD = {
    "empty": "",
    "short": "ab" * 31,
    "long": "ab" * 33,
    "uppercase": "AB" * 32,
    "prefix": "0x" + "ab" * 31,
    "space": "ab" * 31 + "a ",
    "newline": "ab" * 31 + "a\n",
    "non-ascii digit": "ab" * 31 + "a\u0663",
    "fullwidth letter": "ab" * 31 + "a\uff41",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_secrets_are_refused_clearly(name: str) -> None:
    bad = BAD[name]
    calls: list[Callable[[], object]] = [
        lambda: fairness.commitment(bad),
        lambda: fairness.shuffle(bad, 0),
        lambda: fairness.deal(bad, RULES["pordi"]),
        lambda: fairness.random_seat(bad, 4),
        lambda: fairness.verify(bad, secret_of(0)),
        lambda: fairness.verify(secret_of(0), bad),
    ]
    for call in calls:
        with pytest.raises(fairness.BadSecret) as info:
            call()
        err = info.value
        assert err.code == "bad_secret"
        assert "64" in err.message or "0-9, a-f" in err.message
        assert not bad or bad not in err.message  # a near-secret is never echoed
    if name == "uppercase":
        assert "lowercase" in err.message


@pytest.mark.parametrize("value", [None, b"ab" * 32, 12])
def test_non_string_secrets_are_refused(value: object) -> None:
    with pytest.raises(fairness.BadSecret, match="string"):
        fairness.commitment(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [-1, True, "0", 1.0])
def test_bad_shuffle_numbers(k: object) -> None:
    with pytest.raises(ValueError, match="shuffle number"):
        fairness.shuffle(secret_of(0), k)  # type: ignore[arg-type]


def test_the_engine_module_draws_no_randomness_itself() -> None:
    tree = ast.parse((ROOT / "engine" / "fairness.py").read_text(encoding="utf-8"))
    imported = {
        alias.name for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names
    }
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    allowed = {"argparse", "hashlib", "hmac", "collections.abc", "dataclasses", "typing"}
    assert {m for m in imported if not m.startswith("engine.")} - {"__future__"} <= allowed


# -- the command line --------------------------------------------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.fairness", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def printed(stdout: str) -> dict[str, str]:
    out = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


@pytest.mark.parametrize(
    ("name", "flags"),
    [
        ("pordi", ["--preset", "pordi"]),
        ("pordi", ["--preset", "pordi", "--mode", "ganda"]),
        ("klasik4", ["--preset", "klasik"]),
        ("klasik5", ["--preset", "klasik", "--players", "5"]),
        ("klasik7", ["--preset", "klasik", "--seven-tiles"]),
    ],
)
def test_cli_prints_the_deal_and_exits_zero_on_a_match(name: str, flags: list[str]) -> None:
    secret = first_secret(lambda s: spec_deal(s, SHAPE_OF["pordi"])["k"] > 0)
    c = hashlib.sha256(secret.encode()).hexdigest()
    result = cli("verify", "--secret", secret, "--commitment", c, *flags)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    want = spec_deal(secret, SHAPE_OF[name])
    lines = printed(result.stdout)
    assert lines["match"].startswith("yes")
    assert lines["SHA-256(S)"] == lines["commitment"] == c
    assert lines["shuffle"].startswith(f"sha256-v1, k = {want['k']} ")
    for seat, hand in enumerate(want["hands"]):
        assert lines[f"seat {seat}"] == " ".join(hand)
    assert f"seat {len(want['hands'])}" not in lines
    if want["start"] is None:
        assert "start tile" not in lines and "set aside" not in lines
    else:
        assert lines["start tile"] == want["start"]
        assert lines["set aside"] == " ".join(want["set_aside"])
        assert lines["first deal"].startswith(f"seat {want['first_seat']} moves first")


def test_cli_exits_one_on_a_mismatch() -> None:
    secret, other = secret_of(3), secret_of(4)
    result = cli("verify", "--secret", secret, "--commitment", other, "--preset", "pordi")
    assert result.returncode == 1
    lines = printed(result.stdout)
    assert lines["match"].startswith("NO")
    assert lines["commitment"] == other
    assert lines["SHA-256(S)"] == hashlib.sha256(secret.encode()).hexdigest()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--secret", "AB" * 32], "character 1 of the secret is not one of 0-9, a-f"),
        (["--secret", "ab" * 31], "the secret must be 64 lowercase hex characters, not 62"),
        (["--commitment", "xyz"], "the commitment must be 64 lowercase hex characters, not 3"),
        (["--players", "5"], "pordi is 4 players with 7 tiles"),
        (["--seven-tiles"], "--seven-tiles is a klasik option"),
        (["--preset", "klasik", "--mode", "ganda"], "klasik"),
        (["--preset", "kartu"], "invalid choice: 'kartu'"),
    ],
)
def test_cli_refuses_bad_input_with_status_two(args: list[str], message: str) -> None:
    given = {"--secret": secret_of(5), "--commitment": secret_of(6), "--preset": "pordi"}
    flags: list[str] = []
    for key, value in given.items():
        if key not in args:
            flags += [key, value]
    result = cli("verify", *flags, *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_cli_needs_the_commitment() -> None:
    result = cli("verify", "--secret", secret_of(5), "--preset", "pordi")
    assert result.returncode == 2
    assert "--commitment" in result.stderr


def test_main_writes_through_the_injected_writer() -> None:
    secret = secret_of(8)
    lines: list[str] = []
    argv = ["verify", "--secret", secret, "--commitment", fairness.commitment(secret)]
    assert fairness.main([*argv, "--preset", "klasik"], lines.append) == 0
    ok, report = fairness.report(secret, fairness.commitment(secret), RULES["klasik4"])
    assert ok and lines == report


def test_rules_objects_other_than_presets_deal_by_their_fields() -> None:
    rules: RuleSet = with_options(RULES["pordi"], redeal_min_balak=4)
    for n in range(300):
        secret = secret_of(n)
        dealt = fairness.deal(secret, rules)
        assert all(sum(t.is_balak for t in h) < 4 for h in dealt.hands)
        voided = [fairness.shuffle(secret, k) for k in range(dealt.k)]
        assert all(
            any(sum(t.is_balak for t in o[s * 7 : s * 7 + 7]) >= 4 for s in range(4))
            for o in voided
        )
