#!/usr/bin/env bash
# Bulk-load benchmark: Lodestone's `lodestone load` against pyoxigraph's Store.bulk_load on the
# same BSBM file, in the same run. Prints quads/s, the rate over the first and last tenth of the
# input, peak RSS and bytes on disk per quad for both, and the ratios.
#
#   bench/load.sh [FILE]      (default: ../shared/data/bsbm/bsbm-10k.nt.zst)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/bsbm/bsbm-10k.nt.zst}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
work=$(mktemp -d /tmp/lodestone-bench-load.XXXXXX)
trap 'rm -rf "$work"' EXIT

command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
python3 -c 'import pyoxigraph' 2>/dev/null || pip install -q pyoxigraph
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server
bin=$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
echo "input:   $file ($(du -h "$file" | cut -f1))"

# --- Lodestone -------------------------------------------------------------------------------
/usr/bin/time -v "$bin" load --data "$work/lodestone" "$file" >"$work/l.out" 2>"$work/l.err"
quads=$(sed -n 's/^loaded \([0-9]*\) quads.*/\1/p' "$work/l.out")
l_secs=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$work/l.out")
l_rss=$(awk '/Maximum resident/{print $6}' "$work/l.err")
"$bin" stats --data "$work/lodestone" >"$work/l.stats"
l_disk=$(du -sb "$work/lodestone" | cut -f1)
first=$(grep -m1 'tenth 1/10' "$work/l.err" | sed 's/.* at \([0-9]*\) quads\/s/\1/')
last=$(grep 'tenth 10/10' "$work/l.err" | tail -1 | sed 's/.* at \([0-9]*\) quads\/s/\1/')
grep 'tenth' "$work/l.err" || true

# --- pyoxigraph ------------------------------------------------------------------------------
case "$file" in *.zst) zstd -dq "$file" -o "$work/input.nt" ;; *) cp "$file" "$work/input.nt" ;; esac
cat >"$work/pyox.py" <<'PY'
import sys, time, pyoxigraph
store = pyoxigraph.Store(sys.argv[1])
start = time.perf_counter()
store.bulk_load(path=sys.argv[2], format=pyoxigraph.RdfFormat.N_TRIPLES)
store.flush()
print(f"{time.perf_counter() - start:.3f}")
PY
/usr/bin/time -v python3 "$work/pyox.py" "$work/pyox" "$work/input.nt" >"$work/p.out" 2>"$work/p.err"
p_secs=$(tail -1 "$work/p.out")
p_rss=$(awk '/Maximum resident/{print $6}' "$work/p.err")
p_disk=$(du -sb "$work/pyox" | cut -f1)

python3 - "$quads" "$l_secs" "$l_rss" "$l_disk" "$p_secs" "$p_rss" "$p_disk" "${first:-0}" "${last:-0}" <<'PY'
import sys
q, ls, lr, ld, ps, pr, pd, first, last = sys.argv[1:]
q = int(q); ls = float(ls); ps = float(ps)
lrate, prate = q / ls, q / ps
print(f"quads:                 {q:,}")
print(f"lodestone load:        {ls:8.2f} s  {lrate:>10,.0f} quads/s  peak RSS {int(lr)/1024:7.0f} MiB  {int(ld)/q:6.1f} bytes/quad on disk")
print(f"pyoxigraph bulk_load:  {ps:8.2f} s  {prate:>10,.0f} quads/s  peak RSS {int(pr)/1024:7.0f} MiB  {int(pd)/q:6.1f} bytes/quad on disk")
print(f"ratio (speed):         {lrate/prate:.2f}x")
if int(first) > 0:
    print(f"parse+encode rate, last tenth / first tenth of the input: {int(last):,} / {int(first):,} = {int(last)/int(first):.2f}")
PY
