"""The labelling app in a real browser (Debian's chromium via Selenium), keyboard only, in one session.

Dialogue acts: the scenario and the reply's channel (speech transcript, the model's differing text beside it) are
shown; the default span runs past 、; adjacent saved spans keep their boundary and act label; the importance box
refuses letters; a note typed on the page goes into the note (its S, F, U never skip, flag or undo) and Enter in it
is a new line; undo puts the judgement back in the form; a chatter reply is saved as "no act"; a warning goes once
the form is fixed; P then R plays one recording at a time; a reply holding <script> shows as text. Style: a typed
note and a score. A page with the wrong token says so (never "undefined"). The saved files must equal what was
typed. The test writes docs/label-da.png and docs/label-style.png.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from voxeval.label import Study, active_rows, load_file_items
from voxeval.label._server import LabelServer

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
DOCS = Path(__file__).resolve().parents[2] / "docs"
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--window-size=1280,900",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--autoplay-policy=no-user-gesture-required"]  # fmt: skip
ENTER, TAB, ESC = "\ue007", "\ue004", "\ue00c"
TIMER = "はい、承知しました。タイマーを3分にセットしました。"
MODEL_TEXT = "はい、承知しました。タイマーを三分にセットしました。"
CHATTER = "えーと、あのー、うーん。"
RAIN = "明日は晴れです。傘は要りません。"
NOTE = "Sounds off, flat and unclear"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()) or shutil.which("chromedriver") is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)


@pytest.fixture()
def driver() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='voxeval-chromium-')}"]:
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    yield browser
    browser.quit()


def _silence(path: Path) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * 8000 * 2)


def _serve(root: Path, task: str, rows: list[dict[str, Any]]) -> tuple[Study, LabelServer]:
    (root / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    study = Study(root, load_file_items(root / f"{task}.jsonl"), task, "tester")  # type: ignore[arg-type]
    server = LabelServer(("127.0.0.1", 0), study)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    return study, server


def _keys(driver: Any, *keys: str, saves: str | None = None) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()
    if saves is not None:  # the page saves: wait for the server's answer
        _wait(driver, lambda d: _text(d, "status").startswith(saves))


def _wait(driver: Any, until: Callable[[Any], Any]) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20, poll_frequency=0.05).until(until)


def _text(driver: Any, element: str) -> str:
    return str(driver.find_element("id", element).text)


def _js(driver: Any, script: str) -> Any:
    return driver.execute_script("return " + script)


def _value(driver: Any, element: str) -> str:
    return str(_js(driver, f"document.getElementById('{element}').value"))


def _shown(driver: Any) -> str:
    _wait(driver, lambda d: _text(d, "progress").startswith(("Item", "All")))
    return _text(driver, "reply")


def _timer(driver: Any) -> None:
    """Two adjacent spans, a refused letter, a note typed on the page, undo, save again."""
    assert _text(driver, "background") == "キッチンで料理中"
    assert "speech transcript" in _text(driver, "channel")
    assert _text(driver, "model-text") == MODEL_TEXT
    assert _js(driver, "document.getElementById('reply').lang") == "ja"
    assert _js(driver, "document.querySelector('.pending').textContent") == "はい、承知しました。"  # past the 、
    _keys(driver, "p", "r")  # one recording at a time
    assert [_js(driver, f"document.getElementById('{a}-audio').paused") for a in ("input", "reply")] == [True, False]
    _keys(driver, "7", "4", "i", "0.7x", TAB, "0.3", ESC)
    assert _value(driver, "imp0") == "0.7"
    _keys(driver, *NOTE, ENTER, "ok", ESC)  # typed on the page: its s, f, u stay text; Enter is a new line
    assert _value(driver, "note") == NOTE + "\nok"
    assert _text(driver, "reply") == TIMER  # still the same item: nothing skipped or flagged
    spans = _js(driver, "[...document.querySelectorAll('#reply .done')].map(s => [s.textContent, s.dataset.act])")
    assert spans == [["はい、承知しました。", "1 Commissive"], ["タイマーを3分にセットしました。", "2 Inform"]]
    assert len(set(_js(driver, "[...document.querySelectorAll('#reply .done')].map(s => s.className)"))) == 2
    driver.save_screenshot(str(DOCS / "label-da.png"))
    _keys(driver, ENTER, saves="saved")
    _keys(driver, "u", "u", saves="undone")
    assert _text(driver, "reply").startswith("はい") and _value(driver, "note") == NOTE + "\nok"
    assert [_value(driver, "imp0"), _value(driver, "imp1")] == ["0.7", "0.3"]
    _keys(driver, ENTER, saves="saved")


def _rain(driver: Any) -> None:
    """A warning goes once the importances are fixed."""
    _keys(driver, "3", "4", ENTER)
    assert "importance" in _text(driver, "status")
    _keys(driver, "i", "0.6", TAB, "0.4", ESC)
    assert _text(driver, "status") == ""
    _keys(driver, ENTER, saves="saved")


PLAN: dict[str, Callable[[Any], None]] = {
    TIMER: _timer,
    CHATTER: lambda d: _keys(d, "0", ENTER, saves="saved (no act)"),
    RAIN: _rain,
    XSS: lambda d: _keys(d, "4", ENTER, saves="saved"),
}


def test_keyboard_only_labelling(tmp_path: Path, driver: Any) -> None:
    _silence(tmp_path / "in.wav")
    _silence(tmp_path / "out.wav")
    rows = [
        {"id": "t", "text": TIMER, "text_source": "speech", "model_text": MODEL_TEXT,
         "background": "キッチンで料理中", "input_text": "タイマーを3分にセットして", "locale": "ja-JP",
         "audio": "out.wav", "input_audio": "in.wav"},
        {"id": "c", "text": CHATTER, "locale": "ja-JP"},
        {"id": "r", "text": RAIN},
        {"id": "x", "text": XSS},
    ]  # fmt: skip
    study, server = _serve(tmp_path, "da", rows)
    try:
        driver.get(server.url)
        for _ in rows:
            text = _shown(driver)
            PLAN[text](driver)
        assert "All 4 items judged" in _text(driver, "progress")
        assert not driver.find_elements("css selector", "#reply script, #reply img")
        assert _js(driver, "window.__xss") is None
    finally:
        server.shutdown()
        server.server_close()
    other = LabelServer(server.server_address[:2], study, token="another-token-than-the-open-tab-has")
    threading.Thread(target=other.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    try:  # a tab open across a restart with another token: the reason, never "undefined"
        _keys(driver, "u", "u", saves="not saved")
        assert "token" in _text(driver, "status") and "undefined" not in _text(driver, "status")
    finally:
        other.shutdown()
        other.server_close()
    current = active_rows([json.loads(line) for line in study.path.read_text(encoding="utf-8").splitlines()])
    steps = lambda r: [(s["act"], s["importance"], s["start"], s["end"]) for s in r["steps"]]  # noqa: E731
    got = {k: (steps(r), r["note"]) for k, r in current.items()}
    assert got == {
        "t": ([("Commissive", 0.7, 0, 10), ("Inform", 0.3, 10, 26)], NOTE + "\nok"),
        "c": ([], ""),
        "r": ([("Answer", 0.6, 0, 8), ("Inform", 0.4, 8, 16)], ""),
        "x": ([("Inform", 1.0, 0, len(XSS))], ""),
    }
    assert current["c"]["no_act"] is True and current["t"]["text_source"] == "speech"

    (tmp_path / "style").mkdir()
    item = {
        "id": "s",
        "instruction": "Say it slowly.",
        "text": "Sure, I will say it slowly.",
        "attributes": {"speed": "slow"},
    }
    study, server = _serve(tmp_path / "style", "style", [item])
    try:
        driver.get(server.url)
        _shown(driver)
        _keys(driver, "4", *"too fast", ESC)
        driver.save_screenshot(str(DOCS / "label-style.png"))
        _keys(driver, ENTER, saves="saved")
    finally:
        server.shutdown()
        server.server_close()
    (row,) = active_rows([json.loads(line) for line in study.path.read_text(encoding="utf-8").splitlines()]).values()
    assert (row["score"], row["note"]) == (4, "too fast")
