# The two commands a newcomer needs: `make run` and `make test`.
GO        ?= go
DEPS_DIR  := $(CURDIR)/.deps
BIN       := bin/claude-agent-acp

.PHONY: run build test deps vet fmt-check unit bench fuzz-short bench-compare

## run: build the agent and run it on stdio (an ACP client talks to it).
run: build
	@./$(BIN)

build:
	$(GO) build -o $(BIN) ./cmd/claude-agent-acp

## deps: install the pinned Claude Code CLI and the npm ACP clients into .deps/ (ignored).
deps:
	bash scripts/install-deps.sh

## test: the whole suite, exactly what CI runs.
test: deps vet fmt-check
	CLAUDE_AGENT_ACP_DEPS=$(DEPS_DIR) $(GO) test -race -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-compare: side by side with the TypeScript reference and the bare CLI; writes BENCHMARKS.md.
bench-compare: build deps
	$(GO) run ./internal/bench/cmd/acpbench -ours $(BIN) -cli $(DEPS_DIR)/node_modules/.bin/claude \
		-reference $(DEPS_DIR)/node_modules/.bin/claude-agent-acp -o BENCHMARKS.md
