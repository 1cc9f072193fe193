#!/usr/bin/env bash
# BSBM explore mix with the real BSBM test driver over HTTP, 1 and 4 clients, against
# `lodestone serve`, Oxigraph's server (`oxigraph serve-read-only`) and Virtuoso 7 (Debian's
# virtuoso-opensource) on the same data, one system at a time. Prints each run's QMpH and
# per-query averages (the driver's own lines), the server's peak RSS during the mixes
# (for lodestone next to its memory budget) and the CPU the server and the driver took per
# mix. Each server is driven once its start-up work is over (see SETTLE).
#
#   bench/bsbm_driver.sh [SYSTEM…]        (default: lodestone oxigraph virtuoso)
#
# Environment (defaults in brackets):
#   DATA    N-Triples file the stores hold, plain or .zst [/work/bsbmdata/ds100k.nt.zst]
#           (Oxigraph reads a .zst through a pipe; Virtuoso's ld_dir needs plain files, so
#           a .zst is decompressed into WORK in 2 GB parts for its load only and deleted
#           right after)
#   TD      the driver's parameter folder from the same generator run [/work/bsbmdata/td_data100k]
#   TOOL    the BSBM tools [../shared/tools/bsbm], copied into WORK (the driver writes
#           beside itself) unless TOOL is a writable copy with its queries/ already
#   WORK    folder for stores and logs [/tmp/bsbm-driver]
#   STORE   a lodestone store already holding DATA (else one is loaded into WORK)
#   OXIGRAPH_STORE, VIRTUOSO_DB  likewise for the others (else loaded into WORK; the loads
#           take 5–15 minutes each at 35 M triples)
#   LODESTONE_BIN  a lodestone binary to run instead of building this tree's (to compare builds)
#   BENCH_PROFILE [dist] the cargo profile this tree's binary is built with
#   RUNS [500] and WARMUP [50] mixes per run; CLIENTS ["1 4"] (empty: load the stores
#   that are missing and run nothing, so that the runs can wait for an idle machine); LOADERS [2] Virtuoso loaders
#   (rdf_loader_run) in parallel
#   SERVER_NICE [10] the nice value every server (and its load) runs under; the driver runs at
#           the caller's (normally 0), so by default it takes the CPU it needs first. Its
#           share grows with the mixes a server answers: 0.54 of the two cores at 67 K QMpH
#           against 0.21 at 19 K (Session 38). SERVER_NICE=0 puts driver and server on equal
#           terms; lodestone's reads then run at 0 too (--read-nice, default 10, would lower
#           them alone).
#   SETTLE [600] most seconds to wait after a server answers for its start-up work to end
#           (its CPU under 5 % of a core for three seconds in a row) before the driver
#           starts: `lodestone serve` counts its store's totals for `/status` in the
#           background after a start (at 100 M quads about 20 s of CPU, which cost 15 % of
#           a 4-client run's mixes when it ran among them; Session 40). 0: no wait.
# Nothing is left running at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
DATA=${DATA:-/work/bsbmdata/ds100k.nt.zst}
TD=${TD:-/work/bsbmdata/td_data100k}
TOOL=${TOOL:-$repo/../shared/tools/bsbm}
WORK=${WORK:-/tmp/bsbm-driver}
RUNS=${RUNS:-500}
WARMUP=${WARMUP:-50}
CLIENTS=${CLIENTS-1 4}
LOADERS=${LOADERS:-2}
SERVER_NICE=${SERVER_NICE:-10}
SETTLE=${SETTLE:-600}
OXIGRAPH=${OXIGRAPH:-/work/bsbmdata/venv/bin/oxigraph}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
systems=${*:-lodestone oxigraph virtuoso}
mkdir -p "$WORK"
server_pid=
# The driver reads the query templates from `queries/` beside it; a copy of the tools
# without them gets ../shared/data/bsbm/queries.
if [ ! -d "$TOOL/queries" ] || [ ! -w "$TOOL" ]; then
  rm -rf "$WORK/tool"
  cp -r "$TOOL" "$WORK/tool"
  chmod -R u+w "$WORK/tool"
  [ -d "$WORK/tool/queries" ] ||
    ln -s "$(readlink -f "$repo/../shared/data/bsbm/queries")" "$WORK/tool/queries"
  TOOL=$WORK/tool
fi

# Virtuoso's isql: one statement, its result lines without the banner.
isql() {
  isql-vt 1112 dba dba exec="$1" | { grep -vE '^(OpenLink Virtuoso Interactive SQL|Version |Type HELP|Connected to|Driver: |$)' || true; }
}

stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
trap stop_server EXIT

wait_for() { # URL: waits up to 10 minutes for an answer
  for _ in $(seq 1 600); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 1
  done
  echo "no answer from $1" >&2
  return 1
}

