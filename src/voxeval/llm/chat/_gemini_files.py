"""Gemini's Files API for audio too large to send inline: upload, wait until active, generate, delete.

Gemini caps an inline request (base64 audio included) at about 20 MB, so audio over ~15 MB goes through the
Files API: a resumable upload in two POSTs (``start`` → upload URL, then ``upload, finalize`` with the bytes),
a ``GET`` while the file is ``PROCESSING``, ``generateContent`` with a ``file_data`` part, and a ``DELETE``
(uploaded files would otherwise live 48 hours). Payloads and URLs are built by pure functions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from voxeval.llm._http import HttpClient, HttpReply, redact_error
from voxeval.llm._limits import Limiter
from voxeval.llm._provider import api_key
from voxeval.llm._retry import RetryPolicy, with_retries
from voxeval.llm._spec import ModelSpec
from voxeval.llm._types import ChatRequest, ChatResponse, ProviderError
from voxeval.llm.chat._gemini import GEMINI_KEY_ENVS, gemini_base_url, gemini_payload, parse_gemini
from voxeval.llm.chat._profiles import ModelProfile, profile_for


@dataclass(frozen=True)
class UploadedFile:
    """A file held by the Files API."""

    name: str
    """Resource name, ``files/abc123``."""
    uri: str
    """URI to reference it in ``file_data`` parts."""
    mime: str
    """Its MIME type."""
    state: str
    """``ACTIVE``, ``PROCESSING`` or ``FAILED``."""


def gemini_upload_url(base_url: str) -> str:
    """The upload endpoint for an API base URL (pure): ``…/v1beta`` → ``…/upload/v1beta/files``.

    >>> gemini_upload_url("https://generativelanguage.googleapis.com/v1beta")
    'https://generativelanguage.googleapis.com/upload/v1beta/files'
    """
    parts = urlsplit(base_url.rstrip("/"))
    return urlunsplit((parts.scheme, parts.netloc, f"/upload{parts.path}/files", "", ""))


def upload_start_headers(size: int, mime: str) -> dict[str, str]:
    """Headers of the resumable upload's ``start`` request (pure; the key is added by the caller)."""
    return {
        "X-Goog-Upload-Protocol": "resumable",
        "X-Goog-Upload-Command": "start",
        "X-Goog-Upload-Header-Content-Length": str(size),
        "X-Goog-Upload-Header-Content-Type": mime,
        "Content-Type": "application/json",
    }


def upload_start_body(size: int, mime: str, display_name: str) -> dict[str, Any]:
    """JSON body of the ``start`` request (pure): the file's metadata, as the official SDK sends it."""
    return {"file": {"display_name": display_name, "mime_type": mime, "size_bytes": size}}


def upload_finalize_headers(size: int) -> dict[str, str]:
    """Headers of the request that sends all the bytes and finalizes the upload (pure)."""
    return {
        "Content-Length": str(size),
        "X-Goog-Upload-Protocol": "resumable",
        "X-Goog-Upload-Offset": "0",
        "X-Goog-Upload-Command": "upload, finalize",
    }


def same_origin(url: str, base_url: str) -> bool:
    """Whether ``url`` has the scheme, host and port of ``base_url`` (pure).

    >>> same_origin("https://generativelanguage.googleapis.com/upload/x", "https://generativelanguage.googleapis.com/v1beta")
    True
    >>> same_origin("https://evil.example/upload", "https://generativelanguage.googleapis.com/v1beta")
    False
    """
    a, b = urlsplit(url), urlsplit(base_url)
    return (a.scheme.lower(), a.hostname, a.port) == (b.scheme.lower(), b.hostname, b.port)


def gemini_file_payload(
    request: ChatRequest, file: UploadedFile, profile: ModelProfile | None = None
) -> dict[str, Any]:
    """``generateContent`` body for a request whose first user message's audio is ``file`` (pure).

    The file part follows that message's text, as inline audio would.
    """
    payload = gemini_payload(request) if profile is None else gemini_payload(request, profile)
    first_user = next(c for c in payload["contents"] if c["role"] == "user")
    first_user["parts"].append({"file_data": {"mime_type": file.mime, "file_uri": file.uri}})
    return payload


def parse_uploaded_file(body: Mapping[str, Any]) -> UploadedFile:
    """An upload or ``GET`` answer (``{"file": {...}}`` or the file itself) as an :class:`UploadedFile` (pure)."""
    file = body.get("file", body)
    fields = {key: file.get(key) if isinstance(file, dict) else None for key in ("name", "uri", "mimeType", "state")}
    if not isinstance(fields["name"], str) or not isinstance(fields["uri"], str):
        raise ProviderError("bad_response", f"no file name or uri in upload answer: {str(dict(body))[:2000]}")
    mime, state = fields["mimeType"], fields["state"]
    return UploadedFile(
        fields["name"], fields["uri"], mime if isinstance(mime, str) else "", state if isinstance(state, str) else ""
    )


