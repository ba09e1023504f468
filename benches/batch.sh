#!/usr/bin/env bash
# Batch throughput over HTTP (issue 31): labels per second delivered when
# clients send single LABELs (`POST /api/v1/label`) against clients sending
# batches of 100 LABELs (`POST /api/v1/batch`, one PDF of 100 sheets), at the
# same concurrency, with a real token (verification, one reservation and one
# durable charge per label), in alternating rounds so the machine's drift
# cancels out.
#
# With BATCH_FORMAT=zpl or png the labels are asked for as ZPL or PNG, and
# a third side sends the same batch with `"partial": true`, which renders
# it as one job (a ZIP of the output and its manifest), against the
# default batch that renders its documents apart, one job each, and
# streams them: documents apart against one job, in the same rounds.
#
# Usage: benches/batch.sh  (BATCH_SECONDS per side and round, BATCH_ROUNDS,
# BATCH_CONCURRENCY, BATCH_FORMAT (pdf, zpl, png) override). Needs
# examples/loadgen (built here).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${BATCH_SECONDS:-20}
ROUNDS=${BATCH_ROUNDS:-3}
CONCURRENCY=${BATCH_CONCURRENCY:-4}
FORMAT=${BATCH_FORMAT:-pdf}

build_dev --example loadgen

make_workdir
DATA=$WORK
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT

python3 - benches/data/label.json "$DATA/batch.json" <<'PY'
import json, sys
label = json.load(open(sys.argv[1]))
json.dump({"documents": [label] * 100}, open(sys.argv[2], "w"))
json.dump({"documents": [label] * 100, "partial": True}, open(sys.argv[2] + ".whole", "w"))
PY

RUST_LOG=warn "$LABELPRESS" serve --listen "127.0.0.1:$PORT" --data-dir "$DATA" --no-system-fonts &
PID=$!
wait_healthy "$BASE"
TOKEN=$(bench_token "$BASE" "$DATA/admin-token")
echo "profile: dev; cores: $(nproc); concurrency: $CONCURRENCY; format: $FORMAT; ${SECONDS_RUN}s per side, $ROUNDS rounds"

load() {
    "$BIN/examples/loadgen" "$1?format=$FORMAT" "$TOKEN" "$2" "$CONCURRENCY" "$3"
}
# Warm-up: fonts, caches, the token in the cache, the workers.
load "$BASE/api/v1/label" benches/data/label.json 3 >/dev/null
load "$BASE/api/v1/batch" "$DATA/batch.json" 3 >/dev/null

for round in $(seq "$ROUNDS"); do
    single=$(load "$BASE/api/v1/label" benches/data/label.json "$SECONDS_RUN")
    batch=$(load "$BASE/api/v1/batch" "$DATA/batch.json" "$SECONDS_RUN")
    whole='{}'
    if [ "$FORMAT" != pdf ]; then
        whole=$(load "$BASE/api/v1/batch" "$DATA/batch.json.whole" "$SECONDS_RUN")
    fi
    python3 - "$round" "$single" "$batch" "$whole" <<'PY'
import json, sys
round_, single, batch, whole = sys.argv[1], *(json.loads(a) for a in sys.argv[2:])
def labels(run, per_request):
    return run["ok"] / max(run["requests"], 1) * run["rps"] * per_request
labels_single, labels_batch = labels(single, 1), labels(batch, 100)
line = (f"round {round_}: single {labels_single:.0f} labels/s (p50 {single['p50_ms']:.1f} ms, {single['statuses']}); "
        f"batch of 100 {labels_batch:.0f} labels/s (p50 {batch['p50_ms']:.0f} ms, {batch['statuses']}); "
        f"batch/single {labels_batch / max(labels_single, 1e-9):.2f}")
if whole:
    labels_whole = labels(whole, 100)
    line += (f"; as one job {labels_whole:.0f} labels/s (p50 {whole['p50_ms']:.0f} ms, {whole['statuses']}); "
             f"apart/one job {labels_batch / max(labels_whole, 1e-9):.2f}")
print(line)
PY
done
if [ "$FORMAT" != pdf ]; then
    # When the first byte of a batch's answer arrives against when its last
    # does, on an idle server: what streaming gives a client.
    python3 - "$BASE" "$TOKEN" "$FORMAT" "$DATA/batch.json" "$DATA/batch.json.whole" <<'PY'
import http.client, statistics, sys, time, urllib.parse
base, token, fmt, bodies = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
url = urllib.parse.urlsplit(base)
for path in bodies:
    body = open(path, "rb").read()
    firsts, lasts = [], []
    for _ in range(5):
        conn = http.client.HTTPConnection(url.hostname, url.port)
        started = time.perf_counter()
        conn.request("POST", f"/api/v1/batch?format={fmt}", body,
                     {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        answer = conn.getresponse()
        assert answer.status == 200, answer.status
        answer.read1(1)
        firsts.append(time.perf_counter() - started)
        answer.read()
        lasts.append(time.perf_counter() - started)
        conn.close()
    name = "one job (partial)" if path.endswith(".whole") else "documents apart"
    print(f"{name}: median of 5, first byte {statistics.median(firsts) * 1000:.0f} ms, "
          f"last byte {statistics.median(lasts) * 1000:.0f} ms")
PY
fi
