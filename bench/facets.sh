#!/usr/bin/env bash
# Facet engine benchmark: loads a dataset into a temporary store and runs
# `lodestone-bench facets` on it (p50/p99 per view and depth, share of complete answers).
# The bench builds the store's text index first (words are matched through it, as the
# server does): about 4 minutes for BSBM 10k on a busy 2-core machine.
#
#   bench/facets.sh [FILE] [BENCH ARGS…]   (default: ../shared/data/bsbm/bsbm-10k.nt.zst)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/bsbm/bsbm-10k.nt.zst}
shift || true
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
work=$(mktemp -d /tmp/lodestone-bench-facets.XXXXXX)
trap 'rm -rf "$work"' EXIT
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server -p lodestone-bench
"$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone" load --data "$work/store" "$file" | tail -1
"$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone-bench" facets --data "$work/store" "$@"
