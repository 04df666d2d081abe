# ctxbench — every target works on a fresh machine with only Go installed:
# the tools it needs are installed into ./.bin by the targets themselves.

GO              ?= go
BIN             := $(CURDIR)/.bin
STATICCHECK_VER := v0.8.2
STATICCHECK     := $(BIN)/staticcheck-$(STATICCHECK_VER)
# The release tools (make snapshot; the release workflow installs the same):
# goreleaser, ko and crane (ko's go-containerregistry), cyclonedx-gomod for
# the SBOMs, which goreleaser runs by name from its own folder.
GORELEASER_VER  := v2.15.1
KO_VER          := v0.18.1
CRANE_VER       := v0.20.7
CYCLONEDX_VER   := v1.10.0
GORELEASER      := $(BIN)/goreleaser-$(GORELEASER_VER)
KO              := $(BIN)/ko-$(KO_VER)
CRANE           := $(BIN)/crane-$(CRANE_VER)
CYCLONEDX       := $(BIN)/cyclonedx-gomod-$(CYCLONEDX_VER)/cyclonedx-gomod

.PHONY: run test long snapshot release release-tools vet fmt lint staticcheck bench perf pgo exact golden conformance fuzz hostile screenshots validate clean

# The main job on the embedded sample transcripts: the report, in
# ./ctxbench-report (open index.html).
run:
	$(GO) run ./cmd/ctxbench report --samples

# What CI runs first, and a newcomer's first command: vet, and every
# test, the long checks on a sample (-short). Tests build without the
# command's profile (-pgo=off): optimizing with it doubles a cold build.
test: vet
	$(GO) test -short -pgo=off -timeout 30m ./...

# The exhaustive checks, which CI runs after make test: staticcheck, and
# every test whole with the race detector (the race build compiles every
# package again, instrumented): every policy on every transcript
# incremental against whole, every worker count, every encoding.
long: staticcheck snapshot
	$(GO) test -race -pgo=off -timeout 60m ./...

# The release without publishing it, which make long runs first:
# goreleaser check, a snapshot of every platform into ./dist (archives,
# checksums, SBOMs, the Homebrew formula, built as the release builds
# them), the image to dist/ctxbench-image.tar, and the tests
# that open them (TestRelease, TestActionRelease): each binary stamped,
# this machine's run, the image's binary run, go install …@VERSION
# from a module proxy on disk, the action installing the release binary.
snapshot: release-tools
	$(GORELEASER) check
	PATH=$(dir $(CYCLONEDX)):$$PATH $(GORELEASER) release --snapshot --clean
	scripts/image.sh $(KO) $(CRANE) v$$(sed 's/.*"version":"\([^"]*\)".*/\1/' dist/metadata.json) dist/ctxbench-image.tar
	CTXBENCH_DIST=$(CURDIR)/dist $(GO) test -run 'TestRelease|TestActionRelease' -count=1 -v ./cmd/ctxbench

# What .github/workflows/release.yml runs on a tag, with GITHUB_TOKEN and
# HOMEBREW_TAP_GITHUB_TOKEN set: the release, the formula, and the image
# for linux/amd64 and linux/arm64 pushed to ghcr.io with its SBOM.
release: release-tools
	PATH=$(dir $(CYCLONEDX)):$$PATH $(GORELEASER) release --clean
	echo "$$GITHUB_TOKEN" | $(KO) login ghcr.io --username "$$GITHUB_ACTOR" --password-stdin
	tag=$$(git describe --tags --exact-match) && VERSION=$$tag KO_DOCKER_REPO=ghcr.io/ctxbench/ctxbench \
		$(KO) build --bare --tags $$tag,latest ./cmd/ctxbench

release-tools: $(GORELEASER) $(KO) $(CRANE) $(CYCLONEDX)

vet:
	$(GO) vet ./...

lint: vet fmt staticcheck

# gofmt must have nothing to say.
fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VER)
	mv $(BIN)/staticcheck $(STATICCHECK)

