#!/usr/bin/env bash
# What render isolation costs: the LABEL document over HTTP (real token,
# in-process verifier, concurrency 8) with `render_isolation = "thread"`
# (renders on the render threads) and `"process"` (renders in worker
# processes, the default), in alternating rounds on one binary so that both
# sides are measured in the same minutes. Prints each round's renders/s and
# the process/thread ratio of the medians.
#
# With BEFORE=/path/to/an/older/labelpress, each round also runs that binary
# with its own defaults ("before"), and the process/before ratio is printed
# too: a before-and-after figure measured in the same minutes.
#
# Usage: benches/isolation.sh  (ISO_ROUNDS, ISO_SECONDS, ISO_CONCURRENCY, BEFORE override)
# Needs wrk (Debian package `wrk`).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

ROUNDS=${ISO_ROUNDS:-4}
SECONDS_RUN=${ISO_SECONDS:-10}
CONCURRENCY=${ISO_CONCURRENCY:-8}
BODY=benches/data/label.json
require_wrk "$0"

build_dev

make_workdir

# One round: a fresh server in MODE (thread, process, or before: the BEFORE
# binary with its defaults), a token, 3 s warm-up, then the measured run.
round() {
    local mode=$1 data port base token rate binary=$LABELPRESS
    data=$(mktemp -d -p "$WORK")
    if [ "$mode" = before ]; then
        binary=$BEFORE
        : > "$data/limits.toml"
    else
        printf '[limits]\nrender_isolation = "%s"\n' "$mode" > "$data/limits.toml"
    fi
    port=$(free_port)
    base=http://127.0.0.1:$port
    RUST_LOG=warn "$binary" serve --listen "127.0.0.1:$port" --data-dir "$data/d" \
        --no-system-fonts --config "$data/limits.toml" &
    PID=$!
    wait_healthy "$base"
    token=$(bench_token "$base" "$data/d/admin-token")
    rate=$(post_rate "$base" "$token" "$BODY" "$CONCURRENCY" "$SECONDS_RUN")
    local rss
    rss=$(ps -o rss= --ppid "$PID" -p "$PID" | awk '{s+=$1} END {print int(s/1024)}')
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    echo "$mode $rate $rss"
}

echo "cores: $(nproc); concurrency: $CONCURRENCY; ${SECONDS_RUN}s per round; $ROUNDS rounds each, alternating"
: > "$WORK/results"
for i in $(seq 1 "$ROUNDS"); do
    if [ $((i % 2)) -eq 1 ]; then order="thread process"; else order="process thread"; fi
    if [ -n "${BEFORE:-}" ]; then
        # The older binary runs first in odd rounds and last in even ones.
        if [ $((i % 2)) -eq 1 ]; then order="before $order"; else order="$order before"; fi
    fi
    for mode in $order; do
        line=$(round "$mode")
        set -- $line
        echo "round $i: $1 $2 renders/s, $3 MiB RSS (server and workers)"
        echo "$line" >> "$WORK/results"
    done
done
python3 - "$WORK/results" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    mode, rate, rss = line.split()
    rates.setdefault(mode, []).append(float(rate))
t, p = statistics.median(rates["thread"]), statistics.median(rates["process"])
print(f"median renders/s: thread {t:.0f}, process {p:.0f}; process/thread = {p / t:.3f}")
if "before" in rates:
    b = statistics.median(rates["before"])
    print(f"median renders/s: before {b:.0f}; process/before = {p / b:.3f}, thread/before = {t / b:.3f}")
PY
