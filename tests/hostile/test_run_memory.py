"""Memory that must not grow with the sample count: bootstrap and permutation draws are made in blocks."""

from __future__ import annotations

import numpy as np
import pytest

from voxeval.report._stats import bootstrap_ci, paired_test


@pytest.mark.parametrize("n", [1, 2, 7, 3001])
def test_blocked_bootstrap_and_sign_flips_draw_what_one_call_draws(n: int) -> None:
    rng = np.random.default_rng(5)
    a, b = rng.random(n), rng.random(n)
    whole = np.random.default_rng(0)
    means = a[whole.integers(0, n, size=(2000, n))].mean(axis=1) if n > 1 else np.array([a.mean()])
    ci = bootstrap_ci(a.tolist())
    assert ci is not None
    assert (ci.low, ci.high) == (
        (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))) if n > 1 else (ci.mean, ci.mean)
    )
    d = a - b
    signs = np.random.default_rng(0).choice(np.array([-1.0, 1.0]), size=(10000, n))
    p = (int(np.sum(np.abs((signs * d).mean(axis=1)) >= abs(float(d.mean())) - 1e-12)) + 1) / 10001
    test = paired_test(a.tolist(), b.tolist())
    assert test is not None and test.p_value == min(1.0, p)


def test_report_statistics_on_ten_thousand_samples_stay_under_40_mib() -> None:
    import tracemalloc

    values = np.random.default_rng(1).random(10_000).tolist()
    tracemalloc.start()
    try:
        bootstrap_ci(values)
        paired_test(values, values[::-1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 << 20, f"peak {peak >> 20} MiB (one draw of every resample took 160 MB, sign flips 800 MB)"
