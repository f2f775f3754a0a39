package crucible

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// splitSentences splits text after ". " (enough for the test corpus).
func splitSentences(text string) []pipeline.Span {
	var out []pipeline.Span
	start := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '.' && text[i+1] == ' ' {
			out = append(out, pipeline.Span{Start: start, End: i + 1})
			start = i + 2
		}
	}
	return append(out, pipeline.Span{Start: start, End: len(text)})
}

func TestEvidence(t *testing.T) {
	c := newCorpus(
		// d1: the request's best passage states the price with figures.
		[]string{"The canal treaty with Panama was signed in 1903. The canal cost $375,000,000 by 1914 and opened on August 15, 1914."},
		// d2: the same kind of fact, in a passage the request ranks low,
		// among words the request does not use.
		[]string{"Weather was mild. The harbour works cost 40 millions in 1880."},
		// d3: outside the request's best passages altogether.
		[]string{"The canal treaty was signed in 1903."},
	)
	e := newEngine(c, nil)
	e.Sentences = splitSentences
	r := e.newRun(pipeline.Request{Title: "Panama canal", ProblemStatement: "treaty cost"}, pipeline.DefaultSettings())
	r.query = r.termSet("Panama canal treaty cost")
	r.passageRank = map[string]int{pipeline.PassageID("d1", 0): 0, pipeline.PassageID("d2", 0): 90}

	tests := []struct {
		name   string
		nugget pipeline.Nugget
		want   float64
	}{
		{
			// Second sentence of d1: canal, cost (2 of 4 terms: subject
			// 1), 4 figures (concrete 1), rank 0 (proximity 1).
			name:   "fact-dense sentence of the best passage",
			nugget: pipeline.Nugget{Question: "What did the canal cost?", Answer: "$375,000,000", Sources: []string{"d1"}},
			want:   1,
		},
		{
			// cost (1 of 4: subject 0.75), figures 40 and 1880 (0.5), rank
			// 90 (0.1): (0.75 + 0.2 + 0.1) / 2.4.
			name:   "passage the request ranks low",
			nugget: pipeline.Nugget{Question: "What did the harbour works cost?", Answer: "40 millions", Sources: []string{"d2"}},
			want:   (0.75 + 0.4*0.5 + 0.1) / 2.4,
		},
		{
			// canal, treaty (subject 1), one figure (0.25), no rank.
			name:   "passage outside the request's best",
			nugget: pipeline.Nugget{Question: "When was the treaty signed?", Answer: "1903", Sources: []string{"d3"}},
			want:   (1 + 0.4*0.25) / 2.4,
		},
		{
			name:   "best of several sources",
			nugget: pipeline.Nugget{Question: "When was the treaty signed?", Answer: "1903", Sources: []string{"d3", "d1"}},
			// d1's first sentence: canal, treaty, panama (1), one figure,
			// rank 0.
			want: (1 + 0.4*0.25 + 1) / 2.4,
		},
		{
			name:   "answer its sources do not state",
			nugget: pipeline.Nugget{Question: "Who built the canal?", Answer: "Goethals", Sources: []string{"d1", "d3"}},
			want:   0,
		},
		{
			name:   "answer without a content term",
			nugget: pipeline.Nugget{Question: "What did it cost?", Answer: "the", Sources: []string{"d1"}},
			want:   0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.evidence(context.Background(), tt.nugget)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("evidence = %.4f, want %.4f", got, tt.want)
			}
		})
	}
}

func TestEvidenceWithoutSentenceSplitter(t *testing.T) {
	// Without Sentences a passage counts as one sentence: the terms of
	// the whole passage count.
	c := newCorpus([]string{"The canal opened in 1914. Its treaty cost little."})
	e := newEngine(c, nil)
	r := e.newRun(pipeline.Request{Title: "t", ProblemStatement: "p"}, pipeline.DefaultSettings())
	r.query = r.termSet("canal treaty")
	r.passageRank = map[string]int{}
	got, err := r.evidence(context.Background(), pipeline.Nugget{Answer: "1914", Sources: []string{"d1"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (1 + 0.4*0.25) / 2.4; math.Abs(got-want) > 1e-9 {
		t.Errorf("evidence = %.4f, want %.4f", got, want)
	}
}

type failingPassages struct{ *memCorpus }

func (failingPassages) Passages(context.Context, string) ([]pipeline.Passage, error) {
	return nil, errors.New("disk on fire")
}

func TestEvidenceStoreErrorStopsTheRank(t *testing.T) {
	e := newEngine(newCorpus([]string{"x"}), nil)
	e.Store = failingPassages{newCorpus([]string{"x"})}
	r := e.newRun(pipeline.Request{Title: "t", ProblemStatement: "p"}, pipeline.DefaultSettings())
	r.query = r.termSet("canal")
	_, err := r.evidence(context.Background(), pipeline.Nugget{Answer: "1914", Sources: []string{"d1"}})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("err = %v, want the store's error", err)
	}
}

func TestCountFigures(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"no figures here", 0},
		{"In 1903, for $10,000,000.", 2},
		{"3.5 percent, 12%, and 1,000 men", 3},
		{"1, 2 and 3", 3},
		{"the 19th century and the 1890s", 2},
		{"ends with a comma 5,", 1},
		{"version 1.2.3", 1},
	}
	for _, tt := range tests {
		if got := countFigures(tt.in); got != tt.want {
			t.Errorf("countFigures(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func FuzzCountFigures(f *testing.F) {
	for _, s := range []string{"", "1,000.5", ",.,.1", "١٢٣ ٤"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := countFigures(s)
		if n < 0 || n > len(s) {
			t.Errorf("countFigures(%q) = %d", s, n)
		}
	})
}

func TestEvidenceOutsideTheRequestsPeriod(t *testing.T) {
	c := newCorpus(
		[]string{"The canal treaty was signed in 1903."},
		[]string{"The canal treaty was signed in 1903."},
	)
	e := newEngine(c, nil)
	r := e.newRun(pipeline.Request{Title: "t", ProblemStatement: "p"}, pipeline.DefaultSettings())
	r.query = r.termSet("canal treaty")
	r.passageRank = map[string]int{}
	n := func(src string) pipeline.Nugget { return pipeline.Nugget{Answer: "1903", Sources: []string{src}} }
	full := (1 + 0.4*0.25) / 2.4

	for _, tt := range []struct {
		name     string
		inPeriod map[string]bool
		src      string
		want     float64
	}{
		{"no period named", nil, "d2", full},
		{"source in the period", map[string]bool{"d1": true}, "d1", full},
		{"source outside it counts a third", map[string]bool{"d1": true}, "d2", full / periodBoost},
	} {
		r.inPeriod = tt.inPeriod
		got, err := r.evidence(context.Background(), n(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: evidence = %.4f, want %.4f", tt.name, got, tt.want)
		}
	}
}
