#!/usr/bin/env bash
# Lenient-load check (issue 23, §1): breaks 50 random lines of an N-Triples dump (a seeded
# choice; ten each of: a literal's closing quote removed, a space in an IRI, the final dot
# removed, a language tag with a 9-letter subtag, a raw BEL in an IRI), loads it with
# `lodestone load --lenient`, and checks that exactly the broken lines and the dump's own bad
# lines were skipped and that the store equals a strict load of the clean file minus them;
# then the same for Turtle, 50 statements broken (see below).
#
#   bench/lenient.sh [FILE]      (default: ../shared/data/real/nomisma.nt.zst)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/real/nomisma.nt.zst}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lodestone-target}
# The profile built and measured: `dist` (release with fat LTO, Cargo.toml), as `make` does.
export BENCH_PROFILE=${BENCH_PROFILE:-dist}
work=$(mktemp -d /tmp/lodestone-bench-lenient.XXXXXX)
trap 'rm -rf "$work"' EXIT
cargo build --profile "$BENCH_PROFILE" -q -p lodestone-server
bin=$CARGO_TARGET_DIR/$BENCH_PROFILE/lodestone

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

# Turtle (§1 for Turtle and TriG): the clean lines as Turtle, one statement per subject, its
# predicate-object pairs on lines of their own; 50 statements broken on one line each, the same
# five ways (a missing final dot joins the statement to the next one, which is lost with it);
# the store must equal a strict load of the other statements.
python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
lines = open(f'{work}/expected.nt', 'rb').read().split(b'\n')
if lines[-1] == b'':
    lines.pop()
statements = []
for line in lines:
    subject, rest = line.split(b' ', 1)
    rest = rest.rstrip()[:-1].rstrip()
    if statements and statements[-1][0] == subject:
        statements[-1][1].append(rest)
    else:
        statements.append((subject, [rest]))
def render(subject, pairs):
    out = []
    for i, pair in enumerate(pairs):
        head = subject + b' ' if i == 0 else b'    '
        out.append(head + pair + (b' .' if i == len(pairs) - 1 else b' ;'))
    return out
text = [render(s, p) for s, p in statements]
rng = random.Random(23)
touched, lost = {}, set()
while len(touched) < 50:
    i = rng.randrange(1, len(text) - 1)
    if lost & {i - 1, i, i + 1}:
        continue
    kind = len(touched) % 5
    which = len(text[i]) - 1 if kind == 2 else rng.randrange(len(text[i]))
    line = text[i][which]
    if kind == 0:
        close = line.rfind(b'"')
        if line.find(b'"') >= close:
            continue
        new = line[:close] + line[close + 1:]
    elif kind == 1:
        if b'<http' not in line:
            continue
        new = line.replace(b'<http', b'<http ', 1)
    elif kind == 2:
        new = line[:-2]
        lost.add(i + 1)
    elif kind == 3:
        words = line.split(b' ')
        keep = 2 if which == 0 else words.count(b'') + 1
        new = b' '.join(words[:keep]) + b' "x"@en-abcdefghijk ' + line[-1:]
    else:
        if b'<http' not in line:
            continue
        new = line.replace(b'<http', b'<ht\x07tp', 1)
    touched[i] = (which, new)
    lost.add(i)
with open(f'{work}/faulty.ttl', 'wb') as faulty, open(f'{work}/expected.ttl', 'wb') as expected:
    for i, statement in enumerate(text):
        if i in touched:
            which, new = touched[i]
            statement = statement[:which] + [new] + statement[which + 1:]
        faulty.write(b'\n'.join(statement) + b'\n')
        if i not in lost:
            expected.write(b'\n'.join(text[i]) + b'\n')
kept = sum(len(p) for i, (s, p) in enumerate(statements) if i not in lost)
print(f'turtle: {len(text)} statements; {len(touched)} broken, {len(lost)} lost with them; '
      f'{kept} triples in the others')
PY
/usr/bin/time -f 'turtle lenient load: %e s, peak RSS %M KiB' \
    "$bin" load --lenient --data "$work/t1" "$work/faulty.ttl" 2>"$work/ttime.txt" > "$work/tout.txt"
head -2 "$work/tout.txt"; tail -1 "$work/ttime.txt"
"$bin" load --data "$work/t2" "$work/expected.ttl" 2>/dev/null | head -1
"$bin" dump --data "$work/t1" 2>/dev/null | sort > "$work/t1.nq"
"$bin" dump --data "$work/t2" 2>/dev/null | sort > "$work/t2.nq"
lost=$(comm -13 "$work/t1.nq" "$work/t2.nq" | wc -l)
if cmp -s "$work/t1.nq" "$work/t2.nq"; then
    echo "turtle store: identical to the untouched statements ($(wc -l < "$work/t1.nq") quads)"
else
    echo "turtle store DIFFERS from the untouched statements: $lost of their quads missing"; exit 1
fi
