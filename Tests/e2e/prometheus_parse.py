#!/usr/bin/env python3
"""Parses a Prometheus text exposition (stdin) with prometheus_client's own
parser, the one Prometheus' Python ecosystem uses, and prints every sample as
one JSON line: {"family", "type", "name", "labels", "value"}. Exits 1 with
the parser's message when the text is not valid exposition format; exits 3
when prometheus_client is not installed (the caller skips then)."""
import json
import math
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("prometheus_client not installed", file=sys.stderr)
    sys.exit(3)

text = sys.stdin.read()
try:
    for family in text_string_to_metric_families(text):
        if not family.documentation:
            raise ValueError("family %s has no HELP" % family.name)
        for s in family.samples:
            value = s.value
            if math.isnan(value) or math.isinf(value):
                value = str(value)
            print(json.dumps({"family": family.name, "type": family.type, "name": s.name,
                              "labels": s.labels, "value": value}, sort_keys=True))
except Exception as e:  # the parser raises ValueError (and others) on bad input
    print("parse error: %s" % e, file=sys.stderr)
    sys.exit(1)
