"""The labelling app in a real browser (Debian's chromium via Selenium), keyboard only.

Five replies get dialogue acts and five get style ratings; the browser is closed mid-way and the URL reopened;
the saved files must equal what was typed, and a reply holding <script>/<img onerror> must show as text.
The test writes docs/label-da.png and docs/label-style.png.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from voxeval.label import Study, active_rows, load_file_items
from voxeval.label._server import LabelServer

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
DOCS = Path(__file__).resolve().parents[2] / "docs"
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--window-size=1280,860",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()) or shutil.which("chromedriver") is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)

S, ARROW, ENTER, TAB, ESC = "shift", "arrow", "\ue007", "\ue004", "\ue00c"
# reply text → (keys, expected current judgement); ("shift", "arrow") extends the span to the next clause end.
DA_PLAN: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "はい、承知しました。": ([(S, ARROW), "7", ENTER], {"status": "labelled", "steps": [("Commissive", 1.0, 0, 10)]}),
    "明日は晴れです。傘は要りません。": (
        ["3", "4", "i", "0.6", TAB, "0.4", ENTER],
        {"status": "labelled", "steps": [("Answer", 0.6, 0, 8), ("Inform", 0.4, 8, 16)]},
    ),
    XSS: ([(S, ARROW)] * 4 + ["4", ENTER], {"status": "labelled", "steps": [("Inform", 1.0, 0, len(XSS))]}),
    "タイマーを3分にセットしました。": (["7", ENTER], {"status": "labelled", "steps": [("Commissive", 1.0, 0, 16)]}),
    "すみません、聞き取れませんでした。": (["f"], {"status": "flagged"}),
}
STYLE_PLAN: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "Say it slowly.": (["4", ENTER], {"status": "labelled", "score": 4, "note": ""}),
    "Say it loudly.": (["n", "too flat", ESC, "3", ENTER], {"status": "labelled", "score": 3, "note": "too flat"}),
    XSS: (["2", ENTER, "u", "5", ENTER], {"status": "labelled", "score": 5, "note": ""}),
    "Whisper it.": (["1", ENTER], {"status": "labelled", "score": 1, "note": ""}),
    "Sound happy.": (["f"], {"status": "flagged"}),
}


@pytest.fixture()
def browser() -> Iterator[tuple[Callable[[str], Any], Callable[[Any], None]]]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opened: list[Any] = []

    def open_url(url: str) -> Any:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in [*FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='voxeval-chromium-')}"]:
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
        opened.append(driver)
        driver.get(url)
        return driver

    def close(driver: Any) -> None:
        opened.remove(driver)
        driver.quit()

    yield open_url, close
    for driver in opened:
        driver.quit()


def _press(driver: Any, keys: list[Any]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for key in keys:
        chain = ActionChains(driver)
        if key == (S, ARROW):
            chain.key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
        else:
            chain.send_keys(key).perform()
        if key in (ENTER, "u", "f"):  # the page saves: wait for the server's answer
            _wait(driver, lambda d: d.find_element("id", "status").text.startswith(("saved", "undone")))
            driver.execute_script("document.getElementById('status').textContent = ''")


def _wait(driver: Any, until: Callable[[Any], Any]) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20, poll_frequency=0.05).until(until)


def _shown(driver: Any, task: str) -> str:
    _wait(driver, lambda d: d.find_element("id", "progress").text.startswith(("Item", "All")))
    return str(driver.find_element("id", "reply" if task == "da" else "instruction").text)


def _judge(driver: Any, task: str, plan: dict[str, Any], count: int, shot: Path | None) -> None:
    for _ in range(count):
        text = _shown(driver, task)
        assert text in plan, text
        if text == XSS:  # rendered as text: no element made from it, no script run
            field = "reply" if task == "da" else "instruction"
            assert not driver.find_elements("css selector", f"#{field} script, #{field} img")
            assert driver.execute_script("return window.__xss") is None
        keys = plan[text][0]
        if shot is not None:  # a picture of the page with the item all but saved
            _press(driver, keys[:-1])
            driver.save_screenshot(str(shot))
            shot, keys = None, keys[-1:]
        _press(driver, keys)


def _study(tmp_path: Path, task: str, plan: dict[str, Any]) -> tuple[Study, LabelServer]:
    field = "text" if task == "da" else "instruction"
    rows = [{"id": f"{task}{i}", field: t, "attributes": {"speed": "slow"}} for i, t in enumerate(plan)]
    (tmp_path / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    study = Study(tmp_path, load_file_items(tmp_path / f"{task}.jsonl"), task, "tester")  # type: ignore[arg-type]
    server = LabelServer(("127.0.0.1", 0), study)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    return study, server


def _expected(study: Study, plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for item in study.items:
        want = {"note": "", **plan[item.instruction or item.text][1]}
        if "steps" in want:
            want["steps"] = [
                {"act": a, "importance": w, "span": item.text[s:e], "start": s, "end": e}
                for a, w, s, e in want["steps"]
            ]
        out[item.key] = want
    return out


@pytest.mark.parametrize(("task", "plan"), [("da", DA_PLAN), ("style", STYLE_PLAN)])
def test_keyboard_only_labelling_survives_a_closed_browser(
    tmp_path: Path, browser: tuple[Callable[[str], Any], Callable[[Any], None]], task: str, plan: dict[str, Any]
) -> None:
    open_url, close = browser
    study, server = _study(tmp_path, task, plan)
    try:
        first = open_url(server.url)
        _judge(first, task, plan, 3, DOCS / f"label-{task}.png")
        close(first)  # the browser closed mid-way; a new one on the same URL resumes
        driver = open_url(server.url)
        _judge(driver, task, plan, 2, None)
        assert _shown(driver, task) == "" and "All 5 items judged" in driver.find_element("id", "progress").text
    finally:
        server.shutdown()
        server.server_close()
    rows = [json.loads(line) for line in study.path.read_text(encoding="utf-8").splitlines()]
    keep = ("status", "steps", "score", "note")
    current = {k: {f: r[f] for f in keep if f in r} for k, r in active_rows(rows).items()}
    assert current == _expected(study, plan)
    assert [r["n"] for r in rows] == list(range(1, len(rows) + 1))  # append-only, nothing rewritten
