#!/usr/bin/env bash
# Issue 33, goal 2: LABEL documents per second of `labelpress serve` under
# wrk at concurrency 8 (keep-alive, a real token: cache, outbox and
# reporter active; then the system token), against the hand-written label
# (benches/label_by_hand.typ) rendered by as many processes as the machine
# has cores, each one thread (examples/render_rate), in alternating rounds
# of the same run so that both sides share the host's drift. Both sides
# render a new document each time: its order number counts up.
#
# Usage: benches/throughput.sh  (THROUGHPUT_SECONDS per side and round,
# default 10; THROUGHPUT_ROUNDS, default 3). Needs wrk (Debian package).
# Dev profile, as every benchmark here.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${THROUGHPUT_SECONDS:-10}
ROUNDS=${THROUGHPUT_ROUNDS:-3}
BODY=benches/data/label.json
BY_HAND=benches/label_by_hand.typ
command -v wrk >/dev/null || { echo "benches/throughput.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }

build_dev --example render_rate
make_workdir
serve_with_tokens "$WORK"

# wrk at concurrency 8 for $2 seconds with token $1: renders per second.
served() {
    VARY=1 TOKEN="$1" BODY_FILE="$BODY" wrk -t1 -c8 -d"$2"s -s benches/wrk_post.lua "$BASE/api/v1/label" \
        | tail -1 | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["ok"] / r["seconds"])'
}

# One render_rate process per core on the hand-written label: their summed rate.
by_hand() {
    local pids=() i
    for i in $(seq "$(nproc)"); do
        "$BIN/examples/render_rate" "$BY_HAND" "$1" > "$WORK/hand-$i.json" &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$WORK"/hand-*.json | python3 -c 'import json, sys; print(sum(json.loads(l)["rps"] for l in sys.stdin))'
}

served "$TOKEN" 3 >/dev/null  # warm-up: workers, fonts, the token's cache entry
echo "round | Typst by hand, $(nproc) processes | labelpress serve, wrk -c8 | ratio | system token | ratio"
RATIOS=()
for round in $(seq "$ROUNDS"); do
    hand=$(by_hand "$SECONDS_RUN")
    charged=$(served "$TOKEN" "$SECONDS_RUN")
    system=$(served "$SYSTEM_TOKEN" "$SECONDS_RUN")
    read -r ratio system_ratio < <(python3 -c "print(f'{$charged / $hand:.2f} {$system / $hand:.2f}')")
    RATIOS+=("$ratio")
    printf '%s | %.0f/s | %.0f/s | %s | %.0f/s | %s\n' "$round" "$hand" "$charged" "$ratio" "$system" "$system_ratio"
done
echo "median ratio (real token): $(printf '%s\n' "${RATIOS[@]}" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p") (goal: at least 1)"
