"""Packaging hook: the browser client in static/ ships inside the wheel as app/static.

static/ stays at the top of the checkout (the client is edited and served from there); setuptools
reads everything else from pyproject.toml. A checkout finds the client at ./static and an
installed wheel at app/static (app/main.py looks in that order: installed first).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
CLIENT = ROOT / "static"
# The client's own unit tests and tooling are not part of what a server serves.
LEFT_OUT = ("tests", "node_modules", "package.json", "package-lock.json", "*.test.js")


class BuildWithClient(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install serves ./static from the checkout
            return
        target = Path(self.build_lib) / "app" / "static"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(CLIENT, target, ignore=shutil.ignore_patterns(*LEFT_OUT))


setup(cmdclass={"build_py": BuildWithClient})
