"""Record an annotator's system-level validity for run reports: ``src/voxeval/report/measured/system-level.json``.

Run: ``voxeval annotator-check --annotator offline --dataset training/data/da-replies-validation.jsonl --no-garbage
--out check.json`` then ``python benchmarks/record_system_level.py check.json``. The record is keyed by the
annotator's name and artefact sha256 (from the check's ``annotator`` description): a run report shows the figures
only for that exact build, so a retrained annotator shows none until it is measured and recorded again.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

RECORD = Path(__file__).resolve().parents[1] / "src/voxeval/report/measured/system-level.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("check", type=Path, help="the JSON written by voxeval annotator-check --out")
    args = parser.parse_args()
    check = json.loads(args.check.read_text(encoding="utf-8"))
    described = check["annotator"]
    entry = {
        "annotator": described["annotator"],
        "sha256": described.get("sha256"),
        "version": described.get("version"),
        "dataset": check["dataset"],
        "samples": check["samples"],
        "failed": check["failed"],
        "measured": datetime.date.today().isoformat(),
        "how": "voxeval annotator-check --out, recorded by benchmarks/record_system_level.py (docs/annotators.md)",
        "system_level": check["system_level"],
    }
    records = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else []
    records = [r for r in records if (r["annotator"], r["sha256"]) != (entry["annotator"], entry["sha256"])]
    RECORD.write_text(json.dumps([*records, entry], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"recorded {entry['annotator']} {entry['version']} ({entry['sha256']}) in {RECORD}")


if __name__ == "__main__":
    main()
