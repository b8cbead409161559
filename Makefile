# The two commands of the README: `make serve` and `make test`. Everything else is a step of them.
SHELL := /bin/bash
PYTHON311 ?= $(shell command -v python3.11 || ls -d $$HOME/.pyenv/versions/3.11*/bin/python3.11 2>/dev/null | tail -n 1)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tfdist-installed
# Node tools (mermaid, the iframe-worker shim, lighthouse): npm ci again only when the lock file changes.
JS := tfdist_kb/site/js
JS_STAMP := $(JS)/node_modules/.tfdist-installed
UV_VERSION := 0.13.9
export UV_LINK_MODE ?= hardlink
export NO_MKDOCS_2_WARNING := 1
export PATH := $(CURDIR)/$(BIN):$(PATH)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup system envs serve site diagrams pdf test test-fast matrix bench coverage gpu-check new-entry drift lock clean

setup: system $(STAMP) $(JS_STAMP)

# Debian packages the browser tests and the PDFs need: the real browser, Chinese fonts, pdftotext.
system:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	command -v pdftotext >/dev/null || missing="$$missing poppler-utils"; \
	fc-list 2>/dev/null | grep -q "Noto Sans CJK" || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(STAMP): pyproject.toml tfdist/pyproject.toml tfdist_kb/proof/envs/dev.txt
	@test -n "$(PYTHON311)" || { echo "make: Python 3.11 not found (install it, or set PYTHON311=/path/to/python3.11)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON311) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/python -m pip install -q uv==$(UV_VERSION)
	$(BIN)/uv pip sync -q --python $(BIN)/python --compile-bytecode tfdist_kb/proof/envs/dev.txt
	$(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e . -e ./tfdist
	@touch $@

$(JS_STAMP): $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

envs: setup
	$(BIN)/tfdist envs all

# Preview: a snippet whose evidence is not yet recorded shows a warning box instead of failing.
# PORT=8001 when 8000 is taken (checked first: one line naming a free port, not MkDocs' traceback).
PORT ?= 8000
serve: setup
	@$(BIN)/python -m tfdist_kb.commands.serve_port '$(PORT)'
	TFDIST_PREVIEW=1 $(BIN)/mkdocs serve -a '127.0.0.1:$(PORT)'

site: setup
	$(BIN)/mkdocs build --strict --site-dir site
	TFDIST_OFFLINE=true $(BIN)/mkdocs build --strict --site-dir site-offline

# Draw the ```mermaid fences as SVG (docs/assets/diagrams/, committed) in headless Chromium, offline.
diagrams: setup
	$(BIN)/python -m tfdist_kb.site.diagrams

# The whole knowledge base as one PDF per language: site-print/tfdist-kb-en.pdf, tfdist-kb-zh.pdf
# (cover, contents with page numbers, outline, every fold opened), printed by headless Chromium.
pdf: setup
	$(BIN)/python -m tfdist_kb.site.pdf --out site-print

# Every test, every environment: snippets re-run (cache keyed on snippet + pins), compared with
# snippets/evidence.json; pages, notebooks, inline code blocks and the strict site build.
test: setup envs
	$(BIN)/pytest -v

# The same, default environment only.
test-fast: setup
	$(BIN)/tfdist envs default
	TFDIST_ENVS=default $(BIN)/pytest -v

# A new entry: next free ID, both pages, a failing and a fix snippet that run, the registry line,
# every part to write marked TODO(author) (make test fails until none is left). DRY_RUN=1: only say.
# The title goes to the shell single-quoted and unexpanded: quotes and $ in it stay as typed.
new-entry: QUOTED_TITLE = '$(subst ','\'',$(value TITLE))'
new-entry: $(STAMP)
	@test -n $(QUOTED_TITLE) || { echo 'make: new-entry needs the question: make new-entry TITLE="Why does ... under MirroredStrategy?"' >&2; exit 2; }
	@$(BIN)/tfdist new-entry $(QUOTED_TITLE) $(if $(DRY_RUN),--dry-run)

# Re-run every snippet, write snippets/evidence.json, then the tfdist package's error index from it.
matrix: setup envs
	$(BIN)/tfdist matrix
	$(BIN)/tfdist errors

# The site (strict build time, entry-page transfer, search index, Lighthouse), the matcher's latency
# on the real-error corpus (total, per paste median and max), then the matrix, then
# the test budget (runs per environment, the last make test by test file, make test at 2x and 4x the
# snippets). `tfdist bench --site-only`: the site's figures alone; `tfdist bench --budget`: the budget
# alone, read from records (nothing built or run).
bench: setup envs
	$(BIN)/tfdist bench

# Which real error pastes (tests/corpus/real_errors.jsonl) reach their entry first, by family: the
# table of the coverage page (docs/coverage.md); fails on a false link or a labelled paste missed.
coverage: setup
	$(BIN)/tfdist coverage

# On a machine with GPUs: every snippet on 4 physical GPUs (or 1 GPU split into 4), a table, and the
# machine's records in snippets/gpu/. GPU_PYTHON=/path/to/python uses that TensorFlow instead of
# building the CUDA environment from tfdist_kb/proof/envs/gpu/ (LIKE=ENV: whose expectations apply).
gpu-check: setup
	$(BIN)/tfdist gpu-check $(if $(GPU_PYTHON),--python $(GPU_PYTHON)) $(if $(LIKE),--like $(LIKE))

# Not part of `make test`: the newest TensorFlow/Keras/tf-keras (DRIFT=nightly: the nightlies) in
# environments beside tf2.21-keras3 and tf2.21-tfkeras; a table of what differs from the evidence.
drift: setup
	$(BIN)/tfdist drift $(if $(DRIFT),--channel $(DRIFT))

lock: setup
	$(BIN)/uv pip compile -q --no-header --python $(PYTHON311) --python-platform x86_64-manylinux_2_28 --extra dev pyproject.toml -o tfdist_kb/proof/envs/dev.txt
	$(BIN)/tfdist lock all
	for f in tfdist_kb/proof/envs/gpu/*.in; do $(BIN)/uv pip compile -q --no-header --python-version 3.11 --python-platform x86_64-manylinux_2_28 $$f -o $${f%.in}.txt; done

clean:
	rm -rf site site-offline site-print .cache
