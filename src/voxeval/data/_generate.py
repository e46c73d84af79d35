"""LLM dataset generation with the paper's Appendix A prompt: validated JSON, retries, near-duplicate removal."""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.data._schema import REQUIRED_GOLD_FIELDS, parse_gold
from voxeval.errors import ConfigError, InputError, Location
from voxeval.io import AppendLog
from voxeval.languages import LOCALES
from voxeval.prompts import fill, for_language, load_prompt
from voxeval.structured import StructuredOutputFailed, complete_validated, extract_json_object

PROMPT = "da/generate.v1"
"""The Appendix A prompt; other languages use its translation (``da/generate.en.v1``, ``da/generate.zh.v1``)."""
SUM_TOLERANCE = 0.01
"""A generated sequence's importances must sum to 1 within this; otherwise the model is asked again."""
NEAR_DUPLICATE = 0.8
"""Inputs whose character-trigram Jaccard similarity reaches this are near-duplicates; the later one is dropped."""

DEFAULT_DOMAINS = (
    "timer", "alarm", "weather", "calendar", "reminder", "message", "call", "navigation", "traffic", "music",
    "smart_home", "shopping", "recipe", "conversion", "calculation", "translation", "news", "sports",
    "general_knowledge", "device_settings", "small_talk", "unsupported_request", "ambiguous_request",
    "error_situation",
)  # fmt: skip


_STYLES = {
    "ja": ("丁寧な依頼", "くだけた命令", "短い断片的な発話", "疑問文", "状況説明を含む発話"),
    "en": (
        "a polite request",
        "a casual command",
        "a short fragment",
        "a question",
        "an utterance explaining the situation",
    ),
    "zh": ("礼貌的请求", "随意的命令", "简短的片段式说法", "疑问句", "包含情境说明的说法"),
}
"""Variety hints for the user's utterance, per language, used in turn."""


def instruction(domain: str, index: int, language: str = "ja") -> str:
    """The {USER_INSTRUCTION} of Appendix A.4 for one sample (domain plus a variety hint), in ``language``."""
    style = _STYLES[language][index % len(_STYLES[language])]
    if language == "en":
        return (
            f'Generate one sample in the domain "{domain}". Make the user\'s utterance {style}, in a concrete '
            f"situation different from the typical examples so far (sample number {index})."
        )
    if language == "zh":
        return (
            f"请生成1条领域为“{domain}”的样本。用户的话采用{style}的形式，"
            f"情境要具体，并且不同于之前的典型例子（样本编号 {index}）。"
        )
    return (
        f"ドメイン「{domain}」のサンプルを1件生成してください。ユーザー発話は{style}とし、"
        f"これまでの典型例とは異なる具体的な状況にしてください（サンプル番号 {index}）。"
    )


def validate_generated(text: str, language: str = "ja") -> dict[str, Any]:
    """Parse and check one generated sample; ``ValueError`` messages are fed back to the model."""
    row = extract_json_object(text)
    missing = [k for k in REQUIRED_GOLD_FIELDS if k != "id" and k not in row]
    if missing:
        raise ValueError(f"missing required keys: {', '.join(missing)}")
    try:
        sample = parse_gold({"id": "generated", **row}, Location(field="sample"))
    except InputError as exc:
        raise ValueError(f"{exc.where.field}: {exc.message}") from None
    total = math.fsum(float(s["importance"]) for s in row["output_dialogue_acts"]["steps"])
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"output_dialogue_acts.steps importances sum to {total:.3f}; they must sum to 1")
    weights = [float(s["importance"]) for s in row["output_dialogue_acts"]["steps"]]
    if len(weights) > 1 and weights.count(max(weights)) > 1:
        raise ValueError("two steps share the largest importance; the central act must have the unique maximum")
    if row["input"].get("role") != "USER" or row["output"].get("role") != "ASSISTANT":
        raise ValueError('input.role must be "USER" and output.role "ASSISTANT"')
    if sample.locale != LOCALES[language]:
        raise ValueError(f'input.locale must be "{LOCALES[language]}"')
    return row


