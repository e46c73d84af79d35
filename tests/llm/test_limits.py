"""The limiter: concurrency bound and request spacing."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from voxeval.llm import Limiter


def test_concurrency_is_bounded() -> None:
    limiter = Limiter(3)
    inside: list[int] = []

    async def work() -> None:
        async with limiter:
            inside.append(limiter.active)
            await asyncio.sleep(0.01)

    async def main() -> None:
        await asyncio.gather(*(work() for _ in range(12)))

    asyncio.run(main())
    assert limiter.peak == 3 and max(inside) == 3 and limiter.active == 0


def test_slot_is_released_when_the_body_raises() -> None:
    limiter = Limiter(1)

    async def main() -> None:
        with pytest.raises(RuntimeError):
            async with limiter:
                raise RuntimeError("boom")
        async with asyncio.timeout(1):
            async with limiter:
                pass

    asyncio.run(main())
    assert limiter.active == 0


def test_rate_spaces_starts_with_a_fake_clock() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = Limiter(10, rps=4.0, clock=lambda: now[0], sleep=sleep)
    starts: list[float] = []

    async def work() -> None:
        async with limiter:
            starts.append(now[0])

    async def main() -> None:
        for _ in range(5):
            await work()

    asyncio.run(main())
    assert starts == [100.0, 100.25, 100.5, 100.75, 101.0]


def test_rate_with_real_time_is_not_exceeded() -> None:
    """On the real clock, the slots the limiter grants are 1/rps apart. The slots, not the wake-up times, are
    checked: a loaded machine wakes a task late, which may bring it closer to the next one than 1/rps (that is the
    scheduler's delay, not a start granted early)."""
    granted: list[float] = []

    async def sleep(delay: float) -> None:
        granted.append(time.monotonic() + delay)
        await asyncio.sleep(delay)

    limiter = Limiter(8, rps=50.0, sleep=sleep)

    async def work() -> None:
        async with limiter:
            pass

    async def main() -> None:
        await asyncio.gather(*(work() for _ in range(6)))

    asyncio.run(main())
    assert len(granted) == 5  # the first start is immediate, the other five wait for their slots
    gaps = [b - a for a, b in itertools.pairwise(sorted(granted))]
    assert min(gaps) >= 0.02 - 1e-3  # 20 ms apart (the clock is read twice per slot, hence the small slack)


def test_limiter_survives_successive_event_loops() -> None:
    limiter = Limiter(1)

    async def twice() -> None:
        async def hold() -> None:
            async with limiter:
                await asyncio.sleep(0.001)

        await asyncio.gather(hold(), hold())

    asyncio.run(twice())
    asyncio.run(twice())
    assert limiter.peak == 1


@pytest.mark.parametrize(("concurrency", "rps"), [(0, None), (1, 0.0), (1, -2.0)])
def test_bad_limits_are_refused(concurrency: int, rps: float | None) -> None:
    with pytest.raises(ValueError):
        Limiter(concurrency, rps)
