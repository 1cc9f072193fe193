#!/usr/bin/env python3
"""Times the queries of one BSBM template, one after the other, against a SPARQL endpoint.

    bench/bsbm_query_times.py URL QUERIES TEMPLATE [WARMUP]

QUERIES is a file written by `lodestone-bench bsbm-queries` (blocks opening with `#### N`);
the queries of template N = TEMPLATE are sent as form POSTs, WARMUP of them first untimed
(default 5). Prints the mean, p50, p90 and max in ms and a hash of the answers, so that two
builds can be compared on the same queries (Session 20 in docs/benchmarks.md: Q5 before and
after the filter-aware join order).
"""
import hashlib
import statistics
import sys
import time
import urllib.parse
import urllib.request


def queries(path, template):
    blocks, current, number = [], None, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("#### "):
            if current is not None:
                blocks.append((number, "".join(current)))
            number, current = int(line.split()[1]), []
        elif current is not None:
            current.append(line)
    if current is not None:
        blocks.append((number, "".join(current)))
    return [q for n, q in blocks if n == template]


def run(url, query):
    request = urllib.request.Request(
        url,
        data=urllib.parse.urlencode({"query": query}).encode(),
        headers={"Accept": "application/sparql-results+json"},
    )
    start = time.perf_counter()
    body = urllib.request.urlopen(request).read()
    return (time.perf_counter() - start) * 1000, body


def main():
    url, path, template = sys.argv[1], sys.argv[2], int(sys.argv[3])
    warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    chosen = queries(path, template)
    if not chosen:
        sys.exit(f"no query of template {template} in {path}")
    for query in chosen[:warmup]:
        run(url, query)
    times, digest = [], hashlib.sha256()
    for query in chosen:
        ms, body = run(url, query)
        times.append(ms)
        digest.update(body)
    times.sort()
    print(
        f"Q{template} x{len(times)}: mean {statistics.mean(times):.1f} ms, "
        f"p50 {times[len(times) // 2]:.1f}, p90 {times[int(len(times) * 0.9)]:.1f}, "
        f"max {times[-1]:.1f}; answers sha256 {digest.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
