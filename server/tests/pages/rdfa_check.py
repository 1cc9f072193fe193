"""Checks that the RDFa of entity pages states exactly the triples of their Turtle documents.

Usage: rdfa_check.py HTML TURTLE [HTML TURTLE ...]

Each HTML file is read by pyRdfa (an RDFa 1.1 processor written elsewhere), each Turtle file by
rdflib; the two graphs must be isomorphic (blank nodes compared by structure). Prints one line
per pair and, on a mismatch, the triples found on one side only. Exits 1 on any mismatch.
"""

import sys

from pyRdfa import pyRdfa
from rdflib import Graph
from rdflib.compare import graph_diff, isomorphic, to_isomorphic


def check(html_path, turtle_path):
    page = pyRdfa().graph_from_source(html_path)
    document = Graph()
    document.parse(turtle_path, format="turtle")
    if isomorphic(page, document):
        print(f"ok {html_path}: {len(document)} triples")
        return True
    both, only_page, only_document = graph_diff(to_isomorphic(page), to_isomorphic(document))
    print(f"MISMATCH {html_path}: page {len(page)} triples, document {len(document)}")
    for triple in sorted(only_page)[:20]:
        print("  only in the page:", triple)
    for triple in sorted(only_document)[:20]:
        print("  only in the Turtle document:", triple)
    return False


def main(args):
    if len(args) % 2 != 0 or not args:
        print(__doc__)
        return 2
    results = [check(args[i], args[i + 1]) for i in range(0, len(args), 2)]
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
