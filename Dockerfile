# Multi-stage build on Debian 12. Both stages install packages through
# scripts/install-deps, the same script CI and `make` use.
# (No Docker engine runs on the development machines; keep this in step with
# the Makefile by hand.)
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
      -DPATHFINDER_BUILD_TESTS=OFF -DPATHFINDER_BUILD_BENCH=OFF \
 && cmake --build build -j"$(nproc)" --target pathfinder-server pathfind

FROM debian:bookworm-slim AS runtime
COPY scripts/install-deps /usr/local/lib/pathfinder/install-deps
RUN /usr/local/lib/pathfinder/install-deps --runtime && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /var/lib/pathfinder pathfinder
COPY --from=build /src/build/server/pathfinder-server /src/build/client/pathfind /usr/local/bin/
COPY assets/demo.png /usr/share/pathfinder/demo.png
USER pathfinder
VOLUME /var/lib/pathfinder
EXPOSE 50051
# The container listens on 0.0.0.0, so the server refuses to start without an
# admin token (writes would be open to anyone who can connect). Give one:
#   docker run -e PATHFINDER_ADMIN_TOKEN="$(cat admin.token)" -p 50051:50051 IMAGE
# or mount token files and pass them (arguments replace CMD, so repeat the seed):
#   docker run -v "$PWD/tokens:/run/secrets:ro" -p 50051:50051 IMAGE \
#     --admin-token-file /run/secrets/admin --client-token-file /run/secrets/client \
#     --seed-mask demo=/usr/share/pathfinder/demo.png
# (--allow-unauthenticated-writes opts out, for a trusted network only.)
# Prometheus metrics are off by default; to scrape them from outside the
# container add e.g. `--metrics-address 0.0.0.0:9464` and publish that port
# (plain HTTP, no authentication: a network only the scraper reaches).
ENTRYPOINT ["pathfinder-server", "--data-dir", "/var/lib/pathfinder", "--listen", "0.0.0.0:50051"]
CMD ["--seed-mask", "demo=/usr/share/pathfinder/demo.png"]
