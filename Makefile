# One command each: `make serve` (set up, build, serve) and `make test`
# (set up, install Chromium if missing, run every test). `make workshop`
# builds the offline copy for a laptop with no network.

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
PORT    ?= 8000
# The address the server answers on: this machine only; HOST=0.0.0.0 serves the local network (a room).
HOST    ?= 127.0.0.1
SITE_URL ?= http://127.0.0.1:$(PORT)/
export NO_MKDOCS_2_WARNING := 1
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup site serve test lint lock bench workshop chromium clean

setup: $(VENV)/.installed node_modules/.installed

# Debian ships venv support separately (python3-venv): install it when missing.
$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV) || { $(SUDO) apt-get update && $(SUDO) apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install --disable-pip-version-check -q --require-hashes -r requirements-dev.txt
	touch $@

# requirements-dev.txt locks the whole tool tree with hashes; edit requirements-dev.in, then run this.
lock: setup
	$(BIN)/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
		--output-file requirements-dev.txt requirements-dev.in

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

chromium:
	@[ -x /usr/bin/chromium ] || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

site: setup
	SITE_URL=$(SITE_URL) $(BIN)/mkdocs build --strict

serve: site
	$(BIN)/python tools/serve_site.py site --port $(PORT) --host $(HOST)

# The browser tests build their own copy of the site once, for the port they serve it on.
# Tests marked slow run only when asked for: make test PYTEST_ARGS="-m slow".
PYTEST_ARGS ?= -m "not slow"
test: setup chromium lint
	$(BIN)/pytest -q $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check emulator tests hooks tools bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# Every benchmark figure against its target, in one run: make bench BENCH_ARGS="--runs 5".
BENCH_ARGS ?=
bench: setup chromium
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# One copy per laptop (the default), or one laptop serving the room: make workshop SITE_URL=http://ADDRESS:8000/
# with the instructor's address on the local network, then python3 workshop/serve.py --host 0.0.0.0.
workshop: setup
	rm -rf dist/workshop
	mkdir -p dist/workshop
	SITE_URL=$(SITE_URL) $(BIN)/mkdocs build --strict -d dist/workshop/site
	cp tools/serve_site.py dist/workshop/serve.py
	tar -C dist -czf dist/workshop.tar.gz workshop
	@echo "Offline copy for $(SITE_URL): dist/workshop/ and dist/workshop.tar.gz"
	@echo "Each laptop: tar -xzf workshop.tar.gz && python3 workshop/serve.py, then open http://127.0.0.1:8000/"
	@echo "One laptop for the room: python3 workshop/serve.py --host 0.0.0.0, learners open $(SITE_URL)"

clean:
	rm -rf site dist .cache test-results
