# Crucible — build, run and test. `make help` lists the targets.

GO        ?= go
TAGS      ?= sqlite_fts5
DATA      ?= data
ADDR      ?= 127.0.0.1:8080
BIN       := bin/crucible
DEMO      := testdata/corpora/sotu.jsonl.gz
export CGO_ENABLED := 1

.PHONY: help run build test test-short generate check-generated fmt vet lint bench bench-go fuzz reindex clean

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

build: ## build bin/crucible
	@echo "building $(BIN) (the first build compiles SQLite with cgo and takes a few minutes; later ones take seconds)"
	$(GO) build -tags '$(TAGS)' -o $(BIN) ./cmd/crucible

run: build ## serve the portal on $(ADDR), ingesting the demo corpus into an empty $(DATA)
	@echo "serving http://$(ADDR)/ from $(DATA)/ (make run ADDR=host:port DATA=folder to change them)"
	$(BIN) serve --data $(DATA) --addr $(ADDR) --ingest-if-empty $(DEMO)

# The effectiveness and report-quality runs are single-threaded measurements
# that take minutes under the race detector: they skip in the race pass and
# run in a second pass without it. That pass grows with the gold sets (104
# sets: about 15 minutes on an idle two-core machine, 29 on a loaded one),
# so it has an hour.
MEASURES  := ^(TestOfflineQuality|TestGoldenReports|TestBM25Effectiveness|TestRerankSummHay|TestPrunedScorerMatchesExhaustive)$$
MEASURED  := ./cmd/crucible ./index ./pipeline/llm/offline

test: ## run every test (race detector on; browser tests need chromium; the effectiveness runs without it)
	$(GO) vet -tags '$(TAGS)' ./...
	$(GO) test -tags '$(TAGS)' -race -count=1 -timeout 30m ./...
	$(GO) test -tags '$(TAGS)' -count=1 -timeout 60m -run '$(MEASURES)' $(MEASURED)

test-short: ## the inner loop: no race detector, effectiveness runs, kill tests or SummHay measurements
	$(GO) test -tags '$(TAGS)' -short -count=1 ./...

generate: ## regenerate templ views
	$(GO) tool templ generate

check-generated: generate ## fail if generated files are out of date
	git diff --exit-code -- '*_templ.go'

fmt: ## gofmt the tree
	gofmt -w $$(git ls-files '*.go')

vet: ## go vet
	$(GO) vet -tags '$(TAGS)' ./...

lint: vet ## gofmt check + vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

bench: build ## crucible bench: index and search at 1x and 10x, Bleve vs SQLite FTS5
	$(BIN) bench index --corpus $(DEMO) --scale 1,10
	$(BIN) bench search --corpus $(DEMO) --scale 1,10

bench-go: ## Go benchmarks (testing.B)
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchmem ./...

fuzz: ## run each fuzz target for 20s
	@for t in $$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' . | sed 's/func //'); do \
		pkg=$$(grep -rlE "^func $$t\b" --include='*_test.go' . | head -1 | xargs dirname); \
		echo "fuzz $$t in $$pkg"; $(GO) test -tags '$(TAGS)' -run '^$$' -fuzz "^$$t$$" -fuzztime 20s $$pkg || exit 1; \
	done

reindex: build ## rebuild the index of $(DATA) from SQLite
	$(BIN) reindex --data $(DATA)

clean: ## remove build output (not the data folder)
	rm -rf bin
