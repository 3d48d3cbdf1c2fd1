# The two commands a newcomer needs: `make run` and `make test` (README.md).
GO        ?= go
DEPS_DIR  := $(CURDIR)/.deps
BIN       := bin/claude-agent-acp
SHELL     := bash

.PHONY: run build test test-all test-go test-release test-lifecycle deps vet vet-os vet-platforms \
	test-windows dist fmt-check tidy-check bench bench-short fuzz-short bench-compare

## run: build the agent and run it on stdio (an ACP client talks to it). Only the agent writes
## to stdout, which carries ACP and nothing else: make's own echo of the build goes to stderr.
run:
	@echo 'CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/claude-agent-acp' >&2
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/claude-agent-acp >&2
	@exec $(abspath $(BIN))

## build: the agent as the release builds it (make dist): static, without cgo, -trimpath. With cgo
## (Go's default where a C compiler is found) the binary loads the C library at every start, about
## 0.5-1 ms more for the agent and again for the reaper that starts each CLI (issue 16).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/claude-agent-acp

## dist: the release artefacts in dist/: one archive per platform, SHA256SUMS, agent.json (the ACP
## Registry manifest) and npm/ (docs/distribution.md). DIST_VERSION (default: VERSION, see there),
## DIST_BASE_URL (default: the GitHub release) and SOURCE_DATE_EPOCH override.
DIST_VERSION  ?=
DIST_BASE_URL ?=
dist:
	GO=$(GO) $(GO) run ./internal/tools/dist/cmd/dist -out dist -version "$(DIST_VERSION)" -base-url "$(DIST_BASE_URL)"

## deps: install the pinned Claude Code CLI and the npm ACP clients into .deps/ (ignored).
deps:
	bash scripts/install-deps.sh

# ---------------------------------------------------------------------------------------------
# make test and make test-all
#
# `make test` is what CI runs (.ci/run) on every change. It holds every check that catches
# defects a change to the code can make, at the cost of one run:
#   - gofmt, go mod tidy, go vet: cheap, and they catch what review misses.
#   - go vet for macOS and Windows, one architecture each: the files behind a build tag for
#     those systems (claude/sys_windows.go, the reaper, rawio's fallbacks, ...) compile nowhere
#     else, so a changed signature would break them silently. The code has no file that differs
#     by architecture, so the other architectures add nothing here (test-all vets them).
#   - the Windows tests of claude/ under Wine: the process code Windows runs (job objects,
#     batch shims, PATHEXT) is real code that no Linux test reaches.
#   - go test -race over every package, with the real CLI end to end.
# `make test-all` adds what catches defects only in what rarely changes, or only over a long
# run, and costs the most: run it before a release and after changing the release tooling, the
# fuzz targets, the benchmarks or the platform code.
#   - all six release platforms' vet with the release flags (25 min from cold caches, which
#     make dist and TestRelease then reuse);
#   - TestRelease (internal/tools/dist): make dist in a copy of the tree, six cross-builds, the
#     archives, the npm package installed and run, go install through a module proxy;
#   - TestHarnessShort (internal/tools/bench): the side-by-side benchmark harness, one
#     iteration against the real CLIs, so that it never rots;
#   - fuzz-short: a thousand new inputs per fuzz target. `go test` already runs every target's
#     seeds and saved crashers (testdata/fuzz), so make test keeps every bug fuzzing found;
#     finding new ones takes minutes per target (FUZZ_COUNT=100000x), not a thousand inputs;
#   - bench-short: every hot-path benchmark for a few iterations, so that they keep running
#     (go vet already compiles them in make test).
# ---------------------------------------------------------------------------------------------

## test: the suite CI runs. Installs the pinned test dependencies into .deps/ and, as root on
## Debian/Ubuntu, wine64 with apt-get for the Windows tests (see test-windows).
test: deps fmt-check tidy-check vet vet-os test-windows test-go

## test-all: make test, and the long and rarely failing checks above (before a release).
test-all: test vet-platforms test-release fuzz-short bench-short

## test-go: go test -race over every package, except the two heavy release and harness tests,
## which test-release runs. Each package's test binary gets TEST_TIMEOUT; the slowest (agent)
## takes about 2.5 minutes alone on a quiet 2-core machine, about 3.5 beside the others. When a
## package runs out of it, internal/tools/testtimeout replaces Go's goroutine dump (thousands of
## lines) with the tests that were running, the line of our code each one was blocked on, and
## the load average, and saves the full dump to a file. TEST_FLAGS adds go test flags (-run, -v, ...).
##
## TEST_PARALLEL: how many tests of one package run at once. An end-to-end test spends most of
## its time waiting on a CLI, a pipe or a timer, so more than one per core (go test's default)
## keeps the cores busy: on 2 cores, 4 took the agent package from 527 s to 260 s.
## GORACE=atexit_sleep_ms=0: a binary built with -race sleeps a second when it exits, so that
## late races can still be reported; every test binary would, and every reaper and fake CLI a
## test starts (they are the test binary), a second per CLI closed (issue 36).
TEST_TIMEOUT  ?= 30m
TEST_PARALLEL ?= 4
TEST_FLAGS    ?=
HEAVY_TESTS   := ^(TestRelease|TestHarnessShort)$$
test-go:
	@$(GO) build -o bin/testtimeout ./internal/tools/testtimeout
	set -o pipefail; GORACE=atexit_sleep_ms=0 CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) $(GO) test -race -count=1 \
		-timeout $(TEST_TIMEOUT) -parallel $(TEST_PARALLEL) -skip '$(HEAVY_TESTS)' $(TEST_FLAGS) ./... 2>&1 | bin/testtimeout

