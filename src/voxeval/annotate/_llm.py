"""``llm`` annotator: the spec's LLM annotation (4.1), with the labelling guide's conventions, validated JSON."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from voxeval.acts import MAX_STEPS, Acts, Step, normalise, parse_step
from voxeval.annotate._protocol import Annotation, AnnotationFailed, AnnotationInput, Reference, annotators
from voxeval.errors import ConfigError, InputError, Location
from voxeval.prompts import fill, load_prompt
from voxeval.structured import StructuredOutputFailed, complete_validated, extract_json_object

PROMPT = "da/annotate.v3"
"""The Japanese prompt file: v2 plus the guide's second round of settled cases and a ``<reference>`` block (the
reference reply and its acts, to judge what the reply answers, never to copy; 「（参照応答なし）」 without one). v1 and
v2 are kept for reproducing old runs."""


@dataclass(frozen=True)
class PromptLanguage:
    """An annotation prompt and the words it fills in for one language."""

    prompt: str
    """Prompt file name (``da/annotate.v3`` for Japanese)."""
    no_reference: str
    """The ``<reference>`` block's text when the reply comes without a reference."""
    no_background: str
    """The ``<scenario>`` block's text without a background."""
    no_input: str
    """The ``<user_utterance>`` block's text without the user's words."""
    reference_reply: str
    """Label of the reference reply's text in the ``<reference>`` block."""
    reference_acts: str
    """Label of the reference's acts."""
    no_acts: str
    """The reference's acts when it has none."""
    quotes: tuple[str, str]
    """Opening and closing quote marks around texts and spans."""


PROMPT_LANGUAGES = {
    "ja": PromptLanguage(
        PROMPT, "（参照応答なし）", "（なし）", "（不明）", "参照応答: ", "注釈: ", "（行為なし）", ("「", "」")
    ),
    "en": PromptLanguage(
        "da/annotate.en.v1",
        "(no reference reply)",
        "(none)",
        "(unknown)",
        "Reference reply: ",
        "Annotation: ",
        "(no acts)",
        ('"', '"'),
    ),
    "zh": PromptLanguage(
        "da/annotate.zh.v1", "（无参考回复）", "（无）", "（不详）", "参考回复：", "标注：", "（无行为）", ("“", "”")
    ),
}
"""The annotation prompt per dataset language (issue 34: English and Mandarin prompts of v3's structure)."""

NO_REFERENCE = PROMPT_LANGUAGES["ja"].no_reference
"""The Japanese ``<reference>`` block's text when the reply comes without a reference (``voxeval annotate``)."""


