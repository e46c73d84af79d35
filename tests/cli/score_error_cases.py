"""Broken inputs for ``voxeval score`` whose exact error messages were captured before the streaming rewrite.

``python -m tests.cli.score_error_cases`` rewrites ``data/score_identity/errors.json`` with the current code's
messages; ``test_score_identity.py`` checks that today's code still gives the same exit code and message.
"""

from __future__ import annotations

import copy
import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "data" / "score_identity"

GOLD: dict[str, Any] = {
    "id": "a",
    "scenario_context": {"background": "テスト"},
    "input": {"role": "USER", "text": "入力", "locale": "ja-JP", "audio": "a.wav"},
    "output": {"role": "ASSISTANT", "text": "出力"},
    "output_dialogue_acts": {"steps": [{"act": "Answer", "importance": 0.6}, {"act": "Inform", "importance": 0.4}]},
    "domain": "timer",
    "split": "test",
}
PRED: dict[str, Any] = {"id": "a", "steps": [{"act": "Answer", "importance": 1}], "text": "はい"}


def _set(row: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(row)
    *parents, last = path.split(".")
    node: Any = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is _DELETE:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


_DELETE = object()

GOLD_MUTATIONS: list[tuple[str, Any]] = [
    ("id", _DELETE), ("id", ""), ("id", True), ("id", 1.5), ("id", None), ("id", [1]),
    ("scenario_context", _DELETE), ("scenario_context", None), ("scenario_context", "x"), ("scenario_context", []),
    ("scenario_context.background", 3), ("scenario_context.background", ""), ("scenario_context.background", None),
    ("input", _DELETE), ("input", "x"), ("input.text", _DELETE), ("input.text", ""), ("input.text", "  "),
    ("input.text", 5), ("input.audio", 5), ("input.audio", None), ("input.locale", None), ("input.locale", 5),
    ("output", _DELETE), ("output", 7), ("output.text", _DELETE), ("output.text", None), ("output.text", []),
    ("output_dialogue_acts", _DELETE), ("output_dialogue_acts", []), ("output_dialogue_acts.steps", _DELETE),
    ("output_dialogue_acts.steps", {}), ("output_dialogue_acts.steps", []), ("output_dialogue_acts.steps", None),
    ("output_dialogue_acts.steps.0", "Answer"), ("output_dialogue_acts.steps.1", None),
    ("output_dialogue_acts.steps.1.act", _DELETE), ("output_dialogue_acts.steps.1.act", "Greeting"),
    ("output_dialogue_acts.steps.1.act", 3), ("output_dialogue_acts.steps.1.act", None),
    ("output_dialogue_acts.steps.0.importance", _DELETE), ("output_dialogue_acts.steps.0.importance", "0.5"),
    ("output_dialogue_acts.steps.0.importance", True), ("output_dialogue_acts.steps.0.importance", -1),
    ("output_dialogue_acts.steps.0.importance", None), ("output_dialogue_acts.steps.0.importance", 1e400),
    ("output_dialogue_acts.steps.1.rationale", 5), ("output_dialogue_acts.steps.1.span", ["x"]),
    ("output_dialogue_acts.steps.1.rationale", "why"), ("output_dialogue_acts.steps.1.span", "出力"),
    ("domain", 5), ("split", ["test"]), ("domain", None), ("split", "dev"),
]  # fmt: skip

PRED_MUTATIONS: list[tuple[str, Any]] = [
    ("id", _DELETE), ("id", ""), ("id", False), ("id", {"a": 1}), ("text", 5), ("text", None),
    ("steps", _DELETE), ("steps", None), ("steps", "Answer"), ("steps", []), ("steps.0", 1),
    ("steps.0.act", _DELETE), ("steps.0.act", "answer please"), ("steps.0.act", "check_question"),
    ("steps.0.importance", _DELETE), ("steps.0.importance", "1"), ("steps.0.importance", False),
    ("steps.0.importance", -0.0), ("steps.0.importance", -2), ("steps.0.importance", 1e400),
    ("steps.0.rationale", 1), ("steps.0.span", 2), ("status", "failed"), ("status", "ok"), ("error", "x"),
]  # fmt: skip


def _line(row: Any) -> bytes:
    # 1e400 is written as a literal so that the reader sees a JSON number too large for a float.
    return json.dumps(row, ensure_ascii=False).replace("Infinity", "1e400").encode() + b"\n"


def cases() -> list[tuple[str, bytes, bytes, list[str]]]:
    """(case id, gold bytes, pred bytes, extra CLI args)."""
    ok_gold, ok_pred = _line(GOLD), _line(PRED)
    second_gold = _line({**GOLD, "id": "b"})
    out: list[tuple[str, bytes, bytes, list[str]]] = []
    for field, value in GOLD_MUTATIONS:
        label = "del" if value is _DELETE else repr(value)
        out.append((f"gold {field}={label}", second_gold + _line(_set(GOLD, field, value)), ok_pred, []))
    for field, value in PRED_MUTATIONS:
        label = "del" if value is _DELETE else repr(value)
        mutated = _line(_set({**PRED, "id": "b"}, field, value))
        out.append((f"pred {field}={label}", second_gold + ok_gold, ok_pred + mutated, []))
    extra = _line({**PRED, "id": "zz"})
    raw: list[tuple[str, bytes, bytes, list[str]]] = [
        ("duplicate gold", ok_gold + ok_gold, ok_pred, []),
        ("duplicate pred", ok_gold, ok_pred + b"\n" + ok_pred, []),
        ("duplicate extra pred", ok_gold, extra + extra, ["--ignore-extra"]),
        ("extra pred", ok_gold, ok_pred + extra + _line({**PRED, "id": 7}), []),
        ("extra pred ignored", ok_gold, ok_pred + extra, ["--ignore-extra"]),
        ("extra then bad row", ok_gold, extra + b"{bad\n", []),
        ("bad json gold", ok_gold + b'{"id": "b",\n', ok_pred, []),
        ("nan pred", ok_gold, b'{"id": "a", "steps": [{"act": "Answer", "importance": NaN}]}\n', []),
        ("infinity gold", ok_gold.replace(b"0.6", b"Infinity"), ok_pred, []),
        ("array line", ok_gold, b"[1]\n", []),
        ("string line", b'"x"\n', ok_pred, []),
        ("non utf8 pred", ok_gold, ok_pred[:-3] + b"\xfe}\n", []),
        ("empty gold", b"", ok_pred, []),
        ("blank gold", b"\n\n", ok_pred, []),
        ("empty pred", ok_gold, b"", []),
        ("bom both", b"\xef\xbb\xbf" + ok_gold, b"\xef\xbb\xbf" + ok_pred, []),
        ("big int id", ok_gold.replace(b'"a"', b"123456789012345678901234567890"),
         ok_pred.replace(b'"a"', b'"123456789012345678901234567890"'), []),
        ("int and str id", ok_gold.replace(b'"a"', b"5"), ok_pred.replace(b'"a"', b'"5"'), []),
        ("dup key", ok_gold, b'{"id": "a", "steps": [], "steps": [{"act": "Answer", "importance": 1}]}\n', []),
        ("escaped id", ok_gold.replace(b'"a"', b'"\\u3042\\n"'), ok_pred.replace(b'"a"', b'"\\u3042\\n"'), []),
    ]  # fmt: skip
    return out + raw


def run_case(tmp: Path, gold: bytes, pred: bytes, extra: list[str]) -> tuple[int, str, dict[str, str]]:
    """Exit code, stderr and the output files of one case, paths made relative to ``tmp``."""
    from voxeval.cli import main

    (tmp / "gold.jsonl").write_bytes(gold)
    (tmp / "pred.jsonl").write_bytes(pred)
    out = tmp / "out"
    err, std = io.StringIO(), io.StringIO()
    args = ["score", "--gold", str(tmp / "gold.jsonl"), "--pred", str(tmp / "pred.jsonl"), "--out", str(out)]
    with redirect_stderr(err), redirect_stdout(std):
        code = main(args + extra)
    # config.json (the inputs, for ``voxeval report``) postdates the captured fixtures and is checked elsewhere.
    found = sorted(p for p in out.glob("*") if p.name != "config.json") if out.exists() else []
    files = {p.name: p.read_text(encoding="utf-8") for p in found}
    return code, err.getvalue().replace(str(tmp), "TMP"), files


def capture() -> None:
    """Write the current messages to ``errors.json``."""
    import tempfile

    results = {}
    for name, gold, pred, extra in cases():
        with tempfile.TemporaryDirectory() as tmp:
            code, err, files = run_case(Path(tmp), gold, pred, extra)
        results[name] = {"code": code, "stderr": err, "files": files}
    (HERE / "errors.json").write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(results)} cases", file=sys.stderr)


if __name__ == "__main__":
    capture()
