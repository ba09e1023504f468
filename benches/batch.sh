#!/usr/bin/env bash
# Batch throughput over HTTP (issue 31): labels per second delivered when
# clients send single LABELs (`POST /api/v1/label`) against clients sending
# batches of 100 LABELs (`POST /api/v1/batch`, one PDF of 100 sheets), at the
# same concurrency, with a real token (verification, one reservation and one
# durable charge per label), in alternating rounds so the machine's drift
# cancels out.
#
# Usage: benches/batch.sh  (BATCH_SECONDS per side and round, BATCH_ROUNDS,
# BATCH_CONCURRENCY override). Needs examples/loadgen (built here).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${BATCH_SECONDS:-20}
ROUNDS=${BATCH_ROUNDS:-3}
CONCURRENCY=${BATCH_CONCURRENCY:-4}

build_dev --example loadgen

make_workdir
DATA=$WORK
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT

python3 - benches/data/label.json "$DATA/batch.json" <<'PY'
import json, sys
label = json.load(open(sys.argv[1]))
json.dump({"documents": [label] * 100}, open(sys.argv[2], "w"))
PY

RUST_LOG=warn "$LABELPRESS" serve --listen "127.0.0.1:$PORT" --data-dir "$DATA" --no-system-fonts &
PID=$!
wait_healthy "$BASE"
TOKEN=$(bench_token "$BASE" "$DATA/admin-token")
echo "profile: dev; cores: $(nproc); concurrency: $CONCURRENCY; ${SECONDS_RUN}s per side, $ROUNDS rounds"

load() {
    "$BIN/examples/loadgen" "$1" "$TOKEN" "$2" "$CONCURRENCY" "$3"
}
# Warm-up: fonts, caches, the token in the cache, the workers.
load "$BASE/api/v1/label" benches/data/label.json 3 >/dev/null
load "$BASE/api/v1/batch" "$DATA/batch.json" 3 >/dev/null

for round in $(seq "$ROUNDS"); do
    single=$(load "$BASE/api/v1/label" benches/data/label.json "$SECONDS_RUN")
    batch=$(load "$BASE/api/v1/batch" "$DATA/batch.json" "$SECONDS_RUN")
    python3 - "$round" "$single" "$batch" <<'PY'
import json, sys
round_, single, batch = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
labels_single = single["ok"] / max(single["requests"], 1) * single["rps"]
labels_batch = batch["ok"] / max(batch["requests"], 1) * batch["rps"] * 100
print(f"round {round_}: single {labels_single:.0f} labels/s (p50 {single['p50_ms']:.1f} ms, {single['statuses']}); "
      f"batch of 100 {labels_batch:.0f} labels/s (p50 {batch['p50_ms']:.0f} ms, {batch['statuses']}); "
      f"batch/single {labels_batch / max(labels_single, 1e-9):.2f}")
PY
done
