"""One labeller's study: the ordered items, the append-only judgement file, progress and resume."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

from voxeval.data import AppendLog
from voxeval.errors import InputError, Location
from voxeval.label._items import LABELLER, LabelItem, Task, order_seed, ordered
from voxeval.label._rows import human_row_check
from voxeval.label._submit import Submission

STATUS = {"label": "labelled", "skip": "skipped", "flag": "flagged"}
"""Row status written for each action; ``undo`` writes ``undone`` naming the row it retracts."""


def active_rows(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Item key → its current judgement: the latest row for the key, unless an ``undone`` row retracted it."""
    current: dict[str, dict[str, Any]] = {}
    by_n = {r["n"]: r for r in rows}
    for row in sorted(rows, key=lambda r: r["n"]):
        if row["status"] == "undone":
            retracted = by_n.get(row.get("retracts"))
            if retracted is not None and current.get(retracted["key"]) is retracted:
                del current[retracted["key"]]
        else:
            current[row["key"]] = row
    return current


def resume_seed(path: Path, rows: list[dict[str, Any]], asked: int | None, derived: int) -> int:
    """The order seed of a labeller's study: the one their file records when they resume (a different ``asked``
    seed is refused, so one file never mixes two orders), else ``asked``, else ``derived`` from name and task."""
    if asked is not None and (isinstance(asked, bool) or not 0 <= asked < 2**32):
        raise InputError(Location("--seed"), f"must be an integer in [0, 2**32), got {asked!r}")
    recorded: set[Any] = {r.get("seed") for r in rows}
    if not recorded:
        return derived if asked is None else asked
    if len(recorded) > 1 or not all(isinstance(x, int) and not isinstance(x, bool) for x in recorded):
        found = ", ".join(sorted(map(repr, recorded)))
        raise InputError(Location(str(path), None, "seed"), f"rows record more than one or a malformed seed: {found}")
    (seed,) = recorded
    if asked is not None and asked != seed:
        raise InputError(
            Location(str(path), None, "seed"),
            f"this file's judgements were made in the order of seed {seed}; resume with --seed {seed} "
            f"(or leave --seed out), or label under another --labeller to use seed {asked}",
        )
    return int(seed)


class Study:
    """Items of one task in one labeller's order, and their judgements in ``human/<task>/<labeller>.jsonl``."""

    def __init__(
        self,
        root: Path,
        items: list[LabelItem],
        task: Task,
        labeller: str,
        *,
        seed: int | None = None,
        first: frozenset[str] = frozenset(),
    ):
        self.root, self.task, self.labeller = root, task, labeller
        self.path = root / "human" / task / f"{labeller}.jsonl"
        for name in labeller_files(self.path.parent):
            if name != labeller and name.casefold() == labeller.casefold():
                raise InputError(
                    Location("--labeller"), f"{labeller!r}: {name!r} already labels here (names differ only in case)"
                )
        self.log = AppendLog(self.path, key="n", check=human_row_check(task, labeller), root=root)
        self.seed = resume_seed(self.path, self._rows(), seed, order_seed(labeller, task))
        self.items = ordered(items, self.seed, first)  # a drawn sample's items (``first``) are served first
        self.by_key = {i.key: i for i in self.items}
        self._lock = threading.Lock()  # two tabs of one labeller: one append at a time

    def _rows(self) -> list[dict[str, Any]]:
        return list(self.log.rows.values())

    def state(self, *, show_system: bool = False) -> dict[str, Any]:
        """Progress and the item to show next: the first without a judgement, then the skipped ones."""
        current = active_rows(self._rows())
        pending = [i for i in self.items if i.key not in current]
        skipped = [i for i in self.items if current.get(i.key, {}).get("status") == "skipped"]
        nxt = pending[0] if pending else skipped[0] if skipped else None
        done = sum(1 for r in current.values() if r["status"] != "skipped")
        times = [r["seconds"] for r in current.values() if r["status"] == "labelled"]
        return {
            "task": self.task,
            "labeller": self.labeller,
            "seed": self.seed,
            "total": len(self.items),
            "done": done,
            "skipped": len(skipped),
            "mean_seconds": sum(times) / len(times) if times else None,
            "item": nxt.public(show_system=show_system) if nxt else None,
            "can_undo": bool(current),
        }

    def submit(self, sub: Submission) -> dict[str, Any]:
        """Append the submission's row at once (one write); ``undo`` retracts the latest active judgement and
        returns it as ``restored`` (status, steps, no_act, score, note)."""
        with self._lock:
            rows = self._rows()
            base = {"n": len(rows) + 1, "labeller": self.labeller, "task": self.task, "seed": self.seed}
            base["at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            if sub.action == "undo":
                current = active_rows(rows)
                if not current:
                    return {"undone": None}
                last = max(current.values(), key=lambda r: r["n"])
                self.log.append({**base, "key": last["key"], "status": "undone", "retracts": last["n"]})
                # the page puts the retracted judgement back in the form, to be corrected rather than redone
                kept = ("status", "steps", "no_act", "score", "note")
                return {
                    "undone": last["key"],
                    "restored": {"key": last["key"], **{f: last[f] for f in kept if f in last}},
                }
            item = self.by_key[sub.key]
            row = {**base, "key": item.key, "id": item.id, "dataset": item.dataset, "system": item.system}
            if self.task == "da":  # the text the spans index, so an exported gold row stands on its own
                row.update(text=item.text, input_text=item.input_text, background=item.background)
                row.update({"locale": item.locale} if item.locale else {})
                row.update({"text_source": item.text_source} if item.text_source else {})
            self.log.append({**row, "status": STATUS[sub.action], **sub.body})
            return {"saved": item.key}


def labeller_files(folder: Path) -> dict[str, Path]:
    """The labellers' files of one task folder (``human/<task>/``) by labeller name.

    Each file's name must be a labeller name (:data:`~voxeval.label._items.LABELLER`), and two names may not differ
    only in case: ``aiko`` and ``Aiko`` are one person on a case-insensitive disk, and two perfectly agreeing
    raters in every figure otherwise. Both are refused with the file named.
    """
    files: dict[str, Path] = {}
    folded: dict[str, str] = {}
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        if not LABELLER.fullmatch(path.stem):
            raise InputError(Location(str(path)), "not a labeller's file (its name is not a labeller name); move it")
        other = folded.setdefault(path.stem.casefold(), path.stem)
        if other != path.stem:
            raise InputError(
                Location(str(path)),
                f"{path.stem!r} and {other!r} differ only in case: one labeller under two names? merge or rename one",
            )
        files[path.stem] = path
    return files


def read_judgements(root: Path, task: Task) -> dict[str, dict[str, dict[str, Any]]]:
    """Every labeller's current judgements of ``task`` in ``root/human/``: labeller → item key → row.

    Every row is checked (:func:`~voxeval.label._rows.check_human_row`): a malformed one raises
    :class:`InputError` naming file, line and field.
    """
    from voxeval.data import read_log

    out = {}
    for name, path in labeller_files(root / "human" / task).items():
        out[name] = active_rows(list(read_log(path, "n", check=human_row_check(task, name)).values()))
    return out
