#!/usr/bin/python3
# extract-openai-schemas.py: carry the parts of OpenAI's OpenAPI document that the tests validate against.
# usage: extract-openai-schemas.py OPENAPI_YAML > t/fixtures/openai-request-schemas.json
#
# Run by hand, once per update of the source document, never by the tests:
# keeps the component schemas of the two request bodies mc-request writes
# (CreateChatCompletionRequest and CreateResponse) and everything they
# reference, with the document's version and licence, so that the tests
# need nothing outside the repository. Uses Debian's python3-yaml only.
import json
import sys

import yaml

ROOTS = ("CreateChatCompletionRequest", "CreateResponse")
PREFIX = "#/components/schemas/"


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith(PREFIX):
            out.add(r[len(PREFIX):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: extract-openai-schemas.py OPENAPI_YAML\n")
        return 2
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = yaml.load(f, Loader=loader)
    schemas = spec["components"]["schemas"]
    keep, todo = set(), list(ROOTS)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        found = set()
        refs(schemas[name], found)
        todo.extend(sorted(found - keep))
    info = spec.get("info", {})
    doc = {
        "x-mc-note": "The component schemas of OpenAI's request bodies "
                     "CreateChatCompletionRequest and CreateResponse, with everything "
                     "they reference, extracted by t/lib/extract-openai-schemas.py from "
                     "OpenAI's OpenAPI document (openai-openapi.yaml, github.com/openai/"
                     "openai-openapi). Used only by the tests, to validate the bodies "
                     "mc-request writes.",
        "x-mc-source": {"title": info.get("title"), "version": info.get("version"),
                        "license": info.get("license")},
        "components": {"schemas": {k: schemas[k] for k in sorted(keep)}},
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=False, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


sys.exit(main())
