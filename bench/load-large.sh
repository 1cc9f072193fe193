#!/usr/bin/env bash
# Large bulk loads (issue 21): `lodestone load` on a small and a large N-Triples file and
# `oxigraph load` (PyPI's `oxigraph` package, the real server binary) on the large one, in the
# same run. Prints for each: quads/s, CPU as /usr/bin/time reports it (200 % is both of two
# cores), peak RSS, bytes on disk per quad; the large/small rate ratio; Lodestone/Oxigraph
# ratio; then Lodestone on the large file at a small --memory-budget.
#
#   bench/load-large.sh SMALL.nt LARGE.nt [SMALL_BUDGET_MB]
#   (BSBM: ../shared/tools/bsbm/README.md; 10k ≈ 3.5 M triples, 100k ≈ 35 M, 284826 ≈ 100 M)
# Set SKIP_OXIGRAPH=1 to leave Oxigraph out, SKIP_SMALL_BUDGET=1 to leave the last run out.
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:?small file}; large=${2:?large file}; small_budget=${3:-512}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
work=$(mktemp -d "${BENCH_DIR:-/tmp}/lodestone-load-large.XXXXXX")
trap 'rm -rf "$work"' EXIT

command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server
bin=$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME COMMAND…: runs it under /usr/bin/time -v; prints seconds, CPU, peak RSS.
run() {
    local name=$1; shift
    /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.err" || { tail -20 "$work/$name.err"; exit 1; }
    local secs cpu rss
    secs=$(awk -F': ' '/Elapsed/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/$name.err")
    cpu=$(awk -F': ' '/Percent of CPU/{print $2}' "$work/$name.err")
    rss=$(awk '/Maximum resident/{print $6}' "$work/$name.err")
    echo "$secs $cpu $rss"
}

lodestone() { # NAME FILE BUDGET
    local out quads lsecs disk
    out=$(run "$1" "$bin" load --data "$work/$1" --memory-budget "$3" --no-text-index "$2")
    quads=$(sed -n 's/^loaded \([0-9]*\) quads.*/\1/p' "$work/$1.out")
    lsecs=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$work/$1.out")
    disk=$(du -sb "$work/$1" | cut -f1)
    read -r secs cpu rss <<<"$out"
    printf '%-34s %11d quads  %8.1f s  %9.0f quads/s  CPU %5s  peak RSS %6.0f MiB  %5.1f B/quad\n' \
        "lodestone load ($3 MB) $(basename "$2")" "$quads" "$lsecs" "$(echo "$quads / $lsecs" | bc -l)" \
        "$cpu" "$(echo "$rss / 1024" | bc -l)" "$(echo "$disk / $quads" | bc -l)"
    sed -n 's/^\([0-9]* chunks;.*\)/    \1/p' "$work/$1.out"
    echo "$quads $lsecs" >"$work/$1.rate"
    rm -rf "${work:?}/$1"
}

lodestone small "$small" 2048
lodestone large "$large" 2048
read -r sq ss <"$work/small.rate"; read -r lq ls <"$work/large.rate"
printf 'large/small rate: %.2f (target >= 0.8)\n' "$(echo "($lq / $ls) / ($sq / $ss)" | bc -l)"

if [ -z "${SKIP_OXIGRAPH:-}" ]; then
    oxigraph=${OXIGRAPH:-$(command -v oxigraph || true)}
    if [ -z "$oxigraph" ]; then
        python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q oxigraph
        oxigraph=$work/venv/bin/oxigraph
    fi
    read -r secs cpu rss <<<"$(run oxigraph "$oxigraph" load --location "$work/oxigraph" --file "$large")"
    disk=$(du -sb "$work/oxigraph" | cut -f1)
    printf '%-34s %11d quads  %8.1f s  %9.0f quads/s  CPU %5s  peak RSS %6.0f MiB  %5.1f B/quad\n' \
        "oxigraph load $(basename "$large")" "$lq" "$secs" "$(echo "$lq / $secs" | bc -l)" "$cpu" \
        "$(echo "$rss / 1024" | bc -l)" "$(echo "$disk / $lq" | bc -l)"
    printf 'lodestone/oxigraph rate: %.2f (target >= 1.5)\n' "$(echo "($lq / $ls) / ($lq / $secs)" | bc -l)"
    rm -rf "$work/oxigraph"
fi

if [ -z "${SKIP_SMALL_BUDGET:-}" ]; then
    lodestone budget "$large" "$small_budget"
fi
