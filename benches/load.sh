#!/usr/bin/env bash
# Load benchmark of `labelpress serve`: the LABEL document (benches/data/label.json)
# rendered over HTTP at concurrency 8 for 30 s with a real token (in-process
# verifier, cache, outbox, reporter all active), compared with the
# single-thread in-process render rate of the same document measured in the
# same run, and each round the same renders with the system token (no auth
# or charge); then /v1/verify throughput.
#
# The HTTP seconds are split into LOAD_ROUNDS rounds, each after 5 s of the
# in-process baseline (server idle): these virtual machines drift by up to
# 5-15% within minutes, and interleaving puts both sides of the ratio in the
# same minutes. The ratio is total HTTP renders/s over cores x the mean
# single-thread rate; each round's own ratio is printed too.
#
# Usage: benches/load.sh  (LOAD_SECONDS, LOAD_ROUNDS, LOAD_CONCURRENCY override;
# LOAD_VARY=1 for a new document every request, on both sides)
# The load generator shares the machine's cores with the server, so the
# cheapest one available is used: wrk (Debian package `wrk`, about 4% of one
# core at 1,800 renders/s) when installed, else examples/loadgen.rs (reqwest,
# about ten times that).
# Binaries come from the dev profile (dependencies at opt-level 2, the crate at
# 1): a release build of typst takes 20 minutes. Figures are for that profile.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

SECONDS_RUN=${LOAD_SECONDS:-30}
ROUNDS=${LOAD_ROUNDS:-3}
CONCURRENCY=${LOAD_CONCURRENCY:-8}
BODY=benches/data/label.json
# LOAD_VARY=1: both sides render a new order number each time (wrk's VARY,
# render_rate's RENDER_RATE_VARY), as issue 33's figures are measured;
# otherwise both render the same body, every cache warm.
VARY_ENV=()
if [ -n "${LOAD_VARY:-}" ]; then
    VARY_ENV=(VARY=1 RENDER_RATE_VARY=1)
    require_wrk "$0"
fi

build_dev --example loadgen --example render_rate
# A target dir shared with other checkouts may hold another checkout's binary
# under the plain name; this checkout's build is then among deps/.
if ! "$LABELPRESS" serve --help | grep -q -- --services; then
    LABELPRESS=$(ls -t "$BIN"/deps/labelpress-* | grep -v '\.d$' | while read -r f; do
        [ -x "$f" ] && "$f" serve --help 2>/dev/null | grep -q -- --services && echo "$f" && break
    done)
fi

make_workdir
DATA=$WORK

echo "profile: dev (cargo build --profile dev); cores: $(nproc); concurrency: $CONCURRENCY; duration: ${SECONDS_RUN}s"

# 1. The server, all services in one process, on a fresh data dir, and
# 2. a token through its admin API. The system token (no verification, no
# charge) separates what HTTP and the render threads cost from what the
# durable per-render charge costs.
serve_with_tokens "$DATA"

# [LOAD_TOKEN=...] load URL BODY_FILE SECONDS: one JSON line (requests, ok, errors, rps, p50_ms,
# p99_ms, statuses), from wrk or examples/loadgen.
load() {
    if command -v wrk >/dev/null; then
        env "${VARY_ENV[@]}" TOKEN="${LOAD_TOKEN:-$TOKEN}" BODY_FILE="$2" wrk -t1 -c"$CONCURRENCY" -d"$3"s --latency \
            -s benches/wrk_post.lua "$1" | tail -1
    else
        "$BIN/examples/loadgen" "$1" "${LOAD_TOKEN:-$TOKEN}" "$2" "$CONCURRENCY" "$3"
    fi
}
echo "load generator: $(command -v wrk >/dev/null && echo wrk || echo examples/loadgen)"

# 3. Rounds of the baseline (one thread rendering the same document
# in-process, no HTTP, the server idle) and renders over HTTP, sampling the
# server's RSS meanwhile, after 3 s of warm-up (fonts, caches, the token
# cache entry), as the in-process baseline renders once before it measures.
load "$BASE/api/v1/label" "$BODY" 3 >/dev/null
( peak=0; while kill -0 "$PID" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' /proc/"$PID"/status 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss && echo "$peak" > "$DATA/rss-peak"
    sleep 0.5
  done ) &
SAMPLER=$!
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' /proc/"$PID"/stat; }
SINGLES=()
RENDERS=()
UNCHARGED=()
CPU_TICKS=0
for round in $(seq "$ROUNDS"); do
    SINGLES+=("$(env "${VARY_ENV[@]}" "$BIN/examples/render_rate" "$BODY" 5)")
    echo "round $round: single-thread in-process render: ${SINGLES[-1]}"
    CPU_BEFORE=$(cpu_ticks)
    RENDERS+=("$(load "$BASE/api/v1/label" "$BODY" $((SECONDS_RUN / ROUNDS)))")
    CPU_TICKS=$((CPU_TICKS + $(cpu_ticks) - CPU_BEFORE))
    echo "round $round: render over HTTP: ${RENDERS[-1]}"
    # The same renders with the system token: no cache, outbox or reporter.
    UNCHARGED+=("$(LOAD_TOKEN="$SYSTEM_TOKEN" load "$BASE/api/v1/label" "$BODY" $((SECONDS_RUN / ROUNDS)))")
    echo "round $round: render over HTTP, system token: ${UNCHARGED[-1]}"
