"""One response: the system answers the turn on its worker, then the reply streams as deltas until done or
cancelled. Cancelling (``response.cancel``, barge-in) is checked before every delta, so none follows it."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from voxeval.serve import _events as ev
from voxeval.serve._config import REALTIME_RATE

if TYPE_CHECKING:
    from voxeval.serve._session import Active, RealtimeSession


async def _cancelled_within(active: Active, seconds: float) -> bool:
    """Wait up to ``seconds``; ``True`` as soon as the response is cancelled."""
    if active.cancelled.is_set():
        return True
    if seconds <= 0:
        return False
    try:
        await asyncio.wait_for(active.cancelled.wait(), seconds)
    except TimeoutError:
        return False
    return True


def reply_pcm(wav: bytes, turn_id: str) -> bytes:
    """The reply's audio (any format the decoder reads) as 24 kHz 16-bit mono PCM; bad audio is an ``InputError``
    naming the turn (the response then fails)."""
    from voxeval.errors import Location
    from voxeval.speech.audio import decode_audio, quantize_int16

    loaded = decode_audio(wav, Location(f"reply audio of {turn_id}"), sample_rate=REALTIME_RATE)
    return bytes(quantize_int16(loaded.audio.samples).tobytes())


async def _answer(session: RealtimeSession, active: Active) -> tuple[str, bytes] | None:
    """The reply's text and 24 kHz PCM, or ``None`` when cancelled first; a failure of the system raises."""
    call = asyncio.ensure_future(session.runner.respond(active.turn))
    stop = asyncio.ensure_future(active.cancelled.wait())
    await asyncio.wait({call, stop}, return_when=asyncio.FIRST_COMPLETED)
    stop.cancel()
    if active.cancelled.is_set():
        call.cancel()  # the worker's call is cancelled too; its result, if any, is dropped
        return None
    reply = call.result()
    if active.output != "audio" or not reply.audio:  # text output, or a system that gives text only
        return reply.text, b""
    return reply.text, await asyncio.to_thread(reply_pcm, reply.audio, active.turn.id)


async def stream_reply(session: RealtimeSession, active: Active) -> None:
    """``response.created`` … ``response.done`` for ``active``."""
    rid, output = active.id, active.output
    await session.send(ev.response_created(rid, output))
    try:
        answer = await _answer(session, active)
    except Exception as exc:  # the system failed: the client gets a failed response, the operator the reason
        session.options.log(f"voxeval serve: {active.turn.id}: the system failed: {type(exc).__name__}: {exc}")
        await session.send(ev.response_done(rid, output, "failed", message=f"{type(exc).__name__}: {exc}"))
        return
    if answer is None:
        await session.send(ev.response_done(rid, output, "cancelled", active.reason))
        return
    text, pcm = answer
    item_id = session._id("item")
    await session.send(ev.output_item(rid, item_id, output, "in_progress", None))
    size = REALTIME_RATE * 2 * session.options.delta_ms // 1000
    chunks = [pcm[i : i + size] for i in range(0, len(pcm), size)]
    texts = ev.pieces(text, len(chunks) or 1)
    start = time.perf_counter()
    from voxeval.serve._session import pace_seconds

    for index in range(max(len(chunks), len(texts))):
        due = pace_seconds(index, session.options.delta_ms, session.options.speed)
        if await _cancelled_within(active, start + due - time.perf_counter()):
            break
        if index < len(chunks):
            await session.send(ev.audio_delta(rid, item_id, chunks[index]))
        if index < len(texts):
            await session.send(ev.text_delta(rid, item_id, output, texts[index]))
            active.sent += texts[index]
    status: ev.Status = "cancelled" if active.cancelled.is_set() else "completed"
    if output == "audio" and pcm:
        await session.send(ev.audio_done(rid, item_id))
    await session.send(ev.text_done(rid, item_id, output, active.sent))
    finished = "incomplete" if status == "cancelled" else "completed"
    item = ev.output_item(rid, item_id, output, finished, active.sent)
    await session.send(item)
    await session.send(ev.response_done(rid, output, status, active.reason or None, item=item["item"]))
