"""YAML files as JSON for tests/suite/deploy_manifests.rs: prints
{path: [document, ...]} for the paths given, each file's documents in order
(empty documents left out), as PyYAML's safe loader reads them."""

import json
import sys

import yaml

out = {}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        out[path] = [doc for doc in yaml.safe_load_all(f) if doc is not None]
json.dump(out, sys.stdout)
