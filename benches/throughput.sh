#!/usr/bin/env bash
# Issue 33, goal 2: LABEL documents per second of `labelpress serve` under
# wrk at concurrency 8 (keep-alive, a real token: cache, outbox and
# reporter active; then the system token), against the hand-written label
# (benches/label_by_hand.typ) rendered by as many processes as the machine
# has cores, each one thread (examples/render_rate), in alternating rounds
# of the same run so that both sides share the host's drift. Both sides
# render a new document each time: its order number counts up. The
# hand-written label is measured twice: as it is (no barcodes, the older
# baseline) and with LABEL's two barcodes pre-drawn as SVG images (the
# baseline issue 33 names).
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
require_wrk "$0"

build_dev --example render_rate
make_workdir
serve_with_tokens "$WORK"

# wrk at concurrency 8 for $2 seconds with token $1: renders per second.
served() {
    VARY=1 TOKEN="$1" BODY_FILE="$BODY" wrk -t1 -c8 -d"$2"s -s benches/wrk_post.lua "$BASE/api/v1/label" \
        | tail -1 | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["ok"] / r["seconds"])'
}

# One render_rate process per core on the hand-written label $1 for $2
# seconds: their summed rate.
by_hand() {
    local pids=() i
    rm -f "$WORK"/hand-*.json
    for i in $(seq "$(nproc)"); do
        "$BIN/examples/render_rate" "$1" "$2" > "$WORK/hand-$i.json" &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$WORK"/hand-*.json | python3 -c 'import json, sys; print(sum(json.loads(l)["rps"] for l in sys.stdin))'
}

# The hand-written label with LABEL's two barcodes pre-drawn, the baseline
# issue 33 names: drawn once by the server's own barcode service before any
# round, placed as SVG images (as benches/support/predrawn.rs does for the
# in-process benches).
BY_HAND_BARCODES=$WORK/label_by_hand_barcodes.typ
python3 - "$BASE" "$BODY" "$BY_HAND" > "$BY_HAND_BARCODES" <<'PY'
import json, sys, urllib.parse, urllib.request
base, body, by_hand = sys.argv[1:4]
out = open(by_hand).read()
for e in json.load(open(body))["pages"][0]["elements"]:
    if e["type"] != "barcode":
        continue
    url = f"{base}/barcode/{e['format']}/{urllib.parse.quote(e['content'], safe='')}"
    svg = urllib.request.urlopen(url).read().decode()
    literal = svg.replace("\\", "\\\\").replace('"', '\\"')
    out += (f'#place(dx: {e["x"]}mm, dy: {e["y"]}mm, image(bytes("{literal}"), format: "svg", '
            f'width: {e["width"]}mm, height: {e["height"]}mm, fit: "contain"))\n')
print(out, end="")
PY

served "$TOKEN" 3 >/dev/null  # warm-up: workers, fonts, the token's cache entry
echo "round | Typst by hand, $(nproc) processes | with barcodes pre-drawn | labelpress serve, wrk -c8 | ratio | ratio to pre-drawn | system token | ratio"
RATIOS=()
PREDRAWN_RATIOS=()
for round in $(seq "$ROUNDS"); do
    hand=$(by_hand "$BY_HAND" "$SECONDS_RUN")
    predrawn=$(by_hand "$BY_HAND_BARCODES" "$SECONDS_RUN")
    charged=$(served "$TOKEN" "$SECONDS_RUN")
    system=$(served "$SYSTEM_TOKEN" "$SECONDS_RUN")
    read -r ratio predrawn_ratio system_ratio < <(python3 -c "print(f'{$charged / $hand:.2f} {$charged / $predrawn:.2f} {$system / $hand:.2f}')")
    RATIOS+=("$ratio")
    PREDRAWN_RATIOS+=("$predrawn_ratio")
    printf '%s | %.0f/s | %.0f/s | %.0f/s | %s | %s | %.0f/s | %s\n' "$round" "$hand" "$predrawn" "$charged" "$ratio" "$predrawn_ratio" "$system" "$system_ratio"
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
echo "median ratio (real token): $(median "${RATIOS[@]}"); to the pre-drawn baseline: $(median "${PREDRAWN_RATIOS[@]}") (goal: at least 1)"
