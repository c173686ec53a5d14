"""The repository stands alone: a copy of its files, with no rule book's folder beside it,
passes its own scenario tests (the conformance cases are the project's own test data)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_a_copy_without_anything_beside_it_runs_the_scenario_tests(tmp_path: Path) -> None:
    copy = tmp_path / "gaple"
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO_ROOT / name
        if source.is_file():  # a file deleted in the work tree is still listed
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    assert not (tmp_path / "shared").exists()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-x",
            "tests/engine/test_scenarios.py",
        ],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "passed" in run.stdout and "skipped" not in run.stdout


def test_the_docs_send_readers_to_the_rules_in_the_tree() -> None:
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    outside = [page.name for page in pages if "../shared" in page.read_text(encoding="utf-8")]
    assert outside == []
    rules = (REPO_ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    for section in ("## 1. PORDI 2025", "## 2. Klasik", "## 3. Scenario files"):
        assert section in rules  # the code cites "RULES.md §1.3" and the like
    assert "docs/RULES.md" in (REPO_ROOT / "README.md").read_text(encoding="utf-8")
