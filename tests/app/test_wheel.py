"""The wheel an operator installs: built from this checkout, installed into a fresh virtual
environment outside it, then ``gaple migrate`` (SQLite and PostgreSQL) and ``gaple serve`` serving
the real browser client and ``/api/health``.

The fresh environment gets the project from the wheel alone; its dependencies are the ones this
test environment already has (a ``.pth`` line), so nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.server import ServerProcess
from tests.wheel import build_wheel

ROOT = Path(__file__).resolve().parents[2]
PIP = (sys.executable, "-m", "pip", "-q", "--disable-pip-version-check")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ directory of a fresh venv that has the wheel installed."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    # The dependencies, from this environment; the project itself only from the wheel.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "gaple-test-deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        cwd=env_dir,
    )
    return env_dir / "bin"


def _clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAPLE_", "PYTHON"))}
    return env | {"GAPLE_DATA_DIR": str(tmp / "data")} | extra


def test_the_wheel_carries_migrations_and_the_client(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "app/migrations/env.py" in names
    assert any(n.startswith("app/migrations/versions/") and n.endswith(".py") for n in names)
    assert "app/static/index.html" in names and "app/static/js/main.js" in names
    assert not any(n.startswith("app/static/tests/") for n in names)
    # Built without GAPLE_COMPILE=1: pure Python, for any platform.
    assert not any(n.endswith((".so", ".pyd")) for n in names)
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name


def test_installed_wheel_migrates_and_serves(
    installed: Path, empty_database_url: str, tmp_path: Path
) -> None:
    # Production settings, as an operator runs a release: migrate needs no secret key.
    env = _clean_env(tmp_path, GAPLE_PRODUCTION="true", GAPLE_DATABASE_URL=empty_database_url)
    migrated = subprocess.run(
        [str(installed / "gaple"), "migrate"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert "latest migration" in migrated.stdout

    server = ServerProcess(
        empty_database_url,
        tmp_path / "data",
        command=[str(installed / "gaple"), "serve"],
        cwd=tmp_path,
        base_env=env,
        GAPLE_SECRET_KEY="wheel-test-secret-of-32-bytes-or-more",
        GAPLE_MIGRATE_ON_START="false",
    )
    server.start()
    try:
        page = httpx.get(f"{server.base_url}/")
        assert page.status_code == 200
        assert page.text == (ROOT / "static" / "index.html").read_text()
        script = httpx.get(f"{server.base_url}/static/js/main.js")
        assert script.status_code == 200
        assert script.text == (ROOT / "static" / "js" / "main.js").read_text()
        health = httpx.get(f"{server.base_url}/api/health")
        assert health.status_code == 200 and health.json()["database"] == "ok"
        # The process runs the installed copy, not this checkout.
        where = subprocess.check_output(
            [str(installed / "python"), "-c", "import app; print(app.__file__)"],
            cwd=tmp_path,
            env=env,
            text=True,
        )
        assert not where.startswith(str(ROOT)), where
    finally:
        server.stop()


def test_the_documented_wheel_commands_build_only_the_project() -> None:
    # `pip wheel .` without --no-deps writes a wheel of every dependency beside the project's.
    pages = [ROOT / "README.md", ROOT / "Dockerfile", *sorted((ROOT / "docs").glob("*.md"))]
    commands = [
        line
        for page in pages
        for line in page.read_text(encoding="utf-8").splitlines()
        if re.search(r"pip wheel\b.*\s\.(\s|`|$)", line)
    ]
    assert len(commands) >= 3  # README, docs/DEPLOY.md, the Dockerfile
    assert [line for line in commands if "--no-deps" not in line] == []
