# The two commands of the README: `make demo` (set up + run the local stack's demo) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
RUNTIME := $(VENV)/.runtime-stamp
DEPLOY := $(VENV)/.deploy-stamp
NODE := node_modules/.installed-stamp
SAM := SAM_CLI_TELEMETRY=0 $(VENV)/bin/sam

.PHONY: setup browser fonts screenshots deploy-web test lint types template unit integration reliability bench chaos demo local audit build deploy clean

setup: $(STAMP) $(NODE) browser

# The browser tests' Chromium: Debian's package (Playwright drives it; it never downloads a browser of
# its own). Installed when /usr/bin/chromium is missing and apt-get is there (as root); else the
# browser tests are skipped, saying why.
browser:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 \
	  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } \
	  || echo "chromium could not be installed: the browser tests will be skipped"; \
	fi

# The virtual environment, with a current pip.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# What the local stack needs (the demo, `make local`, the audit): boto3, Powertools, moto. Installed
# without compiling every module of every package (--no-compile): Python compiles each module the
# first time it is imported, and most of the SAM CLI's and the tools' never are (20 s of set-up).
$(RUNTIME): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile -e '.[local]'
	touch $(RUNTIME)

# The SAM CLI, for `make build` and `make deploy`.
$(DEPLOY): $(RUNTIME)
	$(PY) -m pip install --quiet --no-compile -e '.[deploy]'
	touch $(DEPLOY)

# The Node tools of the tests and the lint (asl-validator for the round workflow, axe-core for the
# browser tests, ESLint and TypeScript for web/js), as package-lock.json pins them.
$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE)

# Everything, with the tools of the tests (pytest, ruff, mypy, cfn-lint, the SAM CLI): one pip run
# (the extras of the other two stamps are in `dev`), which resolves the whole set once (a pip run
# per stamp took 15 s more on a fresh clone).
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile -e '.[dev]'
	touch $(RUNTIME) $(DEPLOY) $(STAMP)

# The Python (ruff), then the browser pages' JavaScript (web/js): ESLint (eslint.config.mjs) and
# TypeScript's checkJs over the JSDoc types (tsconfig.json), both from npm as package-lock.json pins them.
lint: $(STAMP) $(NODE)
	$(VENV)/bin/ruff check layers functions tests scripts
	node_modules/.bin/eslint --max-warnings 0 web/js
	node_modules/.bin/tsc -p tsconfig.json

types: $(STAMP)
	$(VENV)/bin/mypy

template: $(STAMP)
	$(VENV)/bin/cfn-lint template.yaml
	AWS_DEFAULT_REGION=us-east-1 $(SAM) validate --lint --region us-east-1

# The set-up (pip, npm and the browser at once), then every test: unit, integration (moto) and
# reliability, spread over TEST_WORKERS processes (pytest-xdist): each file's tests in one process,
# the longest files first (tests/support/spread.py), each process with its own local stack. Most
# tests wait on the stack's timers, so more processes than cores pays. Lint, types and the template
# run beside the tests, niced, in the CPU the waiting tests leave (a test on a real-time timer is not
# slowed by them; their output, in .venv/static.log, is shown after the tests'); the run fails if
# either does.
TEST_WORKERS ?= 4
PYTEST := $(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadfile
STATIC_LOG := $(VENV)/static.log

test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory --output-sync=target -j3 setup || exit 1; \
	nice -n 10 $(MAKE) --no-print-directory --output-sync=target -j3 lint types template > $(STATIC_LOG) 2>&1 & static=$$!; \
	$(PYTEST); tests=$$?; \
	wait $$static; checks=$$?; \
	echo "--- lint, types and the template"; cat $(STATIC_LOG); \
	word() { if [ "$$1" -eq 0 ]; then echo passed; else echo FAILED; fi; }; \
	echo "make test: the tests $$(word $$tests), lint, types and the template $$(word $$checks)," \
	     "$$(( $$(date +%s) - start )) s in all"; \
	test $$tests -eq 0 -a $$checks -eq 0

unit: $(STAMP)
	$(PYTEST) tests/unit

integration: $(STAMP)
	$(PYTEST) -m integration

reliability: $(STAMP)
	$(PYTEST) -m reliability

# The product's main job: the local stack plays rounds of all four games; last line: the audit.
demo: $(RUNTIME)
	$(PY) -m croupier.local.demo

# The local stack, left running (API on :3000, AWS services on :4566, pages on :8000) for curl and
# Swagger; other ports: make local ARGS="--api-port 3001 --aws-port 4567 --web-port 8001".
local: $(RUNTIME)
	$(PY) -m croupier.local.serve $(ARGS)

audit: $(RUNTIME)
	$(VENV)/bin/croupier audit

bench: $(STAMP)
	$(PY) scripts/bench.py

# The simulated world: the real handlers and workflow in memory, faults and each table's house rules
# from one seed, every invariant after every step; more: make chaos ARGS="--rounds 20000 --seed 7"
# (every game's defaults: ARGS="--no-house-rules").
chaos: $(STAMP)
	$(VENV)/bin/croupier chaos --rounds 1000 --seed 1 --jobs 2 --house-rules $(ARGS)

# Fonts for the pages' five languages in the screenshots (Debian's Noto: Arabic script with Nastaliq
# for Urdu, Devanagari, Thai), installed as root when the machine has none; a player's own device
# brings its fonts, so the tests do not need them.
fonts:
	@if ! fc-list 2>/dev/null | grep -q "Noto Nastaliq Urdu" && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing Debian's Noto fonts for the screenshots"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-core >/dev/null 2>&1 \
	  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-core; } \
	  || echo "fonts-noto-core could not be installed: Urdu, Hindi and Thai may show missing glyphs"; \
	fi

# The browser views' screenshots (docs/screenshots/*.png) and the page's figures (bytes, first paint).
screenshots: $(STAMP) browser fonts
	$(PY) scripts/screenshots.py

# The browser pages to the deployed stack's bucket and CloudFront, with their config.json.
deploy-web: $(DEPLOY)
	$(PY) scripts/deploy_web.py --stack $(or $(STACK),croupier-dev) $(ARGS)

# What deploys (.aws-sam/build): the functions and the shared layer (layers/shared/Makefile) for
# python3.12 on arm64. No Docker: SAM builds with a Python 3.12 on PATH (scripts/python312 finds one).
build: $(DEPLOY)
	@py312=$$(scripts/python312) && echo "sam build with $$py312" && PATH="$$(dirname "$$py312"):$$PATH" $(SAM) build

# Deploy that build as samconfig.toml says (stack croupier-dev); the first time: make deploy ARGS=--guided
deploy: build
	$(SAM) deploy --config-file samconfig.toml $(ARGS)

clean:
	rm -rf $(VENV) .aws-sam .pytest_cache .mypy_cache .ruff_cache .hypothesis