class GeminiFiles:
    """Files API calls for one Gemini model; ``transport`` lets tests answer without a server.

    The key and the audio go only to the configured API host: an upload URL naming another host is refused.
    """

    def __init__(self, spec: ModelSpec, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        options = spec.options
        self.key = api_key([options.key_env] if options.key_env else list(GEMINI_KEY_ENVS), "gemini")
        self.base_url = gemini_base_url(spec.base_url, options)
        self.model = spec.model.removeprefix("models/")
        self.profile = profile_for("gemini", self.model, options.profile_overrides(), f"gemini:{spec.model}")
        self.timeout = options.timeout
        self.policy = RetryPolicy(max_retries=options.max_retries)
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        self.limiter = Limiter(options.concurrency, options.rps)
        self.http = HttpClient(
            timeout=options.timeout, connections=options.concurrency, transport=transport, secrets=(self.key,)
        )
        self.poll_seconds = 2.0
        """Wait between checks of a file still ``PROCESSING``."""
        self.max_polls = 30
        """Checks before giving up on a file that never becomes ``ACTIVE``."""

    async def _send(self, method: str, url: str, **kwargs: Any) -> HttpReply:
        if not same_origin(url, self.base_url):
            where = url.split("?", 1)[0]
            raise ProviderError(
                "bad_response",
                f"refused to send the key or audio to {where}: not the API host of {self.base_url}",
                retryable=False,
            )
        headers = {"x-goog-api-key": self.key, **kwargs.pop("headers", {})}
        return await self.http.request(method, url, headers=headers, **kwargs)

    async def _guarded(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """Retry ``call`` per the policy; errors leave redacted of the key (the one redaction boundary)."""
        try:
            return await with_retries(call, self.policy, self.sleep)
        except ProviderError as error:
            raise redact_error(error, (self.key,)) from None

    async def _upload_once(self, data: bytes, mime: str, display_name: str) -> UploadedFile:
        start = await self._send(
            "POST",
            gemini_upload_url(self.base_url),
            headers=upload_start_headers(len(data), mime),
            json=upload_start_body(len(data), mime, display_name),
        )
        target = start.headers.get("x-goog-upload-url")
        if not target:
            raise ProviderError("bad_response", "the upload start answer has no X-Goog-Upload-URL header")
        done = await self._send("POST", target, headers=upload_finalize_headers(len(data)), content=data)
        return parse_uploaded_file(done.json_object("the upload URL"))

    async def upload(self, data: bytes, mime: str, display_name: str) -> UploadedFile:
        """Upload ``data`` and return the file once it is ``ACTIVE`` (a failed upload is retried from the start)."""
        async with self.limiter:
            file = await self._guarded(lambda: self._upload_once(data, mime, display_name))
        return await self.wait_active(file)

    async def wait_active(self, file: UploadedFile) -> UploadedFile:
        """Poll a ``PROCESSING`` file until it is ``ACTIVE``; ``FAILED`` or too long raises ``ProviderError``."""
        url = f"{self.base_url}/{file.name}"
        for _ in range(self.max_polls):
            if file.state in ("ACTIVE", ""):  # no state reported: assume usable, generateContent will say if not
                return file
            if file.state != "PROCESSING":
                raise ProviderError("bad_response", f"uploaded file {file.name} is {file.state}", retryable=False)
            await self.sleep(self.poll_seconds)
            answer = await self._guarded(lambda: self._send("GET", url))
            file = parse_uploaded_file(answer.json_object(url))
        raise ProviderError("timeout", f"uploaded file {file.name} still {file.state} after {self.max_polls} checks")

    async def delete(self, file: UploadedFile) -> None:
        """Delete ``file`` (retried like any call; the last error is raised)."""
        url = f"{self.base_url}/{file.name}"
        await self._guarded(lambda: self._send("DELETE", url))

    async def generate(self, request: ChatRequest, file: UploadedFile) -> ChatResponse:
        """``generateContent`` with ``file`` as the audio of the request's first user message."""
        url = f"{self.base_url}/models/{self.model}:generateContent"
        payload = gemini_file_payload(request, file, self.profile)

        async def attempt() -> ChatResponse:
            async with self.limiter:
                body = (await self._send("POST", url, json=payload)).json_object(url)
            return parse_gemini(body)

        response: ChatResponse = await self._guarded(attempt)
        return response
