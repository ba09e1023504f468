#!/usr/bin/env python3
"""JSON Schema and OpenAPI checks for tests/suite/openapi.rs.

  schemacheck.py validate FILE   FILE holds {"schema": S, "instances": [...]}:
                                 prints a JSON list, per instance, of its
                                 errors (path and message; empty when valid),
                                 validated with jsonschema's Draft 2020-12.
  schemacheck.py openapi FILE    validates FILE as an OpenAPI 3.1 document
                                 (openapi-spec-validator); prints {"ok": true}
                                 or {"ok": false, "error": "..."}.
"""
import json
import sys


def validate(path):
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    with open(path, encoding="utf-8") as f:
        job = json.load(f)
    Draft202012Validator.check_schema(job["schema"])
    validator = Draft202012Validator(job["schema"])
    out = []
    for instance in job["instances"]:
        errors = []
        for e in validator.iter_errors(instance):
            # Inside a oneOf, the branch that came closest names the fault.
            best = best_match(e.context) if e.context else e
            errors.append({"path": "/".join(map(str, e.absolute_path)), "message": best.message[:300]})
        out.append(errors)
    print(json.dumps(out))


def openapi(path):
    from openapi_spec_validator import validate as check

    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    try:
        check(document)
        print(json.dumps({"ok": True}))
    except Exception as e:  # the validator's own error types
        print(json.dumps({"ok": False, "error": str(e)[:2000]}))


if __name__ == "__main__":
    {"validate": validate, "openapi": openapi}[sys.argv[1]](sys.argv[2])
