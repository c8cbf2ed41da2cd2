# The two commands: `make test` (everything CI runs) and `make run` (the stack on this machine).
# Both bootstrap from a machine with nothing but Python: uv is installed if missing, and uv makes .venv on the
# Python of .python-version (3.13: found on PATH or through pyenv, else downloaded). The code runs on 3.11+;
# UV_PYTHON=3.11 make test uses an older interpreter where 3.13 is neither installed nor downloadable.

SHELL := /bin/bash
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo $(CURDIR)/.tools/bin/uv)
RUN := $(UV) run --no-sync
SRC := shared-contracts/src service-kit/src verdict-statistics/src services/coordinator/src services/research/src services/debate/src services/judge/src evaluation/src tests-e2e/fakes

.PHONY: help bootstrap sync lint format typecheck layers test test-fast run serve research cli keys bench evaluate openapi-client vendor clean

help:
	@echo "make test      bootstrap, lint (ruff), types (mypy), layers (import-linter), all tests"
	@echo "make run       start the services locally (SQLite, offline snapshot, rules engines)"
	@echo "make serve SERVICE=research   start one service alone, with the server options make run gives it"
	@echo "make research SYMBOL=600519.SH   post a research to the running stack and print a summary (STRICT=1: fail on a refusal)"
	@echo "make cli ARGS=\"--sessions\"      the same CLI with any of its options (ARGS=--help lists them)"
	@echo "make keys ARGS=\"create alice\"  create, revoke or list API keys (stock-research-keys)"
	@echo "make bench     run the benchmarks and write a report under bench-results/"
	@echo "make vendor    refresh the console's vendored front-end files from the npm registry (needs npm)"
	@echo "make evaluate  walk-forward evaluation of the verdicts, report under eval-results/ (ARGS=\"--help\")"
	@echo "make openapi-client   a Python client of the running coordinator's API in coordinator_client/"

$(CURDIR)/.tools/bin/uv:
	$(PYTHON) -m venv $(CURDIR)/.tools
	$(CURDIR)/.tools/bin/pip install --quiet uv

bootstrap: $(UV)
	$(UV) sync --all-packages --locked

sync: bootstrap

lint: bootstrap
	$(RUN) ruff check .
	$(RUN) ruff format --check .

format: bootstrap
	$(RUN) ruff check --fix .
	$(RUN) ruff format .

typecheck: bootstrap
	$(RUN) mypy $(SRC)

layers: bootstrap
	$(RUN) lint-imports

test: lint typecheck layers
	CHECKOV_UV=$(UV) $(RUN) pytest

test-fast: bootstrap
	$(RUN) pytest -x -q -m "not e2e"

# The stack on this machine (no Docker, no key, no internet): honcho runs the Procfile, the script waits
# for every /readyz, prints the URLs and a curl; Ctrl-C stops everything.
run: bootstrap
	$(RUN) python scripts/run_local.py

# One service alone, started as make run (Procfile) and the image start every service: python -m service_kit.serve
# (uvicorn with the guarded protocol's request-head limits, --limit-concurrency, keep-alive 5 s, no Server header).
# make serve SERVICE=research [PORT=8011]; the port defaults to the service's own (8000-8003).
SERVICE ?= coordinator
serve: bootstrap
	$(RUN) python -m service_kit.serve $(SERVICE) $(if $(PORT),--port $(PORT))

# Post a research to the running stack (make run) and print a summary. COORDINATOR_URL=... for another one;
# EXPERTS=a,b for some experts only; DATE=YYYY-MM-DD for a research as of that day (point in time); without DATE, as of
# the last trading day the data has for the symbol (the CLI says which before it sends); REPORT_LANGUAGE=en|zh.
# A refusal (a 4xx, a research that failed) is the CLI's answer, printed by it: make exits 0 and adds no
# "make: *** ... Error 1" of its own (the recipe's failure is ignored, and make runs silent, the only way it prints
# nothing for an ignored one). STRICT=1 keeps the failure, for scripts: make exits 2 on a refusal. The CLI run
# directly (.venv/bin/python scripts/research_cli.py) exits 0, 1 (refused or failed) or 2 (usage, unreachable).
ifneq ($(filter research cli,$(MAKECMDGOALS)),)
ifndef STRICT
MAKEFLAGS += --silent
endif
endif
CLI_FAILURE := $(if $(STRICT),,-)
SYMBOL ?= 600519.SH
research: $(UV)
	$(CLI_FAILURE)$(RUN) python scripts/research_cli.py $(SYMBOL) $(if $(EXPERTS),--experts "$(EXPERTS)") $(if $(DATE),--analysis-date "$(DATE)")

# The same CLI with any of its arguments (--help): make cli ARGS="--sessions --status partial". It runs on the
# uv that make installed when none was on PATH (.tools/bin/uv), where a bare `uv run` would not be found.
ARGS ?= --help
cli: $(UV)
	$(CLI_FAILURE)$(RUN) python scripts/research_cli.py $(ARGS)

# API keys (AUTH_MODE=api_key; docs/security.md): make keys ARGS="create alice", "create ops --scope admin",
# "revoke alice", "list" (with --file or API_KEYS_FILE). A key is printed once; only its hash is stored.
keys: $(UV)
	$(RUN) stock-research-keys $(ARGS)

# Benchmarks (issue 8): the real services as processes on loopback, a report under bench-results/<timestamp>/
# (JSON, Markdown, PNG) and docs/benchmarks.md; ~6-10 min on 2 cores. BENCH_ARGS=--quick for a smaller run.
BENCH_ARGS ?=
bench: bootstrap
	$(RUN) python -m benchmarks $(BENCH_ARGS)

# Walk-forward evaluation (issue 27): starts the services on free loopback ports, asks for a point-in-time
# research of every symbol at every month end (the chosen experts, and the technical analyst alone), scores each
# verdict on the bars that followed; report under eval-results/<UTC timestamp>/ (evaluation/README.md). The whole
# offline universe takes ~12 min on 2 cores (the run of record: 742 s, docs/evaluation-results.md); less:
# make evaluate ARGS="--symbols 600519.SH,601318.SH --start 2024-01-01"; the options: make evaluate ARGS=--help.
# (ARGS is passed only when given: its default is cli's.)
evaluate: bootstrap
	$(RUN) research-eval $(if $(filter command line environment,$(origin ARGS)),$(ARGS))

# A Python client of a running service's API (openapi-python-client, the version uv.lock pins), written to
# CLIENT_DIR (git-ignored): make openapi-client [OPENAPI_URL=http://127.0.0.1:8001/openapi.json CLIENT_DIR=research_client]
OPENAPI_URL ?= http://127.0.0.1:8000/openapi.json
CLIENT_DIR ?= coordinator_client
openapi-client: bootstrap
	$(RUN) openapi-python-client generate --url $(OPENAPI_URL) --meta none --output-path $(CLIENT_DIR) --overwrite

# The console's third-party front-end files (lightweight-charts; axe-core for its tests), pinned in their manifests
# (scripts/vendor_frontend.py): npm pack of each pinned version, files copied, sha256 rewritten. Only when
# changing a version: the files are committed, nothing is fetched at run time.
vendor: bootstrap
	$(RUN) python scripts/vendor_frontend.py

clean:
	rm -rf .venv .tools .pytest_cache .mypy_cache .ruff_cache
