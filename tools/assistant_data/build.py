"""Build ``en-assistant`` / ``zh-assistant`` (src/voxeval/data/builtin) from their authored sources.

The sources (``tools/assistant_data/{en,zh}/*.txt``) hold one sample per block, written by hand to
docs/labelling-guide-{en,zh}.md::

    @timer                      the domain of the blocks that follow
    B: background               scenario_context.background
    U: user input               input.text
    C .25: Sure.                a step: act code, importance (omitted for a single step), exact span text
    X: Great question!          text outside every span (chatter)

Act codes: A Answer, I Inform, Q Question, CQ Check-Question, R Request, S Suggestion, C Commissive. The reply is
the pieces in order, joined by a space (en) or nothing (zh). Ids are ``DOMAIN-NNN`` in file order; a third of each
domain (by the sha256 of the id) is the test split. The build refuses importances that do not sum to 1, a shared
maximum, duplicate inputs in a domain, or an unknown code, naming the file and line.

    python tools/assistant_data/build.py en zh
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
OUT = ROOT.parents[1] / "src" / "voxeval" / "data" / "builtin"
ACTS = {
    "A": "Answer",
    "I": "Inform",
    "Q": "Question",
    "CQ": "Check-Question",
    "R": "Request",
    "S": "Suggestion",
    "C": "Commissive",
}
LOCALE = {"en": "en-US", "zh": "zh-CN"}
JOIN = {"en": " ", "zh": ""}


class SourceError(Exception):
    """A problem in an authored source, with its file and line."""


def _step(code_weight: str, text: str, where: str) -> dict[str, object]:
    code, _, weight = code_weight.strip().partition(" ")
    if code not in ACTS:
        raise SourceError(f"{where}: unknown act code {code!r}")
    step: dict[str, object] = {"act": ACTS[code], "span": text.strip()}
    if weight.strip():
        step["importance"] = float(weight)
    return step


def _finish(sample: dict, language: str, where: str) -> dict:
    pieces = sample.pop("pieces")
    steps = [p for p in pieces if isinstance(p, dict)]
    if not sample.get("U") or not sample.get("B") or not steps:
        raise SourceError(f"{where}: a sample needs B:, U: and at least one step")
    if len(steps) == 1:
        steps[0].setdefault("importance", 1.0)
    weights = [float(s.get("importance", -1)) for s in steps]
    if min(weights) <= 0 or abs(sum(weights) - 1.0) > 1e-9:
        raise SourceError(f"{where}: importances {weights} must be positive and sum to 1")
    if weights.count(max(weights)) > 1:
        raise SourceError(f"{where}: importances {weights} share their maximum")
    text = JOIN[language].join(p["span"] if isinstance(p, dict) else p for p in pieces)
    return {
        "domain": sample["domain"],
        "scenario_context": {"background": sample["B"]},
        "input": {"role": "USER", "text": sample["U"], "locale": LOCALE[language]},
        "output": {"role": "ASSISTANT", "text": text},
        "output_dialogue_acts": {"steps": [{"act": s["act"], "importance": s["importance"], "span": s["span"]}
                                           for s in steps]},
    }  # fmt: skip


def parse_source(path: Path, language: str) -> list[dict]:
    """The samples of one source file, in order."""
    samples: list[dict] = []
    domain, current, start = None, None, 0
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate([*lines, ""], start=1):
        where = f"{path}:{start or number}"
        if not line.strip() or line.startswith("@"):
            if current is not None:
                samples.append(_finish(current, language, where))
                current = None
            if line.startswith("@"):
                domain = line[1:].strip()
            continue
        if line.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        if not sep:
            raise SourceError(f"{path}:{number}: expected 'CODE: text'")
        if current is None:
            if domain is None:
                raise SourceError(f"{path}:{number}: no @domain before the first sample")
            current, start = {"domain": domain, "pieces": []}, number
        head = head.strip()
        if head in ("B", "U"):
            current[head] = rest.strip()
        elif head == "X":
            current["pieces"].append(rest.strip())
        else:
            current["pieces"].append(_step(head, rest, f"{path}:{number}"))
    return samples


def build(language: str, out_dir: Path = OUT) -> Path:
    """Write ``{language}-assistant.jsonl`` from the sources into ``out_dir``; returns its path."""
    by_domain: dict[str, list[dict]] = {}
    for path in sorted((ROOT / language).glob("*.txt")):
        for sample in parse_source(path, language):
            by_domain.setdefault(sample["domain"], []).append(sample)
    rows = []
    for domain, samples in by_domain.items():
        inputs = [s["input"]["text"] for s in samples]
        repeated = {t for t in inputs if inputs.count(t) > 1}
        if repeated:
            raise SourceError(f"{language}/{domain}: repeated inputs {sorted(repeated)}")
        ids = [f"{domain}-{k:03d}" for k in range(1, len(samples) + 1)]
        ranked = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        test = set(ranked[: round(len(ids) / 3)])
        for sample_id, sample in zip(ids, samples, strict=True):
            split = "test" if sample_id in test else "dev"
            rows.append({"id": sample_id, "domain": domain, "split": split, **{k: v for k, v in sample.items()
                                                                                 if k != "domain"}})  # fmt: skip
    out = out_dir / f"{language}-assistant.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return out


if __name__ == "__main__":
    for lang in sys.argv[1:] or ["en", "zh"]:
        try:
            print(build(lang))
        except SourceError as exc:
            sys.exit(f"error: {exc}")
