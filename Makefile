# toolsieve: make demo runs the main job on bundled samples, make test runs the tests.
GO        ?= go
FUZZTIME  ?= 20s
# Main module benchmarks: long enough that a 3 ms op (the rewriter's) runs
# hundreds of times; a 16 MiB call still runs a few.
BENCHTIME ?= 1s
# Peers comparison (bench/peers, its own module): one op of a quadratic peer
# takes up to minutes and then runs once; the fast ones run about this long.
PEERS_BENCHTIME ?= 1s

# Release version: the closest tag, else the commit (dev outside git).
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Static release binaries: the flags of the Dockerfile's build (CGO off).
STATIC_FLAGS = -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$(VERSION)"
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# docker or podman.
CONTAINER ?= docker

.PHONY: all build test demo bench bench-all bench-peers fuzz vet field exports dist image

all: build test

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	cd e2e && $(GO) vet ./...
	cd fuzz/sseoracle && $(GO) vet ./...

# The main module's vet and tests first, then the end-to-end tests with the
# client SDKs (module e2e, so that importers of toolsieve never download
# the SDKs; compiling them takes minutes on a cold machine), then the SSE
# oracle. Each long step says what it is doing before it starts.
test:
	@echo "== make test: go vet, main module"
	$(GO) vet ./...
	@echo "== make test: tests of the main module (a few minutes)"
	$(GO) test -count=1 ./...
	@echo "== make test: the parser's fixtures and fuzz corpora again, every step checked against its level (build tag invariants)"
	$(GO) test -count=1 -short -tags invariants . ./fsm ./fuzz
	@echo "== make test: module e2e: vet, then tests with the OpenAI and Anthropic SDKs (the first run downloads and compiles them: up to 15 minutes cold)"
	cd e2e && $(GO) vet ./... && $(GO) test -count=1 ./...
	@echo "== make test: module fuzz/sseoracle: vet and tests"
	cd fuzz/sseoracle && $(GO) vet ./... && $(GO) test -count=1 ./...
	@echo "== make test: passed"

# dist: static binaries for every platform, named with the version, and
# their SHA-256 sums, in dist/.
dist:
	@mkdir -p dist
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		out=dist/toolsieve-$(VERSION)-$$os-$$arch$$ext; echo "== dist: $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(STATIC_FLAGS) -o $$out ./cmd/toolsieve; \
	done
	cd dist && sha256sum toolsieve-$(VERSION)-* > SHA256SUMS-$(VERSION)

# image: the container image (Dockerfile), tagged with the version.
image:
	$(CONTAINER) build --build-arg VERSION=$(VERSION) -t toolsieve:$(VERSION) .

demo:
	$(GO) run ./cmd/toolsieve demo

# field: the parser scored on the field corpus (docs/field.md); raises the
# record in testdata/field/PASSING when more samples pass and none was lost.
field:
	$(GO) run ./internal/field/fieldscore -write

# exports: the exported identifiers of each package (top-level names, methods
# and fields of exported types), for the public surface (issue 26).
exports:
	$(GO) run ./internal/tools/exports

# bench: issue 31's targets in one run (bench/targets_test.go): the floors
# (an empty Feed, the same plus bytes.IndexByte), the parser's CPU time per
# byte on prose, code and calls, its allocations and idle memory, each
# target with its ratio and verdict, written to bench/RESULTS.md with the
# commit; first, in module bench/peers, openai-go's decoding of a stream
# against the rewriter's (item 5). About a minute once compiled.
bench:
	@f=$$(mktemp); \
	echo "== make bench: openai-go decoding against the rewriter (module bench/peers; a cold machine downloads and compiles openai-go first)"; \
	(cd bench/peers && $(GO) test -run '^TestOpenAIRatio$$' -count=1 . -args -openai.out $$f) || echo "== make bench: no openai-go figures (item 5 reads not measured)"; \
	echo "== make bench: the parser's and the proxy's targets"; \
	$(GO) test ./bench -run '^TestTargets$$' -count=1 -v -timeout 10m -args -targets -targets.openai $$f \
		-targets.out RESULTS.md -targets.commit "$$(git describe --always --dirty 2>/dev/null || echo unknown)"; \
	rc=$$?; rm -f $$f; exit $$rc

# bench-all: every benchmark of ./bench, for BENCHTIME each (long).
bench-all:
	$(GO) test ./bench -run '^$$' -bench . -benchtime $(BENCHTIME)

# bench-peers: toolsieve against the naive rescanning baseline and ollama's
# parsers on the same inputs and chunks, printed as one table (see
# bench/RESULTS-peers.md).
bench-peers:
	cd bench/peers && $(GO) test -run '^$$' -bench . -benchtime $(PEERS_BENCHTIME) -timeout 30m . | $(GO) run ./cmd/table

# Runs every fuzz target of the main module (./fuzz; ./fsm, the short paths
# against the long way; the argument scanners, the JSON index, the typing
# of values, the OpenAI chunk shapes) and of module fuzz/sseoracle (the SSE
# decoder against an independent decoder), for FUZZTIME each (fuzz/run.sh).
fuzz:
	GO=$(GO) bash fuzz/run.sh . ./fuzz $(FUZZTIME)
	GO=$(GO) bash fuzz/run.sh . ./fsm $(FUZZTIME)
	for p in ./fsm/loosejson ./fsm/pyscan ./internal/jsonspan ./internal/schema ./chat; do GO=$(GO) bash fuzz/run.sh . $$p $(FUZZTIME) || exit 1; done
	GO=$(GO) bash fuzz/run.sh fuzz/sseoracle . $(FUZZTIME) "sseoracle "
