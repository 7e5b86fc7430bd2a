# Shiftdesk: `make run` starts the app with demo data; `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
# Browser libraries vendored into app/static/vendor/ (`make vendor` refreshes them from npm).
HTMX_VERSION := 2.0.11
PICO_VERSION := 2.1.1

.PHONY: run run-scaled test test-all-modes lint bench bench-scale load soak fuzz clean install \
	install-dev install-scale install-load vendor

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

$(VENV)/.installed-scale: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[scale]'
	touch $@

$(VENV)/.installed-load: $(VENV)/.installed-dev pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev,load]'
	touch $@

install: $(VENV)/.installed
install-scale: $(VENV)/.installed-scale
install-dev: $(VENV)/.installed-dev
install-load: $(VENV)/.installed-load

run: install
	SHIFTDESK_DEMO=1 $(BIN)/shiftdesk init --demo
	SHIFTDESK_DEMO=1 SHIFTDESK_ISSUER=http://127.0.0.1:$(PORT)/auth $(BIN)/shiftdesk serve --port $(PORT)

# Scale mode: two UI and two API gunicorn processes and a report worker on PostgreSQL and Redis
# (deploy/run_scaled.py says which variables it reads). Ctrl-C or SIGTERM stops them all.
run-scaled: install-scale
	exec $(BIN)/python deploy/run_scaled.py

lint: install-dev
	$(BIN)/ruff check app tests deploy .ci
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest -n auto --dist loadgroup

bench: install-dev
	$(BIN)/python -m tests.bench
	$(BIN)/python -m tests.bench.pages

# Locust: the three staff journeys and API reads, embedded and scale mode at 25, 50 and 100
# users, one line each (LOAD_MODES, LOAD_USERS, LOAD_SECONDS; tests/load/__main__.py).
load: install-load
	$(BIN)/python -m tests.load load

# 30 minutes (SOAK_MINUTES) of mixed load against scale mode: memory, connections, errors.
soak: install-load
	$(BIN)/python -m tests.load soak

# Organisations of 500, 2,000 and 8,000 providers on PostgreSQL: one table of per-size figures.
bench-scale: install-dev
	$(BIN)/python -m tests.bench.scale

# Every operation, FUZZ_EXAMPLES examples each (about half an hour at 300 on 2 cores), the
# paths split in two halves run side by side; then the hostile queries of the web pages.
FUZZ_EXAMPLES ?= 300
FUZZ = SHIFTDESK_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest tests/api/test_schemathesis.py \
	-p no:xdist -p no:cacheprovider
fuzz: install-dev
	SHIFTDESK_FUZZ_PATHS='^/v1/(settings|[a-r])' $(FUZZ) & first=$$!; \
	SHIFTDESK_FUZZ_PATHS='^/v1/(s[^e]|[t-z])' $(FUZZ); second=$$?; \
	wait $$first && test $$second -eq 0
	SHIFTDESK_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest tests/web/test_hostile_queries.py \
		tests/api/test_problems.py -k hostile -n auto --timeout 0

clean:
	rm -rf $(VENV) instance .pytest_cache .ruff_cache .hypothesis

# Fetch the pinned htmx and Pico CSS from npm and copy their dist files into app/static/vendor/.
vendor:
	@tmp=$$(mktemp -d) && cd $$tmp && \
	npm pack --silent htmx.org@$(HTMX_VERSION) @picocss/pico@$(PICO_VERSION) >/dev/null && \
	tar -xzf htmx.org-$(HTMX_VERSION).tgz package/dist/htmx.min.js && \
	cp package/dist/htmx.min.js $(CURDIR)/app/static/vendor/htmx.min.js && rm -rf package && \
	tar -xzf picocss-pico-$(PICO_VERSION).tgz package/css/pico.min.css && \
	cp package/css/pico.min.css $(CURDIR)/app/static/vendor/pico.min.css && \
	cd / && rm -rf $$tmp
	@echo "app/static/vendor: htmx $(HTMX_VERSION), Pico CSS $(PICO_VERSION)"

# Every browser journey in both modes (make test runs the split mode for the marked journeys only).
test-all-modes: install-dev
	SHIFTDESK_BROWSER_MODES=all $(BIN)/pytest tests/browser -n auto --dist loadgroup
