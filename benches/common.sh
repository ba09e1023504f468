# Shell helpers shared by the HTTP benchmarks (sourced, not run).

# Exits with a message naming the script $1 unless wrk (Debian package
# `wrk`) is installed.
require_wrk() {
    command -v wrk >/dev/null || { echo "$1: needs wrk (apt-get install wrk)" >&2; exit 1; }
}

# Waits until BASE/healthz answers (30 s at most).
wait_healthy() {
    python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(sys.argv[1] + "/healthz", timeout=1); sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit("server did not start")
PY
}

# Prints a new token with an unreachable balance and rate limit, made through
# BASE's admin API with the admin token in the file ADMIN_TOKEN_FILE.
bench_token() {
    python3 - "$1" "$2" <<'PY'
import json, sys, urllib.request
base, admin = sys.argv[1], open(sys.argv[2]).read().strip()
body = json.dumps({"account": "bench", "balance": 10**12, "expires_at": None,
                   "rate_limit": {"per_second": 1000000, "burst": 1000000}}).encode()
req = urllib.request.Request(base + "/admin/api/tokens", data=body, method="POST",
    headers={"Authorization": "Bearer " + admin, "Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req))["token"])
PY
}

# Prints the requests/s wrk measures POSTing the file BODY_FILE to
# BASE/api/v1/label (or BASE PATH, the optional sixth argument, query
# included) with TOKEN, at CONCURRENCY connections for SECONDS, after 3 s of
# the same load as warm-up. The status is not checked here: wrk_post.lua's
# JSON line has it, for callers that need it.
post_rate() {
    local base=$1 token=$2 body=$3 concurrency=$4 seconds=$5 path=${6:-/api/v1/label}
    TOKEN=$token BODY_FILE=$body wrk -t1 -c"$concurrency" -d3s -s benches/wrk_post.lua \
        "$base$path" >/dev/null
    TOKEN=$token BODY_FILE=$body wrk -t1 -c"$concurrency" -d"${seconds}s" -s benches/wrk_post.lua \
        "$base$path" | awk '/Requests\/sec/ {print $2}'
}

# Builds the server (and any further targets given, e.g. `--example
# loadgen`) in the dev profile the benchmarks measure, then sets BIN (its
# output folder) and LABELPRESS (the server binary).
build_dev() {
    cargo build --profile dev --bin labelpress "$@" 2>&1 | tail -1
    BIN=${CARGO_TARGET_DIR:-target}/debug
    LABELPRESS=$BIN/labelpress
}

# Prints a free loopback port.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts `labelpress serve` (every service in one process) on a free port
# with the data dir $1 and a system token, waits until it is healthy, and
# makes a bench token through its admin API. Sets PORT, BASE, PID,
# SYSTEM_TOKEN (no verification, no charge) and TOKEN (charged as a
# customer's). Needs LABELPRESS (build_dev).
serve_with_tokens() {
    PORT=$(free_port)
    BASE=http://127.0.0.1:$PORT
    SYSTEM_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
    RUST_LOG=warn "$LABELPRESS" serve --listen "127.0.0.1:$PORT" --data-dir "$1" --no-system-fonts \
        --system-token "$SYSTEM_TOKEN" &
    PID=$!
    wait_healthy "$BASE"
    TOKEN=$(bench_token "$BASE" "$1/admin-token")
}

# Makes the scratch directory $WORK, removed on exit together with the
# server whose pid is in $PID, if one is running.
make_workdir() {
    WORK=$(mktemp -d)
    PID=
    trap remove_workdir EXIT
}

remove_workdir() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
