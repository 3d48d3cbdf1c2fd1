# The two commands a newcomer needs: `make run` and `make test`.
GO        ?= go
DEPS_DIR  := $(CURDIR)/.deps
BIN       := bin/claude-agent-acp

.PHONY: run build test test-lifecycle deps vet vet-platforms test-windows dist fmt-check tidy-check unit bench bench-short fuzz-short bench-compare

## run: build the agent and run it on stdio (an ACP client talks to it).
run: build
	@./$(BIN)

## build: the agent as the release builds it (make dist): static, without cgo. With cgo (Go's
## default where a C compiler is found) the binary loads the C library at every start, about
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

## test: the whole suite, exactly what CI runs (it includes a 3 s soak; see docs/reliability.md).
test: deps vet vet-platforms fmt-check tidy-check fuzz-short bench-short test-windows
	CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) $(GO) test -race -count=1 -timeout 20m ./...

## fuzz-short: every fuzz target for a fixed number of inputs. Counts, not
## durations: with Go 1.26 a -fuzztime of seconds can end in a false
## "context deadline exceeded". FUZZ_COUNT=100000x for a longer run.
FUZZ_COUNT   ?= 1000x
FUZZ_TARGETS := ./acp:FuzzDecode ./acp:FuzzFraming ./acp:FuzzSessionNotification \
	./claude:FuzzDecodeMessage ./claude:FuzzStreamEventFastPath ./internal/jsonfast:FuzzDec \
	./claude/transcript:FuzzReader ./claude/transcript:FuzzIndexHalves ./claude/transcript:FuzzFastDecode ./internal/jsonfast:FuzzAppendString \
	./agent/internal/promptconv:FuzzPromptContent ./agent:FuzzDispatch \
	./internal/jsonfast:FuzzObject ./internal/jsonfast:FuzzUnescape ./internal/jsonfast:FuzzLax ./internal/jsonfast:FuzzSkipLax ./agent/internal/toolview:FuzzToolJSON ./agent:FuzzResultJSON
fuzz-short:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t%%:*} $${t##*:}"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZ_COUNT) $${t%%:*}; \
	done

vet:
	$(GO) vet ./...

## tidy-check: go.mod and go.sum say exactly what the code needs.
tidy-check:
	$(GO) mod tidy -diff

## vet-platforms: go vet (which compiles every package and test) for each release platform, with
## the release build's settings (no cgo, -trimpath), so that it also fills the build cache for
## make dist and TestRelease (internal/tools/dist).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
vet-platforms:
	@set -e; for p in $(PLATFORMS); do \
		echo "vet $$p"; CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet -trimpath ./...; \
	done

## test-lifecycle: the random lifecycle test (agent TestLifecycleRandom, in memory) for longer
## than make test runs it: LIFECYCLE_SEEDS sequences of LIFECYCLE_STEPS steps.
LIFECYCLE_SEEDS ?= 2000
LIFECYCLE_STEPS ?= 100
test-lifecycle:
	LIFECYCLE_SEEDS=$(LIFECYCLE_SEEDS) LIFECYCLE_STEPS=$(LIFECYCLE_STEPS) $(GO) test -count=1 -timeout 60m -run TestLifecycleRandom ./agent

## test-windows: the Windows unit tests of claude/ under Wine (installed with apt-get when
## missing and possible; skipped with a message otherwise). See docs/platforms.md.
test-windows:
	GO=$(GO) CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) bash scripts/test-windows.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

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
