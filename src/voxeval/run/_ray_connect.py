"""Joining a Ray cluster by address, or starting a private local Ray, with one-line errors that name the fix.

Ray 2.60 turns token authentication on for a cluster whose head finds a token (``ray start --head`` after
``ray get-auth-token --generate``, or with ``RAY_AUTH_MODE=token``), but a driver given an explicit address does
not turn it on by itself: ``ray.init(address=…)`` then retries for ~20 s and fails with "Failed to connect to Ray
cluster", and for an address where nothing listens it retries for minutes. So before ``ray.init`` the driver asks
the cluster's GCS two questions over gRPC (a few hundred milliseconds): does it want a token, and which Ray and
Python it runs. A cluster that wants one gets the token Ray itself would read (``$RAY_AUTH_TOKEN``, the file
``$RAY_AUTH_TOKEN_PATH``, else ``~/.ray/auth_token``): voxeval only sets ``RAY_AUTH_MODE=token`` in its own
process and lets Ray read it; the token is never copied into a run folder, config, log or report.

Without an address voxeval starts its own Ray (``address="local"``): a plain ``ray.init()`` would join the cluster
named in Ray's ``ray_current_cluster`` file, stale or someone else's.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, MissingDependencyError

AUTH_MODE_ENV = "RAY_AUTH_MODE"
"""Ray's switch for token authentication (``token`` / ``disabled``)."""
TOKEN_ENV = "RAY_AUTH_TOKEN"
"""A token given in the environment (Ray reads it first)."""
TOKEN_PATH_ENV = "RAY_AUTH_TOKEN_PATH"
"""A file holding the token (Ray reads it second)."""
PROBE_SECONDS = 5.0
"""How long the driver waits for the cluster's GCS to answer before saying nothing answers at the address."""
FIX_TOKEN = (
    "copy the head's token (`ray get-auth-token` on the head prints it) to ~/.ray/auth_token on this machine, or "
    "name its file in $RAY_AUTH_TOKEN_PATH (docs/scale.md)"
)


@dataclass(frozen=True)
class TokenSource:
    """Where Ray will read the authentication token from (the token itself is never kept in a record)."""

    where: str
    """``$RAY_AUTH_TOKEN``, ``$RAY_AUTH_TOKEN_PATH (PATH)`` or ``~/.ray/auth_token (PATH)``, for messages."""
    path: Path | None
    """The file it is read from; ``None`` for the environment variable."""


def token_source() -> TokenSource | None:
    """The first token source Ray would use, in Ray's order; ``None`` when there is none."""
    if os.environ.get(TOKEN_ENV, "").strip():
        return TokenSource(f"${TOKEN_ENV}", None)
    named = os.environ.get(TOKEN_PATH_ENV, "").strip()
    if named:
        return TokenSource(f"${TOKEN_PATH_ENV} ({named})", Path(named)) if Path(named).is_file() else None
    default = Path.home() / ".ray" / "auth_token"
    return TokenSource(f"~/.ray/auth_token ({default})", default) if default.is_file() else None


def _read_token(source: TokenSource) -> str:
    """The token itself, for the probe's request header only."""
    if source.path is None:
        return os.environ[TOKEN_ENV].strip()
    try:
        return source.path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the Ray authentication token from {source.where}: {exc}") from None


def connect_ray(ray: Any, address: str | None, cpus: int) -> None:
    """Join the cluster at ``address`` (checked first, see the module docstring), or start a private local Ray."""
    if not address:
        # "local" ignores $RAY_ADDRESS and ray_current_cluster: a stale or foreign cluster is never joined.
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
        return
    if _host_port(address) is not None:
        metadata = preflight(address)
        if metadata:
            check_versions(address, metadata, ray.__version__)
    try:
        ray.init(address=address, logging_level="WARNING")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(_init_failure(address, exc)) from None


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``HOST:PORT`` address; ``None`` for Ray's other forms (``auto``, ``ray://…``)."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or "/" in address or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def preflight(address: str) -> dict[str, Any]:
    """Ask the GCS at ``address`` whether it wants a token and which versions it runs; switch this process to
    token mode when it does. Returns the cluster's metadata (``ray_version``, ``python_version``; empty if the
    cluster has not written it yet). Raises a one-line :class:`ConfigError` naming the fix."""
    mode = os.environ.get(AUTH_MODE_ENV, "").strip().lower()
    source = token_source()
    token = _read_token(source) if source and mode == "token" else None
    status, metadata = _ask(address, token)
    if status == "unauthenticated" and token is None:
        if mode == "disabled":
            raise ConfigError(
                f"the Ray cluster at {address} requires token authentication but {AUTH_MODE_ENV}=disabled here: "
                f"unset {AUTH_MODE_ENV}, and make the head's token readable ({FIX_TOKEN})"
            )
        if source is None:
            raise ConfigError(f"the Ray cluster at {address} requires an authentication token and none was found: "
                              f"{FIX_TOKEN}")  # fmt: skip
        token = _read_token(source)
        status, metadata = _ask(address, token)
    if status == "unauthenticated":
        where = source.where if source else f"${TOKEN_ENV}"
        raise ConfigError(f"the Ray cluster at {address} rejected the authentication token from {where}: {FIX_TOKEN}")
    if status != "ok":
        raise ConfigError(
            f"no Ray cluster answers at {address} ({status}): check --ray-address / $RAY_ADDRESS (the head's IP "
            "and the port given to `ray start --head --port`) and that this machine can reach it"
        )
    if token is not None and mode != "token":
        _enable_token_mode()
    return metadata


