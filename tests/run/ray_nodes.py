"""Ray nodes started with ``ray start --block`` as the docs/scale.md recipe does, for the cluster tests: each node on
127.0.0.1 with its own ports and temp dir; every process is stopped by its id."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
STARTUP_SECONDS = 180.0
"""How long a node may take to start on a loaded two-core machine before the test fails with its log."""
STARTS = 3
"""Start-ups tried per node when Ray's own start-up timeout runs out (see :func:`start_node`)."""


def free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 right now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (read from /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@dataclass
class Node:
    """One ``ray start --block`` process and what it started."""

    process: subprocess.Popen[bytes]
    """The blocking ``ray start``."""
    log: Path
    """Its output."""
    temp_dir: Path
    """The node's Ray temp dir."""
    port: int
    """The GCS port (the head's ``--port``; unused on other nodes)."""
    seen: set[int] = field(default_factory=set)
    """Every pid ever seen below it (stopped at the end even if reparented)."""

    def pids(self) -> list[int]:
        self.seen.update(descendants(self.process.pid))
        return [p for p in self.seen if alive(p)]

    def pid_of(self, name: str) -> int:
        """The pid of the node's process whose command line contains ``name``."""
        for pid in self.pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if name in cmd.split(" ", 1)[0].rpartition("/")[2]:
                return pid
        raise LookupError(f"no {name} under ray start {self.process.pid}")

    def stop(self) -> None:
        """SIGTERM the node (``ray start --block`` stops its processes), then SIGKILL whatever of it is left."""
        pids = self.pids()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in [*pids, *self.pids()]:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):  # it ended between the check and the kill
                    os.kill(pid, signal.SIGKILL)


def start_node(root: Path, name: str, env: dict[str, str], head: str | None = None, cpus: int = 1) -> Node:
    """``ray start --block`` a node named ``name`` (the head if ``head`` is None, else joining it) and wait until
    it says it started; its ports are free ones, its temp dir ``root/name``.

    Ray gives a raylet a fixed 30 s to register, its agents' start included; on a two-core machine loaded by other
    work that can run out ("The current node timed out during startup"): then the node is stopped and started
    again, up to ``STARTS`` times in all; any other failure fails at once with the node's log."""
    for attempt in range(1, STARTS + 1):
        try:
            return _start_node(root, f"{name}-{attempt}" if attempt > 1 else name, env, head, cpus)
        except TimeoutError:
            if attempt == STARTS:
                raise
    raise AssertionError("unreachable")


def _start_node(root: Path, name: str, env: dict[str, str], head: str | None, cpus: int) -> Node:
    ports = free_ports(8)
    temp_dir = root / name
    if head is None:  # options only a head takes (no dashboard, and no fixed 8265/10001 ports)
        where = ["--head", "--port", str(ports[0]), "--include-dashboard", "false", "--dashboard-port", str(ports[1]),
                 "--ray-client-server-port", str(ports[6])]  # fmt: skip
    else:
        where = ["--address", head]
    command = [
        RAY, "start", "--block", *where, "--node-ip-address", "127.0.0.1", "--num-cpus", str(cpus),
        "--temp-dir", str(temp_dir), "--disable-usage-stats", "--dashboard-agent-listen-port", str(ports[2]),
        "--dashboard-agent-grpc-port", str(ports[3]), "--runtime-env-agent-port", str(ports[4]),
        "--metrics-export-port", str(ports[5]), "--node-manager-port", str(ports[7]),
    ]  # fmt: skip
    log = root / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    node = Node(process, log, temp_dir, ports[0])
    deadline = time.monotonic() + STARTUP_SECONDS
    while b"Ray runtime started" not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            node.stop()
            text = log.read_text(errors="replace")
            slow = "timed out during startup" in text or process.returncode is None
            raise (TimeoutError if slow else RuntimeError)(f"ray start {name} did not start:\n{text[-3000:]}")
        time.sleep(0.2)
    node.pids()
    return node
