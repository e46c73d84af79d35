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

# gcc: voxeval's compiled scoring code (setup.py), built by `pip install -e .`.
# chromium + chromium-driver (+ a Japanese font for its screenshots): the labelling app's browser test.
APT_TEST := espeak-ng chromium chromium-driver fonts-ipafont-gothic gcc
EXTRAS_TEST := audio,asr,annotator,acoustics,report,test
EXTRAS_DEMO := audio,asr,annotator,acoustics,report,llm-local
DEMO_OUT ?= runs/demo
# The demo evaluates the first DEMO_LIMIT samples of ja-assistant's test split (FULL=1: all 112 test samples)
# and DEMO_STYLE_LIMIT items of the Japanese acoustic-attribute style set.
DEMO_LIMIT ?= 40
DEMO_STYLE_LIMIT ?= 24
ifeq ($(FULL),1)
DEMO_LIMIT_ARG :=
else
DEMO_LIMIT_ARG := --limit $(DEMO_LIMIT)
endif

.PHONY: help test demo bench lint typecheck apt-test clean

help:
	@echo "make demo   - offline main job: synthesise inputs, run the offline cascade, annotate, score, HTML reports"
	@echo "make test   - install test dependencies into $(VENV) and run ruff, mypy and pytest"
	@echo "make bench  - run the benchmarks under benchmarks/ and write docs/performance.md (BENCH_ARGS=--quick: smaller)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.stamp-test: pyproject.toml setup.py src/voxeval/_native.c | $(BIN)/python
	$(BIN)/pip install -q -e '.[$(EXTRAS_TEST)]'
	touch $@

$(VENV)/.stamp-demo: pyproject.toml setup.py src/voxeval/_native.c | $(BIN)/python
	@echo "installing the offline stack (the llama.cpp build takes ~7 min on 2 cores the first time)"
	$(BIN)/pip install -e '.[$(EXTRAS_DEMO)]'
	touch $@

apt-test:
	@missing=""; for p in $(APT_TEST); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
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
	$(BIN)/pytest

demo: $(VENV)/.stamp-demo
	@echo "== 1/2 style: plain vs style-aware cascade on the Japanese acoustic-attribute set, acoustic judge"
	$(BIN)/voxeval run --benchmark style --dataset acoustic-ja --abilities gender,pitch,speed,volume,composite_properties \
	  --limit $(DEMO_STYLE_LIMIT) --system style-plain --system style-aware --judge acoustic:model --out $(DEMO_OUT)/style
	@echo "== 2/2 dialogue acts: offline cascade (Whisper base -> Qwen2.5 1.5B -> pyopenjtalk) on ja-assistant/test"
	$(BIN)/voxeval run --benchmark da --dataset ja-assistant --split test $(DEMO_LIMIT_ARG) \
	  --system cascade --annotator offline --out $(DEMO_OUT)/da
	@echo; echo "HTML reports: $(DEMO_OUT)/da/report.html (dialogue acts, Table 1 above) and $(DEMO_OUT)/style/report.html"

# Not part of `make test`. BENCH_ARGS=--quick runs smaller sizes and writes runs/performance-quick.md.
bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache
