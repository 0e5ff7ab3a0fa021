#!/usr/bin/env python3
"""Fails (exit 1) when a public declaration of a symbol graph has no doc comment.

Declarations the compiler synthesises (hashValue, hash(into:), coding keys) have no source
location and are skipped. Enum cases declared together (`case a, b, c`) share the doc comment
written above their `case` line, as the source reads.
"""
import json
import sys
from urllib.parse import unquote, urlparse

graph = json.load(open(sys.argv[1]))
lines_of = {}


def preceded_by_doc(uri, line):
    path = unquote(urlparse(uri).path)
    if path not in lines_of:
        try:
            lines_of[path] = open(path, encoding="utf-8").read().split("\n")
        except OSError:
            lines_of[path] = []
    lines = lines_of[path]
    i = line - 1
    while i >= 0 and lines[i].strip().startswith("@"):
        i -= 1
    return i >= 0 and lines[i].strip().startswith("///")


public = [s for s in graph["symbols"] if s.get("accessLevel") in ("public", "open") and s.get("location")]
missing = []
for s in public:
    if s.get("docComment"):
        continue
    loc = s["location"]
    if s["kind"]["identifier"] == "swift.enum.case" and preceded_by_doc(loc["uri"], loc["position"]["line"]):
        continue
    missing.append("%s:%d: %s %s" % (unquote(urlparse(loc["uri"]).path), loc["position"]["line"] + 1,
                                     s["kind"]["identifier"].split(".")[-1], ".".join(s["pathComponents"])))
print("doc coverage: %d of %d public declarations documented" % (len(public) - len(missing), len(public)))
for m in missing:
    print("missing doc comment: " + m)
sys.exit(1 if missing else 0)