def _ask(address: str, token: str | None) -> tuple[str, dict[str, Any]]:
    """``("ok", metadata)``, ``("unauthenticated", {})`` or ``(reason, {})`` from the GCS at ``address``."""
    try:
        import grpc

        # Generated protobuf modules: typed as Any (they ship no stubs).
        pb: Any = importlib.import_module("ray.core.generated.gcs_service_pb2")
        rpc: Any = importlib.import_module("ray.core.generated.gcs_service_pb2_grpc")
    except ImportError:
        raise MissingDependencyError("--ray-address", "distributed", "grpcio") from None
    headers = [("authorization", f"Bearer {token}")] if token else []
    with grpc.insecure_channel(address) as channel:
        try:
            rpc.NodeInfoGcsServiceStub(channel).GetClusterId(
                pb.GetClusterIdRequest(), metadata=headers, timeout=PROBE_SECONDS
            )
            kv = rpc.InternalKVGcsServiceStub(channel).InternalKVGet(
                pb.InternalKVGetRequest(key=b"CLUSTER_METADATA", namespace=b"cluster"),
                metadata=headers,
                timeout=PROBE_SECONDS,
            )
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return "unauthenticated", {}
            details = exc.details() if hasattr(exc, "details") else str(exc)
            return _reason(code, details or ""), {}
    try:
        return "ok", json.loads(kv.value.decode("utf-8")) if kv.value else {}
    except ValueError:
        return "ok", {}  # not a Ray 2.x GCS's metadata: ray.init will say what it is


def _reason(code: Any, details: str) -> str:
    """A few words for why nothing answered: the last clause of gRPC's description, or its status."""
    if "Connection refused" in details:
        return "connection refused"
    if "DNS resolution failed" in details:
        return "the host name does not resolve"
    if code is not None and code.name == "DEADLINE_EXCEEDED":
        return f"no answer within {PROBE_SECONDS:g} s"
    last = details.strip().rstrip("]").rpartition(": ")[2] or (code.name.lower() if code is not None else "no answer")
    return f"{last} (not a Ray GCS?)" if code is not None and code.name == "UNIMPLEMENTED" else last


def _enable_token_mode() -> None:
    """Token mode for this process, as Ray's own ``ray.init()`` does for a cluster it finds by itself."""
    os.environ[AUTH_MODE_ENV] = "token"
    raylet: Any = importlib.import_module("ray._raylet")  # compiled: no stubs
    raylet.Config.initialize("")  # Ray caches its config at import: re-read it so the driver sends the token


def check_versions(address: str, metadata: dict[str, Any], ray_version: str) -> None:
    """Refuse a cluster whose Ray or Python differs from the driver's (Ray's own rule: the Python patch level must
    match too unless ``RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor``)."""
    theirs = (str(metadata.get("ray_version", ray_version)), str(metadata.get("python_version", "")))
    ours = (ray_version, platform.python_version())
    level = os.environ.get("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL", "patch")
    digits = 2 if level == "minor" else 3
    same_python = not theirs[1] or theirs[1].split(".")[:digits] == ours[1].split(".")[:digits]
    if theirs[0] == ours[0] and same_python:
        return
    raise ConfigError(_mismatch(address, theirs, ours))


def _mismatch(address: str, theirs: tuple[str, str], ours: tuple[str, str]) -> str:
    return (
        f"the Ray cluster at {address} runs Ray {theirs[0]} on Python {theirs[1]}, this driver Ray {ours[0]} on "
        f"Python {ours[1]}: driver and every node need the same Ray and Python (pip install 'voxeval[distributed]' "
        f"pins ray=={ours[0]}; restart the cluster with it, or run voxeval with the cluster's versions)"
    )


def _init_failure(address: str, exc: Exception) -> str:
    """One line for a ``ray.init`` failure the preflight could not foresee."""
    text = str(exc).strip()
    versions = re.findall(r"Ray: (\S+)\s+Python: (\S+)", text)
    if text.startswith("Version mismatch") and len(versions) == 2:  # Ray's check_version_info: cluster, then us
        return _mismatch(address, versions[0], versions[1])
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"could not join the Ray cluster at {address}: {first} (docs/scale.md, 'Start a cluster')"
