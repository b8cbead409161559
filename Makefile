# The two commands of the README: `make serve` and `make test`. Everything else is a step of them.
SHELL := /bin/bash
PYTHON311 ?= $(shell command -v python3.11 || ls -d $$HOME/.pyenv/versions/3.11*/bin/python3.11 2>/dev/null | tail -n 1)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tfdist-installed
# Node tools (mermaid, the iframe-worker shim, lighthouse): npm ci again only when the lock file changes.
JS := tfdist_kb/js
JS_STAMP := $(JS)/node_modules/.tfdist-installed
UV_VERSION := 0.13.9
export UV_LINK_MODE ?= hardlink
export NO_MKDOCS_2_WARNING := 1
export PATH := $(CURDIR)/$(BIN):$(PATH)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup system envs serve site diagrams pdf test test-fast matrix bench lock clean

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

$(STAMP): pyproject.toml tfdist/pyproject.toml tfdist_kb/envs/dev.txt
	@test -n "$(PYTHON311)" || { echo "make: Python 3.11 not found (install it, or set PYTHON311=/path/to/python3.11)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON311) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/python -m pip install -q uv==$(UV_VERSION)
	$(BIN)/uv pip sync -q --python $(BIN)/python --compile-bytecode tfdist_kb/envs/dev.txt
	$(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e . -e ./tfdist
	@touch $@

$(JS_STAMP): $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

envs: setup
	$(BIN)/tfdist envs all

# Preview: a snippet whose evidence is not yet recorded shows a warning box instead of failing.
serve: setup
	TFDIST_PREVIEW=1 $(BIN)/mkdocs serve -a 127.0.0.1:8000

site: setup
	$(BIN)/mkdocs build --strict --site-dir site
	TFDIST_OFFLINE=true $(BIN)/mkdocs build --strict --site-dir site-offline

# Draw the ```mermaid fences as SVG (docs/assets/diagrams/, committed) in headless Chromium, offline.
diagrams: setup
	$(BIN)/python -m tfdist_kb.diagrams

# The whole knowledge base as one PDF per language: site-print/tfdist-kb-en.pdf, tfdist-kb-zh.pdf
# (cover, contents with page numbers, outline, every fold opened), printed by headless Chromium.
pdf: setup
	$(BIN)/python -m tfdist_kb.pdf --out site-print

# Every test, every environment: snippets re-run (cache keyed on snippet + pins), compared with
# snippets/evidence.json; pages, notebooks, inline code blocks and the strict site build.
test: setup envs
	$(BIN)/pytest -v

# The same, default environment only.
test-fast: setup
	$(BIN)/tfdist envs default
	TFDIST_ENVS=default $(BIN)/pytest -v

# Re-run every snippet, write snippets/evidence.json, then the tfdist package's error index from it.
matrix: setup envs
	$(BIN)/tfdist matrix
	$(BIN)/tfdist errors

# The site (strict build time, entry-page transfer, search index, Lighthouse), then the matrix.
# `tfdist bench --site-only` for the site's figures alone.
bench: setup envs
	$(BIN)/tfdist bench

lock: setup
	$(BIN)/uv pip compile -q --no-header --python $(PYTHON311) --python-platform x86_64-manylinux_2_28 --extra dev pyproject.toml -o tfdist_kb/envs/dev.txt
	$(BIN)/tfdist lock all

clean:
	rm -rf site site-offline site-print .cache
