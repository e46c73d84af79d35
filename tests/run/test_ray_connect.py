"""Joining a Ray cluster by address: the token as Ray reads it, and one-line errors naming the fix for a missing or
wrong token, an address where nothing answers and a driver/cluster version mismatch. The cluster is a stand-in
GCS on 127.0.0.1 that speaks Ray's own gRPC messages (the real cluster path is tests/run/test_ray_cluster.py)."""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray", reason="needs voxeval[distributed] (in the test extra)")
grpc = pytest.importorskip("grpc", reason="needs voxeval[distributed] (grpcio, in the test extra)")

from ray.core.generated import gcs_service_pb2 as pb  # noqa: E402
from ray.core.generated import gcs_service_pb2_grpc as rpc  # noqa: E402

from tests.run.ray_nodes import free_ports  # noqa: E402
from voxeval.errors import ConfigError  # noqa: E402
from voxeval.run import _ray_connect  # noqa: E402
from voxeval.run._ray_connect import check_versions, connect_ray, preflight, token_source  # noqa: E402

TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
OURS = {"ray_version": "2.60.0", "python_version": platform.python_version(), "ray_init_cluster": False}


@dataclass
class FakeGcs:
    """What the stand-in GCS answers."""

    token: str | None = TOKEN
    """The token it wants (``None``: authentication off)."""
    metadata: dict[str, Any] | None = None
    """Its CLUSTER_METADATA (default: the driver's versions)."""
    calls: int = 0


def _servicers(state: FakeGcs) -> tuple[Any, Any]:
    def check(context: Any) -> None:
        state.calls += 1
        sent = dict(context.invocation_metadata()).get("authorization")
        if state.token is not None and sent != f"Bearer {state.token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "InvalidAuthToken: Authentication token is missing")

    class Nodes(rpc.NodeInfoGcsServiceServicer):  # type: ignore[misc]
        def GetClusterId(self, request: Any, context: Any) -> Any:  # Ray's method name
            check(context)
            return pb.GetClusterIdReply(cluster_id=b"\x01" * 28)

    class Kv(rpc.InternalKVGcsServiceServicer):  # type: ignore[misc]
        def InternalKVGet(self, request: Any, context: Any) -> Any:
            check(context)
            return pb.InternalKVGetReply(value=json.dumps(state.metadata or OURS).encode())

    return Nodes(), Kv()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, FakeGcs]]:
    state = FakeGcs()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    nodes, kv = _servicers(state)
    rpc.add_NodeInfoGcsServiceServicer_to_server(nodes, grpc_server)
    rpc.add_InternalKVGcsServiceServicer_to_server(kv, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    try:
        yield f"127.0.0.1:{port}", state
    finally:
        grpc_server.stop(grace=None)


@pytest.fixture
def gcs(server, monkeypatch, tmp_path) -> Iterator[tuple[str, FakeGcs, list[str]]]:
    """The stand-in GCS reset to default answers; no token anywhere (an empty home); token-mode switches recorded
    instead of made (they change Ray's process-wide config; the cluster test makes them for real)."""
    address, state = server
    state.token, state.metadata = TOKEN, None
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    switched: list[str] = []
    monkeypatch.setattr(_ray_connect, "_enable_token_mode", lambda: switched.append("token"))
    yield address, state, switched


def home_token(tmp_path: Path, token: str) -> Path:
    path = tmp_path / "home" / ".ray" / "auth_token"
    path.parent.mkdir(parents=True)
    path.write_text(token + "\n")
    return path


def one_line(exc: pytest.ExceptionInfo[ConfigError]) -> str:
    text = str(exc.value)
    assert "\n" not in text and TOKEN not in text and "wrong-token" not in text
    return text


def test_the_token_is_found_where_ray_looks_for_it_in_rays_order(gcs, monkeypatch, tmp_path) -> None:
    assert token_source() is None
    default = home_token(tmp_path, TOKEN)
    assert token_source().path == default  # type: ignore[union-attr]
    named = tmp_path / "tok"
    named.write_text(TOKEN)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(named))
    assert token_source().path == named  # type: ignore[union-attr]
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "missing"))
    assert token_source() is None  # Ray does not fall back to ~/.ray when the named file is missing
    monkeypatch.setenv("RAY_AUTH_TOKEN", TOKEN)
    assert token_source().where == "$RAY_AUTH_TOKEN"  # type: ignore[union-attr]


