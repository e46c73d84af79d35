"""The docs/scale.md recipe on a real two-node cluster: ``ray get-auth-token --generate``, ``ray start --head --block``
(token authentication on, as Ray 2.60 turns it on when a token exists) and a second node on the same machine, each
with its own ports and temp dir; the ``voxeval run --executor ray --ray-address`` CLI as a user runs it, compared
with the local executor; the second node's raylet killed mid-stage; no token in any file the run writes; and
without an address a private Ray whatever the machine's ``ray_current_cluster`` names.

One cluster for the module (each start-up costs seconds of both cores); every process a node started is stopped by
its id at the end, also when a test fails, and the module fails if one is left."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.run.doubles import slow_dataset
from tests.run.ray_nodes import RAY, Node, alive, free_ports, start_node

pytest.importorskip("ray", reason="needs voxeval[distributed] (in the test extra)")
pytest.importorskip("grpc", reason="needs voxeval[distributed] (grpcio, in the test extra)")
ROOT = Path(__file__).resolve().parents[2]
ITEMS = 6
"""Samples in the run: enough that the second node is killed with work left (it dies after 2 are written), few
enough to stay lean."""


@dataclass
class Cluster:
    """The module's cluster and what a driver on this machine needs to reach it."""

    address: str
    """``127.0.0.1:PORT`` of the head's GCS."""
    token: str
    """The cluster's token (only to scan files for it)."""
    env: dict[str, str]
    """The environment of a user on this machine: ``HOME`` holds ``~/.ray/auth_token``; no ``RAY_AUTH_MODE``."""
    root: Path
    """Short temp folder of the nodes (Unix socket paths must stay under 108 bytes)."""
    head: Node
    """The head (1 CPU)."""
    worker: Node
    """The second node (1 CPU)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    root = Path(tempfile.mkdtemp(prefix="vxray", dir="/tmp"))
    home = root / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]),  # as an installed voxeval on every node
        VOXEVAL_CACHE=str(root / "cache"),
        RAY_agent_register_timeout_ms="120000",  # a loaded two-core machine starts Ray's agents slowly
    )
    nodes: list[Node] = []
    try:
        generated = subprocess.run([RAY, "get-auth-token", "--generate"], env=env, capture_output=True, text=True)
        assert generated.returncode == 0, generated.stderr
        token = (home / ".ray" / "auth_token").read_text().strip()
        nodes.append(start_node(root, "head", env))
        address = f"127.0.0.1:{nodes[0].port}"
        # A node joining a token cluster must be told so (only a head turns token mode on by itself).
        nodes.append(start_node(root, "node2", {**env, "RAY_AUTH_MODE": "token"}, head=address))
        yield Cluster(address, token, env, root, nodes[0], nodes[1])
    finally:
        pids = [pid for node in nodes for pid in node.pids()]
        for node in reversed(nodes):
            node.stop()
        left = [pid for pid in pids if alive(pid)]
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"Ray processes left running: {left}"


def run_args(out: Path, dataset: Path, executor: str, *extra: str) -> list[str]:
    return [
        "run", "--dataset", str(dataset), "--system", "python:tests.run.doubles:echo_gold", "--annotator", "gold",
        "--out", str(out), "--executor", executor, *extra,
    ]  # fmt: skip


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def actor_on(node: Node) -> bool:
    """A stage actor runs on ``node``."""
    for pid in node.pids():
        try:
            if b"StageActor" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_the_recipe_runs_end_to_end_and_a_lost_node_loses_and_duplicates_nothing(cluster, tmp_path) -> None:
    from voxeval.cli import main

    dataset = slow_dataset(tmp_path / "slow.jsonl", ITEMS)
    out = tmp_path / "cluster"
    command = [sys.executable, "-m", "voxeval", *run_args(out, dataset, "ray", "--ray-address", cluster.address)]
    stderr = tmp_path / "driver.err"
    with stderr.open("wb") as err:
        driver = subprocess.Popen(command, cwd=ROOT, env=cluster.env, stdout=subprocess.DEVNULL, stderr=err)
    log, done, raylet = out / "inputs.jsonl", 0, None
    try:
        deadline = time.monotonic() + 240
        while driver.poll() is None and time.monotonic() < deadline:
            done = len(log.read_text("utf-8").splitlines()) if log.exists() else 0
            if done >= 2 and actor_on(cluster.worker):
                raylet = cluster.worker.pid_of("raylet")
                os.kill(raylet, 9)  # the node is lost mid-stage, as a crashed machine would be
                break
            time.sleep(0.05)
        assert raylet is not None and done < ITEMS, f"{done}/{ITEMS} inputs when the node was to be killed"
        assert driver.wait(timeout=240) == 0, stderr.read_text(errors="replace")[-3000:]
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    keys = [r["key"] for r in lines(log)]
    assert len(keys) == len(set(keys)) == ITEMS  # every input once: none lost, none written twice
    summary_line = next(x for x in stderr.read_text().splitlines() if x.startswith("inputs"))
    assert "up to 2/2 workers busy" in summary_line, summary_line  # both nodes had an actor

    assert main(run_args(tmp_path / "local", dataset, "async", "--quiet")) == 0
    scores = [{r["id"]: r for r in lines(d / "scores.jsonl")} for d in (out, tmp_path / "local")]
    assert scores[0] == scores[1] and len(scores[0]) == ITEMS
    audio = [{r["key"]: r["audio"] for r in lines(d / "inputs.jsonl")} for d in (out, tmp_path / "local")]
    assert audio[0] == audio[1]

    # The token was read by Ray from ~/.ray/auth_token: no file the run wrote holds it, nor the driver's output.
    written = [p for d in (out, Path(cluster.env["VOXEVAL_CACHE"])) if d.exists() for p in d.rglob("*") if p.is_file()]
    assert len(written) > ITEMS
    assert [p for p in [*written, stderr] if cluster.token.encode() in p.read_bytes()] == []


@pytest.mark.parametrize("case", ["wrong", "none"])
def test_a_wrong_or_missing_token_is_one_line_naming_the_fix(cluster, tmp_path, monkeypatch, capsys, case) -> None:
    from voxeval.cli import main

    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ray/auth_token
    if case == "wrong":
        monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 32)
    dataset = slow_dataset(tmp_path / "d.jsonl", 1)
    assert main(run_args(tmp_path / "run", dataset, "ray", "--quiet", "--ray-address", cluster.address)) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    head = f"voxeval: error: the Ray cluster at {cluster.address}"
    expected = "rejected the authentication token from $RAY_AUTH_TOKEN" if case == "wrong" else "none was found"
    assert err.startswith(head) and expected in err and "ray get-auth-token" in err, err


PRIVATE = """
import json, os, sys
from pathlib import Path
import ray
from voxeval.run._ray import RayExecutor
seen = []
for planted in sys.argv[1:]:
    record = Path(os.environ["RAY_TMPDIR"]) / "ray" / "ray_current_cluster"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(planted)
    RayExecutor().connect()
    seen.append([planted, ray.get_runtime_context().gcs_address, ray.cluster_resources().get("CPU")])
    ray.shutdown()
print(json.dumps(seen))
"""


def test_without_an_address_a_private_ray_starts_whatever_cluster_the_machine_records(cluster) -> None:
    """Ray's ``ray_current_cluster`` names a cluster that is gone, then the live head of someone else: neither is
    joined (before, the first failed with "num_cpus … must not be provided" and the second was joined)."""
    live = (cluster.head.temp_dir / "ray_current_cluster").read_text().strip()
    stale = f"127.0.0.1:{free_ports(1)[0]}"
    env = {**cluster.env, "RAY_TMPDIR": str(cluster.root / "machine")}  # where Ray looks for ray_current_cluster
    done = subprocess.run([sys.executable, "-c", PRIVATE, stale, live], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    ports = {stale.rpartition(":")[2], live.rpartition(":")[2]}
    assert [p for p, _, _ in seen] == [stale, live]
    assert all(gcs.rpartition(":")[2] not in ports for _, gcs, _ in seen), seen
    assert all(cpus == float(os.cpu_count() or 1) for _, _, cpus in seen), seen  # this machine's CPUs, not the head's
    assert Counter(gcs for _, gcs, _ in seen).most_common(1)[0][1] == 1  # a fresh Ray each time
