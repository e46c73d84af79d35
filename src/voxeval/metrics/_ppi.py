"""Prediction-powered scores: an automatic score on every reply, corrected by human labels on a random sample.

PPI++ mean estimation with power tuning (Angelopoulos, Duchi, Zrnic, "PPI++: Efficient Prediction-Powered
Inference", 2024). The population is the N replies of one system on one dataset; ``f`` is the annotator's
per-reply score on all of them; ``y`` is the score the human labels give on a uniform random sample L of n replies
(``voxeval label --sample``). The other N − n replies (U) carry only ``f``. Then

    θ̂ = λ·mean_U(f) + mean_L(y − λ·f),     λ̂ = Cov_L(y, f) / ((1 + n/(N − n))·Var_L(f)), clipped to [0, 1],
    Var(θ̂) = λ²·Var_U(f)/(N − n) + Var_L(y − λ·f)/n,   95% interval θ̂ ± t·√Var(θ̂),

with t the 97.5% quantile of Student's t with n − 1 degrees of freedom: the CLT interval with a small-sample
correction (2.09 at n = 20, 2.02 at n = 40, → 1.96). With the normal quantile a seeded simulation covered a known
truth 93.1% of the time at n = 20 and 89.7% at n = 10; with t, 94.7% and 93.6%.

PPI assumes the labelled and unlabelled replies are disjoint samples, so U is the population minus the sample
(taking all N for U would count the labelled replies twice). Consequences, tested: a perfect annotator (f = y)
gives exactly the annotator's mean over all N (when its scores vary on the sample); a sample that is the whole
population (n = N, U empty, λ = 0) gives exactly the human mean. λ = 0 is the human-only estimate, λ = 1 the
classic PPI; the tuned λ makes the interval never wider than the human-only one in large samples. Sample variances
use ddof = 1 (docs/metrics.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass


@functools.lru_cache(maxsize=256)
def t95(n: int) -> float:
    """The two-sided 95% quantile of Student's t for a mean of ``n`` values (n − 1 degrees of freedom)."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1))


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered mean with what it was made from."""

    estimate: float
    """θ̂, the corrected mean."""
    low: float
    """Lower end of the 95% interval."""
    high: float
    """Upper end of the 95% interval."""
    annotator_mean: float
    """The plain annotator figure: mean of f over all N replies."""
    human_mean: float
    """Mean of y over the n labelled replies (the human-only estimate)."""
    human_low: float
    """Lower end of the human-only 95% interval (mean ± t·s/√n)."""
    human_high: float
    """Upper end of the human-only 95% interval."""
    n: int
    """Labelled replies used (the drawn sample's replies with human labels)."""
    N: int
    """Replies in the population (labelled included)."""
    lam: float
    """The power-tuning weight λ̂ in [0, 1]."""
    gain: float
    """Effective sample size gain: human-only variance / PPI variance (labelling n·gain replies without the
    annotator would give the same interval width); 1 when both are 0."""

    def to_json(self) -> dict[str, float | int]:
        """The record as a JSON object."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _mean(x: Sequence[float]) -> float:
    return math.fsum(x) / len(x)


def _cov(x: Sequence[float], y: Sequence[float]) -> float:
    """Sample covariance (ddof = 1); 0 for fewer than two values."""
    if len(x) < 2:
        return 0.0
    mx, my = _mean(x), _mean(y)
    return math.fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / (len(x) - 1)


def tuned_lambda(y: Sequence[float], f_labelled: Sequence[float], unlabelled: int) -> float:
    """λ̂ = Cov(y, f) / ((1 + n/(N − n))·Var(f)) over the labelled replies, clipped to [0, 1].

    No unlabelled replies (the whole population is labelled) or an annotator score without variation on the
    sample carries no information beyond the labels: λ = 0.
    """
    var_f = _cov(f_labelled, f_labelled)
    if unlabelled == 0 or var_f <= 0.0:
        return 0.0
    raw = _cov(y, f_labelled) / ((1.0 + len(y) / unlabelled) * var_f)
    return min(1.0, max(0.0, raw))


def ppi_mean(f_unlabelled: Sequence[float], f_labelled: Sequence[float], y: Sequence[float]) -> PPIEstimate:
    """The PPI++ mean of a metric from the annotator's scores and the human scores of the labelled replies.

    Args:
        f_unlabelled: annotator scores of the replies outside the labelled sample (N − n values, may be empty).
        f_labelled: annotator scores of the labelled replies, in the order of ``y``.
        y: human scores of the labelled replies (n ≥ 2: the interval needs a variance).

    >>> e = ppi_mean([0.5, 0.7, 0.9], [0.4, 0.8], [0.5, 0.9])  # an annotator 0.1 too low
    >>> round(e.annotator_mean, 3), round(e.estimate, 3), e.n, e.N
    (0.66, 0.76, 2, 5)
    """
    n, rest = len(y), len(f_unlabelled)
    if len(f_labelled) != n:
        raise ValueError(f"{len(f_labelled)} annotator scores for {n} labelled replies")
    if n < 2:
        raise ValueError(f"a prediction-powered interval needs at least 2 labelled replies, got {n}")
    lam = tuned_lambda(y, f_labelled, rest)
    rectifier = [a - lam * b for a, b in zip(y, f_labelled, strict=True)]
    if rest:
        estimate = lam * _mean(f_unlabelled) + _mean(rectifier)
        var = lam * lam * _cov(f_unlabelled, f_unlabelled) / rest + _cov(rectifier, rectifier) / n
    else:  # the whole population is labelled: λ = 0 and the estimate is the human mean
        estimate, var = _mean(rectifier), _cov(rectifier, rectifier) / n
    var_human = _cov(y, y) / n
    quantile = t95(n)
    half, human_half = quantile * math.sqrt(var), quantile * math.sqrt(var_human)
    human = _mean(y)
    return PPIEstimate(
        estimate=estimate,
        low=estimate - half,
        high=estimate + half,
        annotator_mean=_mean([*f_unlabelled, *f_labelled]),
        human_mean=human,
        human_low=human - human_half,
        human_high=human + human_half,
        n=n,
        N=n + rest,
        lam=lam,
        gain=var_human / var if var > 0 else 1.0,
    )


def ppi_from_scores(f: dict[str, float], y: dict[str, float]) -> PPIEstimate:
    """:func:`ppi_mean` from annotator scores of every reply and human scores of the labelled ones, by reply id.

    Every labelled id must have an annotator score (the sample is drawn from the population ``f`` covers).
    """
    unknown = sorted(set(y) - set(f))
    if unknown:
        raise ValueError(f"{len(unknown)} labelled replies outside the population (first: {unknown[0]!r})")
    labelled = sorted(y)
    return ppi_mean([f[k] for k in sorted(f) if k not in y], [f[k] for k in labelled], [y[k] for k in labelled])


def ppi_paired(
    f_a: dict[str, float], f_b: dict[str, float], y_a: dict[str, float], y_b: dict[str, float]
) -> PPIEstimate:
    """The PPI++ mean of the paired difference B − A: the same estimator on per-item differences.

    The population is the ids both ``f`` cover; the labelled ones are those both ``y`` cover.
    """
    shared = set(f_a) & set(f_b)
    labelled = set(y_a) & set(y_b) & shared
    diff_f = {k: f_b[k] - f_a[k] for k in shared}
    return ppi_from_scores(diff_f, {k: y_b[k] - y_a[k] for k in labelled})
