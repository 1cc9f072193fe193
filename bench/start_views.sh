#!/usr/bin/env bash
# Start views and statistics-answered SPARQL: loads a dataset into a temporary store (or uses
# the store given with --data) and runs `lodestone-bench start-views` on it (p50/p99 of each
# root view and each SPARQL count form; --full adds one full evaluation of each form).
#
#   bench/start_views.sh [FILE] [BENCH ARGS…]   (default: ../shared/data/bsbm/bsbm-10k.nt.zst)
#   STORE=/path/to/store bench/start_views.sh - [BENCH ARGS…]   (an existing store, no load)
#   BENCH ARGS: --runs N, --full, --strict, --views bench/start_views_bsbm.tsv --view-runs N
#   (constrained views: ranges of price over the offers, classes of reviews of a producer's
#   products, …; see `lodestone-bench start-views --help`)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/bsbm/bsbm-10k.nt.zst}
shift || true
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server -p lodestone-bench
if [ -n "${STORE:-}" ]; then
  store=$STORE
else
  work=$(mktemp -d /tmp/lodestone-bench-start.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  store=$work/store
  /usr/bin/time -f "load: %e s, %M KB max RSS" \
    "$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone" load --data "$store" "$file" | tail -1
fi
"$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone-bench" start-views --data "$store" "$@"