# CPU time (clock ticks, user and system) process $1 has taken so far.
cpu_ticks() {
  awk '{print $14 + $15}' "/proc/$1/stat"
}

# Waits until process $1 is idle: under 5 % of a core for three seconds in a row, or SETTLE
# seconds have passed.
wait_idle() {
  local pid=$1 hz before after quiet=0 waited=0
  hz=$(getconf CLK_TCK)
  before=$(cpu_ticks "$pid")
  while [ "$quiet" -lt 3 ] && [ "$waited" -lt "$SETTLE" ]; do
    sleep 1
    waited=$((waited + 1))
    after=$(cpu_ticks "$pid")
    if [ $((after - before)) -le $((hz / 20)) ]; then quiet=$((quiet + 1)); else quiet=0; fi
    before=$after
  done
  echo "server idle after $waited s"
}

# Peak RSS (KiB) of process $1 until file $2 exists.
watch_rss() {
  local peak=0 rss
  while [ ! -e "$2" ] && kill -0 "$1" 2>/dev/null; do
    rss=$(awk '/^VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
    sleep 0.5
  done
  echo "$peak"
}

# Runs the driver against endpoint $2 for system $1, once per client count.
drive() {
  local system=$1 endpoint=$2 clients log
  for clients in $CLIENTS; do
    log=$WORK/$system-mt$clients.log
    echo "--- $system, $clients client(s), $RUNS mixes after $WARMUP warm-up: $log"
    local done_flag=$WORK/.done-$system-$clients
    rm -f "$done_flag"
    watch_rss "$server_pid" "$done_flag" >"$WORK/$system-mt$clients.rss" &
    local watcher=$!
    local status=0 ticks
    wait_idle "$server_pid"
    ticks=$(cpu_ticks "$server_pid")
    (cd "$TOOL" && /usr/bin/time -o "$WORK/$system-mt$clients.driver-cpu" -f "%U %S" \
      ./testdriver -runs "$RUNS" -w "$WARMUP" -mt "$clients" -idir "$TD" \
      -ucf usecases/explore/sparql.txt -o "$WORK/$system-mt$clients.xml" "$endpoint") >"$log" 2>&1 || status=$?
    ticks=$(($(cpu_ticks "$server_pid") - ticks))
    touch "$done_flag"
    wait "$watcher"
    if [ "$status" != 0 ]; then
      tail -20 "$log"
      return "$status"
    fi
    grep -E "^(Query [0-9]+:|QMpH:|  avg:| *Query|Query mixes)" "$log" | head -60 || tail -40 "$log"
    grep -E "QMpH" "$log" || true
    python3 - "$WORK/$system-mt$clients.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
qmph = root.findtext("./querymix/qmph")
print(f"QMpH {qmph}")
for q in root.findall("./queries/query"):
    n = q.get("nr")
    avg = q.findtext("aqet")
    mn, mx = q.findtext("minqet"), q.findtext("maxqet")
    count = q.findtext("executecount")
    if count and count != "0":
        print(f"  Q{n:>2}: avg {float(avg) * 1000:9.2f} ms  min {float(mn) * 1000:8.2f}  max {float(mx) * 1000:9.2f}  ({count} runs)")
PY
    echo "$system server peak RSS during the mixes: $(($(cat "$WORK/$system-mt$clients.rss") / 1024)) MiB"
    # Warm-up mixes included: the driver runs them against the same server.
    awk -v ticks="$ticks" -v hz="$(getconf CLK_TCK)" -v mixes="$((RUNS + WARMUP))" \
      '{ printf "CPU per mix: server %.1f ms, driver %.1f ms\n", ticks * 1000 / hz / mixes, ($1 + $2) * 1000 / mixes }' \
      "$WORK/$system-mt$clients.driver-cpu"
  done
}

for system in $systems; do
  case "$system" in
  lodestone)
    if [ -n "${LODESTONE_BIN:-}" ]; then
      cp "$LODESTONE_BIN" "$WORK/lodestone-bin"
    else
      cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server
      # A copy: the server re-executes itself (allocator settings), which fails if a build
      # replaces the target folder's binary meanwhile.
      cp "$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone" "$WORK/lodestone-bin"
    fi
    bin=$WORK/lodestone-bin
    store=${STORE:-$WORK/lodestone}
    if [ ! -e "$store" ]; then
      /usr/bin/time -f "lodestone load: %e s, %M KB max RSS" nice -n "$SERVER_NICE" "$bin" load --data "$store" "$DATA" | tail -3
    fi
    LODESTONE_READ_NICE=${LODESTONE_READ_NICE:-$SERVER_NICE} nice -n "$SERVER_NICE" "$bin" serve --data "$store" --bind 127.0.0.1:7181 --no-sample >"$WORK/lodestone-serve.log" 2>&1 &
    server_pid=$!
    wait_for http://127.0.0.1:7181/health
    curl -s http://127.0.0.1:7181/status | python3 -c 'import json,sys; s=json.load(sys.stdin); print("status:", {k: s[k] for k in s if k in ("quads","memory","block_cache","version")})' || true
    drive lodestone http://127.0.0.1:7181/sparql
    stop_server
    ;;
  oxigraph)
    location=${OXIGRAPH_STORE:-$WORK/oxigraph}
    if [ ! -e "$location" ]; then
      case "$DATA" in
      *.zst)
        zstd -dc "$DATA" | /usr/bin/time -f "oxigraph load: %e s, %M KB max RSS" \
          nice -n "$SERVER_NICE" "$OXIGRAPH" load --location "$location" --format nt ;;
      *) /usr/bin/time -f "oxigraph load: %e s, %M KB max RSS" \
          nice -n "$SERVER_NICE" "$OXIGRAPH" load --location "$location" --file "$DATA" ;;
      esac
      du -sh "$location"
    fi
    nice -n "$SERVER_NICE" "$OXIGRAPH" serve-read-only --location "$location" --bind 127.0.0.1:7182 >"$WORK/oxigraph-serve.log" 2>&1 &
    server_pid=$!
    wait_for "http://127.0.0.1:7182/query?query=ASK%7B%7D"
    drive oxigraph http://127.0.0.1:7182/query
    stop_server
    ;;
  virtuoso)
    command -v virtuoso-t >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q virtuoso-opensource; }
    db=${VIRTUOSO_DB:-$WORK/virtuoso}
    fresh=no
    [ -e "$db/virtuoso.db" ] || fresh=yes
    # ld_dir reads files on disk: a .zst is decompressed into WORK in parts of at most 2 GB
    # (whole lines), which LOADERS loaders take in parallel, and deleted after the load.
    pattern=$(basename "$DATA")
    data_dir=$(dirname "$(readlink -f "$DATA")")
    case "$DATA" in
    *.zst)
      data_dir=$WORK/load
      pattern='part-*.nt'
      if [ "$fresh" = yes ]; then
        mkdir -p "$data_dir"
        df -h "$WORK"
        start=$(date +%s)
        zstd -dc "$DATA" | split -C 2G -d --additional-suffix=.nt - "$data_dir/part-"
        echo "decompressed for ld_dir in $(($(date +%s) - start)) s: $(ls "$data_dir" | wc -l) parts"
      fi ;;
    esac
    mkdir -p "$db"
    cat >"$db/virtuoso.ini" <<INI