def prompt_language(language: str) -> PromptLanguage:
    """The annotation prompt of ``language``; a ConfigError names the languages that have one."""
    if language not in PROMPT_LANGUAGES:
        raise ConfigError(
            f"the llm annotator has no annotation prompt in {language!r}; it has {', '.join(PROMPT_LANGUAGES)}"
        )
    return PROMPT_LANGUAGES[language]


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities, so text placed in the prompt cannot close its delimiting tags."""
    return html.escape(text, quote=False)


def format_reference(reference: Reference, language: str = "ja") -> str:
    """The reference reply and its acts as the prompt's ``<reference>`` block (escaped), worded in ``language``.

    >>> from voxeval.acts import Step
    >>> print(format_reference(Reference("晴れです。", (Step("Answer", 1.0, None, "晴れです。"),))))
    参照応答: 「晴れです。」
    注釈: Answer「晴れです。」
    >>> print(format_reference(Reference("It's sunny.", (Step("Answer", 1.0, None, "It's sunny."),)), "en"))
    Reference reply: "It's sunny."
    Annotation: Answer "It's sunny."
    """
    words = prompt_language(language)
    left, right = words.quotes
    gap = " " if language == "en" else ""
    acts = " / ".join(f"{s.act}{gap}{left}{s.span}{right}" if s.span else s.act for s in reference.acts)
    return escape(
        f"{words.reference_reply}{left}{reference.text}{right}\n{words.reference_acts}{acts or words.no_acts}"
    )


def parse_annotation(text: str, reply: str) -> tuple[Acts, int]:
    """Validate an annotator LLM's JSON; returns the normalised acts and how many spans had to be dropped.

    Labels and weights are strict (a ``ValueError`` names the step and field, and is fed back to the model).
    An empty list is valid: text that performs no task act (noise, chatter alone) has no steps. Spans copied in
    their escaped form (``&lt;``) are matched unescaped.
    A span that is not an exact, in-order substring of the reply is dropped rather than failing the whole
    annotation (documented repair): the labels and weights are what the metrics use.
    """
    data = extract_json_object(text)
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise ValueError('the object must have a "steps" list')
    if len(steps) > MAX_STEPS:
        raise ValueError(f"{len(steps)} steps; a reply has at most {MAX_STEPS} dialogue acts")
    parsed: list[Step] = []
    dropped, cursor = 0, 0
    for i, raw in enumerate(steps):
        try:
            step = parse_step(raw, Location(field=f"steps[{i}]"))
        except InputError as exc:
            raise ValueError(f"{exc.where.field}: {exc.message}") from None
        span = step.span
        if span is not None and reply.find(span, cursor) < 0 and html.unescape(span) != span:
            span = html.unescape(span)  # copied from the escaped reply in the prompt
            step = Step(step.act, step.importance, step.rationale, span)
        if span is not None:
            found = reply.find(span, cursor) if span else -1
            if found < 0:
                step, dropped = Step(step.act, step.importance, step.rationale, None), dropped + 1
            else:
                cursor = found + len(span)
        parsed.append(step)
    try:
        return normalise(parsed), dropped
    except OverflowError:  # e.g. 1e308 + 1e308
        raise ValueError("the importances are too large to add up; give relative weights such as 0.7") from None


class LLMAnnotator:
    """Annotates with a chat model at temperature 0; invalid JSON is retried with the error fed back."""

    concurrency = 8

    def __init__(self, model_spec: str, *, attempts: int = 3, language: str = "ja") -> None:
        from voxeval.llm import chat_model_from_spec

        if not model_spec:
            raise ConfigError("llm annotator needs a model: llm:openai:gpt-5.4-mini, llm:gemini:gemini-3.8-flash, …")
        self.model = chat_model_from_spec(model_spec)
        self.name = f"llm:{model_spec}"
        self.attempts = attempts
        self.language = language
        self.prompt = load_prompt(prompt_language(language).prompt)
        self._prompts = {language: self.prompt}

    def _prompt(self, language: str) -> Any:
        if language not in self._prompts:
            self._prompts[language] = load_prompt(prompt_language(language).prompt)
        return self._prompts[language]

    def request(self, item: AnnotationInput) -> Any:
        """The chat request for one reply, with the prompt of the reply's language (pure apart from the prompt
        file)."""
        from voxeval.llm import ChatMessage, ChatRequest

        words = prompt_language(item.language)
        text = fill(
            self._prompt(item.language).text,
            background=escape(item.background or words.no_background),
            user_input=escape(item.user_input or words.no_input),
            reference=words.no_reference if item.reference is None else format_reference(item.reference, item.language),
            reply=escape(item.reply),
        )
        return ChatRequest(messages=(ChatMessage("user", text=text),), temperature=0.0, json_output=True)

    async def annotate(self, item: AnnotationInput) -> Annotation:
        """Annotate one reply."""
        try:
            (acts, dropped), raw, attempts, response = await complete_validated(
                self.model, self.request(item), lambda t: parse_annotation(t, item.reply), attempts=self.attempts
            )
        except StructuredOutputFailed as exc:
            raise AnnotationFailed(str(exc), exc.raw, exc.attempts) from None
        meta = {"attempts": attempts, "spans_dropped": dropped, "model_version": response.model_version}
        return Annotation(acts, raw, meta)

    def describe(self) -> dict[str, Any]:
        """Model, prompt and its hash (the prompt of ``language``, the run's; each reply gets its own language's)."""
        return {
            "annotator": "llm",
            "model": self.model.describe(),
            "language": self.language,
            "prompt": self.prompt.name,
            "prompt_sha256": self.prompt.sha256,
            "temperature": 0.0,
            "attempts": self.attempts,
        }


@annotators.register("llm")
def make_llm(arg: str, **options: Any) -> LLMAnnotator:
    """``llm:MODEL_SPEC`` (any chat model spec of voxeval.llm); option ``language`` (``ja``, ``en``, ``zh``) names
    the prompt recorded for the run; each reply is annotated with its own language's prompt."""
    return LLMAnnotator(arg, **options)
