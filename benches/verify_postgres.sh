#!/usr/bin/env bash
# Verifies/s on the PostgreSQL ledger against the embedded ledger, in the same
# run, at concurrency 8 and 64 (benches/verify_load.rs --database-url). Both
# durable: the embedded store's group commit ends with fdatasync; PostgreSQL
# runs a throwaway cluster (initdb in a temporary folder, a free loopback
# port) with fsync and synchronous_commit on, so each answer's commit has
# reached the WAL on disk. PostgreSQL groups concurrent commits by itself.
#
#   benches/verify_postgres.sh [SECONDS]   (default 10 per measurement)
#
# Needs Debian's postgresql package (apt-get install postgresql); runs the
# server as the postgres user when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL not found: apt-get install postgresql" >&2; exit 2; }
as_pg=()
[ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)

root=$(mktemp -d /tmp/labelpress-pgbench.XXXXXX)
chmod 755 "$root"
mkdir "$root/data"
[ "$(id -u)" = 0 ] && chown postgres: "$root/data"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
stop() {
    "${as_pg[@]}" "$bin/pg_ctl" -D "$root/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$root"
}
trap stop EXIT

"${as_pg[@]}" "$bin/initdb" -A trust -U postgres -E UTF8 -D "$root/data" >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$root/data" -l "$root/data/server.log" -w \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$root/data \
        -c fsync=on -c synchronous_commit=on -c max_connections=200" start >/dev/null
url="postgres://postgres@127.0.0.1:$port/postgres"
version=$("$bin/postgres" --version | awk '{print $3}')
echo "PostgreSQL $version, synchronous_commit=on, $(nproc) cores"

for clients in 8 64; do
    # A fresh schema per run: the previous run's usage rows would slow inserts.
    "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -c \
        "DROP TABLE IF EXISTS lp_schema, lp_tokens, lp_accounts, lp_usage, lp_idempotency" postgres
    cargo bench --locked --bench verify_load -- --database-url "$url" \
        --clients "$clients" --duration "$seconds" 2>/dev/null | grep '^verify_load'
done
