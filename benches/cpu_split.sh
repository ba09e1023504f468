#!/usr/bin/env bash
# Where one LABEL over HTTP spends its CPU: `serve` (every service in one
# process) under wrk for SPLIT_SECONDS (default 10) after 3 s of warm-up,
# and the CPU per request of the server process and of each of its render
# worker processes, read from /proc/PID/stat before and after. Shows how
# the renders spread over the workers (at one request at a time, one worker
# with warm caches should take them all) and what the hand-off costs beside
# the render.
#
# Usage: benches/cpu_split.sh  (SPLIT_CONCURRENCY, default 1; SPLIT_TOKEN=real
# for a customer's token (cache, durable outbox), else the system token;
# SPLIT_VARY=1 for a new order number per request). Needs wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${SPLIT_SECONDS:-10}
CONCURRENCY=${SPLIT_CONCURRENCY:-1}
BODY=benches/data/label.json
require_wrk "$0"

build_dev
make_workdir
serve_with_tokens "$WORK"
[ "${SPLIT_TOKEN:-system}" = real ] || TOKEN=$SYSTEM_TOKEN

# CPU ticks (user + system) of process $1.
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' /proc/"$1"/stat; }
run() {
    env ${SPLIT_VARY:+VARY=1} TOKEN="$TOKEN" BODY_FILE="$BODY" wrk -t1 -c"$CONCURRENCY" -d"$1"s \
        -s benches/wrk_post.lua "$BASE/api/v1/label" | tail -1
}

run 3 >/dev/null
WORKERS=$( (pgrep -P "$PID" || true) | tr '\n' ' ')
BEFORE="$(ticks "$PID")"
for w in $WORKERS; do BEFORE="$BEFORE $(ticks "$w")"; done
RESULT=$(run "$SECONDS_RUN")
AFTER="$(ticks "$PID")"
for w in $WORKERS; do AFTER="$AFTER $(ticks "$w")"; done

python3 - "$RESULT" "$(getconf CLK_TCK)" "$SECONDS_RUN" "$BEFORE" "$AFTER" <<'PY'
import json, sys
result, clk, seconds = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
before, after = ([int(x) for x in a.split()] for a in sys.argv[4:6])
n = max(result["requests"], 1)
per = [(a - b) * 1000 / clk / n for a, b in zip(after, before)]
print(json.dumps(result))
print(f"wall {seconds * 1000 / n:.3f} ms per request; CPU per request: server {per[0]:.3f} ms, "
      f"workers {sum(per[1:]):.3f} ms ({', '.join(f'{p:.3f}' for p in per[1:]) or 'none: thread isolation'})")
PY