[Database]
DatabaseFile = $db/virtuoso.db
ErrorLogFile = $db/virtuoso.log
LockFile = $db/virtuoso.lck
TransactionFile = $db/virtuoso.trx
xa_persistent_file = $db/virtuoso.pxa
[TempDatabase]
DatabaseFile = $db/virtuoso-temp.db
TransactionFile = $db/virtuoso-temp.trx
[Parameters]
ServerPort = 1112
NumberOfBuffers = 500000
MaxDirtyBuffers = 375000
DirsAllowed = ., $data_dir, /usr/share/virtuoso-opensource-7/vad
ThreadsPerQuery = 2
MaxQueryMem = 2G
[HTTPServer]
ServerPort = 8891
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 8
[SPARQL]
ResultSetMaxRows = 100000
MaxQueryExecutionTime = 60
INI
    cd "$db"
    nice -n "$SERVER_NICE" virtuoso-t +foreground +configfile "$db/virtuoso.ini" >"$WORK/virtuoso-serve.log" 2>&1 &
    server_pid=$!
    cd "$repo"
    wait_for "http://127.0.0.1:8891/sparql?query=ASK%7B%7D"
    if [ "$fresh" = yes ]; then
      start=$(date +%s)
      isql "ld_dir('$data_dir', '$pattern', 'http://bsbm.example/');"
      loaders=()
      for _ in $(seq 1 "$LOADERS"); do
        isql "rdf_loader_run();" &
        loaders+=($!)
      done
      wait "${loaders[@]}"
      isql "checkpoint;"
      echo "virtuoso load: $(($(date +%s) - start)) s with $LOADERS loaders; database $(du -sh "$db" | cut -f1)"
      [ "$data_dir" != "$WORK/load" ] || rm -rf "$data_dir"
    fi
    isql "SPARQL SELECT COUNT(*) WHERE { ?s ?p ?o };" | grep -E '^[0-9]+' || true
    drive virtuoso http://127.0.0.1:8891/sparql
    isql "shutdown;" >/dev/null 2>&1 || true
    stop_server
    ;;
  *)
    echo "unknown system $system (lodestone, oxigraph, virtuoso)" >&2
    exit 2
    ;;
  esac
done
cd "$repo"
