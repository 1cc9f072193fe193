#!/usr/bin/env python3
"""A stand-in SPARQL endpoint that records the queries the real BSBM test driver sends, with
the driver's own parameters, into a file that `bench/bsbm_query_times.py` and
`lodestone-bench bsbm-explain` read (blocks opening with `#### N`, N the BSBM template).

    bench/bsbm_record_queries.py PORT OUT

then, from a copy of the BSBM tools, with one client and no warm-up so that the queries come in
the order of the explore mix:

    ./testdriver -runs 40 -w 0 -mt 1 -idir td_data100k -ucf usecases/explore/sparql.txt \\
        http://127.0.0.1:PORT/sparql

Every query is answered with an empty result; the template number is the query's place in
the mix (`queries/explore/querymix.txt`). Stop it with Ctrl-C. Session 22 in
docs/benchmarks.md: the driver's Q3 parameters differ from `lodestone-bench bsbm-queries`'
(types of 4 to 44 products, features of up to 4,168).
"""
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MIX = [1, 2, 2, 3, 2, 2, 4, 2, 2, 5, 7, 7, 5, 7, 7, 8, 9, 9, 8, 9, 9, 10, 10, 11, 12]
EMPTY = (
    b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#">'
    b"<head></head><results></results></sparql>"
)


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    out = open(path, "w", encoding="utf-8")
    count = [0]

    class Recorder(BaseHTTPRequestHandler):
        def answer(self, query):
            out.write(f"#### {MIX[count[0] % len(MIX)]}\n{query}\n")
            out.flush()
            count[0] += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+xml")
            self.send_header("Content-Length", str(len(EMPTY)))
            self.end_headers()
            self.wfile.write(EMPTY)

        def do_GET(self):
            fields = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            self.answer(fields.get("query", [""])[0])

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            if "form" in self.headers.get("Content-Type", ""):
                body = urllib.parse.parse_qs(body).get("query", [""])[0]
            self.answer(body)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Recorder).serve_forever()


if __name__ == "__main__":
    main()
