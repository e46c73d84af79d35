"""A third benchmark is added by registering it: the command line and the runner stay as they are."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.benchmark import benchmarks
from voxeval.cli import main
from voxeval.io import atomic_write_json, atomic_write_text, read_log
from voxeval.run import Plan, RunRequest, RunSettings, Stage, StageRun, Task, run_stage
from voxeval.run._inputs import InputItem
from voxeval.run._replies import ReplyItem, reply_key


@dataclass
class LengthWorker:
    """Scores a reply by its length in characters."""

    cpu_bound: bool = False

    def setup(self) -> None:
        pass

    async def __call__(self, payload: tuple[str, str]) -> list[dict[str, Any]]:
        key, text = payload
        return [{"key": key, "status": "ok", "chars": len(text)}]


class LengthStage:
    role = "scorer"

    def describe(self) -> dict[str, Any]:
        return {"scorer": "length"}

    async def stage(self, run_dir: Path, plan: Plan, systems: list[str], replies: dict, how: StageRun) -> dict:
        tasks = [Task((k,), (k, r.get("text", ""))) for k, r in replies.items() if r["status"] != "failed"]
        return await run_stage(Stage("lengths", run_dir / "lengths.jsonl"), tasks, LengthWorker(), limit=4, how=how)


class Brevity:
    """Shorter replies are better: a toy benchmark."""

    name = "brevity"

    def settings(self, request: RunRequest) -> RunSettings:
        return RunSettings(self.name, request.datasets or ("ja-assistant",), request.systems, "length", "pyopenjtalk")

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        from voxeval.data import resolve_dataset

        samples = resolve_dataset(settings.datasets[0]).samples[:limit]
        return Plan(
            inputs=[InputItem("ja", s.id, s.input_text) for s in samples],
            replies=[ReplyItem("ja", s.id, s.input_text) for s in samples],
            dataset_files={"ja": resolve_dataset(settings.datasets[0]).path},
            items=samples,
        )

    def scorer(self, settings: RunSettings) -> LengthStage:
        return LengthStage()

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> dict[str, Any]:
        rows = read_log(run_dir / "lengths.jsonl", "key")
        means = {s: sum(rows[reply_key("ja", s, i.id)]["chars"] for i in plan.items) / len(plan.items) for s in systems}
        atomic_write_json(run_dir / "summary.json", {"benchmark": self.name, "systems": means})
        return means

    def table(self, summary: dict[str, Any], run_dir: Path) -> str:
        return "\n".join(f"| {s} | {m:.1f} |" for s, m in summary.items())

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        return {"items": len(plan.items)}

    def report(self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None) -> dict[str, Path]:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        atomic_write_text(run_dir / "report.md", f"# brevity\n\n{summary['systems']}\n")
        atomic_write_text(run_dir / "report.html", "<h1>brevity</h1>")
        return {"md": run_dir / "report.md", "html": run_dir / "report.html"}


if "brevity" not in benchmarks.names():
    benchmarks.register("brevity")(Brevity)


def test_a_registered_benchmark_runs_resumes_and_reports(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    args = ["run", "--benchmark", "brevity", "--limit", "2", "--system", "python:tests.run.doubles:echo_gold"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    assert "| python:tests.run.doubles:echo_gold |" in capsys.readouterr().out
    assert len(read_log(out / "lengths.jsonl", "key")) == 2
    before = (out / "lengths.jsonl").read_bytes()
    assert main([*args, "--out", str(out), "--quiet"]) == 0  # resumed: nothing new to do
    assert (out / "lengths.jsonl").read_bytes() == before
    assert json.loads((out / "config.json").read_text())["components"]["scorer"] == {"scorer": "length"}
    assert main(["report", str(out)]) == 0 and (out / "report.md").read_text().startswith("# brevity")


SRC = Path(__file__).resolve().parents[2] / "src" / "voxeval"


def imported(package: str) -> set[str]:
    """Every voxeval module a package imports (at any depth of its code, lazy imports included)."""
    names = set()
    for path in (SRC / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("voxeval."):
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names if a.name.startswith("voxeval.")}
    return names


def test_layers_do_not_import_upwards() -> None:
    assert not {m for m in imported("report") if m.startswith(("voxeval.run", "voxeval.benchmark"))}
    assert not {m for m in imported("llm") if m.startswith("voxeval.data")}
    assert not {m for m in imported("run") if m.startswith(("voxeval.benchmark", "voxeval.cli"))}
    assert not {m for m in imported("io") if m not in ("voxeval.errors",) and not m.startswith("voxeval.io")}
