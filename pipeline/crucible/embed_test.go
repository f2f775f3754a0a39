package crucible

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// axisEmbedder embeds a text on the axis its first word names (x, y, z),
// or fails.
type axisEmbedder struct {
	err   error
	calls int
}

func (e *axisEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{0.1, 0.1, 0.1}
		v[strings.Index("xyz", t[:1])] = 1
		out[i] = v
	}
	return out, nil
}

func TestNearestPairs(t *testing.T) {
	// Lexically unrelated paraphrases the embedding places together.
	ns := []pipeline.Nugget{
		{ID: "a", Question: "x When was the levy raised?", Answer: "1890"},
		{ID: "b", Question: "y Who signed the pact?", Answer: "Madison"},
		{ID: "c", Question: "x In what year did duties climb?", Answer: "eighteen ninety"},
		{ID: "d", Question: "y Which president put his name to the accord?", Answer: "James Madison"},
	}
	e := &Engine{Terms: words, Embedder: &axisEmbedder{}}
	r := e.newRun(pipeline.Request{}, pipeline.DefaultSettings())
	pairs, err := r.nearestPairs(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	// a–c and b–d first (cosine 1), then the cross pairs: every nugget is
	// paired with its three neighbours (fewer than pairsPerNugget).
	if len(pairs) < 2 || !cmp.Equal(pairs[:2], []pipeline.PairJudgement{{A: 0, B: 2}, {A: 1, B: 3}}) {
		t.Errorf("pairs %v; want a–c and b–d first", pairs)
	}
	if lex := r.candidatePairs(ns); len(lex) != 0 {
		t.Errorf("the lexical prefilter found %v; the test needs paraphrases it misses", lex)
	}

	// A failing endpoint: noted, and the lexical prefilter takes over.
	e.Embedder = &axisEmbedder{err: errors.New("HTTP 503")}
	r = e.newRun(pipeline.Request{}, pipeline.DefaultSettings())
	if pairs, err := r.nearestPairs(context.Background(), ns); err != nil || pairs != nil {
		t.Errorf("failing embedder: %v, %v; want nil, nil", pairs, err)
	}
	if p := r.tolerated(); len(p) != 1 || !strings.Contains(p[0], "HTTP 503") {
		t.Errorf("problems %v", p)
	}
	// No embedder: nothing to do here.
	e.Embedder = nil
	if pairs, _ := r.nearestPairs(context.Background(), ns); pairs != nil {
		t.Errorf("without an embedder: %v", pairs)
	}
}