done
RSS_END=$(awk '/VmRSS/ {print $2}' /proc/"$PID"/status)
RSS_HWM=$(awk '/VmHWM/ {print $2}' /proc/"$PID"/status)

# 4. Verifications (real deductions, durable before each 200).
echo '{"count": 1}' > "$DATA/verify.json"
VERIFY=$(load "$BASE/v1/verify" "$DATA/verify.json" 10)
echo "verify over HTTP: $VERIFY"
kill "$SAMPLER" 2>/dev/null || true

kill "$PID" && wait "$PID" 2>/dev/null || true
PID=

python3 - "$VERIFY" "$CONCURRENCY" "$(nproc)" "$RSS_END" "$RSS_HWM" "$CPU_TICKS" "$(getconf CLK_TCK)" "$ROUNDS" "${SINGLES[@]}" "${RENDERS[@]}" "${UNCHARGED[@]}" <<'PY'
import json, statistics, sys
verify, concurrency = json.loads(sys.argv[1]), int(sys.argv[2])
cores, rss_end, rss_hwm = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ticks, clk_tck, rounds = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
singles = [json.loads(a) for a in sys.argv[9:9 + rounds]]
renders = [json.loads(a) for a in sys.argv[9 + rounds:9 + 2 * rounds]]
uncharged_rounds = [json.loads(a) for a in sys.argv[9 + 2 * rounds:9 + 3 * rounds]]
uncharged = {"rps": sum(r["ok"] for r in uncharged_rounds) / sum(r["seconds"] for r in uncharged_rounds)}
requests = sum(r["requests"] for r in renders)
render = {
    "rps": sum(r["ok"] for r in renders) / sum(r["seconds"] for r in renders),
    "errors": sum(r["errors"] for r in renders),
    "statuses": {},
    # Each round's percentile; the median of them stands for the run.
    "p50_ms": statistics.median(r["p50_ms"] for r in renders),
    "p99_ms": statistics.median(r["p99_ms"] for r in renders),
}
for r in renders:
    for status, n in r["statuses"].items():
        render["statuses"][status] = render["statuses"].get(status, 0) + n
server_cpu_ms = ticks * 1000 / clk_tck / max(requests, 1)
single = {k: statistics.mean(s[k] for s in singles) for k in ("rps", "cpu_ms_per_render")}
ideal = cores * single["rps"]
single_rates = ", ".join(f"{s['rps']:.1f}" for s in singles)
per_round = ", ".join(f"{r['rps'] / (cores * s['rps']):.2f}" for s, r in zip(singles, renders))
print()
print("| figure | value |")
print("|---|---|")
print(f"| single-thread render rate (in-process; mean of {rounds} rounds) | {single['rps']:.1f}/s ({single_rates}) |")
print(f"| HTTP renders/s | {render['rps']:.1f}/s |")
print(f"| p50 / p99 latency (median of rounds) | {render['p50_ms']:.1f} ms / {render['p99_ms']:.1f} ms |")
print(f"| ratio to cores x single rate ({cores} x {single['rps']:.1f} = {ideal:.1f}/s); each round's own | {render['rps'] / ideal:.2f}; {per_round} |")
print(f"| the same with the system token (no auth, no charge): renders/s, ratio | {uncharged['rps']:.1f}/s, {uncharged['rps'] / ideal:.2f} |")
if concurrency == 1:
    # One request at a time: the time of one over HTTP against the same
    # render in-process, each round against its own baseline.
    def slowdown(rounds_):
        per_round = [s["rps"] / r["ok"] * r["seconds"] for s, r in zip(singles, rounds_)]
        return f"{statistics.median(per_round):.2f}x ({', '.join(f'{x:.2f}' for x in per_round)})"
    print(f"| HTTP time per render / in-process time, median of rounds (each round's): system token; real token | {slowdown(uncharged_rounds)}; {slowdown(renders)} |")
print(f"| CPU per render: in-process / server (HTTP, auth, outbox, reporter, verifier) | {single['cpu_ms_per_render']:.2f} ms / {server_cpu_ms:.2f} ms (ratio {single['cpu_ms_per_render'] / server_cpu_ms:.2f}) |")
print(f"| non-200 answers | {render['errors']} {render['statuses']} |")
print(f"| server RSS after load / peak (VmHWM) | {rss_end / 1024:.0f} MiB / {rss_hwm / 1024:.0f} MiB |")
print(f"| verifies/s (count=1, durable) | {verify['rps']:.1f}/s (p50 {verify['p50_ms']:.2f} ms, p99 {verify['p99_ms']:.2f} ms) |")
PY