@pytest.mark.parametrize("where", ["home", "path", "env"])
def test_a_cluster_that_wants_a_token_gets_the_one_ray_reads_and_the_driver_switches_to_token_mode(
    gcs, monkeypatch, tmp_path, where
) -> None:
    address, _, switched = gcs
    if where == "home":
        home_token(tmp_path, TOKEN)
    elif where == "path":
        (tmp_path / "t").write_text(TOKEN)
        monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "t"))
    else:
        monkeypatch.setenv("RAY_AUTH_TOKEN", TOKEN)
    assert preflight(address)["ray_version"] == "2.60.0"
    assert switched == ["token"]


def test_a_cluster_without_authentication_is_joined_without_token_mode(gcs, tmp_path) -> None:
    address, state, switched = gcs
    state.token = None
    home_token(tmp_path, TOKEN)  # a token on the machine is not sent to a cluster that does not ask for one
    assert preflight(address)["python_version"] == platform.python_version()
    assert switched == []


def test_no_token_anywhere_says_where_to_put_the_heads_token(gcs) -> None:
    address, _, switched = gcs
    with pytest.raises(ConfigError) as exc:
        preflight(address)
    text = one_line(exc)
    assert text.startswith(f"the Ray cluster at {address} requires an authentication token and none was found")
    assert "ray get-auth-token" in text and "~/.ray/auth_token" in text and "$RAY_AUTH_TOKEN_PATH" in text
    assert switched == []


@pytest.mark.parametrize("where", ["home", "env", "env-token-mode"])
def test_a_wrong_token_is_named_by_where_it_came_from(gcs, monkeypatch, tmp_path, where) -> None:
    address, _, switched = gcs
    if where == "home":
        home_token(tmp_path, "wrong-token")
    else:
        monkeypatch.setenv("RAY_AUTH_TOKEN", "wrong-token")
    if where == "env-token-mode":
        monkeypatch.setenv("RAY_AUTH_MODE", "token")
    with pytest.raises(ConfigError) as exc:
        preflight(address)
    source = "~/.ray/auth_token" if where == "home" else "$RAY_AUTH_TOKEN"
    assert one_line(exc).startswith(f"the Ray cluster at {address} rejected the authentication token from {source}")
    assert switched == []


def test_auth_disabled_in_the_driver_against_a_token_cluster_says_to_unset_it(gcs, monkeypatch, tmp_path) -> None:
    address, _, _ = gcs
    home_token(tmp_path, TOKEN)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(ConfigError) as exc:
        preflight(address)
    assert "requires token authentication but RAY_AUTH_MODE=disabled here: unset RAY_AUTH_MODE" in one_line(exc)


@pytest.mark.parametrize("address", ["closed", "not-a-gcs"])
def test_an_address_where_no_ray_cluster_answers_fails_at_once(gcs, address) -> None:
    if address == "closed":
        target = f"127.0.0.1:{free_ports(1)[0]}"  # nothing listens there
    else:
        from voxeval.testing.mockserver import MockServer  # an HTTP server, not a GCS

        mock = MockServer()
        mock.__enter__()
        target = mock.openai_base_url.split("//")[1].split("/")[0]
    started = time.monotonic()
    try:
        with pytest.raises(ConfigError) as exc:
            preflight(target)
    finally:
        if address != "closed":
            mock.__exit__(None, None, None)
    assert time.monotonic() - started < 3.0  # ray.init would retry for minutes
    text = one_line(exc)
    assert text.startswith(f"no Ray cluster answers at {target} (")
    assert "check --ray-address / $RAY_ADDRESS" in text
    if address == "closed":
        assert "(connection refused)" in text


