#!/usr/bin/env python3
"""URI lookup and type-ahead latency over HTTP against a running server (issue 25).

    bench/lookup.py http://127.0.0.1:7171 [--queries 300] [--seed 42]

Draws IRIs and labels from the store itself (a few pages of `?s rdfs:label ?l` read at spread
offsets through /sparql) and the server's prefix table (the prefixes its SPARQL editor lists, and
the bundled well-known lists),
then times, one request at a time on one kept-alive connection, the whole request as a client
sees it:

- `iri`:   /api/lookup?q= a prefix of a full IRI (the IRI minus 1-6 characters);
- `curie`: /api/lookup?q= the IRI as a CURIE of the table, minus 0-4 characters;
- `words`: /api/lookup?q= one or two words of a label;
- `autocomplete`: /api/autocomplete?q= the first 3-6 letters of a label word.

Prints p50 and p99 per kind in milliseconds, and how many answers were empty.
"""

import argparse
import html
import http.client
import json
import pathlib
import random
import re
import time
import urllib.parse

LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


class Client:
    def __init__(self, base):
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname, url.port or 80
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)

    def get(self, path, params, accept="application/json"):
        query = urllib.parse.urlencode(params)
        self.conn.request("GET", f"{path}?{query}" if query else path, headers={"Accept": accept})
        response = self.conn.getresponse()
        body = response.read()
        return response.status, body


def sample_labels(client, pages, page_size):
    rows = []
    for page in range(pages):
        query = (
            f"SELECT ?s ?l WHERE {{ ?s <{LABEL}> ?l FILTER(isIRI(?s)) }} "
            f"OFFSET {page * page_size * 20} LIMIT {page_size}"
        )
        status, body = client.get(
            "/sparql", {"query": query}, "application/sparql-results+json"
        )
        if status != 200:
            raise SystemExit(f"sampling failed: {status} {body[:200]!r}")
        for b in json.loads(body)["results"]["bindings"]:
            rows.append((b["s"]["value"], b["l"]["value"]))
    return rows


def prefix_table(client):
    """The editor's prefixes (`<dt>p:</dt><dd><code>ns</code>`), then the bundled lists."""
    status, body = client.get("/sparql", {}, "text/html")
    text = html.unescape(body.decode("utf-8", "replace"))
    table = re.findall(r"<dt>([A-Za-z][\w.-]*):</dt><dd><code>([^<\s]+)</code>", text)
    data = pathlib.Path(__file__).resolve().parent.parent / "store" / "vocab" / "data"
    for path in sorted(data.glob("*.txt")):
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) == 2 and not line.startswith("#"):
                table.append((words[0], words[1]))
    return table


def curie(iri, table):
    best = None
    for name, ns in table:
        if iri.startswith(ns) and len(iri) > len(ns) and (best is None or len(ns) > len(best[1])):
            best = (name, ns)
    return None if best is None else f"{best[0]}:{iri[len(best[1]):]}"


def percentile(times, p):
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    client = Client(args.base)
    rows = sample_labels(client, 5, 2000)
    table = prefix_table(client)
    print(f"sampled {len(rows)} labelled IRIs; prefix table of the editor: {len(table)} entries")
    words_of = lambda label: [w for w in re.findall(r"\w+", label) if len(w) >= 3]
    kinds = {"iri": [], "curie": [], "words": [], "autocomplete": []}
    for _ in range(args.queries):
        iri, label = rng.choice(rows)
        kinds["iri"].append(("/api/lookup", iri[: len(iri) - rng.randint(1, 6)]))
        short = curie(iri, table)
        if short:
            cut = min(rng.randint(0, 4), len(short) - short.index(":") - 2)
            kinds["curie"].append(("/api/lookup", short[: len(short) - max(cut, 0)]))
        words = words_of(label)
        if words:
            start = rng.randrange(len(words))
            kinds["words"].append(("/api/lookup", " ".join(words[start : start + rng.randint(1, 2)])))
            word = rng.choice(words)
            kinds["autocomplete"].append(("/api/autocomplete", word[: rng.randint(3, min(6, len(word)))]))
    for kind, queries in kinds.items():
        times, empty = [], 0
        for path, q in queries:
            started = time.perf_counter()
            status, body = client.get(path, {"q": q, "limit": 10})
            times.append((time.perf_counter() - started) * 1000)
            if status != 200:
                raise SystemExit(f"{path}?q={q}: {status} {body[:300]!r}")
            answer = json.loads(body)
            results = answer.get("results", answer.get("suggestions", answer.get("hits", [])))
            empty += not results
        if times:
            print(
                f"{kind:>12}: {len(times)} requests, p50 {percentile(times, 0.5):.2f} ms, "
                f"p99 {percentile(times, 0.99):.2f} ms, max {max(times):.2f} ms, {empty} empty"
            )


if __name__ == "__main__":
    main()
