"""Packaging hooks: the browser client in static/ ships inside the wheel as app/static, and a
``GAPLE_COMPILE=1`` build compiles the engine's hot modules with mypyc.

static/ stays at the top of the checkout (the client is edited and served from there); setuptools
reads everything else from pyproject.toml. A checkout finds the client at ./static and an
installed wheel at app/static (app/main.py looks in that order: installed first).

Compiled engine (docs/ENGINE.md): the modules listed in pyproject.toml's ``[tool.gaple]
compiled`` become C extensions built by mypyc from the same source, which stays in the wheel
beside them; a build without ``GAPLE_COMPILE=1`` (the default) is pure Python. Compiling needs
mypy and a C compiler in the build environment (``pip wheel --no-build-isolation``).
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

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


def compiled_engine() -> dict[str, Any]:
    """setup() arguments for the compiled engine: none unless GAPLE_COMPILE=1."""
    if os.environ.get("GAPLE_COMPILE") != "1":
        return {}
    from mypyc.build import mypycify  # mypy's compiler: only this build needs it

    modules = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["gaple"]["compiled"]
    return {"ext_modules": mypycify(modules, opt_level="3")}


setup(cmdclass={"build_py": BuildWithClient}, **compiled_engine())
