# Multi-stage build on Debian 12. Packages come from scripts/install-deps, the
# same script CI and `make` use: the build stage takes its --build role
# (compiler and -dev packages, no test packages), runtime-root its --runtime
# role (the shared libraries the binaries load), and the final stage is
# runtime-root's file system in one layer.
# `make image` (podman or docker) builds it; scripts/check-image also runs it
# read-only and waits for the health check. With podman, build with
# `--format docker`: the OCI format has no HEALTHCHECK.
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps --build && rm -rf /var/lib/apt/lists/*
# Only the sources the server and the CLI are built from (no tests, benches or
# docs: editing those does not rebuild the image). CMake builds out of the
# source tree, in /build, so no local build tree can get in the way either
# (.dockerignore keeps build*/ out of the context too). The binaries are
# stripped: the image carries no debug symbols.
COPY CMakeLists.txt ./
COPY proto proto
COPY core core
COPY server server
COPY client client
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release \
      -DPATHFINDER_BUILD_TESTS=OFF -DPATHFINDER_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target pathfinder-server pathfind \
 && strip --strip-unneeded /build/server/pathfinder-server /build/client/pathfind

# The runtime's file system is assembled in this stage and flattened into the
# final one: the base's leftovers a server does not need (apt's package lists
# and downloaded .debs, logs, documentation apart from the copyright files,
# manual pages, translations) go, so the image stays small on any Debian 12
# base, also one that keeps them (a plain debootstrap does; Debian's official
# -slim images exclude most of them already).
FROM debian:bookworm-slim AS runtime-root
COPY scripts/install-deps /usr/local/lib/pathfinder/install-deps
# The server runs as uid/gid 10001 (numeric in USER below, so Kubernetes'
# runAsNonRoot can verify it). Its only writable directory is the data volume,
# /var/lib/pathfinder/data; the user has no home and no shell. The directory
# belongs to group 0 with mode 0770 as well, so the image also runs under an
# arbitrary uid whose group is 0 (OpenShift's restricted policy does that).
RUN /usr/local/lib/pathfinder/install-deps --runtime \
 && groupadd --gid 10001 pathfinder \
 && useradd --uid 10001 --gid 10001 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin pathfinder \
 && install -d -o 10001 -g 0 -m 0770 /var/lib/pathfinder/data \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old \
      /usr/share/man/* /usr/share/info/* /usr/share/groff/* /usr/share/lintian/* \
 && find /var/log -type f -delete \
 && find /usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete \
 && find /usr/share/doc -mindepth 1 -type d -empty -delete \
 && find /usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
COPY --from=build /build/server/pathfinder-server /build/client/pathfind /usr/local/bin/
COPY assets/demo.png /usr/share/pathfinder/demo.png
# Fails the build if --runtime misses a library either binary loads.
RUN if ldd /usr/local/bin/pathfinder-server /usr/local/bin/pathfind | grep 'not found'; then \
      exit 1; fi

FROM scratch AS runtime
COPY --from=runtime-root / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Owned by 10001 and group 0 whatever the engine's COPY does with owners.
RUN install -d -o 10001 -g 0 -m 0770 /var/lib/pathfinder/data
USER 10001:10001
VOLUME /var/lib/pathfinder/data
EXPOSE 50051
# The probe is the image's own CLI, over plain-text gRPC on loopback
# (grpc.health.v1.Health, always open, no token needed). A server started with
# --tls-cert/--tls-key needs another probe, e.g. `--health-cmd` adding --tls-ca.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["pathfind", "--server", "127.0.0.1:50051", "--timeout", "2", "health"]
# The container listens on 0.0.0.0, so the server refuses to start without an
# admin token (writes would be open to anyone who can connect). Give one:
#   docker run -e PATHFINDER_ADMIN_TOKEN="$(cat admin.token)" -p 50051:50051 IMAGE
# or mount token files (readable by uid 10001) and pass them (arguments
# replace CMD, so repeat the seed):
#   docker run -v "$PWD/tokens:/run/secrets:ro" -p 50051:50051 IMAGE \
#     --admin-token-file /run/secrets/admin --client-token-file /run/secrets/client \
#     --seed-mask demo=/usr/share/pathfinder/demo.png
# (--allow-unauthenticated-writes opts out, for a trusted network only.)
# The server writes nothing outside the data volume: it runs with
# --read-only --cap-drop ALL (see the README).
# Prometheus metrics are off by default; to scrape them from outside the
# container add e.g. `--metrics-address 0.0.0.0:9464 --metrics-allow-remote`
# (refused without the second flag) and publish that port (plain HTTP, no
# authentication: a network only the scraper reaches).
# A replica on the PostgreSQL store replaces this entrypoint with one without
# --data-dir (the server refuses --data-dir with --store postgres), as
# deploy/compose.yaml does.
ENTRYPOINT ["pathfinder-server", "--data-dir", "/var/lib/pathfinder/data", "--listen", "0.0.0.0:50051"]
CMD ["--seed-mask", "demo=/usr/share/pathfinder/demo.png"]