def test_a_host_name_that_does_not_resolve_is_said_so() -> None:
    # gRPC's own description (resolving a real name here would wait on the machine's DNS)
    details = "DNS resolution failed for nohost:6379: C-ares status is not ARES_SUCCESS qtype=A: Domain name not found]"
    assert _ray_connect._reason(grpc.StatusCode.UNAVAILABLE, details) == "the host name does not resolve"
    assert _ray_connect._reason(grpc.StatusCode.UNAVAILABLE, "x: y: Socket closed]") == "Socket closed"


class RecordingRay:
    """Stands in for the ``ray`` module: records ``init`` calls."""

    __version__ = "2.60.0"

    def __init__(self) -> None:
        self.inits: list[dict[str, Any]] = []

    def init(self, **options: Any) -> None:
        self.inits.append(options)


@pytest.mark.parametrize(
    ("theirs", "level"),
    [({"ray_version": "2.59.0"}, None), ({"python_version": "3.10.14"}, None), ({"python_version": "3.11.0"}, None),
     ({"python_version": "3.10.1"}, "minor")],
)  # fmt: skip
def test_a_driver_cluster_version_mismatch_is_refused_before_joining(gcs, monkeypatch, theirs, level) -> None:
    address, state, _ = gcs
    state.token = None
    if theirs.get("python_version") == platform.python_version():
        pytest.skip("this Python is the one the case pretends the cluster runs")
    state.metadata = {**OURS, **theirs}
    if level:
        monkeypatch.setenv("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL", level)
    ray = RecordingRay()
    with pytest.raises(ConfigError) as exc:
        connect_ray(ray, address, 2)
    cluster = state.metadata
    assert one_line(exc).startswith(
        f"the Ray cluster at {address} runs Ray {cluster['ray_version']} on Python {cluster['python_version']}, this "
        f"driver Ray 2.60.0 on Python {platform.python_version()}: driver and every node need the same Ray and Python"
    )
    assert "pins ray==2.60.0" in str(exc.value) and ray.inits == []


def test_a_python_patch_difference_is_allowed_at_the_minor_level(monkeypatch) -> None:
    major, minor, patch = platform.python_version().split(".")[:3]
    other = f"{major}.{minor}.{int(patch) + 1}"
    monkeypatch.setenv("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL", "minor")
    check_versions("h:1", {"ray_version": "2.60.0", "python_version": other}, "2.60.0")  # no error
    monkeypatch.delenv("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL")
    with pytest.raises(ConfigError):
        check_versions("h:1", {"ray_version": "2.60.0", "python_version": other}, "2.60.0")


def test_rays_own_version_mismatch_from_init_becomes_one_line() -> None:
    from ray._private.utils import check_version_info

    ray = RecordingRay()

    def init(**options: Any) -> None:  # what ray.init raises when the preflight could not read the versions
        check_version_info({"ray_version": "2.59.0", "python_version": "3.10.14"}, "node 10.0.0.2")

    ray.init = init  # type: ignore[method-assign]
    with pytest.raises(ConfigError) as exc:
        connect_ray(ray, "auto", 2)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(
        f"the Ray cluster at auto runs Ray 2.59.0 on Python 3.10.14, this driver Ray 2.60.0 on Python "
        f"{platform.python_version()}: driver and every node need the same Ray and Python"
    )


def test_without_an_address_a_private_local_ray_is_started_whatever_ray_address_says(monkeypatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "")
    ray = RecordingRay()
    connect_ray(ray, None, 2)
    assert ray.inits == [{"address": "local", "num_cpus": 2, "include_dashboard": False, "logging_level": "WARNING"}]


def test_a_cli_run_against_an_address_where_nothing_answers_exits_2_with_one_line(capsys, tmp_path) -> None:
    from voxeval.cli import main

    address = f"127.0.0.1:{free_ports(1)[0]}"
    args = ["run", "--dataset", "ja-assistant", "--limit", "1", "--system", "python:tests.run.doubles:echo_gold",
            "--annotator", "gold", "--out", str(tmp_path / "run"), "--quiet", "--executor", "ray",
            "--ray-address", address]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"voxeval: error: no Ray cluster answers at {address} (connection refused)"), err
