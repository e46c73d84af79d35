"""Systems under test: the protocol, the registry and the built-in adapters."""

from voxeval.systems import _cascade, _chat, _python, _realtime, _replay, _style_cascade  # noqa: F401  (register adapters)
from voxeval.systems._protocol import (
    Conversation,
    ConversationalSystem,
    NoReply,
    Reply,
    ReplyTiming,
    Said,
    SpokenDialogueSystem,
    StatelessConversation,
    SystemFailure,
    Turn,
    default_prompts,
    open_conversation,
    system_from_spec,
    systems,
)

__all__ = [
    "Conversation",
    "ConversationalSystem",
    "NoReply",
    "Reply",
    "ReplyTiming",
    "Said",
    "SpokenDialogueSystem",
    "StatelessConversation",
    "SystemFailure",
    "Turn",
    "default_prompts",
    "open_conversation",
    "system_from_spec",
    "systems",
]
