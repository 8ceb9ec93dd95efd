# Mnemo: `make run` starts everything on a laptop, `make test` runs the whole suite.
# Both install what is missing first (virtualenv, Python packages, front-end packages, Chromium).
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# The first Python 3.12 that actually runs (a pyenv shim may exist without the version enabled).
PYTHON312 ?= $(shell for p in $$(ls -d $$HOME/.pyenv/versions/3.12*/bin/python3.12 /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | sort -rV) $$(command -v python3.12); do \
  "$$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && { echo "$$p"; break; }; done)
PY_STAMP := $(VENV)/.installed
ASSETS_STAMP := frontend/static/vendor/.installed
PYTEST_ARGS ?=
BENCH_ARGS ?=
QUALITY_ARGS ?=
DASHBOARD_ARGS ?=
FINGERPRINT_ARGS ?=
LOAD_ARGS ?=
RELIABILITY_ARGS ?=

.PHONY: help install run test tour lint fmt bench bench-quality bench-memorybank bench-firewall bench-knowledge firewall-model bench-dashboard bench-fingerprint bench-load reliability browser clean

help:
	@echo "make run    start Mnemo (embedded Postgres + Redis, web server, Celery worker)"
	@echo "make test   run the whole test suite against real services"
	@echo "make lint   ruff + mypy"
	@echo "make tour   the README tour's screenshots again (docs/tour/)"
	@echo "make bench  recall/remember speed at 10k and 100k engrams vs baselines"
	@echo "make bench-quality  LongMemEval_S retrieval: Mnemo vs BM25 vs dense"
	@echo "make bench-memorybank  MemoryBank retrieval against labelled gold evidence"
	@echo "make bench-firewall  memory firewall precision/recall per family on labelled sets"
	@echo "make bench-knowledge  fact extraction precision/recall on a labelled sample, throughput"
	@echo "make bench-intents  intent routing accuracy per intent on a labelled query set"
	@echo "make bench-tasks  Pareto vs score-sum selection: causal ancestors in the context"
	@echo "make firewall-model  train the learned injection detector again (writes its weights)"
	@echo "make bench-dashboard  memory browser, graph, playground at 100k engrams"
	@echo "make bench-fingerprint  a digest of recall's answers (compare two commits)"
	@echo "make bench-load  1 client vs 50 clients, mixed remember/recall, over REST"
	@echo "make reliability  the long suite: schemathesis, cross-tenant fuzz, load, faults (~15 min)"

$(PY):
	@if [ -z "$(PYTHON312)" ]; then echo "Python 3.12 not found: install python3.12 (or pyenv install 3.12) and retry" >&2; exit 1; fi
	$(PYTHON312) -m venv $(VENV)

$(PY_STAMP): pyproject.toml requirements.lock | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[dev]'
	@touch $@

$(ASSETS_STAMP): frontend/package.json frontend/package-lock.json frontend/scripts/vendor.sh
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	frontend/scripts/vendor.sh
	@touch $@

install: $(PY_STAMP) $(ASSETS_STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads a browser).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; \
	fi

run: install
	$(PY) -m config.devserver

test: install browser
	$(PY) -m config.embedded --profile test -- $(PY) -m pytest $(PYTEST_ARGS)

# The README tour's screenshots, taken again by its browser test into docs/tour/.
tour: install browser
	MNEMO_TOUR_DIR=$(CURDIR)/docs/tour $(PY) -m config.embedded --profile test -- $(PY) -m pytest -q tests/e2e/test_tour.py

# Speed over REST against baselines (see bench/recall.py); data kept in var/bench.
bench: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/recall.py $(BENCH_ARGS)

# Retrieval quality on LongMemEval_S: Mnemo vs BM25 vs dense (see bench/longmemeval.py).
bench-quality: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/longmemeval.py $(QUALITY_ARGS)

# Train the learned injection detector again (memory/firewall/train.py) from bench/data and
# LongMemEval_S chat turns; writes memory/firewall/injection_weights.npz (committed).
firewall-model: install
	$(PY) -m memory.firewall.train

# The memory firewall on its labelled sets: precision and recall per family (bench/firewall.py).
bench-firewall: install
	$(PY) bench/firewall.py $(FIREWALL_ARGS)

bench-knowledge: install
	$(PY) bench/knowledge.py $(KNOWLEDGE_ARGS)
	$(PY) -m config.embedded --profile bench -- $(PY) bench/knowledge_recall.py $(KNOWLEDGE_RECALL_ARGS)

# Intent routing accuracy per intent on bench/data/intent_queries.jsonl (see bench/intents.py).
bench-intents: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/intents.py

# Pareto vs sum vs score selection on agent trajectories with known causal ancestry.
bench-tasks: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/tasks.py $(TASKS_ARGS)

# The same on MemoryBank, against gold evidence labelled in bench/data (see bench/memorybank.py).
bench-memorybank: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/memorybank.py $(MEMORYBANK_ARGS)

# mypy reads the Django settings (django-stubs plugin): placeholder service URLs suffice, nothing
# connects. What it checks is in pyproject.toml ([tool.mypy] files: every production package).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DATABASE_URL=postgresql://lint@localhost/lint REDIS_URL=redis://localhost:1 \
	  $(VENV)/bin/mypy

fmt: install
	$(VENV)/bin/ruff format -q .
	$(VENV)/bin/ruff check -q --fix .

clean:
	rm -rf $(VENV) frontend/node_modules frontend/static/vendor var/test

# The dashboard at 100k engrams: browser pages deep by cursor vs OFFSET, graph, playground.
bench-dashboard: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/dashboard.py $(DASHBOARD_ARGS)

# A digest of what recall returns on LongMemEval_S questions: equal on two commits = same results.
bench-fingerprint: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/fingerprint.py $(FINGERPRINT_ARGS)

# 1 client, then 50, remembering and recalling at once; writes bench/results/load.json.
bench-load: install
	$(PY) -m config.embedded --profile bench -- $(PY) bench/load.py $(LOAD_ARGS)

# The long reliability suite, four parts in one table (see bench/reliability.py); writes
# bench/results/reliability.json and fails unless every part is green.
reliability: install browser
	$(PY) bench/reliability.py $(RELIABILITY_ARGS)
