package rerank

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// coRankDocs is a DocumentSource over a map.
type coRankDocs map[string]pipeline.Document

func (m coRankDocs) Document(_ context.Context, id string) (pipeline.Document, error) {
	d, ok := m[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return d, nil
}

// coRankModel answers CoRank's tasks deterministically and records what
// it was shown. A feature request gets features[doc id] in the canonical
// format (or raw[doc id] as it is); a listwise window is ordered by the
// number after "fine=" in each shown text, else after "coarse=" (smaller
// first, ties and documents without one in the order shown).
type coRankModel struct {
	features map[string]DocFeatures
	raw      map[string]string
	failDoc  string

	mu        sync.Mutex
	extracted []string   // ids of the feature requests, sorted
	windows   [][]string // shown ids of each listwise request
	shown     map[string]string
}

var reRankKey = regexp.MustCompile(`(fine|coarse)=(\d+)`)

func (m *coRankModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return pipeline.ModelResponse{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	resp := pipeline.ModelResponse{Model: "scripted", PromptTokens: 100, CompletionTokens: 10}
	switch in := req.Input.(type) {
	case FeaturesInput:
		if req.Task != TaskCoRankFeatures {
			return resp, fmt.Errorf("feature input sent as task %q", req.Task)
		}
		if in.Doc.ID == m.failDoc {
			return resp, fmt.Errorf("%w: HTTP 503", pipeline.ErrModel)
		}
		m.extracted = append(m.extracted, in.Doc.ID)
		slices.Sort(m.extracted)
		if text, ok := m.raw[in.Doc.ID]; ok {
			resp.Text = text
		} else {
			resp.Text = FormatFeatures(m.features[in.Doc.ID])
		}
	case ListwiseInput:
		var ids []string
		key := func(d PromptDoc) int {
			best := 1 << 30
			for _, mm := range reRankKey.FindAllStringSubmatch(d.Text, -1) {
				if n, _ := strconv.Atoi(mm[2]); mm[1] == "fine" || best == 1<<30 {
					best = n
					if mm[1] == "fine" {
						break
					}
				}
			}
			return best
		}
		if m.shown == nil {
			m.shown = map[string]string{}
		}
		for _, d := range in.Docs {
			ids = append(ids, d.ID)
			m.shown[d.ID] = d.Text
		}
		m.windows = append(m.windows, ids)
		order := identity(len(in.Docs))
		slices.SortStableFunc(order, func(a, b int) int { return key(in.Docs[a]) - key(in.Docs[b]) })
		resp.Text = "Ranking: " + FormatListwise(order)
	default:
		return resp, fmt.Errorf("unexpected input %T", req.Input)
	}
	return resp, nil
}

var coRankRequest = pipeline.Request{ID: "r1", Title: "Tariff duties", ProblemStatement: "How did tariff duties change revenue?"}

// coRankFlow is seven documents whose features' titles carry their coarse
// key and whose texts carry their fine key.
func coRankFlow() (coRankDocs, map[string]DocFeatures, []Candidate) {
	coarse := map[string]int{"d1": 6, "d2": 5, "d3": 1, "d4": 4, "d5": 2, "d6": 3, "d7": 7}
	fine := map[string]int{"d1": 4, "d2": 1, "d3": 2, "d4": 5, "d5": 3, "d6": 6, "d7": 7}
	docs := coRankDocs{}
	feats := map[string]DocFeatures{}
	var cands []Candidate
	for i := 1; i <= 7; i++ {
		id := fmt.Sprintf("d%d", i)
		docs[id] = pipeline.Document{ID: id, Title: "Address " + id, Text: fmt.Sprintf("fine=%d The text of %s.", fine[id], id)}
		feats[id] = DocFeatures{Title: fmt.Sprintf("coarse=%d", coarse[id]), Keywords: []string{"tariff"}}
		cands = append(cands, Candidate{ID: id, Score: float64(10 - i)})
	}
	return docs, feats, cands
}

func TestCoRankCoarseThenFine(t *testing.T) {
	docs, feats, cands := coRankFlow()
	model := &coRankModel{features: feats}
	store := &MemoryFeatureStore{}
	rr, err := NewCoRank(model, Options{Depth: 6, WindowSize: 4, WindowStride: 2}, CoRankConfig{Store: store, Namespace: "test", FineDepth: 3, CoarseWindow: 4})
	if err != nil {
		t.Fatal(err)
	}
	var progress [][2]int
	in := Input{Request: coRankRequest, Candidates: cands, Docs: docs, Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }}
	res, err := rr.Rerank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	// Coarse keys by position d1..d6: 6 5 1 4 2 3. Windows of 4, stride 2,
	// bottom-up: [2,6) holds d3 d4 d5 d6 (1 4 2 3) → d3 d5 d6 d4; the list
	// is d1 d2 d3 d5 d6 d4. [0,4) holds d1 d2 d3 d5 (6 5 1 2) → d3 d5 d2
	// d1; the coarse order is d3 d5 d2 d1 d6 d4. The fine ranking orders
	// the top three by their fine keys, d3 2, d5 3, d2 1 → d2 d3 d5. d7,
	// beyond the depth, keeps its place at the end.
	wantCoarse := []string{"d3", "d5", "d2", "d1", "d6", "d4"}
	wantFine := []string{"d2", "d3", "d5"}
	wantRanking := []string{"d2", "d3", "d5", "d1", "d6", "d4", "d7"}
	tr, ok := res.Trace.(CoRankTrace)
	if !ok {
		t.Fatalf("trace is %T", res.Trace)
	}
	if diff := cmp.Diff(wantCoarse, tr.Coarse); diff != "" {
		t.Errorf("coarse order (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(wantFine, tr.Fine); diff != "" {
		t.Errorf("fine order (-want +got)\n%s", diff)
	}
	var got []string
	for k, c := range res.Ranking {
		got = append(got, c.ID)
		if want := 1 / float64(k+1); c.Score != want {
			t.Errorf("rank %d score %v, want %v", k+1, c.Score, want)
		}
	}
	if diff := cmp.Diff(wantRanking, got); diff != "" {
		t.Errorf("ranking (-want +got)\n%s", diff)
	}
	// Six extractions (d7 is beyond the depth), two coarse windows, one
	// fine window.
	if diff := cmp.Diff([]string{"d1", "d2", "d3", "d4", "d5", "d6"}, model.extracted); diff != "" {
		t.Errorf("extracted (-want +got)\n%s", diff)
	}
	wantWindows := [][]string{{"d3", "d4", "d5", "d6"}, {"d1", "d2", "d3", "d5"}, {"d3", "d5", "d2"}}
	if diff := cmp.Diff(wantWindows, model.windows); diff != "" {
		t.Errorf("listwise windows shown (-want +got)\n%s", diff)
	}
	if res.Method != MethodCoRank || res.Usage.Calls != 9 || res.Usage.PromptTokens != 900 {
		t.Errorf("method %q, usage %+v; want corank, 9 calls, 900 prompt tokens", res.Method, res.Usage)
	}
	if last := progress[len(progress)-1]; len(progress) != 9 || last != [2]int{9, 9} {
		t.Errorf("progress %v, want 9 reports ending at 9 of 9", progress)
	}
	if tr.Depth != 6 || tr.FineDepth != 3 || tr.FeaturesExtracted != 6 || tr.FeaturesStored != 0 || len(tr.CoarseWindows) != 2 || len(tr.FineWindows) != 1 {
		t.Errorf("trace counts %+v", tr)
	}
	// Rows in first-stage order with coarse and final ranks.
	wantRanks := map[string][2]int{"d1": {4, 4}, "d2": {3, 1}, "d3": {1, 2}, "d4": {6, 6}, "d5": {2, 3}, "d6": {5, 5}}
	for _, row := range tr.Rows {
		if got := [2]int{row.CoarseRank, row.Rank}; got != wantRanks[row.DocID] || row.Features != FeaturesExtracted {
			t.Errorf("row %s: coarse %d, rank %d, features %q; want %v, extracted", row.DocID, row.CoarseRank, row.Rank, row.Features, wantRanks[row.DocID])
		}
	}
	// The coarse windows showed compact representations, the fine window
	// full texts.
	if want := "fine=1 The text of d2."; model.shown["d2"] != want {
		t.Errorf("fine text of d2 %q, want %q", model.shown["d2"], want)
	}
	if want := "Topic: coarse=6\nKeywords: tariff"; tr.Rows[0].Compact != want {
		t.Errorf("compact of d1 %q, want %q", tr.Rows[0].Compact, want)
	}

	// A second reranker over the same store extracts nothing; after d4
	// changes, only d4 is extracted again.
	model2 := &coRankModel{features: feats}
	rr2, err := NewCoRank(model2, Options{Depth: 6, WindowSize: 4, WindowStride: 2}, CoRankConfig{Store: store, Namespace: "test", FineDepth: 3, CoarseWindow: 4})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := rr2.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if tr2 := res2.Trace.(CoRankTrace); len(model2.extracted) != 0 || tr2.FeaturesStored != 6 || res2.Usage.Calls != 3 {
		t.Errorf("second run extracted %v, stored %d, %d calls; want none, 6, 3", model2.extracted, tr2.FeaturesStored, res2.Usage.Calls)
	}
	d4 := docs["d4"]
	d4.Text += " Amended."
	docs["d4"] = d4
	if _, err := rr2.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d4"}, model2.extracted); diff != "" {
		t.Errorf("after d4 changed, extracted (-want +got)\n%s", diff)
	}
	// Another namespace (engine) does not see these features.
	rr3, err := NewCoRank(&coRankModel{features: feats}, Options{}, CoRankConfig{Store: store, Namespace: "other"})
	if err != nil {
		t.Fatal(err)
	}
	res3, err := rr3.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if n := res3.Trace.(CoRankTrace).FeaturesExtracted; n != 7 {
		t.Errorf("another namespace extracted %d documents, want all 7", n)
	}
}

func TestCoRankSelectsQuerySimilarItems(t *testing.T) {
	feats := DocFeatures{
		Title:    "Trade and the navy in 1890",
		Category: []string{"Government", "Trade", "Tariffs"},
		Headings: []string{"Naval construction", "Customs revenue from sugar", "Silver coinage"},
		Keywords: []string{"navy", "tariff act", "sugar", "import duties", "ships", "revenue", "silver", "tariff"},
		Queries:  []string{"ships launched 1890", "tariff duties on imports", "silver purchase act"},
	}
	docs := coRankDocs{"a": {ID: "a", Title: "Annual message", Text: "The navy grew."}}
	model := &coRankModel{features: map[string]DocFeatures{"a": feats}}
	rr, err := NewCoRank(model, Options{}, CoRankConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: []Candidate{{ID: "a"}}, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	row := res.Trace.(CoRankTrace).Rows[0]
	// SimpleTerms of the query: tariff, dutie (duties), tariff, dutie,
	// change, revenue. The keyword pool has N = 8 items, 10 terms in all
	// (avglen 1.25); df(tariff) = 2, df(dutie) = 1, df(revenue) = 1, so
	// idf = ln(1 + 6.5/2.5) = 1.281 for tariff and ln(1 + 7.5/1.5) =
	// 1.792 for the others. With k1 = 1.2 and b = 0.75 a one-word item
	// gets tf part 2.2/(1 + 1.2·(0.25 + 0.75·0.8)) = 1.089 and a two-word
	// item 2.2/(1 + 1.2·(0.25 + 0.75·1.6)) = 0.803:
	//   revenue       1.792·1.089 = 1.952
	//   import duties 1.792·0.803 = 1.439
	//   tariff        1.281·1.089 = 1.395
	//   tariff act    1.281·0.803 = 1.029
	// and the fifth place goes to the first item with no overlap, navy.
	if diff := cmp.Diff([]string{"revenue", "import duties", "tariff", "tariff act", "navy"}, row.Keywords); diff != "" {
		t.Errorf("keywords (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Customs revenue from sugar"}, row.Sections); diff != "" {
		t.Errorf("section (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tariff duties on imports"}, row.Queries); diff != "" {
		t.Errorf("query (-want +got)\n%s", diff)
	}
	want := "Topic: Trade and the navy in 1890\nCategory: Government > Trade > Tariffs\n" +
		"Keywords: revenue; import duties; tariff; tariff act; navy\nSection: Customs revenue from sugar\nQuery: tariff duties on imports"
	if diff := cmp.Diff(want, row.Compact); diff != "" {
		t.Errorf("compact representation (-want +got)\n%s", diff)
	}
	// One candidate: one extraction and no listwise call.
	if res.Usage.Calls != 1 || len(model.windows) != 0 {
		t.Errorf("%d calls, %d windows; want 1 and 0", res.Usage.Calls, len(model.windows))
	}
}

func TestCoRankNoOverlapKeepsFeatureOrder(t *testing.T) {
	feats := DocFeatures{
		Headings: []string{"Naval construction", "Silver coinage"},
		Keywords: []string{"navy", "ships", "silver", "coinage", "army", "forts", "harbours"},
		Queries:  []string{"ships launched", "silver purchase"},
	}
	docs := coRankDocs{"a": {ID: "a", Title: "Annual message", Text: "The navy grew."}}
	rr, err := NewCoRank(&coRankModel{features: map[string]DocFeatures{"a": feats}}, Options{}, CoRankConfig{Keywords: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: []Candidate{{ID: "a"}}, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	// No title in the features: the document's own stands in.
	want := "Topic: Annual message\nKeywords: navy; ships; silver\nSection: Naval construction\nQuery: ships launched"
	if diff := cmp.Diff(want, res.Trace.(CoRankTrace).Rows[0].Compact); diff != "" {
		t.Errorf("compact representation (-want +got)\n%s", diff)
	}
}

// signEmbedder maps a text to (1, 0) when it mentions ships and (0, 1)
// otherwise, and records the texts.
type signEmbedder struct {
	mu    sync.Mutex
	texts []string
}

func (e *signEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		e.texts = append(e.texts, t)
		out[i] = []float32{0, 1}
		if strings.Contains(strings.ToLower(t), "ship") {
			out[i] = []float32{1, 0}
		}
	}
	return out, nil
}

func TestCoRankEmbedder(t *testing.T) {
	feats := DocFeatures{
		Headings: []string{"Tariffs", "Shipbuilding"},
		Keywords: []string{"navy", "ships", "sugar", "shipyard", "tariff", "silver", "ship launch"},
		Queries:  []string{"tariff duties", "ships launched"},
	}
	docs := coRankDocs{"a": {ID: "a", Title: "Annual message", Text: "The navy grew."}}
	emb := &signEmbedder{}
	rr, err := NewCoRank(&coRankModel{features: map[string]DocFeatures{"a": feats}}, Options{}, CoRankConfig{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	req := pipeline.Request{Title: "New ships", ProblemStatement: "Which ships were launched?"}
	res, err := rr.Rerank(context.Background(), Input{Request: req, Candidates: []Candidate{{ID: "a"}}, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace.(CoRankTrace)
	// The query mentions ships: items that do have cosine 1, the others 0,
	// which keep their order.
	want := CoRankRow{
		DocID: "a", Title: "Annual message", FirstStageRank: 1, CoarseRank: 1, Rank: 1, Features: FeaturesExtracted,
		Keywords: []string{"ships", "shipyard", "ship launch", "navy", "sugar"},
		Sections: []string{"Shipbuilding"}, Queries: []string{"ships launched"},
		Compact: "Topic: Annual message\nKeywords: ships; shipyard; ship launch; navy; sugar\nSection: Shipbuilding\nQuery: ships launched",
	}
	if diff := cmp.Diff(want, tr.Rows[0]); diff != "" {
		t.Errorf("row (-want +got)\n%s", diff)
	}
	if tr.Similarity != "embedding" {
		t.Errorf("similarity %q, want embedding", tr.Similarity)
	}
	// The query and the 11 distinct items were embedded once each.
	if len(emb.texts) != 12 || emb.texts[0] != "New ships. Which ships were launched?" {
		t.Errorf("embedded %d texts starting %q", len(emb.texts), emb.texts[0])
	}
}

func TestCoRankUnreadableFeatures(t *testing.T) {
	docs, feats, cands := coRankFlow()
	model := &coRankModel{features: feats, raw: map[string]string{"d2": "Sorry, I cannot help with that."}}
	store := &MemoryFeatureStore{}
	rr, err := NewCoRank(model, Options{Depth: 3}, CoRankConfig{Store: store, Namespace: "test"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace.(CoRankTrace)
	if tr.FeaturesFailed != 1 || tr.FeaturesExtracted != 2 || len(tr.Failures) != 1 || tr.Rows[1].Features != FeaturesFailed {
		t.Errorf("trace %+v, want d2 failed and reported", tr)
	}
	if want := "Opening: fine=1 The text of d2."; tr.Rows[1].Compact != want {
		t.Errorf("compact of d2 %q, want %q", tr.Rows[1].Compact, want)
	}
	stored, err := store.GetFeatures(context.Background(), rr.FeatureNamespace(), []string{"d1", "d2", "d3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stored["d2"]; ok || len(stored) != 2 {
		t.Errorf("stored %v, want d1 and d3 only", stored)
	}
}

func TestCoRankErrors(t *testing.T) {
	docs, feats, cands := coRankFlow()
	good := &coRankModel{features: feats}
	newOK := func() *CoRank {
		rr, err := NewCoRank(good, Options{}, CoRankConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return rr
	}
	tests := []struct {
		name string
		run  func() error
		want error
		text string
	}{
		{"no model", func() error { _, err := NewCoRank(nil, Options{}, CoRankConfig{}); return err }, pipeline.ErrInvalid, "no model"},
		{"store without namespace", func() error {
			_, err := NewCoRank(good, Options{}, CoRankConfig{Store: &MemoryFeatureStore{}})
			return err
		}, pipeline.ErrInvalid, "namespace"},
		{"stride above window", func() error {
			_, err := NewCoRank(good, Options{WindowSize: 4, WindowStride: 5}, CoRankConfig{})
			return err
		}, pipeline.ErrInvalid, "stride"},
		{"negative keywords", func() error { _, err := NewCoRank(good, Options{}, CoRankConfig{Keywords: -1}); return err }, pipeline.ErrInvalid, "negative"},
		{"blank request", func() error {
			_, err := newOK().Rerank(context.Background(), Input{Candidates: cands, Docs: docs})
			return err
		}, pipeline.ErrInvalid, "neither title nor problem statement"},
		{"no documents", func() error {
			_, err := newOK().Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands})
			return err
		}, pipeline.ErrInvalid, "no document source"},
		{"repeated candidate", func() error {
			_, err := newOK().Rerank(context.Background(), Input{Request: coRankRequest, Candidates: []Candidate{{ID: "d1"}, {ID: "d1"}}, Docs: docs})
			return err
		}, pipeline.ErrInvalid, `"d1"`},
		{"unknown document", func() error {
			_, err := newOK().Rerank(context.Background(), Input{Request: coRankRequest, Candidates: []Candidate{{ID: "zz"}}, Docs: docs})
			return err
		}, pipeline.ErrNotFound, `load document "zz"`},
		{"failed extraction", func() error {
			rr, err := NewCoRank(&coRankModel{features: feats, failDoc: "d3"}, Options{}, CoRankConfig{})
			if err != nil {
				return err
			}
			_, err = rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs})
			return err
		}, pipeline.ErrModel, `extract features of document "d3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil {
				t.Fatalf("no error, want one wrapping %v", tt.want)
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %v, want one wrapping %v that mentions %q", err, tt.want, tt.text)
			}
			if !strings.Contains(err.Error(), MethodCoRank) {
				t.Errorf("error %v does not name the method", err)
			}
		})
	}
}

func TestCoRankNoCandidates(t *testing.T) {
	rr, err := NewCoRank(&coRankModel{}, Options{}, CoRankConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: nil, Docs: coRankDocs{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ranking) != 0 || res.Usage.Calls != 0 {
		t.Errorf("result %+v, want an empty ranking and no call", res)
	}
}

func TestFineText(t *testing.T) {
	doc := pipeline.Document{Text: "The opening of the address thanks Congress. Much later the address turns to tariff duties on wool."}
	tests := []struct {
		name, passage string
		budget        int
		want          string
	}{
		{"fits", "", 200, doc.Text},
		// Cut at 20 runes: "The opening of the a" → the last space
		// before the limit, past half of it, "The opening of the".
		{"cut, no passage", "", 20, "The opening of the …"},
		{"cut after a sentence", "", 44, "The opening of the address thanks Congress. …"},
		// Budget 40: the passage "tariff duties on wool." (22 runes) is
		// cut to 20 → "tariff duties on …"; the opening gets 40 − 18 − 3 =
		// 19 runes → "The opening of the".
		{"passage beyond the opening", "tariff duties on wool.", 40, "The opening of the … tariff duties on …"},
		{"passage within the opening", "thanks Congress.", 44, "The opening of the address thanks Congress. …"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fineText(doc, tt.passage, tt.budget); got != tt.want {
				t.Errorf("fineText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExtractFeaturesCutsText(t *testing.T) {
	var seen FeaturesInput
	model := modelFunc(func(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		seen = req.Input.(FeaturesInput)
		return pipeline.ModelResponse{Text: "TITLE: Tariffs\nKEYWORDS: tariff; duties"}, nil
	})
	doc := pipeline.Document{ID: "a", Title: " Annual\nmessage ", Text: "Tariff duties rose sharply this year."}
	x, err := ExtractFeatures(context.Background(), model, doc, 14)
	if err != nil {
		t.Fatal(err)
	}
	// 14 runes: "Tariff duties " → cut at the space, "Tariff duties".
	want := FeaturesInput{Doc: PromptDoc{ID: "a", Title: "Annual message", Text: "Tariff duties"}, Cut: true}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("input (-want +got)\n%s", diff)
	}
	wantRec := FeatureRecord{DocID: "a", Hash: FeatureHash(doc), Features: DocFeatures{Title: "Tariffs", Keywords: []string{"tariff", "duties"}}}
	if diff := cmp.Diff(wantRec, x.Record); diff != "" {
		t.Errorf("record (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"category", "headings", "queries"}, x.Report.Missing); diff != "" {
		t.Errorf("missing (-want +got)\n%s", diff)
	}
}

func TestFeatureHashAndNamespace(t *testing.T) {
	a := pipeline.Document{Title: "ab", Text: "c"}
	b := pipeline.Document{Title: "a", Text: "bc"}
	if FeatureHash(a) == FeatureHash(b) {
		t.Error("title and text boundary is not part of the hash")
	}
	if FeatureHash(a) != FeatureHash(pipeline.Document{ID: "other", Title: "ab", Text: "c", Source: "x"}) {
		t.Error("the hash depends on more than title and text")
	}
	if got, want := FeatureNamespace("offline-v2", 0), "offline-v2/corank-features-v1/20000"; got != want {
		t.Errorf("FeatureNamespace = %q, want %q", got, want)
	}
}

// modelFunc adapts a function to pipeline.Model.
type modelFunc func(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error)

func (f modelFunc) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	return f(ctx, req)
}

// By default the coarse ranking shows all 200 candidates' compact
// representations in one listwise prompt, as the paper does; the fine
// ranking reorders the top 20 by their texts. A coarse window splits the
// coarse prompt for a model with a smaller context.
func TestCoRankOneCoarsePromptOver200(t *testing.T) {
	docs := coRankDocs{}
	feats := map[string]DocFeatures{}
	var cands []Candidate
	for i := 1; i <= 230; i++ {
		id := fmt.Sprintf("d%03d", i)
		// The coarse key reverses the first-stage order.
		docs[id] = pipeline.Document{ID: id, Title: "Address " + id, Text: fmt.Sprintf("fine=%d The text of %s.", i, id)}
		feats[id] = DocFeatures{Title: fmt.Sprintf("coarse=%d", 1000-i), Keywords: []string{"tariff"}}
		cands = append(cands, Candidate{ID: id, Score: float64(1000 - i)})
	}
	for _, tt := range []struct {
		name    string
		window  int
		prompts []int // documents shown by each listwise prompt, in order
	}{
		{"one prompt", 0, []int{200, 20}},
		{"windows of 100", 100, []int{100, 100, 100, 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := &coRankModel{features: feats}
			rr, err := NewCoRank(model, Options{}, CoRankConfig{CoarseWindow: tt.window})
			if err != nil {
				t.Fatal(err)
			}
			res, err := rr.Rerank(context.Background(), Input{Request: coRankRequest, Candidates: cands, Docs: docs})
			if err != nil {
				t.Fatal(err)
			}
			var shown []int
			for _, w := range model.windows {
				shown = append(shown, len(w))
			}
			if diff := cmp.Diff(tt.prompts, shown); diff != "" {
				t.Errorf("documents per listwise prompt (-want +got):\n%s", diff)
			}
			tr := res.Trace.(CoRankTrace)
			if tr.Depth != 200 || tr.FineDepth != 20 {
				t.Errorf("depth %d, fine depth %d; want 200 and 20", tr.Depth, tr.FineDepth)
			}
			// The coarse order puts d200 first (smallest coarse key among
			// the 200); the fine ranking then orders the top 20 (d181..d200)
			// by their fine keys: d181 first. Candidates beyond 200 follow.
			if got := res.Ranking[0].ID; got != "d181" {
				t.Errorf("first %s, want d181", got)
			}
			if got := res.Ranking[200].ID; got != "d201" {
				t.Errorf("201st %s, want d201 (first beyond the depth)", got)
			}
		})
	}
	if _, err := NewCoRank(&coRankModel{}, Options{}, CoRankConfig{CoarseWindow: 1}); err == nil || !strings.Contains(err.Error(), "coarse window 1") {
		t.Errorf("coarse window 1: %v", err)
	}
}
