#!/usr/bin/env bash
# One render node's LABEL throughput on a large balance, charged through
# quota leases against the same node charged the way it was before leases
# (issue 32): a verifier, and two render nodes on it with `--verify-url`,
# one with `lease_s = 0` (a cached balance counted down per render and a
# durable usage outbox, one disk sync per group of renders) and one with
# leases (the default: units prepaid in blocks, nothing written per
# render). Alternating rounds of single LABELs at the same concurrency, so
# the machine's drift cancels out; only one node is loaded at a time.
#
# Usage: benches/lease.sh  (LEASE_SECONDS per side and round, LEASE_ROUNDS,
# LEASE_CONCURRENCY override). Needs examples/loadgen (built here).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${LEASE_SECONDS:-15}
ROUNDS=${LEASE_ROUNDS:-3}
CONCURRENCY=${LEASE_CONCURRENCY:-4}

build_dev --example loadgen

make_workdir
PIDS=()
stop_all() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap stop_all EXIT

VPORT=$(free_port)
VERIFIER=http://127.0.0.1:$VPORT
RUST_LOG=warn "$LABELPRESS" serve --services verify --listen "127.0.0.1:$VPORT" \
    --data-dir "$WORK/verifier" >"$WORK/verifier.log" 2>&1 &
PIDS+=($!)
wait_healthy "$VERIFIER"
TOKEN=$(bench_token "$VERIFIER" "$WORK/verifier/admin-token")

# Starts a render node on the verifier with `lease_s = $2`; sets NODE to
# its base URL. (Not in a command substitution: the server would keep its
# output pipe open.)
start_node() { # NAME LEASE_S
    local port
    port=$(free_port)
    printf '[limits]\nlease_s = %s\n' "$2" > "$WORK/$1.toml"
    RUST_LOG=warn "$LABELPRESS" serve --services render --listen "127.0.0.1:$port" \
        --data-dir "$WORK/$1" --verify-url "$VERIFIER" --config "$WORK/$1.toml" \
        --no-system-fonts >"$WORK/$1.log" 2>&1 &
    PIDS+=($!)
    NODE="http://127.0.0.1:$port"
    wait_healthy "$NODE"
}
start_node outbox 0
OUTBOX=$NODE
start_node leases 5
LEASES=$NODE
echo "profile: dev; cores: $(nproc); concurrency: $CONCURRENCY; ${SECONDS_RUN}s per side, $ROUNDS rounds"

load() {
    "$BIN/examples/loadgen" "$1/api/v1/label" "$TOKEN" benches/data/label.json "$CONCURRENCY" "$2"
}
# Warm-up: fonts, the workers, the token cached or leased.
load "$OUTBOX" 3 >/dev/null
load "$LEASES" 3 >/dev/null

for round in $(seq "$ROUNDS"); do
    outbox=$(load "$OUTBOX" "$SECONDS_RUN")
    leases=$(load "$LEASES" "$SECONDS_RUN")
    python3 - "$round" "$outbox" "$leases" <<'PY'
import json, sys
round_, outbox, leases = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
rate = lambda r: r["ok"] / max(r["requests"], 1) * r["rps"]
print(f"round {round_}: outbox {rate(outbox):.0f} labels/s (p50 {outbox['p50_ms']:.1f} ms, {outbox['statuses']}); "
      f"leases {rate(leases):.0f} labels/s (p50 {leases['p50_ms']:.1f} ms, {leases['statuses']}); "
      f"leases/outbox {rate(leases) / max(rate(outbox), 1e-9):.3f}")
PY
done
