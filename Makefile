# toolsieve: make demo runs the main job on bundled samples, make test runs the tests.
GO        ?= go
FUZZTIME  ?= 20s
BENCHTIME ?= 3x

.PHONY: all build test demo bench fuzz vet

all: build test

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -count=1 ./...

demo:
	$(GO) run ./cmd/toolsieve demo

bench:
	$(GO) test ./bench -run '^$$' -bench . -benchtime $(BENCHTIME)

# Runs every fuzz target of ./fuzz for FUZZTIME each.
fuzz:
	@set -e; for t in $$($(GO) test ./fuzz -list '^Fuzz' | grep '^Fuzz'); do \
		echo "== $$t ($(FUZZTIME))"; \
		$(GO) test ./fuzz -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME); \
	done
