# labelpress container image: `docker build -t labelpress .`, then
# `docker run -p 8080:8080 -v labelpress-data:/var/lib/labelpress labelpress`.
# tests/suite/package.rs checks that the port, health path, entrypoint flags
# and packages below agree with the CLI, scripts/install-fonts.sh and .ci/run.

# Build stage: the release binary (about 15 minutes on 2 cores).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin labelpress \
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