## test-release: the release test and the benchmark harness's short run (see test-all).
test-release: deps
	CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) $(GO) test -count=1 -timeout 60m -run '$(HEAVY_TESTS)' \
		./internal/tools/dist ./internal/tools/bench

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## tidy-check: go.mod and go.sum say exactly what the code needs.
tidy-check:
	$(GO) mod tidy -diff

vet:
	$(GO) vet ./...

## vet-os: go vet for the other two systems (see above). Without -trimpath, so that it shares
## the build cache with test-windows.
VET_OS := darwin/arm64 windows/amd64
vet-os:
	@set -e; for p in $(VET_OS); do \
		echo "vet $$p"; CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	done

## vet-platforms: go vet (which compiles every package and test) for each release platform, with
## the release build's settings (no cgo, -trimpath), so that it also fills the build cache for
## make dist and TestRelease (internal/tools/dist).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
vet-platforms:
	@set -e; for p in $(PLATFORMS); do \
		echo "vet $$p"; CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet -trimpath ./...; \
	done

## test-windows: the Windows unit tests of claude/ under Wine. When Wine is missing, the script
## installs wine64 with apt-get if it runs as root on amd64 Debian/Ubuntu (about 20 s), and
## otherwise skips with a message (WINE_REQUIRED=1 makes that a failure). See docs/platforms.md.
test-windows:
	GO=$(GO) CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) bash scripts/test-windows.sh

## test-lifecycle: the random lifecycle test (agent TestLifecycleRandom, in memory) for longer
## than make test runs it: LIFECYCLE_SEEDS sequences of LIFECYCLE_STEPS steps.
LIFECYCLE_SEEDS ?= 2000
LIFECYCLE_STEPS ?= 100
test-lifecycle:
	LIFECYCLE_SEEDS=$(LIFECYCLE_SEEDS) LIFECYCLE_STEPS=$(LIFECYCLE_STEPS) $(GO) test -count=1 -timeout 60m -run TestLifecycleRandom ./agent

## fuzz-short: every fuzz target for a fixed number of inputs. Counts, not
## durations: with Go 1.26 a -fuzztime of seconds can end in a false
## "context deadline exceeded". FUZZ_COUNT=100000x for a longer run.
FUZZ_COUNT   ?= 1000x
FUZZ_TARGETS := ./acp:FuzzDecode ./acp:FuzzFraming ./acp:FuzzSessionNotification \
	./claude:FuzzDecodeMessage ./claude:FuzzStreamEventFastPath ./internal/jsonfast:FuzzDec \
	./claude/transcript:FuzzReader ./claude/transcript:FuzzIndexHalves ./claude/transcript:FuzzFastDecode ./internal/jsonfast:FuzzAppendString \
	./agent/internal/promptconv:FuzzPromptContent ./agent:FuzzDispatch \
	./internal/jsonfast:FuzzObject ./internal/jsonfast:FuzzUnescape ./internal/jsonfast:FuzzLax ./internal/jsonfast:FuzzSkipLax ./agent/internal/toolview:FuzzToolJSON ./agent/translate:FuzzResultJSON
fuzz-short:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t%%:*} $${t##*:}"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZ_COUNT) $${t%%:*}; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-short: the hot-path benchmarks (per replayed message, per relayed
## chunk, with allocations) for a few iterations each, so that they keep
## compiling and running; `make bench` runs them for real.
bench-short:
	$(GO) test -run '^$$' -bench 'Replay/(msgs=5000|realistic-code)$$' -benchtime 2x -benchmem ./agent
	$(GO) test -run '^$$' -bench 'TranslateTextDelta|BurstTextDeltas' -benchtime 1000x -benchmem ./agent
	$(GO) test -run '^$$' -bench 'DecodeTextDelta|ReadPipeline' -benchtime 100x -benchmem ./claude
	$(GO) test -run '^$$' -bench 'ReadActiveChain/msgs=5000|DecodeRecord' -benchtime 3x -benchmem ./claude/transcript
	$(GO) test -run '^$$' -bench . -benchtime 1000x -benchmem ./internal/jsonfast ./acp

## bench-compare: side by side with the TypeScript reference and the bare CLI; writes BENCHMARKS.md.
bench-compare: build deps
	$(GO) run ./internal/tools/bench/cmd/acpbench -ours $(BIN) -cli $(DEPS_DIR)/node_modules/.bin/claude \
		-reference $(DEPS_DIR)/node_modules/.bin/claude-agent-acp -o BENCHMARKS.md
