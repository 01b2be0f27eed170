# toolsieve: make demo runs the main job on bundled samples, make test runs the tests.
GO        ?= go
FUZZTIME  ?= 20s
# Main module benchmarks: long enough that a 3 ms op (the rewriter's) runs
# hundreds of times; a 16 MiB call still runs a few.
BENCHTIME ?= 1s
# Peers comparison (bench/peers, its own module): one op of a quadratic peer
# takes up to minutes and then runs once; the fast ones run about this long.
PEERS_BENCHTIME ?= 1s

.PHONY: all build test demo bench fuzz vet field exports

all: build test

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	cd e2e && $(GO) vet ./...
	cd fuzz/sseoracle && $(GO) vet ./...

# The main module's tests, then the end-to-end tests with the client SDKs
# (module e2e, so that importers of toolsieve never download the SDKs).
test: vet
	$(GO) test -count=1 ./...
	cd e2e && $(GO) test -count=1 ./...
	cd fuzz/sseoracle && $(GO) test -count=1 ./...

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

# bench: the main benchmarks, then toolsieve against the naive rescanning
# baseline and ollama's parsers on the same inputs and chunks, printed as one
# table (see bench/RESULTS.md).
bench:
	$(GO) test ./bench -run '^$$' -bench . -benchtime $(BENCHTIME)
	cd bench/peers && $(GO) test -run '^$$' -bench . -benchtime $(PEERS_BENCHTIME) -timeout 30m . | $(GO) run ./cmd/table

# Runs every fuzz target of ./fuzz and ./fsm (the short paths against the
# long way), and of module fuzz/sseoracle (the SSE
# decoder against an independent decoder), for FUZZTIME each (fuzz/run.sh).
fuzz:
	GO=$(GO) bash fuzz/run.sh . ./fuzz $(FUZZTIME)
	GO=$(GO) bash fuzz/run.sh . ./fsm $(FUZZTIME)
	GO=$(GO) bash fuzz/run.sh fuzz/sseoracle . $(FUZZTIME) "sseoracle "
