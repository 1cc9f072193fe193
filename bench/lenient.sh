#!/usr/bin/env bash
# Lenient-load check (issue 23, §1): breaks 50 random lines of an N-Triples dump (a seeded
# choice; ten each of: a literal's closing quote removed, a space in an IRI, the final dot
# removed, a language tag with a 9-letter subtag, a raw BEL in an IRI), loads it with
# `lodestone load --lenient`, and checks that exactly the broken lines and the dump's own bad
# lines were skipped and that the store equals a strict load of the clean file minus them.
#
#   bench/lenient.sh [FILE]      (default: ../shared/data/real/nomisma.nt.zst)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/real/nomisma.nt.zst}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
work=$(mktemp -d /tmp/lodestone-bench-lenient.XXXXXX)
trap 'rm -rf "$work"' EXIT
cargo build --release -q -p lodestone-server
bin=$CARGO_TARGET_DIR/release/lodestone

zstdcat -f "$file" > "$work/clean.nt"
# The dump's own bad lines, as a lenient load of the clean file reports them.
"$bin" load --lenient --data "$work/s0" "$work/clean.nt" 2>/dev/null \
    | grep -o 'clean.nt: line [0-9]*' | awk '{print $3}' > "$work/bad.txt" || true
python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
lines = open(f'{work}/clean.nt', 'rb').read().split(b'\n')
if lines[-1] == b'':
    lines.pop()
bad = {int(x) - 1 for x in open(f'{work}/bad.txt').read().split()}
rng = random.Random(23)
touched = {}
while len(touched) < 50:
    i = rng.randrange(len(lines))
    if i in touched or i in bad:
        continue
    line, kind = lines[i], len(touched) % 5
    parts = line.split(b' ', 2)
    if kind == 0:
        if line.count(b'"') < 2:
            continue
        close = line.rfind(b'"')
        new = line[:close] + line[close + 1:]
    elif kind == 1:
        new = line.replace(b'<http', b'<http ', 1)
    elif kind == 2:
        if not line.endswith(b'.'):
            continue
        new = line[:-1]
    elif kind == 3:
        new = parts[0] + b' ' + parts[1] + b' "x"@en-abcdefghijk .'
    else:
        new = line.replace(b'<http', b'<ht\x07tp', 1)
    touched[i] = new
with open(f'{work}/faulty.nt', 'wb') as faulty, open(f'{work}/expected.nt', 'wb') as expected:
    for i, line in enumerate(lines):
        faulty.write(touched.get(i, line) + b'\n')
        if i not in touched and i not in bad:
            expected.write(line + b'\n')
skipped = sorted(set(touched) | bad)
open(f'{work}/skipped.txt', 'w').write(''.join(f'{i + 1}\n' for i in skipped))
print(f'{len(lines)} lines; {len(bad)} bad of their own; {len(touched)} broken')
PY
/usr/bin/time -f 'lenient load: %e s, peak RSS %M KiB' \
    "$bin" load --lenient --data "$work/s1" "$work/faulty.nt" 2>"$work/time.txt" > "$work/out.txt"
head -2 "$work/out.txt"; tail -1 "$work/time.txt"
grep -o 'faulty.nt: line [0-9]*' "$work/out.txt" | awk '{print $3}' > "$work/reported.txt"
"$bin" load --data "$work/s2" "$work/expected.nt" 2>/dev/null | head -1
"$bin" dump --data "$work/s1" 2>/dev/null | sort > "$work/d1.nq"
"$bin" dump --data "$work/s2" 2>/dev/null | sort > "$work/d2.nq"
if cmp -s "$work/skipped.txt" "$work/reported.txt"; then
    echo "skipped lines: exactly the broken and bad ones ($(wc -l < "$work/skipped.txt"))"
else
    echo "skipped lines DIFFER from the broken and bad ones"; exit 1
fi
if cmp -s "$work/d1.nq" "$work/d2.nq"; then
    echo "store: identical to the clean file minus those lines ($(wc -l < "$work/d1.nq") quads)"
else
    echo "store DIFFERS from the clean file minus those lines"; exit 1
fi