def _trigrams(text: str) -> set[str]:
    squashed = "".join(ch for ch in text if ch.isalnum())
    return {squashed[i : i + 3] for i in range(max(len(squashed) - 2, 1))}


def near_duplicate_of(text: str, kept: dict[str, set[str]]) -> str | None:
    """The id of a kept input this text nearly duplicates (trigram Jaccard ≥ 0.8), if any."""
    grams = _trigrams(text)
    for other_id, other in kept.items():
        union = len(grams | other)
        if union and len(grams & other) / union >= NEAR_DUPLICATE:
            return other_id
    return None


@dataclass(frozen=True)
class GenerationReport:
    """Counts of one generation run."""

    kept: int
    """Valid, non-duplicate samples in the output file."""
    failed: int
    """Samples recorded as failures (invalid after retries, or provider errors)."""
    duplicates: int
    """Valid samples dropped as near-duplicates (recorded in the failures file)."""


async def generate(
    model: Any,
    model_spec: str,
    n: int,
    domains: Sequence[str],
    out: Path,
    *,
    attempts: int = 3,
    concurrency: int = 4,
    language: str = "ja",
) -> GenerationReport:
    """Generate ``n`` samples in ``language`` into ``out`` (resumable); failures and duplicates go to
    ``<out>.failures.jsonl``."""
    from voxeval.llm import ChatMessage, ChatRequest

    if language not in LOCALES:
        raise ConfigError(f"no generation prompt for language {language!r}; choose one of {', '.join(LOCALES)}")
    template = load_prompt(for_language(PROMPT, language))
    check = functools.partial(validate_generated, language=language)
    failures_path = out.with_name(out.stem + ".failures.jsonl")
    with AppendLog(out) as good, AppendLog(failures_path) as bad:
        kept = {r["id"]: _trigrams(r["input"]["text"]) for r in good.rows.values()}
        plan = [(f"gen-{domains[i % len(domains)]}-{i:04d}", domains[i % len(domains)], i) for i in range(n)]
        todo = [p for p in plan if p[0] not in good.done and p[0] not in bad.done]
        limit = asyncio.Semaphore(concurrency)

        async def one(sample_id: str, domain: str, index: int) -> None:
            text = fill(template.text, USER_INSTRUCTION=instruction(domain, index, language))
            request = ChatRequest(
                messages=(ChatMessage("user", text=text),), temperature=1.0, json_output=True, seed=index
            )
            meta = {"id": sample_id, "domain": domain, "generator": model_spec, "prompt": template.name}
            meta["prompt_sha256"] = template.sha256
            async with limit:
                try:
                    row, _, tries, _ = await complete_validated(model, request, check, attempts=attempts)
                except StructuredOutputFailed as exc:
                    bad.append(
                        {**meta, "status": "failed", "error": str(exc), "raw": exc.raw, "attempts": exc.attempts}
                    )
                    return
                except Exception as exc:  # provider gave up after its retries: recorded, never dropped
                    bad.append({**meta, "status": "failed", "error": f"{type(exc).__name__}: {exc}"})
                    return
            duplicate = near_duplicate_of(row["input"]["text"], kept)
            if duplicate:
                bad.append({**meta, "status": "duplicate", "error": f"near-duplicate input of {duplicate}", "raw": row})
                return
            kept[sample_id] = _trigrams(row["input"]["text"])
            good.append({"id": sample_id, "domain": domain, **row, "generator": model_spec, "attempts": tries})

        # Duplicates are judged against the samples kept before them (in order of completion).
        await asyncio.gather(*(one(*p) for p in todo))
        duplicates = sum(1 for r in bad.rows.values() if r.get("status") == "duplicate")
        return GenerationReport(len(good.rows), len(bad.rows) - duplicates, duplicates)
