"""The provider layer every model call goes through: records, spec strings, providers, retries, limits, cache.

Two transports, each a sub-package: :mod:`voxeval.llm.chat` (chat models over HTTP) and :mod:`voxeval.llm.sessions`
(speech-to-speech WebSocket sessions). What both share stays here: the records (``_types``), the request cache, limits,
retries, the HTTP client with the one redaction boundary (``_http``), the provider registry and spec strings.
"""

from voxeval.llm._cache import (
    CachedChatModel,
    RequestCache,
    cache_key,
    cached,
    request_cache,
    request_cache_off,
    set_request_cache,
)
from voxeval.llm._http import HttpClient, HttpReply, ResponseLimits, redact, redact_error
from voxeval.llm._limits import Limiter
from voxeval.llm._provider import ChatModel, ProviderOptions, providers
from voxeval.llm._retry import RetryPolicy, parse_retry_after, parse_retry_delay, with_retries
from voxeval.llm._spec import ModelSpec, chat_model_from_spec, parse_model_spec
from voxeval.llm._types import AudioInput, ChatMessage, ChatRequest, ChatResponse, ProviderError, Usage
from voxeval.llm.chat import _gemini, _llamacpp, _openai  # noqa: F401 - importing registers the providers
from voxeval.llm.chat._gemini import GEMINI_BASE_URL, gemini_payload, parse_gemini
from voxeval.llm.chat._gemini_files import GeminiFiles, UploadedFile
from voxeval.llm.chat._llamacpp import LOCAL_MODELS, LlamaCppChatModel, LocalWeights, strip_json_fences, weights_path
from voxeval.llm.chat._openai import OPENAI_BASE_URL, openai_chat_payload, parse_openai_chat
from voxeval.llm.chat._profiles import PROFILES, ModelProfile, lookup_profile, profile_for
from voxeval.llm.chat._remote import RemoteChatModel
from voxeval.llm.chat._replicas import ReplicaSet
from voxeval.llm.sessions._live_gemini import LIVE_URL, GeminiLive, LiveSettings
from voxeval.llm.sessions._realtime_openai import REALTIME_URL, OpenAIRealtime, RealtimeSettings
from voxeval.llm.sessions._session import EarlierTurn, SessionInput, SessionModel, SessionOptions, SessionResult
from voxeval.llm.sessions._session_spec import SessionSpec, parse_session_spec, session_model_from_spec
from voxeval.llm.sessions._ws import SessionTimeouts, WsSession, classify_close, open_session

__all__ = [
    "GEMINI_BASE_URL",
    "LIVE_URL",
    "LOCAL_MODELS",
    "OPENAI_BASE_URL",
    "PROFILES",
    "REALTIME_URL",
    "AudioInput",
    "CachedChatModel",
    "ChatMessage",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "EarlierTurn",
    "GeminiFiles",
    "GeminiLive",
    "HttpClient",
    "HttpReply",
    "Limiter",
    "LiveSettings",
    "LlamaCppChatModel",
    "LocalWeights",
    "ModelProfile",
    "ModelSpec",
    "OpenAIRealtime",
    "ProviderError",
    "ProviderOptions",
    "RealtimeSettings",
    "RemoteChatModel",
    "ReplicaSet",
    "RequestCache",
    "ResponseLimits",
    "RetryPolicy",
    "SessionInput",
    "SessionModel",
    "SessionOptions",
    "SessionResult",
    "SessionSpec",
    "SessionTimeouts",
    "UploadedFile",
    "Usage",
    "WsSession",
    "cache_key",
    "cached",
    "chat_model_from_spec",
    "classify_close",
    "gemini_payload",
    "lookup_profile",
    "open_session",
    "openai_chat_payload",
    "parse_gemini",
    "parse_model_spec",
    "parse_openai_chat",
    "parse_retry_after",
    "parse_retry_delay",
    "parse_session_spec",
    "profile_for",
    "providers",
    "redact",
    "redact_error",
    "request_cache",
    "request_cache_off",
    "session_model_from_spec",
    "set_request_cache",
    "strip_json_fences",
    "weights_path",
    "with_retries",
]
