package judge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// scoredReport is testReport as a stored report, made by gpt-4o.
func scoredReport() pipeline.Report {
	neu := testReport()
	rep := pipeline.Report{
		Request: pipeline.Request{ID: "r1", Title: "The Dortmund flood barrier", ProblemStatement: "What will the barrier cost, and who approved it?", Limit: 1000},
		Engine:  "gpt-4o",
		Manifest: &pipeline.Manifest{Engine: pipeline.EngineFacts{ID: "openai", Label: "gpt-4o", Model: "gpt-4o",
			EndpointHost: "api.example.com"}},
	}
	for _, s := range neu.Sentences {
		c := pipeline.Citation{DocID: s.Citations[0]}
		if m := s.Crucible; m != nil {
			c.Start, c.End = m.Start, m.End
		}
		rep.Sentences = append(rep.Sentences, pipeline.Sentence{Text: s.Text, Citation: c})
	}
	return rep
}

func TestScoreWithGoldAndReviews(t *testing.T) {
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	sc, err := Scorer{Judge: Offline{}, Source: testSource()}.Score(context.Background(), ScoreInput{
		Report: scoredReport(), Version: 3, GoldSet: "dortmund gold", Gold: testGold(), Now: now,
		Reviews: pipeline.ReviewSummary{Sentences: 4, Reviewed: 2, Supported: 1, Partly: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	vital := 1.0
	want := pipeline.Scorecard{
		Version: 3, ComputedAt: now, Judge: Info(Offline{}), Independence: pipeline.Independent, Sentences: 4,
		// n1, n2 (vital) and n3 are covered; the claim n4 is not.
		Gold:      &pipeline.GoldScore{Set: "dortmund gold", Nuggets: 4, Covered: 3, Recall: 0.75, VitalNuggets: 2, VitalRecall: &vital},
		Citations: 4, CitationSupport: 0.5,
		// Sentences holding the title's "barrier": the first two.
		OnTopic:  0.5,
		Reviewed: &pipeline.ReviewScore{Reviewed: 2, Supported: 1, Partly: 1, Support: 0.75},
	}
	if diff := cmp.Diff(want, sc); diff != "" {
		t.Errorf("scorecard (-want +got)\n%s", diff)
	}
}

// A model judge is asked whether each sentence is on topic; judging the
// report of its own model it is self-judged, of another model's
// independent; without gold nuggets there is no recall.
func TestScoreByModelJudge(t *testing.T) {
	m := &fakeModel{answer: func(req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		if req.Task == prompts.TaskJudgeOnTopic && strings.Contains(req.Input.(prompts.JudgeOnTopicInput).Sentence, "Shop owners") {
			return pipeline.ModelResponse{Text: "no"}, nil
		}
		return pipeline.ModelResponse{Text: "yes"}, nil
	}}
	for _, tt := range []struct {
		judge ModelJudge
		want  string
	}{
		{ModelJudge{Model: m, Label: "gpt-4o", Host: "api.example.com"}, pipeline.SelfJudged},
		{ModelJudge{Model: m, Label: "Llama-3.3-70B", Host: "api.example.com"}, pipeline.Independent},
	} {
		sc, err := Scorer{Judge: tt.judge, Source: testSource()}.Score(context.Background(), ScoreInput{Report: scoredReport()})
		if err != nil {
			t.Fatal(err)
		}
		if sc.Independence != tt.want || sc.Judge.Model != tt.judge.Label || sc.Judge.Offline {
			t.Errorf("judge %s: %q (%+v), want %q", tt.judge.Label, sc.Independence, sc.Judge, tt.want)
		}
		if sc.Gold != nil || sc.Reviewed != nil {
			t.Errorf("gold %+v, reviewed %+v, want none", sc.Gold, sc.Reviewed)
		}
		if sc.OnTopic != 0.75 {
			t.Errorf("on topic %v, want 0.75", sc.OnTopic)
		}
	}
	asked := map[pipeline.Task]int{}
	for _, r := range m.asked {
		asked[r.Task]++
	}
	if asked[prompts.TaskJudgeOnTopic] != 8 || asked[prompts.TaskJudgeCovers] != 0 {
		t.Errorf("asked %v, want 4 on-topic questions per scorecard and no coverage", asked)
	}
}

func TestOfflineOnTopic(t *testing.T) {
	req := pipeline.Request{Title: "Tariff reform", ProblemStatement: "Describe what the addresses said about duties on imported wool and cotton."}
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"In 1890, Benjamin Harrison reported that the tariffs were reformed.", true},
		{"The duties on wool were lowered.", true},
		{"The duties were lowered.", false},
		{"The addresses described the navy.", false},
	} {
		v, err := Offline{}.OnTopic(context.Background(), req, tt.sentence)
		if err != nil || v.Yes != tt.want {
			t.Errorf("%q: %+v (%v), want %v", tt.sentence, v, err, tt.want)
		}
	}
}
