"""Check that requirements/constraints.txt (the lock) covers pyproject.toml and matches what is installed.

``python tools/check_lock.py`` exits 1 with one line per problem:

- a requirement of pyproject.toml (``dependencies``, every extra, ``build-system.requires``) or of
  requirements/tools.in that the lock does not pin, or pins at a version outside the requirement's specifier
  (a dependency added or changed in pyproject.toml without ``make lock``);
- a package installed in the running interpreter at another version than the lock's (an install that did not go
  through the lock, or a lock changed since the last install).

Only lock lines whose environment marker holds for the running interpreter count (the lock is universal).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "constraints.txt"
TOOLS_IN = ROOT / "requirements" / "tools.in"
PROJECT = "voxeval"


@dataclass(frozen=True)
class Problem:
    """One disagreement, with where it comes from."""

    where: str
    """File and field (or line) the problem is about."""
    message: str
    """What is wrong and what to run."""

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def locked_pins(text: str, source: str = "requirements/constraints.txt") -> dict[str, Version]:
    """``name → version`` of the lock's ``name==version`` lines whose marker holds here (comments skipped)."""
    pins: dict[str, Version] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement as exc:
            raise ValueError(f"{source}:{number}: not a requirement line: {exc}") from None
        pinned = [s for s in requirement.specifier if s.operator == "=="]
        if len(pinned) != 1:
            raise ValueError(f"{source}:{number}: {requirement.name}: not pinned with == (got {requirement.specifier})")
        if requirement.marker is None or requirement.marker.evaluate():
            pins[canonicalize_name(requirement.name)] = Version(pinned[0].version)
    return pins


def project_requirements(pyproject: Mapping[str, object]) -> list[tuple[str, str]]:
    """``(field, requirement)`` for every requirement pyproject.toml declares, extras and build system included."""
    out: list[tuple[str, str]] = []
    project = pyproject.get("project", {})
    assert isinstance(project, dict)
    out += [("project.dependencies", r) for r in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        out += [(f"project.optional-dependencies.{extra}", r) for r in reqs]
    build = pyproject.get("build-system", {})
    assert isinstance(build, dict)
    out += [("build-system.requires", r) for r in build.get("requires", [])]
    return out


def uncovered(requirements: Iterable[tuple[str, str]], pins: Mapping[str, Version]) -> list[Problem]:
    """Requirements the lock does not pin, or pins outside their specifier (markers that do not hold are skipped)."""
    problems: list[Problem] = []
    for where, text in requirements:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name == PROJECT:
            continue
        if name not in pins:
            problems.append(Problem(where, f"{requirement.name} is not in the lock: run `make lock`"))
        elif not requirement.specifier.contains(pins[name], prereleases=True):
            problems.append(
                Problem(where, f"{text!r} excludes the locked {requirement.name}=={pins[name]}: run `make lock`")
            )
    return problems


def drifted(installed: Mapping[str, str], pins: Mapping[str, Version]) -> list[Problem]:
    """Installed packages whose version is not the locked one."""
    return [
        Problem("installed", f"{name}=={version} but the lock pins {pins[name]}: reinstall with `make test`")
        for name, version in sorted(installed.items())
        if name in pins and Version(version) != pins[name]
    ]


def installed_versions() -> dict[str, str]:
    """``name → version`` of every distribution importable by the running interpreter."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist.version)
    return found


def tool_requirements(text: str) -> list[tuple[str, str]]:
    """``(requirements/tools.in:LINE, requirement)`` for the tools file's requirement lines."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((f"requirements/tools.in:{number}", line))
    return out


def check(*, installed: bool = True) -> list[Problem]:
    """Every problem of the repository's lock (and of the running environment when ``installed``)."""
    pins = locked_pins(LOCK.read_text(encoding="utf-8"))
    with (ROOT / "pyproject.toml").open("rb") as f:
        pyproject = tomllib.load(f)
    wanted = project_requirements(pyproject) + tool_requirements(TOOLS_IN.read_text(encoding="utf-8"))
    problems = uncovered(wanted, pins)
    if installed:
        problems += drifted(installed_versions(), pins)
    return problems


def main() -> int:
    problems = check(installed="--lock-only" not in sys.argv[1:])
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
