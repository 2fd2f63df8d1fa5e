"""A non-editable install gets everything the top-level folders hold (the brief fixes them there)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True)
    (wheel,) = out.glob("dealer_assist-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.mark.parametrize("folder", ["templates", "card_models"])
def test_top_level_folders_ship_inside_the_package(wheel_names: set[str], folder: str) -> None:
    tracked = subprocess.run(["git", "ls-files", folder], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.fail(f"{folder}/ has no tracked files")
    for path in tracked:
        assert f"dealer_assist/{path}" in wheel_names, path


def test_migrations_static_and_console_script_ship(wheel_names: set[str]) -> None:
    assert any(n.startswith("dealer_assist/store/migrations/versions/0001") for n in wheel_names)
    assert any(n.startswith("dealer_assist/web/static/") for n in wheel_names)
    assert any(n.endswith(".dist-info/entry_points.txt") for n in wheel_names)
