#!/usr/bin/python3
# validate-openai.py: check request bodies against OpenAI's published schema, offline.
# usage: validate-openai.py SCHEMAS_JSON COMPONENT FILE...
# SCHEMAS_JSON is t/fixtures/openai-request-schemas.json (the parts of
# OpenAI's document the tests need, made by extract-openai-schemas.py).
# Each FILE holds one JSON body; prints "FILE: ok" or the first errors and
# exits 1. Uses Debian's python3-jsonschema only.
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: validate-openai.py SCHEMAS_JSON COMPONENT FILE...\n")
        return 2
    path, component, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if component not in spec["components"]["schemas"]:
        sys.stderr.write("no schema %s in %s\n" % (component, path))
        return 2
    # The refs are all "#/components/schemas/X": point the root at the
    # component and keep the components beside it so they resolve in place.
    schema = {"$ref": "#/components/schemas/" + component,
              "components": spec["components"]}
    cls = jsonschema.Draft202012Validator
    validator = cls(schema)
    status = 0
    for name in files:
        with open(name, encoding="utf-8") as f:
            body = json.load(f)
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
        if not errors:
            print("%s: ok" % name)
            continue
        status = 1
        for e in errors[:5]:
            print("%s: %s at %s" % (name, e.message[:300],
                                    "/".join(str(p) for p in e.absolute_path)))
    return status


sys.exit(main())
