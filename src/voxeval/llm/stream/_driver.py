"""The streaming driver: one scenario spoken into one live session at real-time pace, every event recorded.

Sending and receiving run concurrently. The sender lays the scenario's clips on a tape at their planned times
(:func:`~voxeval.duplex.send_start`; a segment anchored on the model's reply waits for it) and sends the tape in
frames of ``frame_ms``, silence included, each frame when its audio would be captured. The receiver reads every
server message into events with their client-clock time. The figures are computed afterwards from the record.

Ends (the ``end`` event's outcome): ``answered`` once every segment was sent, a reply begun after the last one's
onset completed (for a backchannel: any completion after it), nothing is playing and ``settle_s`` passed;
``timeout`` when neither the user nor the model has made a sound for ``answer_timeout_s`` while a reply is awaited
(a session that never detects the end of the turn); ``bound`` after ``bound_s`` (a model that talks forever).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from voxeval.duplex import (
    RECORDING_RATE,
    Clip,
    Event,
    ModelAudioReceived,
    Scenario,
    ServerEvent,
    SessionEnded,
    SessionOutcome,
    UserAudioSent,
    UserSpeech,
    playout,
    send_start,
    speech_markers,
)
from voxeval.llm._types import ProviderError
from voxeval.llm.sessions._ws import SessionTimeouts, WsSession, open_session
from voxeval.llm.stream._options import StreamSettings
from voxeval.llm.stream._wire import Wire

_COMPLETE = ("response_done", "response_cancelled", "turn_complete", "interrupted")


@dataclass
class Take:
    """What one session produced: its events in time order and the PCM of every audio event, in order."""

    events: list[Event] = field(default_factory=list)
    """Every event, the last an ``end``."""
    user_pcm: list[bytes] = field(default_factory=list)
    """24 kHz PCM of each ``user_audio`` event."""
    model_pcm: list[bytes] = field(default_factory=list)
    """24 kHz PCM of each ``model_audio`` event."""
    attempts: int = 1
    """Sessions opened for it (retries of a dropped one included)."""

    @property
    def outcome(self) -> SessionOutcome:
        """How it ended."""
        end = self.events[-1]
        assert isinstance(end, SessionEnded)
        return end.outcome


class _Tape:
    """User audio still to send, on the frame grid: sample ``k`` of the tape goes out at grid time ``k / rate``."""

    def __init__(self) -> None:
        self.pcm = bytearray()
        self.labels: list[tuple[int, int, int]] = []  # (first sample, end sample, segment)
        self.sent = 0  # samples sent so far

    def lay(self, at: int, pcm: bytes, segment: int) -> None:
        gap = at - len(self.pcm) // 2
        self.pcm += b"\0\0" * gap + pcm
        self.labels.append((at, at + len(pcm) // 2, segment))

    def take(self, n: int) -> tuple[bytes, int | None]:
        start, end = self.sent, self.sent + n
        chunk = bytes(self.pcm[2 * start : 2 * end])
        chunk += b"\0\0" * (n - len(chunk) // 2)
        self.sent = end
        segment = next((s for a, b, s in self.labels if a < end and b > start), None)
        return chunk, segment

    @property
    def laid_end(self) -> int:
        return len(self.pcm) // 2


class _Run:
    """The state of one attempt."""

    def __init__(self, scenario: Scenario, clips: Sequence[Clip], wire: Wire, settings: StreamSettings) -> None:
        self.scenario, self.clips, self.wire, self.settings = scenario, clips, wire, settings
        self.take = Take()
        self.t0 = time.monotonic()
        self.tape = _Tape()
        self.grid0 = 0.0  # session time of tape sample 0
        self.frame_samples = RECORDING_RATE * settings.frame_ms // 1000
        self.planned: dict[int, float] = {}  # segment → planned send start (session time)
        self.markers: list[UserSpeech] = []
        self.offsets: dict[int, float] = {}
        self.onsets: dict[int, float] = {}
        self.completed: list[tuple[float, str | None]] = []
        self.last_model = 0.0

    def now(self) -> float:
        return time.monotonic() - self.t0

    def add(self, event: Event, pcm: bytes | None = None) -> None:
        self.take.events.append(event)
        if isinstance(event, UserAudioSent):
            self.take.user_pcm.append(pcm or b"")
        elif isinstance(event, ModelAudioReceived):
            self.take.model_pcm.append(pcm or b"")
            self.last_model = max(self.last_model, event.t + event.duration_s)
        elif isinstance(event, ServerEvent) and event.kind in _COMPLETE:
            self.completed.append((event.t, event.response_id))

    def reply_onset(self, after: float) -> float | None:
        """The first model audio arriving after ``after`` (the anchor of a ``reply_onset`` segment)."""
        return next((e.t for e in self.take.events if isinstance(e, ModelAudioReceived) and e.t >= after), None)

    def schedule(self) -> None:
        """Lay the next segment on the tape once its anchor has happened."""
        k = len(self.planned)
        if k >= len(self.scenario.segments):
            return
        segment, clip = self.scenario.segments[k], self.clips[k]
        previous = self.offsets.get(k - 1)
        onset = self.reply_onset(previous) if previous is not None else None
        not_before = self.grid0 + max(self.tape.laid_end, self.tape.sent) / RECORDING_RATE
        start = send_start(segment, clip, previous_offset=previous, reply_onset=onset, not_before=not_before)
        if start is None or (k > 0 and previous is None):
            return
        at = round((start - self.grid0) * RECORDING_RATE)
        self.planned[k] = start
        self.tape.lay(at, clip.pcm, k)
        onset_mark, offset_mark = speech_markers(k, start, clip)
        self.onsets[k], self.offsets[k] = onset_mark.t, offset_mark.t
        self.markers += [onset_mark, offset_mark]

    def finished(self, now: float) -> SessionOutcome | None:
        """``answered``, ``timeout``, ``bound`` or ``None`` (go on)."""
        if now >= self.settings.bound_s:
            return "bound"
        segments = len(self.scenario.segments)
        last = segments - 1
        user_done = self.tape.sent >= self.tape.laid_end
        awaited = max(self.offsets.get(len(self.planned) - 1, 0.0), self.last_model)
        if len(self.planned) == segments and user_done and not self.wire.active:
            onset = self.onsets[last]
            backchannel = self.scenario.segments[last].role == "backchannel"
            answered = any(
                t >= onset and (backchannel or self.wire.created.get(rid or "", -1.0) >= onset)
                for t, rid in self.completed
            )
            if answered:
                quiet = max(self.last_model, max(t for t, _ in self.completed))
                return "answered" if now >= quiet + self.settings.settle_s else None
        if user_done and now - awaited > self.settings.answer_timeout_s:
            return "timeout"
        return None


async def _receive(run: _Run, session: WsSession) -> None:
    from voxeval.llm.sessions._collect import malformed

    while True:
        message = await session.receive()
        t = run.now()
        try:
            incoming = run.wire.read(message, t)
        except (AttributeError, TypeError, KeyError) as exc:  # fields of unexpected types: a classified error
            raise malformed(session.where, message, exc) from None
        for event, pcm in incoming:
            run.add(event, pcm)


async def _send(run: _Run, session: WsSession) -> tuple[SessionOutcome, str]:
    frame_s = run.settings.frame_ms / 1000
    run.grid0 = run.now()
    k = 0
    while True:
        due = run.grid0 + k * frame_s
        wait = due - run.now()
        if wait > 0:
            await asyncio.sleep(wait)
        run.schedule()
        outcome = run.finished(run.now())
        if outcome is not None:
            detail = {"bound": f"session longer than {run.settings.bound_s:g} s", "timeout": ""}.get(outcome, "")
            if outcome == "timeout":
                detail = f"no reply completed within {run.settings.answer_timeout_s:g} s of silence"
            return outcome, detail
        pcm, segment = run.tape.take(run.frame_samples)
        t = run.now()
        await session.send(run.wire.frame(pcm))
        run.add(UserAudioSent(t, len(pcm) / 2 / RECORDING_RATE, segment), pcm)
        k += 1


async def _attempt(run: _Run, session: WsSession, instructions: str) -> tuple[SessionOutcome, str]:
    for message in run.wire.setup(instructions):
        await session.send(message)
    receiver = asyncio.create_task(_receive(run, session))
    try:
        while not run.wire.ready:  # Gemini: audio waits for setupComplete
            if receiver.done():
                receiver.result()
            await asyncio.sleep(0.005)
        sender = asyncio.create_task(_send(run, session))
        done, _ = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        if receiver in done:
            sender.cancel()
            receiver.result()  # raises the receiver's error (a dropped socket, an idle timeout)
        return sender.result()
    finally:
        receiver.cancel()


def _close(run: _Run, outcome: SessionOutcome, detail: str) -> Take:
    """The take in time order, markers clipped to the end (speech cut by the end of the session ends there)."""
    end = run.now()
    kept: list[Event] = []
    for k in sorted({m.segment for m in run.markers}):
        onset, offset = (m for m in run.markers if m.segment == k)
        if onset.t <= end:
            kept += [onset, UserSpeech(min(offset.t, end), "offset", k)]
    events = sorted([*run.take.events, *kept], key=lambda e: e.t)  # stable: audio events keep their order
    end = max([end, *(e.t for e in events)])
    run.take.events = [*events, SessionEnded(end, outcome, detail)]
    return run.take


async def stream_scenario(
    scenario: Scenario,
    clips: Sequence[Clip],
    wire: Wire,
    *,
    url: str,
    headers: dict[str, str],
    timeouts: SessionTimeouts,
    settings: StreamSettings,
    instructions: str,
) -> Take:
    """One attempt: open the session, stream the scenario, return the take. A failure of the socket raises its
    classified ``ProviderError`` (the caller retries the whole scenario)."""
    if len(clips) != len(scenario.segments):
        raise ValueError(f"{len(clips)} clips for {len(scenario.segments)} segments")
    async with open_session(url, headers, timeouts) as session:
        run = _Run(scenario, clips, wire, settings)
        outcome, detail = await _attempt(run, session, instructions)
        return _close(run, outcome, detail)


def model_seconds(take: Take) -> float:
    """Seconds of model audio received (for CPU-per-session-second figures)."""
    return sum(p.span.duration for p in playout(take.events))


__all__ = ["ProviderError", "Take", "model_seconds", "stream_scenario"]
