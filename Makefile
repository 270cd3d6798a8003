# The two commands a newcomer needs: `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
LISTEN ?= 127.0.0.1:50051
HTTP_LISTEN ?= 127.0.0.1:8080
DATA_DIR ?= data

# `make test-sanitize`: its own build tree, AddressSanitizer + UBSan.
SANITIZE_BUILD_DIR ?= build-sanitize
SANITIZE_BUILD_TYPE ?= RelWithDebInfo
# The build is the longest step of CI: instrumented code at -O0 compiles in a
# third of -O2's time (core and the test references, where the tests spend
# their time, at -O1: pathfinder_hot_code in CMakeLists.txt), and -g1 (line
# tables only; reports still name file and line) about a fifth faster than -g.
SANITIZE_OPT_FLAGS ?= -O0 -g1 -DNDEBUG
# Any finding fails the test: ASan stops at the first error, UBSan does not
# recover (-fno-sanitize-recover=all), leaks are reported at exit.
SANITIZE_ENV := ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

SERVER := $(BUILD_DIR)/server/pathfinder-server
CLI := $(BUILD_DIR)/client/pathfind

.PHONY: all deps configure build build-server test test-sanitize run bench clean fuzz lint-proto soak ratios \
	wire-ratios wire-any-angle image check-image cluster-up cluster-down cluster-bench

all: build

# Everything tests, sanitizers, fuzzing and lint need (see scripts/install-deps --help).
deps:
	scripts/install-deps --dev

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Only what `make run` starts and the command it suggests: the server and the
# CLI, not the tests and benchmarks (those are `make test`'s).
build-server: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target pathfinder-server pathfind

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS) --output-junit ctest-results.xml

# Core, server, client and end-to-end tests built with -fsanitize=address,undefined
# (PATHFINDER_SANITIZE=ON; no benchmarks). Warnings are not errors there: GCC 12
# reports false ones under ASan at some levels (mismatched new/delete in Boost.Asio's
# coroutine frames); the Release build keeps them errors. The e2e tests run the sanitized
# server and CLI binaries too, with the same options.
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD_DIR) -DCMAKE_BUILD_TYPE=$(SANITIZE_BUILD_TYPE) \
		-DPATHFINDER_SANITIZE=ON -DPATHFINDER_BUILD_BENCH=OFF -DPATHFINDER_WERROR=OFF \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_OPT_FLAGS)"
	$(SANITIZE_ENV) cmake --build $(SANITIZE_BUILD_DIR) -j$(JOBS)
	$(SANITIZE_ENV) ctest --test-dir $(SANITIZE_BUILD_DIR) --output-on-failure -j$(JOBS) \
		--output-junit ctest-results.xml

# Starts the server with the bundled demo level loaded as mask `demo`.
run: build-server
	mkdir -p $(DATA_DIR)
	@echo
	@echo "pathfinder: starting on $(LISTEN) with data dir $(DATA_DIR). In another terminal, try:"
	@echo "  $(CLI) --server $(LISTEN) find demo 20 20 600 340"
	@echo "viewer: http://$(HTTP_LISTEN)/"
	@echo "  curl -sS http://$(HTTP_LISTEN)/pathfinding.v1.Pathfinder/FindPath -H 'Content-Type: application/json' \\"
	@echo "    -d '{\"mask\":\"demo\",\"start\":{\"x\":20,\"y\":20},\"goal\":{\"x\":600,\"y\":340}}'"
	@echo
	exec $(SERVER) --listen $(LISTEN) --http-listen $(HTTP_LISTEN) --data-dir $(DATA_DIR) \
	  --seed-mask demo=assets/demo.png

# libFuzzer targets under ASan/UBSan (clang, separate build dir build-fuzz),
# each run FUZZ_SECONDS (default 30) over a copy of fuzz/corpus; see scripts/run-fuzz.
fuzz: deps
	scripts/run-fuzz

# buf lint of the proto (buf.yaml); buf comes from npm into build-tools/.
lint-proto: deps
	scripts/lint-proto

# 60 s of mixed load at concurrency 64 against the real server: no call may
# fail, resident memory must stay within (cache + masks) * 1.25. See scripts/soak.
soak: build
	BUILD_DIR=$(BUILD_DIR) scripts/soak

# Issue 5's throughput ratios to the health check (scripts/ratios): a table.
ratios: build
	BUILD_DIR=$(BUILD_DIR) scripts/ratios

# Issue 20's ratios from one run against the real server (scripts/wire-ratios):
# cold FindPath vs the strict seed flood fill on the three full-HD masks,
# fresh-start FindPath and Reachable x100 vs health, StandardMove 1/2/3 moves.
# Tables, a few minutes. Not in CI.
wire-ratios: build
	BUILD_DIR=$(BUILD_DIR) scripts/wire-ratios

# Cold and warm FindPath SMOOTHING_ANY_ANGLE vs the default over the wire on
# the Moving AI maps (scripts/wire-any-angle). A table, about a minute. Not
# in CI.
wire-any-angle: build
	BUILD_DIR=$(BUILD_DIR) scripts/wire-any-angle

# The container image (Dockerfile) as IMAGE, with podman (docker format, which
# keeps the HEALTHCHECK) or docker, whichever is on PATH; check-image also runs
# it read-only and waits for its health check. Neither is part of CI.
IMAGE ?= pathfinder:local
CONTAINER_ENGINE ?= $(shell command -v podman >/dev/null 2>&1 && echo podman || echo docker)

image:
	$(CONTAINER_ENGINE) build $(if $(filter podman,$(CONTAINER_ENGINE)),--format docker) -t $(IMAGE) .

check-image:
	IMAGE=$(IMAGE) ENGINE=$(CONTAINER_ENGINE) BUILD_DIR=$(BUILD_DIR) scripts/check-image

bench: build
	$(BUILD_DIR)/bench/pathcore_bench

# Issue 22: PostgreSQL 15, three replicas on it and nginx in front, on
# 127.0.0.1 with free ports, everything under build-cluster/ (scripts/cluster
# --help). Returns when all are healthy; build-cluster/cluster.json says where
# they are. CLUSTER_STORE=file gives each replica its own data dir instead.
cluster-up: build
	BUILD_DIR=$(BUILD_DIR) scripts/cluster up

# Stops exactly what cluster-up started; safe to run twice.
cluster-down:
	BUILD_DIR=$(BUILD_DIR) scripts/cluster down

# FindPath throughput through nginx with and without the mask header, and a
# single replica direct, in one run (scripts/cluster-bench). Not in CI.
cluster-bench: build
	BUILD_DIR=$(BUILD_DIR) scripts/cluster-bench

clean:
	if [ -d build-cluster ]; then scripts/cluster down; fi
	rm -rf $(BUILD_DIR) $(SANITIZE_BUILD_DIR) build-fuzz build-tools build-cluster
