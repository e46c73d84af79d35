"""Every model named in the README, docs and ``--help`` is one the installed SDKs list, is not shut down, and has a
profile; a retired or deprecated name may appear only on a line that says so (the paper's models stay accepted)."""

from __future__ import annotations

import datetime
import importlib.util
import re
import typing
from pathlib import Path

import pytest

from voxeval.llm import lookup_profile

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "src" / "voxeval" / "cli").glob("*.py")),
    ROOT / "src" / "voxeval" / "annotate" / "_llm.py",
    ROOT / "src" / "voxeval" / "llm" / "_spec.py",
]
NAME = re.compile(r"(?<![\w.-])(gpt-[0-9a-z][0-9a-z.-]*|o[1-9](?:-mini|-pro)?|gemini-[0-9][0-9a-z.-]*)(?![\w(])")
MARKED = re.compile(r"paper|retired|deprecated|shut ?down", re.IGNORECASE)
RETIRED_GEMINI = re.compile(r"gemini-(1\.\d|2\.0|2\.5)(-.*)?")
"""Gemini 1.x, 2.0 and 2.5 models: deprecated or shut down (issue 14); google-genai still names them in examples."""


def _needs(module: str) -> None:
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


def mentions() -> list[tuple[str, int, str, str]]:
    """``(file, line number, line, model name)`` for every model named outside the parameter table's regex rows."""
    found = []
    for path in SCANNED:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith(("| openai ", "| gemini ", "| openai-compat ")):  # docs/systems.md regex rows
                continue
            for match in NAME.finditer(line):
                found.append((str(path.relative_to(ROOT)), number, line, match.group(1).rstrip(".-")))
    return found


def openai_models() -> tuple[set[str], dict[str, datetime.date]]:
    """Chat model names in the installed ``openai`` SDK, and the announced shutdown date of each deprecated one."""
    _needs("openai")
    import openai
    from openai.types.shared import chat_model

    names = set(typing.get_args(chat_model.ChatModel))
    source = Path(chat_model.__file__).read_text(encoding="utf-8")
    shutdown: dict[str, datetime.date] = {}
    for block in source.split("\n- ")[1:]:
        date = re.search(r"shutdown\s+date:\s+(\d{4}-\d{2}-\d{2})", block.replace("\n", " "))
        if date:
            for name in re.findall(r'"([^"]+)"', block.split(":")[0]):
                shutdown[name] = datetime.date.fromisoformat(date.group(1))
    audio = {
        m
        for p in Path(openai.__file__).parent.rglob("*.py")
        for m in re.findall(r'"(gpt-audio[\w.-]*)"', p.read_text())
    }
    return names | audio, shutdown


def realtime_models() -> tuple[set[str], dict[str, datetime.date]]:
    """Session models of the installed ``openai`` Realtime API (``realtime:openai:``), with announced shutdowns."""
    _needs("openai")
    from openai.types.realtime import realtime_session_create_request_param as param

    source = Path(param.__file__).read_text(encoding="utf-8")
    block = source.split("model: Union[", 1)[1].split("]\n", 2)[1]
    names = set(re.findall(r'"(gpt-[^"]+)"', source.split("model: Union[", 1)[1].split("]\n    ]", 1)[0]))
    shutdown: dict[str, datetime.date] = {}
    deprecated = re.search(r"Deprecated values:(.*?)Announced shutdown date:\s+(\d{4}-\d{2}-\d{2})", block, re.S)
    if deprecated:
        for name in re.findall(r'"([^"]+)"', deprecated.group(1)):
            shutdown[name] = datetime.date.fromisoformat(deprecated.group(2))
    return names, shutdown


def gemini_models() -> set[str]:
    """Gemini model names the installed ``google-genai`` mentions."""
    _needs("google.genai")
    from google import genai

    text = "".join(p.read_text(encoding="utf-8") for p in Path(genai.__file__).parent.glob("*.py"))
    return set(re.findall(r"gemini-[0-9][0-9a-z.-]*[0-9a-z]", text))


def test_named_models_are_current_or_marked() -> None:
    names, shutdown = openai_models()
    realtime, realtime_shutdown = realtime_models()
    names, shutdown = names | realtime, {**shutdown, **realtime_shutdown}
    gemini = gemini_models()
    today = datetime.date.today()
    problems = []
    for where, number, line, name in mentions():
        marked = bool(MARKED.search(line))
        if name.startswith("gemini"):
            known, retired = name in gemini, bool(RETIRED_GEMINI.fullmatch(name))
        else:
            known = name in names
            retired = name in shutdown and shutdown[name] <= today + datetime.timedelta(days=60)
        if not known and not marked:
            problems.append(f"{where}:{number}: {name} is not in the installed SDK's model list")
        elif retired and not marked:
            problems.append(f"{where}:{number}: {name} is retired or about to be; say so on that line")
    assert problems == []


def test_named_models_have_a_profile() -> None:
    sessions = realtime_models()[0]  # Realtime session models take no chat parameters: no profile needed
    unknown = sorted(
        {
            f"{name} ({where}:{number})"
            for where, number, _, name in mentions()
            if name not in sessions
            and not lookup_profile("gemini" if name.startswith("gemini") else "openai", name).known
        }
    )
    assert unknown == []


def test_the_scan_finds_the_documented_examples() -> None:
    names = {name for *_, name in mentions()}
    assert {"gpt-audio-mini", "gemini-3.8-flash", "gpt-5.4-mini", "gpt-4o-audio-preview", "gpt-5-nano"} <= names
