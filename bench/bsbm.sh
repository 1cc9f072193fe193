#!/usr/bin/env bash
# BSBM explore benchmark: the same query mixes (parameters drawn from the data with a fixed
# seed) against Lodestone's store API and pyoxigraph's Store.query, on the same data, in the
# same run. Prints per-query mean times, query mixes per hour for each, and the ratio.
#
#   bench/bsbm.sh [FILE] [MIXES]   (default: ../shared/data/bsbm/bsbm-10k.nt.zst, 100 mixes)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/bsbm/bsbm-10k.nt.zst}
mixes=${2:-100}
templates=../shared/data/bsbm/queries/explore
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
work=$(mktemp -d /tmp/lodestone-bench-bsbm.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 -c 'import pyoxigraph' 2>/dev/null || pip install -q pyoxigraph
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server -p lodestone-bench
bin=$CARGO_TARGET_DIR/$BENCH_PROFILE

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; input $file; $mixes mixes"
"$bin/lodestone" load --data "$work/lodestone" "$file" | tail -1
"$bin/lodestone-bench" bsbm-queries --data "$work/lodestone" --templates "$templates" \
  --mixes "$mixes" --seed 42 --out "$work/queries.txt"
echo "--- lodestone (store API)"
"$bin/lodestone-bench" bsbm-run --data "$work/lodestone" --queries "$work/queries.txt" | tee "$work/l.out"

case "$file" in *.zst) zstd -dq "$file" -o "$work/input.nt" ;; *) cp "$file" "$work/input.nt" ;; esac
cat >"$work/pyox.py" <<'PY'
import sys, time, collections, pyoxigraph
store = pyoxigraph.Store(sys.argv[1])
store.bulk_load(path=sys.argv[2], format=pyoxigraph.RdfFormat.N_TRIPLES)
blocks = [b for b in open(sys.argv[3]).read().split("#### ") if b.strip()]
queries = [(int(b.split("\n", 1)[0]), b.split("\n", 1)[1]) for b in blocks]
mix_len = next(i for i, (n, _) in enumerate(queries) if n == 12) + 1
def run(q):
    r = store.query(q)
    return 1 if isinstance(r, bool) else sum(1 for _ in r)
for n, q in queries[: 2 * mix_len]:  # warm-up, as for lodestone
    run(q)
times = collections.defaultdict(list)
start = time.perf_counter()
for n, q in queries:
    t = time.perf_counter(); run(q); times[n].append(time.perf_counter() - t)
total = time.perf_counter() - start
for n in sorted(times):
    print(f"query {n:>2}: mean {1000 * sum(times[n]) / len(times[n]):8.3f} ms over {len(times[n])} runs")
mixes = len(queries) / mix_len
print(f"pyoxigraph: {mixes * 3600 / total:.0f} query mixes per hour ({mixes:.0f} mixes in {total:.2f} s)")
PY
echo "--- pyoxigraph $(python3 -c 'import pyoxigraph; print(pyoxigraph.__version__)') (Store.query)"
python3 "$work/pyox.py" "$work/pyox" "$work/input.nt" "$work/queries.txt" | tee "$work/p.out"
l=$(sed -n 's/^lodestone: \([0-9]*\) query mixes.*/\1/p' "$work/l.out")
p=$(sed -n 's/^pyoxigraph: \([0-9]*\) query mixes.*/\1/p' "$work/p.out")
python3 -c "print(f'ratio lodestone / pyoxigraph: {$l / $p:.2f}x')"
