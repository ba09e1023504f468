# labelpress container image: `docker build -t labelpress .`, then
# `docker run -p 8080:8080 -v labelpress-data:/var/lib/labelpress labelpress`.
# tests/suite/package.rs checks that the port, health path, entrypoint flags
# and packages below agree with the CLI, scripts/install-fonts.sh and .ci/run.

# Build stage: the release binary (about 15 minutes on 2 cores from nothing).
FROM rust:1.95-bookworm AS build
WORKDIR /src
# Dependencies first, in layers of their own: the workspace's manifests, the
# lock file and the build script (which reads no sources), with a stub for
# every target cargo needs to load the workspace: an empty library for each
# crate under crates/, the binary (cargo metadata lists its declared path)
# and the benches (cargo metadata leaves out a missing one: their names are
# read from Cargo.toml). A change to the sources then rebuilds only the
# workspace's crates; a change to a Cargo.toml or Cargo.lock builds
# every crate again. The fuzz crate is outside the workspace and not copied.
# The patched dependencies under vendor/ ([patch.crates-io]) are
# dependencies too: copied whole, with the manifests.
COPY Cargo.toml Cargo.lock build.rs ./
COPY crates/barcode/Cargo.toml crates/barcode/
COPY crates/document/Cargo.toml crates/document/
COPY crates/verify/Cargo.toml crates/verify/
COPY vendor vendor/
RUN for crate in crates/*/; do mkdir -p "${crate}src" && touch "${crate}src/lib.rs"; done \
 && metadata=$(cargo metadata --no-deps --locked --format-version 1) \
 && benches=$(awk -F '"' '/^\[/ { bench = ($0 == "[[bench]]") } bench && /^name *=/ { print "benches/" $2 ".rs" }' Cargo.toml) \
 && for target in $(printf '%s' "$metadata" | grep -o '"src_path":"[^"]*"' | cut -d '"' -f 4) $benches; do \
      [ -e "$target" ] || { mkdir -p "$(dirname "$target")" \
        && echo '#![allow(dead_code)] fn main() {}' > "$target"; }; \
    done
RUN cargo build --release --locked --bin labelpress
# Then the sources. COPY keeps the files' modification times, which may be
# older than the stubs built above: touched, so cargo rebuilds the
# workspace's crates from them rather than keeping the stubs' build.
COPY . .
RUN find src crates -name '*.rs' -exec touch {} + \
 && cargo build --release --locked --bin labelpress \
 && cp target/release/labelpress /usr/local/bin/labelpress

# Runtime stage: Debian slim with the fonts of the default fallback order
# (docs/fonts.md), CA roots for https verifier URLs, and curl for the health
# check. No compiler, no sources.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-noto-core fonts-noto-cjk ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/labelpress --shell /usr/sbin/nologin labelpress \
 && mkdir -p /var/lib/labelpress \
 && chown labelpress:labelpress /var/lib/labelpress \
 && chmod 0700 /var/lib/labelpress
COPY --from=build /usr/local/bin/labelpress /usr/local/bin/labelpress

# State (the embedded ledger, the token cache, the usage outbox, the
# generated admin token) lives in the volume; one container per volume.
VOLUME ["/var/lib/labelpress"]
USER labelpress
WORKDIR /var/lib/labelpress
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["labelpress"]
CMD ["serve", "--listen", "0.0.0.0:8080", "--data-dir", "/var/lib/labelpress"]
