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
ENTRYPOINT ["pathfinder-server", "--data-dir", "/var/lib/pathfinder", "--listen", "0.0.0.0:50051"]
CMD ["--seed-mask", "demo=/usr/share/pathfinder/demo.png"]
