# ctxbench — every target works on a fresh machine with only Go installed:
# the tools it needs are installed into ./.bin by the targets themselves.

GO              ?= go
BIN             := $(CURDIR)/.bin
STATICCHECK_VER := v0.8.2
STATICCHECK     := $(BIN)/staticcheck-$(STATICCHECK_VER)

.PHONY: run test vet lint staticcheck bench golden fuzz clean

# The main job on the embedded sample transcripts.
run:
	$(GO) run ./cmd/ctxbench inspect

# What CI runs: vet, staticcheck, and every test with the race detector.
test: vet staticcheck
	$(GO) test -race ./...

vet:
	$(GO) vet ./...

lint: vet staticcheck

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VER)
	mv $(BIN)/staticcheck $(STATICCHECK)

# Benchmarks; compare ratios within one run, these machines are noisy.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Rewrite the golden files from the current output; review the diff.
golden:
	$(GO) test ./fixtures ./cmd/ctxbench -run Golden -update

# A short fuzzing pass over every reader (FUZZTIME=1m for longer).
FUZZTIME ?= 10s
fuzz:
	for f in $$($(GO) test -list '^Fuzz' ./transcript | grep ^Fuzz); do \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) ./transcript || exit 1; \
	done

clean:
	rm -rf $(BIN)
