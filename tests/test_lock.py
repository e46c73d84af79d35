"""The lock (requirements/constraints.txt) covers pyproject.toml, and `make` installed from it."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_lock", ROOT / "tools" / "check_lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("check_lock", module)
    spec.loader.exec_module(module)
    return module


check_lock = _checker()

LOCK = """# header
numpy==2.4.6 ; python_full_version < '3.12'
numpy==2.5.5 ; python_full_version >= '3.12'
msgspec==0.19.0
    # via voxeval (pyproject.toml)
colorama==0.4.6 ; sys_platform == 'nonexistent-platform'
"""


def test_the_repository_lock_covers_pyproject_and_the_environment() -> None:
    """What `make test` checks on every run: nothing in pyproject.toml unlocked, nothing installed off the lock."""
    problems = check_lock.check(installed=True)
    assert problems == [], "\n".join(map(str, problems))


def test_markers_pick_the_line_for_this_interpreter() -> None:
    pins = check_lock.locked_pins(LOCK)
    expected = "2.4.6" if sys.version_info < (3, 12) else "2.5.5"
    assert pins["numpy"] == Version(expected)
    assert "colorama" not in pins


@pytest.mark.parametrize(
    ("requirement", "complaint"),
    [
        ("newpkg>=1", "newpkg is not in the lock"),  # a dependency added to pyproject.toml, no `make lock`
        ("numpy>=3", "excludes the locked numpy"),  # a bound raised past the lock
        ("msgspec==0.18.6", "excludes the locked msgspec"),
        ("NewPkg[extra]>=1 ; python_version >= '3'", "NewPkg is not in the lock"),
    ],
)
def test_a_requirement_the_lock_does_not_satisfy_is_named(requirement: str, complaint: str) -> None:
    pins = check_lock.locked_pins(LOCK)
    problems = check_lock.uncovered([("project.optional-dependencies.audio", requirement)], pins)
    assert len(problems) == 1 and complaint in str(problems[0])
    assert str(problems[0]).startswith("project.optional-dependencies.audio: ")


def test_a_dependency_added_to_the_real_pyproject_is_caught() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        pyproject = tomllib.load(f)
    pyproject["project"]["optional-dependencies"]["asr"].append("definitely-not-locked-package>=0.1")
    pins = check_lock.locked_pins((ROOT / "requirements" / "constraints.txt").read_text(encoding="utf-8"))
    problems = check_lock.uncovered(check_lock.project_requirements(pyproject), pins)
    assert [p.where for p in problems] == ["project.optional-dependencies.asr"]


@pytest.mark.parametrize(
    ("requirement", "kept"),
    [("numpy>=1.26", True), ("colorama ; sys_platform == 'nonexistent-platform'", False), ("voxeval[asr]", False)],
)
def test_requirements_that_do_not_apply_here_are_skipped(requirement: str, kept: bool) -> None:
    pins = check_lock.locked_pins("numpy==2.4.6\n")
    problems = check_lock.uncovered([("x", requirement)], {**pins, "numpy": Version("1.0")})
    assert bool(problems) is kept


def test_an_install_off_the_lock_is_named() -> None:
    pins = check_lock.locked_pins("numpy==2.4.6\nav==18.1.0\n")
    problems = check_lock.drifted({"numpy": "2.5.0", "av": "18.1.0", "unlocked": "1.0"}, pins)
    assert [str(p) for p in problems] == ["installed: numpy==2.5.0 but the lock pins 2.4.6: reinstall with `make test`"]


@pytest.mark.parametrize("line", ["numpy>=2", "numpy", "not a requirement ==="])
def test_a_lock_line_that_is_not_a_pin_is_refused_with_its_line(line: str) -> None:
    with pytest.raises(ValueError, match=r"constraints.txt:2: "):
        check_lock.locked_pins("# header\n" + line + "\n")
