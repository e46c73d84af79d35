"""Apply the labelling guide's second-round relabellings to the rows its rules find (run once, 2026-11-28).

    python -m training.annotator.conform2 FILE ...   # rewrites the files in place, prints what changed

``request-after-failure`` / ``capability-offer``: the span becomes Suggestion. ``advice-asked``: every Suggestion
of the reply that is not an offer of the assistant's own action becomes Answer; ``info-command``: the flagged
Inform becomes Answer; in both the (first) new Answer is made the central act by swapping importances with the
current maximum. ``general-offer-chatter`` / ``echo-acknowledgement``: the span becomes chatter (an authored
segment with ``act`` null, or a dataset step removed) and the other importances are renormalised (two decimals,
sum 1, unique maximum). Adjacent authored segments left with the same act get ``split_ok`` (different content).
Rows and counts are listed in docs/datasets.md.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator import settled2
from training.annotator.conformance import check, reply_from_row

Item = dict[str, Any]


def renormalised(weights: Sequence[float]) -> list[float]:
    """Weights scaled to sum 1 at two decimals, the largest (first on ties) kept the unique maximum."""
    total = sum(weights)
    out = [round(w / total, 2) for w in weights]
    top = max(range(len(out)), key=lambda j: (out[j], -j))
    for j in range(len(out)):
        if j != top and out[j] >= out[top]:
            out[j] = round(out[top] - 0.01, 2)
    out[top] = round(out[top] + 1 - sum(out), 2)
    if abs(sum(out) - 1) > 1e-9 or out.count(max(out)) != 1 or min(out) <= 0:
        raise ValueError(f"cannot renormalise {list(weights)}")
    return out


def _items(row: dict[str, Any]) -> list[Item]:
    return row["segments"] if "segments" in row else row["output_dialogue_acts"]["steps"]


def _make_central(items: list[Item], k: int) -> None:
    acts = [j for j, s in enumerate(items) if s.get("act")]
    top = max(acts, key=lambda j: items[j]["importance"])
    items[k]["importance"], items[top]["importance"] = items[top]["importance"], items[k]["importance"]


def _to_chatter(row: dict[str, Any], k: int) -> None:
    items = _items(row)
    if "segments" in row:
        for key in ("importance", "split_ok"):
            items[k].pop(key, None)
        items[k]["act"] = None
    else:
        del items[k]
    acts = [s for s in items if s.get("act")]
    if not acts:  # chatter only (a small-talk reply): nothing to renormalise
        return
    for s, w in zip(acts, renormalised([s["importance"] for s in acts]), strict=True):
        s["importance"] = w


def _index(row: dict[str, Any], field: str) -> int:
    found = re.search(r"(?:segments|steps)\[(\d+)\]", field)
    if not found:
        raise ValueError(f"no segment or step in {field!r}")
    return int(found.group(1))


def fix(row: dict[str, Any]) -> list[str]:
    """Relabel one row in place; the rules applied."""
    items, applied, chatter = _items(row), [], []
    for finding in check(reply_from_row(Path("-"), 1, row)):
        k = _index(row, finding.field)
        if finding.rule == "advice-asked":
            turned = [
                j
                for j, s in enumerate(items)
                if s.get("act") == "Suggestion"
                and not settled2.OWN_OFFER.search(settled2.last_sentence(s.get("text") or s.get("span") or ""))
            ]
            for j in turned:
                items[j]["act"] = "Answer"
            _make_central(items, turned[0])
        elif finding.rule == "info-command":
            items[k]["act"] = "Answer"
            _make_central(items, k)
        elif finding.rule in ("request-after-failure", "capability-offer"):
            items[k]["act"] = "Suggestion"
        elif finding.rule in ("general-offer-chatter", "echo-acknowledgement"):
            chatter.append(k)
        else:
            continue
        applied.append(finding.rule)
    for k in sorted(chatter, reverse=True):
        _to_chatter(row, k)
    if "segments" in row:
        for i in range(1, len(items)):
            if items[i].get("act") and items[i]["act"] == items[i - 1].get("act"):
                items[i]["split_ok"] = True
    return applied


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite each file with its rows fixed; print each changed row and the counts per rule."""
    total: Counter[str] = Counter()
    for name in argv if argv is not None else sys.argv[1:]:
        path, lines, changed = Path(name), [], False
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            applied = fix(row)
            if applied:
                changed = True
                total.update(applied)
                print(path.name, row["id"], applied)
            lines.append(json.dumps(row, ensure_ascii=False))
        if changed:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(dict(total))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