$(GORELEASER):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VER)
	mv $(BIN)/goreleaser $(GORELEASER)

$(KO):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/google/ko@$(KO_VER)
	mv $(BIN)/ko $(KO)

$(CRANE):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/google/go-containerregistry/cmd/crane@$(CRANE_VER)
	mv $(BIN)/crane $(CRANE)

$(CYCLONEDX):
	GOBIN=$(dir $(CYCLONEDX)) $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_VER)

# Benchmarks, then the performance figures of docs/performance.md
# with the commands behind them (ccusage installed into .bin with npm when
# npm is there); compare ratios within one run, these
# machines are noisy.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./scripts/perf

# Rewrite docs/performance.md from a fresh measurement.
perf:
	$(GO) run ./scripts/perf -o docs/performance.md

# Rewrite cmd/ctxbench/default.pgo, the CPU profile go build optimizes the
# command with, from the profiles of the commands make perf measures.
pgo:
	scripts/pgo.sh

# The pre-tokenizers against the patterns on two million random texts
# (make test runs 20,000), and the counts against pkoukk/tiktoken-go on a
# million random texts and a million corpus slices (make test: 2,000 each),
# and the chunked merge of long pieces against pkoukk's whole one on runs
# of every length up to 1,000 bytes (make test: 96).
exact:
	$(GO) test ./estimate/internal/bpe -run 'TestPretokenizersMatchPatterns|TestCountsMatchPkoukk|TestChunkMergeRuns' -random-texts 2000000 -pkoukk-texts 1000000 -run-lengths 1000 -timeout 60m -v

# How close the cost projection lands on the validation set
# (fixtures/validation: real public sessions nothing is fitted on): each
# session of 20 calls or more fitted on its first half, the rest priced
# without its bill; the errors' median, p90 and worst, total and per
# component over $0.01; docs/validation.md, which make test checks, names each
# session beyond the bound (go test ./cost -run TestValidation -update-validation).
validate:
	$(GO) test ./cost -run '^TestValidation$$' -validate -v | grep -v '^=== RUN'

# Rewrite the golden files from the current output; review the diff.
golden:
	$(GO) test ./fixtures ./cmd/ctxbench ./internal/report -run Golden -update

# The peers' real code (npm packages at pinned versions) run on the
# corpus: rewrites window/testdata/conformance, which make test compares
# ctxbench's policies with. Needs node and npm (and python3 for the OpenAI
# Agents SDK). The seed systems' code and the SDK are not on npm:
# AIDF_WINDOW, TWOTIER_MODULE and OPENAI_AGENTS name them in a checkout
# (scripts/conformance.sh), or their goldens are left as they are.
conformance:
	scripts/conformance.sh

# The README's pictures, made by the project's own command (needs chromium).
screenshots:
	rm -rf docs/report && $(GO) run ./cmd/ctxbench report --samples --out docs/report >/dev/null
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
		--user-data-dir=$$(mktemp -d) --virtual-time-budget=10000 --window-size=1280,1400 \
		--screenshot=docs/report.png file://$(CURDIR)/docs/report/index.html
	cp docs/report/cost-2.png docs/cost.png
	rm -rf docs/report

# The hardening pass's fault matrix: replays against a fake provider on
# 127.0.0.1 failing in each way (bad key, rate limits, 5xx, no answer,
# empty or negative summaries, oversized bodies, redirects), the built
# command on inputs too large to read, and its report over tiny
# sessions, over names that are markup or formulas, and killed mid-write;
# prints requests, time, peak memory and exit status per case, each held
# to a bound.
hostile:
	$(GO) test -tags hostile -run 'TestHostile' -timeout 30m -v ./cmd/ctxbench | grep -v '^=== RUN'

# A short fuzzing pass over every reader (FUZZTIME=1m for longer).
FUZZTIME ?= 10s
fuzz:
	for p in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$p | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

clean:
	rm -rf $(BIN) dist
