#!/usr/bin/env bash
# A change's cost on every figure issue 33 keeps from regressing, over HTTP:
# LABEL and INVOICE (2,000 rows) as PDF, LABEL as PNG and as ZPL (203 dpi),
# a QR Code from the barcode service (GET, no token) and verifies (count 1,
# durable). This tree's binary ("after") against an older one ("before"),
# each round a fresh server of each binary with its own defaults, in
# alternating order so that both are measured in the same minutes. Prints
# each round's requests/s and the after/before ratio of the medians, per
# figure.
#
# Usage: BEFORE=/path/to/older/labelpress [AFTER=/path/to/labelpress] benches/before_after.sh
#        (BA_ROUNDS, BA_SECONDS, BA_CONCURRENCY override; BA_FONTS=system
#        serves with the system's fonts instead of the embedded ones only)
# Needs wrk (Debian package `wrk`).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

: "${BEFORE:?set BEFORE to the older labelpress binary}"
ROUNDS=${BA_ROUNDS:-4}
SECONDS_RUN=${BA_SECONDS:-10}
CONCURRENCY=${BA_CONCURRENCY:-2}
TARGET=${CARGO_TARGET_DIR:-target}
require_wrk "$0"

# AFTER= measures a given binary instead (e.g. both built --release).
if [ -z "${AFTER:-}" ]; then
    cargo build --profile dev --bin labelpress 2>&1 | tail -1
    AFTER=$TARGET/debug/labelpress
fi

make_workdir

python3 benches/data/gen_requests.py --out "$WORK/docs" label=0 invoice=1 invoice20k=0 >/dev/null
cp benches/data/label.json "$WORK/docs/label.json"
mv "$WORK/docs/invoice-00.json" "$WORK/docs/invoice.json"

# One round of one binary: a fresh server, a token, then per document a 3 s
# warm-up and the measured run. Prints "<name> <label/s> <invoice/s>".
round() {
    local name=$1 binary=$2 data port base token doc rates=""
    data=$(mktemp -d -p "$WORK")
    port=$(free_port)
    base=http://127.0.0.1:$port
    local fonts=--no-system-fonts
    [ "${BA_FONTS:-embedded}" = system ] && fonts=
    RUST_LOG=warn "$binary" serve --listen "127.0.0.1:$port" --data-dir "$data/d" $fonts &
    PID=$!
    wait_healthy "$base"
    token=$(bench_token "$base" "$data/d/admin-token")
    for doc in label invoice; do
        rates="$rates $(post_rate "$base" "$token" "$WORK/docs/$doc.json" "$CONCURRENCY" "$SECONDS_RUN")"
    done
    for format in png zpl; do
        rates="$rates $(post_rate "$base" "$token" "$WORK/docs/label.json" "$CONCURRENCY" "$SECONDS_RUN" \
            "/api/v1/label?format=$format&dpi=203")"
    done
    rates="$rates $(GET=1 post_rate "$base" "" "" "$CONCURRENCY" "$SECONDS_RUN" "$QR_PATH")"
    rates="$rates $(post_rate "$base" "$token" "$WORK/verify.json" "$CONCURRENCY" "$SECONDS_RUN" /v1/verify)"
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    echo "$name$rates"
}

echo '{"count": 1}' > "$WORK/verify.json"
# LABEL's QR Code, as the barcode service draws it.
QR_PATH="/barcode/qr/$(python3 -c 'import urllib.parse; print(urllib.parse.quote("https://track.example-shipping.com/parcel?id=SHIP00001234567", safe=""))')"
FIGURES="LABEL INVOICE LABEL-PNG LABEL-ZPL QR-SVG VERIFY"

echo "cores: $(nproc); concurrency: $CONCURRENCY; ${SECONDS_RUN}s per figure and round; $ROUNDS rounds, alternating"
: > "$WORK/results"
for i in $(seq 1 "$ROUNDS"); do
    if [ $((i % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
    for name in $order; do
        if [ "$name" = before ]; then binary=$BEFORE; else binary=$AFTER; fi
        line=$(round "$name" "$binary")
        echo "round $i: $line ($FIGURES, requests/s)"
        echo "$line" >> "$WORK/results"
    done
done
python3 - "$WORK/results" $FIGURES <<'PY'
import statistics, sys
figures = sys.argv[2:]
rates = {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    for figure, value in zip(figures, values):
        rates.setdefault(name, {}).setdefault(figure, []).append(float(value))
print("| figure | before, median /s | after, median /s | after/before |")
print("|---|---|---|---|")
for figure in figures:
    b, a = statistics.median(rates["before"][figure]), statistics.median(rates["after"][figure])
    print(f"| {figure} | {b:.1f} | {a:.1f} | {a / b:.3f} |")
PY
