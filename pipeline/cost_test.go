package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEstimateCost(t *testing.T) {
	in := CostInput{
		Settings:           DefaultSettings(),
		Ideate:             CallSizes{Calls: 40, PromptChars: 400000, CompletionChars: 40000},
		Merge:              CallSizes{Calls: 100, PromptChars: 200000, CompletionChars: 300},
		Rank:               CallSizes{Calls: 70, PromptChars: 160000, CompletionChars: 5000},
		Reach:              []int{1000, 500, 0, 100},
		Passages:           7000,
		ExtractPromptChars: 4000, SupportPromptChars: 2000, CoveragePromptChars: 1000, FacetsPromptChars: 2000,
	}
	got := EstimateCost(in)
	calls := map[string]int{}
	for _, s := range got.Stages {
		calls[s.Stage] = s.Calls
	}
	// Scan: 88% of 1,600 promising passages.
	want := map[string]int{"retrieve": 0, "ideate": 40, "merge": 100, "rank": 70, "scan": 1408, "assemble": 1, "group": 0}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got)\n%s", diff)
	}
	scan, _ := got.Stage("scan")
	if scan.MaxCalls != 1600 || scan.PromptTokens != 1408*1000 || scan.CompletionTokens != (1408*ExtractAnswerChars+3)/4 {
		t.Errorf("scan %+v", scan)
	}
	tot := got.Total()
	if tot.Calls != 1619 || tot.MaxCalls != 1811 || tot.PromptTokens != 100000+50000+40000+1408000+500 {
		t.Errorf("total %+v", tot)
	}

	// A full scan: every passage for every kept nugget; verification adds
	// its checks; the offline engine, under its limit, spends no tokens.
	in.Settings.FullScan, in.Settings.Verify = true, true
	in.Offline, in.ScanLimit = true, 24
	got = EstimateCost(in)
	scan, _ = got.Stage("scan")
	verify, ok := got.Stage("verify")
	if scan.Calls != 4*7000 || scan.MaxCalls != 0 || !ok || verify.Calls != 2*6 || verify.MaxCalls != 2*4*4 {
		t.Errorf("full scan %+v, verify %+v", scan, verify)
	}
	if tot := got.Total(); tot.PromptTokens != 0 || tot.CompletionTokens != 0 {
		t.Errorf("the offline engine's estimate spends tokens: %+v", tot)
	}
	// The fill: a nugget, an extraction and two checks per sentence
	// tried, and at most one more extraction for the claim.
	in.FillTries = 24
	if asm, _ := EstimateCost(in).Stage("assemble"); asm.Calls != 1+4*24 || asm.MaxCalls != 1+4*24+24 {
		t.Errorf("assemble with the fill %+v", asm)
	}
	in.FillTries = 0
	in.Settings.Reranker = "pointwise"
	in.Rerank = CallSizes{Calls: 100}
	if st, ok := EstimateCost(in).Stage("rerank"); !ok || st.Calls != 100 {
		t.Errorf("rerank %+v", st)
	}
}

func TestPrices(t *testing.T) {
	p := Prices{PromptPerMillion: 0.5, CompletionPerMillion: 1.5}
	if !p.Set() || (Prices{}).Set() {
		t.Error("Set")
	}
	if got := p.Format(p.Cost(20629094, 52398)); got != "10.39 USD" {
		t.Errorf("cost %q", got)
	}
	if got := (Prices{Currency: "EUR"}).Format(0.0031); got != "0.0031 EUR" {
		t.Errorf("small amount %q", got)
	}
}
