"""Schemathesis hooks of tests/suite/contract.rs.

One rule of `POST /v1/verify` depends on the ledger's state, not on the
request: an `Idempotency-Key` used before with another `count` (or
`dry_run`) is a 400. Generated requests reuse short keys ("0", "00") all the
time, so a key already sent with another count is replaced by a fresh one
before the call; a key seen with the same count, or an invalid key (the
negative cases), is sent as generated.
"""
import re
import uuid

import schemathesis

VALID_KEY = re.compile(r"^[\x21-\x7E]{1,255}$")
SEEN = {}


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    name = next((n for n in headers if n.lower() == "idempotency-key"), None)
    if name is None or not isinstance(headers[name], str) or not VALID_KEY.match(headers[name]):
        return
    body = case.body if isinstance(case.body, dict) else {}
    query = case.query or {}
    signature = (repr(body.get("count", 1)), repr(query.get("dry_run")))
    key = headers[name]
    if SEEN.setdefault(key, signature) != signature:
        key = uuid.uuid4().hex
        SEEN[key] = signature
        headers[name] = key
