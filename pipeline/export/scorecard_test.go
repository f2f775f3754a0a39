package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func testScorecard() *pipeline.Scorecard {
	vital := 0.5
	return &pipeline.Scorecard{
		Version: 2, ComputedAt: time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC),
		Judge:        pipeline.JudgeInfo{Name: "model judge: gpt-4o", Model: "gpt-4o", EndpointHost: "api.example.com"},
		Independence: pipeline.Independent, Sentences: 4, Citations: 4, CitationSupport: 0.75, OnTopic: 1,
		Gold:     &pipeline.GoldScore{Set: "sotu", Nuggets: 8, Covered: 2, Recall: 0.25, VitalNuggets: 2, VitalRecall: &vital},
		Reviewed: &pipeline.ReviewScore{Reviewed: 2, Supported: 2, Support: 1},
	}
}

// Every format carries the scorecard in its report-level crucible
// object, and the Markdown export words it.
func TestScorecardInEveryExport(t *testing.T) {
	r := formatsReport()
	r.Scorecard = testScorecard()
	for _, f := range Formats() {
		b, err := Encode(f.ID, r, Run{})
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f.ID, err)
		}
		meta, _ := doc["crucible"].(map[string]any)
		if md, ok := doc["metadata"].(map[string]any); ok && meta == nil {
			meta, _ = md["crucible"].(map[string]any)
		}
		sc, _ := meta["scorecard"].(map[string]any)
		if sc == nil || sc["independence"] != "independent" || sc["citation_support"] != 0.75 {
			t.Errorf("%s: crucible.scorecard = %v", f.ID, sc)
			continue
		}
		raw, _ := json.Marshal(sc)
		var back pipeline.Scorecard
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(*r.Scorecard, back); diff != "" {
			t.Errorf("%s: scorecard read back (-want +got)\n%s", f.ID, diff)
		}
	}
	md := Markdown(r, nil)
	for _, want := range []string{"## Scorecard",
		"- Judged by model judge: gpt-4o (independent) on 2026-05-06 12:00 UTC, version 2",
		`- Nugget recall 0.250 (2 of 8 gold nuggets of "sotu"); vital 0.500`,
		"- Citation support 0.750 (of 4 citations, by the judge)",
		"- On topic 1.000 (of 4 sentences, by the judge)",
		"- Reviewers' verified support 1.000 (2 of 4 citations reviewed: 2 supported, 0 partly, 0 not)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	r.Scorecard = nil
	if md := Markdown(r, nil); strings.Contains(md, "Scorecard") {
		t.Error("a report without a scorecard has one in Markdown")
	}
}
