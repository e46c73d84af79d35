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

APT_TEST := espeak-ng
EXTRAS_TEST := audio,asr,annotator,acoustics,report,test
EXTRAS_DEMO := audio,asr,annotator,acoustics,report,llm-local
DEMO_OUT ?= runs/demo

.PHONY: help test demo bench lint typecheck apt-test clean

help:
	@echo "make demo   - offline demo: score the built-in example set and write a report (see README)"
	@echo "make test   - install test dependencies into $(VENV) and run ruff, mypy and pytest"
	@echo "make bench  - run the benchmarks under benchmarks/ and write docs/performance.md"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.stamp-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[$(EXTRAS_TEST)]'
	touch $@

$(VENV)/.stamp-demo: pyproject.toml | $(BIN)/python
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
	$(BIN)/ruff check src tests benchmarks

typecheck: $(VENV)/.stamp-test
	$(BIN)/mypy

test: apt-test $(VENV)/.stamp-test lint typecheck
	$(BIN)/pytest

demo: $(VENV)/.stamp-demo
	$(BIN)/voxeval score --gold examples/paper/gold.jsonl --pred examples/paper/pred.jsonl \
	  --out $(DEMO_OUT) --dataset-name paper-examples --system-name paper-predictions

bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache
