package crucible

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// memCorpus is an in-memory store and searcher: documents of passages,
// ranked by how many query words a document contains.
type memCorpus struct {
	docs map[string]pipeline.Document
	ps   map[string][]pipeline.Passage
	ids  []string
}

func newCorpus(docs ...[]string) *memCorpus {
	c := &memCorpus{docs: map[string]pipeline.Document{}, ps: map[string][]pipeline.Passage{}}
	for i, passages := range docs {
		id := fmt.Sprintf("d%d", i+1)
		text := ""
		for j, p := range passages {
			if j > 0 {
				text += " "
			}
			c.ps[id] = append(c.ps[id], pipeline.Passage{DocID: id, Ordinal: j, Start: len(text), End: len(text) + len(p), Text: p})
			text += p
		}
		c.docs[id] = pipeline.Document{ID: id, Title: "Doc " + id, Text: text}
		c.ids = append(c.ids, id)
	}
	return c
}

func (c *memCorpus) Search(_ context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	words := strings.Fields(strings.ToLower(req.Query))
	type s struct {
		id    string
		score int
	}
	var hits []s
	for _, id := range c.ids {
		n := 0
		for _, w := range words {
			if strings.Contains(strings.ToLower(c.docs[id].Text), w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, s{id, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var res pipeline.SearchResult
	for i, h := range hits {
		if i >= req.K {
			break
		}
		res.Hits = append(res.Hits, pipeline.Hit{Rank: i + 1, DocID: h.id, Title: c.docs[h.id].Title, Score: float64(h.score)})
	}
	res.Total = len(hits)
	return res, nil
}

func (c *memCorpus) Document(_ context.Context, id string) (pipeline.Document, error) {
	d, ok := c.docs[id]
	if !ok {
		return d, pipeline.ErrNotFound
	}
	return d, nil
}

func (c *memCorpus) Passages(_ context.Context, id string) ([]pipeline.Passage, error) {
	return c.ps[id], nil
}

func (c *memCorpus) DocumentPassages(ctx context.Context, id string) (pipeline.Document, []pipeline.Passage, error) {
	d, err := c.Document(ctx, id)
	return d, c.ps[id], err
}

func (c *memCorpus) Stats(context.Context) (pipeline.CollectionStats, error) {
	return pipeline.CollectionStats{Documents: len(c.docs)}, nil
}

// scripted answers every task like a careful model would, through the
// canonical formats, and counts calls per task.
type scripted struct {
	mu      sync.Mutex
	calls   map[pipeline.Task]int
	nuggets map[string][]prompts.QA // by document id
	fail    pipeline.Task           // this task fails with ErrModel
	garble  pipeline.Task           // this task answers unparsable text
	refuse  string                  // verification says no for sentences containing this
	facets  []pipeline.Facet        // the facets answer; nil: one facet per request title
	// profile is the question profile of every quality answer; with
	// sevenLines the answer holds only the seven judgements, as a model
	// that ignores the profile's lines would write it.
	profile    prompts.QuestionProfile
	sevenLines bool
}

func (m *scripted) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return pipeline.ModelResponse{}, err
	}
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[pipeline.Task]int{}
	}
	m.calls[req.Task]++
	m.mu.Unlock()
	if req.Task == m.fail {
		return pipeline.ModelResponse{}, fmt.Errorf("%w: endpoint down", pipeline.ErrModel)
	}
	if req.Task == m.garble {
		return pipeline.ModelResponse{Text: "I am sorry, I cannot help with that."}, nil
	}
	text := ""
	switch in := req.Input.(type) {
	case prompts.SummarizeInput:
		text = prompts.FormatSummarize(prompts.SummarizeOutput{Summary: in.DocText, Relevant: true})
	case prompts.NuggetsInput:
		text = prompts.FormatNuggets(prompts.NuggetsOutput{Nuggets: m.nuggets[in.DocID]})
	case prompts.ParaphraseInput:
		text = prompts.FormatParaphrase(prompts.ParaphraseOutput{Same: in.A.Answer == in.B.Answer})
	case prompts.NuggetQualityInput:
		text = prompts.FormatNuggetQuality(prompts.NuggetQualityOutput{Task: 4, Background: 3, Role: 3, Style: 3, Scope: 4, Vital: true, Question: m.profile})
		if m.sevenLines {
			text = strings.Join(strings.Split(text, "\n")[:7], "\n")
		}
	case prompts.ExtractInput:
		out := prompts.ExtractOutput{}
		for _, s := range strings.SplitAfter(in.PassageText, ". ") {
			if strings.Contains(s, in.Nugget.Answer) {
				s = strings.TrimSpace(s)
				out = prompts.ExtractOutput{Found: true, Support: s, Sentence: s, Confidence: 0.9}
				break
			}
		}
		text = prompts.FormatExtract(out)
	case prompts.VerifySupportInput:
		text = prompts.FormatVerifySupport(prompts.VerifySupportOutput{Yes: m.refuse == "" || !strings.Contains(in.Sentence, m.refuse)})
	case prompts.VerifyCoverageInput:
		text = prompts.FormatVerifyCoverage(prompts.VerifyCoverageOutput{Yes: true})
	case prompts.FacetsInput:
		fs := m.facets
		if fs == nil {
			fs = []pipeline.Facet{{Heading: in.Request.Title, Description: in.Request.ProblemStatement}}
		}
		text = prompts.FormatFacets(prompts.FacetsOutput{Facets: fs})
	default:
		return pipeline.ModelResponse{}, fmt.Errorf("%w: unexpected input %T", pipeline.ErrInvalid, req.Input)
	}
	return pipeline.ModelResponse{Text: text, Model: "scripted"}, nil
}

// words is a stand-in analyzer: lower-cased words without a few stop words.
func words(s string) []string {
	stop := map[string]bool{"the": true, "a": true, "of": true, "in": true, "was": true, "did": true, "what": true, "when": true, "who": true, "year": true}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		if !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func newEngine(c *memCorpus, m pipeline.Model) *Engine {
	return &Engine{Searcher: c, Store: c, Model: m, Terms: words, Defaults: allRules,
		SentenceKey: func(s string) string { return strings.Join(words(s), " ") }, Name: "scripted model"}
}

func testCorpus() *memCorpus {
	return newCorpus(
		[]string{"Congress passed the McKinley Tariff in 1890. It raised duties on imports.", "Other matters of the year."},
		[]string{"The tariff of 1890 was named for McKinley. Duties rose sharply.", "The Treaty of Ghent ended the war in 1814."},
		[]string{"Madison signed the Treaty of Ghent. Peace followed the tariff debates."},
	)
}

func testNuggets() map[string][]prompts.QA {
	return map[string][]prompts.QA{
		"d1": {{Question: "When was the McKinley Tariff passed?", Answer: "1890"}},
		"d2": {{Question: "In what year was the McKinley Tariff passed?", Answer: "1890"}, {Question: "When did the Treaty of Ghent end the war?", Answer: "1814"}},
		"d3": {{Question: "Who signed the Treaty of Ghent?", Answer: "Madison"}},
	}
}

var testRequest = pipeline.Request{ID: "r1", Title: "Tariff and treaty", ProblemStatement: "What happened with the McKinley tariff and the Treaty of Ghent?", Limit: 1000}

type recorder struct {
	mu         sync.Mutex
	stages     []string
	retrieved  []pipeline.RetrievedDoc
	nuggets    []pipeline.Nugget
	candidates []pipeline.Candidate
}

func (r *recorder) Progress(p pipeline.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.stages); n == 0 || r.stages[n-1] != p.Stage {
		r.stages = append(r.stages, p.Stage)
	}
}
func (r *recorder) Retrieved(_ context.Context, d []pipeline.RetrievedDoc) error {
	r.retrieved = d
	return nil
}
func (r *recorder) Nuggets(_ context.Context, n []pipeline.Nugget) error { r.nuggets = n; return nil }
func (r *recorder) Candidates(_ context.Context, c []pipeline.Candidate) error {
	r.candidates = c
	return nil
}

func TestGenerateEndToEnd(t *testing.T) {
	c := testCorpus()
	m := &scripted{nuggets: testNuggets()}
	s := pipeline.DefaultSettings()
	s.Verify = true
	s.TargetNuggets = 3 // merging stops once 3 canonical nuggets remain
	rec := &recorder{}
	rep, err := newEngine(c, m).Generate(context.Background(), testRequest, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{StageRetrieve, StageIdeate, StageMerge, StageRank, StageScan, StageVerify, StageAssemble, StageGroup}
	if diff := cmp.Diff(want, rec.stages); diff != "" {
		t.Errorf("stages (-want +got)\n%s", diff)
	}
	if len(rec.retrieved) != 3 {
		t.Errorf("retrieved %d documents, want 3", len(rec.retrieved))
	}
	// The two McKinley nuggets share an answer and merge: 3 canonical + 1
	// merged away in the stored bank.
	var canonical, merged int
	for _, n := range rec.nuggets {
		if n.Popularity == 0 {
			merged++
		} else {
			canonical++
		}
	}
	if canonical != 3 || merged != 1 {
		t.Errorf("nugget bank: %d canonical, %d merged; want 3 and 1: %+v", canonical, merged, rec.nuggets)
	}
	// Every canonical nugget is measured against the retrieval; the
	// scripted nuggets' answers are in their sources, so none scores 0.
	for _, n := range rec.nuggets {
		if n.Popularity == 0 {
			continue
		}
		if v, ok := n.Features[pipeline.FeatureEvidence]; !ok || v <= 0 || v > 1 {
			t.Errorf("nugget %s: evidence %v (present %v), want in (0, 1]", n.ID, v, ok)
		}
	}
	if len(rep.Sentences) == 0 {
		t.Fatal("empty report")
	}
	seenDoc := map[string]bool{}
	for _, snt := range rep.Sentences {
		d := c.docs[snt.Citation.DocID]
		if got := d.Text[snt.Citation.Start:snt.Citation.End]; got != snt.Text {
			t.Errorf("sentence %q cites span %q", snt.Text, got)
		}
		ps := c.ps[snt.Citation.DocID][snt.Citation.Ordinal]
		if snt.Citation.Start < ps.Start || snt.Citation.End > ps.End {
			t.Errorf("citation span %d-%d outside passage %s (%d-%d)", snt.Citation.Start, snt.Citation.End, ps.ID(), ps.Start, ps.End)
		}
		if snt.Supported != pipeline.VerdictYes || snt.Covers != pipeline.VerdictYes {
			t.Errorf("sentence %q not verified: %q %q", snt.Text, snt.Supported, snt.Covers)
		}
		seenDoc[snt.Citation.DocID] = true
	}
	if rep.Length() > testRequest.Limit {
		t.Errorf("report of %d characters over the limit", rep.Length())
	}
	if rep.RunID != "crucible-scripted-model-verified" || rep.Engine != "scripted model" {
		t.Errorf("run id %q engine %q", rep.RunID, rep.Engine)
	}
	// Paraphrase prompts only for plausible pairs, not all 6 pairs.
	if m.calls[prompts.TaskParaphrase] >= 6 {
		t.Errorf("%d paraphrase prompts for 4 nuggets: the prefilter let every pair through", m.calls[prompts.TaskParaphrase])
	}
}

func TestVerificationDropsUnsupported(t *testing.T) {
	c := testCorpus()
	m := &scripted{nuggets: testNuggets(), refuse: "Madison"}
	s := pipeline.DefaultSettings()
	s.Verify = true
	rep, err := newEngine(c, m).Generate(context.Background(), testRequest, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, snt := range rep.Sentences {
		if strings.Contains(snt.Text, "Madison") {
			t.Errorf("a sentence that failed verification was kept: %q", snt.Text)
		}
	}
	s.Verify = false
	rep, _ = newEngine(c, &scripted{nuggets: testNuggets(), refuse: "Madison"}).Generate(context.Background(), testRequest, s, nil)
	found := false
	for _, snt := range rep.Sentences {
		found = found || strings.Contains(snt.Text, "Madison")
	}
	if !found {
		t.Error("without verification the Madison sentence should be in the report")
	}
}

func TestModelFailureNamesTheStage(t *testing.T) {
	for _, tc := range []struct {
		task  pipeline.Task
		stage string
	}{
		{prompts.TaskSummarize, StageIdeate},
		{prompts.TaskNuggetQuality, StageRank},
		{prompts.TaskExtract, StageScan},
		{prompts.TaskFacets, StageAssemble}, // facets are read for assembly to take turns among them
	} {
		_, err := newEngine(testCorpus(), &scripted{nuggets: testNuggets(), fail: tc.task}).
			Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
		var se *StageError
		if !errors.As(err, &se) || se.Stage != tc.stage || !errors.Is(err, pipeline.ErrModel) {
			t.Errorf("%s failing: err = %v, want a %s StageError wrapping ErrModel", tc.task, err, tc.stage)
		}
	}
}

func TestUnparsableAnswersAreTolerated(t *testing.T) {
	// Unparsable quality judgements: ranking falls back to text features
	// and the report is still made.
	rep, err := newEngine(testCorpus(), &scripted{nuggets: testNuggets(), garble: prompts.TaskNuggetQuality}).
		Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if err != nil || len(rep.Sentences) == 0 {
		t.Errorf("garbled quality answers: %d sentences, err %v", len(rep.Sentences), err)
	}
	if len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0], string(prompts.TaskNuggetQuality)) {
		t.Errorf("problems %q, want the unparsable quality answers named", rep.Problems)
	}
	// Unparsable nuggets everywhere: nothing to report, said clearly.
	_, err = newEngine(testCorpus(), &scripted{nuggets: testNuggets(), garble: prompts.TaskNuggets}).
		Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if !errors.Is(err, pipeline.ErrNotFound) || !strings.Contains(err.Error(), "no nugget") {
		t.Errorf("garbled nuggets: err = %v", err)
	}
}

func TestBadRequestAndNoMatch(t *testing.T) {
	e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
	bad := testRequest
	bad.Limit = 0
	if _, err := e.Generate(context.Background(), bad, pipeline.DefaultSettings(), nil); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("limit 0: err = %v", err)
	}
	none := testRequest
	none.Title, none.ProblemStatement = "zebra", "quokka"
	_, err := e.Generate(context.Background(), none, pipeline.DefaultSettings(), nil)
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageRetrieve || !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("no matching document: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Generate(ctx, testRequest, pipeline.DefaultSettings(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestRunID(t *testing.T) {
	for in, want := range map[string]string{
		"offline engine":       "crucible-offline-engine",
		"Llama-3.3-70B (vLLM)": "crucible-llama-3.3-70b-vllm",
	} {
		if got := RunID(in, false); got != want {
			t.Errorf("RunID(%q) = %q, want %q", in, got, want)
		}
	}
}

// bylineRecorder answers like scripted and records the byline of every
// extract and support prompt.
type bylineRecorder struct {
	scripted
	mu     sync.Mutex
	inputs []string // "task author date", and the prompt's byline line
}

func (m *bylineRecorder) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	line := ""
	for _, l := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
		if strings.HasPrefix(l, "Author: ") {
			line = l
		}
	}
	m.mu.Lock()
	switch in := req.Input.(type) {
	case prompts.ExtractInput:
		m.inputs = append(m.inputs, "extract "+in.DocAuthor+" "+in.DocDate+" | "+line)
	case prompts.VerifySupportInput:
		m.inputs = append(m.inputs, "support "+in.DocAuthor+" "+in.DocDate+" | "+line)
	}
	m.mu.Unlock()
	return m.scripted.Complete(ctx, req)
}

func TestPromptsCarryTheDocumentsByline(t *testing.T) {
	// With a model, the sentence is attributed by the model: the extract
	// and support prompts show who wrote the passage and when.
	c := testCorpus()
	for id, d := range c.docs {
		d.Metadata = map[string]string{"author": "Benjamin Harrison", "date": "1890-12-01"}
		c.docs[id] = d
	}
	m := &bylineRecorder{scripted: scripted{nuggets: testNuggets()}}
	s := pipeline.DefaultSettings()
	s.Verify = true
	if _, err := newEngine(c, m).Generate(context.Background(), testRequest, s, nil); err != nil {
		t.Fatal(err)
	}
	var extracts, supports int
	for _, in := range m.inputs {
		if !strings.HasSuffix(in, "Benjamin Harrison 1890-12-01 | Author: Benjamin Harrison. Date: 1890-12-01.") {
			t.Errorf("prompt input without the document's byline: %q", in)
		}
		switch {
		case strings.HasPrefix(in, "extract"):
			extracts++
		case strings.HasPrefix(in, "support"):
			supports++
		}
	}
	if extracts == 0 || supports == 0 {
		t.Errorf("%d extract and %d support prompts, want some of each", extracts, supports)
	}
}

// authorListing lists the collection's authors (pipeline.AuthorLister)
// over a memCorpus, as the SQLite store does.
type authorListing struct {
	*memCorpus
	authors map[string]pipeline.Period
	err     error
}

func (s authorListing) AuthorYears(context.Context) (map[string]pipeline.Period, error) {
	return s.authors, s.err
}

// TestExtractNamesAuthorsBySurname: the extract prompt names an author
// by surname where no other author of the collection shares it, in full
// where one does; the support prompt keeps the metadata's full name (a
// surname is among its words). With no author list the name stays whole,
// and a failing list fails the report with its error.
func TestExtractNamesAuthorsBySurname(t *testing.T) {
	for _, tc := range []struct {
		name, author, want string
		authors            map[string]pipeline.Period
		err                error
	}{
		{"unique surname", "William Mc Kinley", "McKinley", map[string]pipeline.Period{"William Mc Kinley": {From: 1897, To: 1901}, "Abraham Lincoln": {From: 1861, To: 1864}}, nil},
		{"shared surname", "Andrew Johnson", "Andrew Johnson", map[string]pipeline.Period{"Andrew Johnson": {From: 1865, To: 1868}, "Lyndon B Johnson": {From: 1964, To: 1969}}, nil},
		{"no author list", "Abraham Lincoln", "Abraham Lincoln", nil, nil},
		{"failing author list", "Abraham Lincoln", "", nil, errors.New("disk on fire")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testCorpus()
			for id, d := range c.docs {
				d.Metadata = map[string]string{"author": tc.author, "date": "1890-12-01"}
				c.docs[id] = d
			}
			m := &bylineRecorder{scripted: scripted{nuggets: testNuggets()}}
			e := newEngine(c, m)
			if tc.authors != nil || tc.err != nil {
				e.Store = authorListing{memCorpus: c, authors: tc.authors, err: tc.err}
			}
			s := pipeline.DefaultSettings()
			s.Verify = true
			_, err := e.Generate(context.Background(), testRequest, s, nil)
			if tc.err != nil {
				if err == nil || !strings.Contains(err.Error(), "disk on fire") {
					t.Fatalf("with a failing author list: %v, want its error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var extracts, supports int
			for _, in := range m.inputs {
				switch {
				case strings.HasPrefix(in, "extract"):
					extracts++
					if !strings.HasSuffix(in, "| Author: "+tc.want+". Date: 1890-12-01.") {
						t.Errorf("extract prompt %q, want the author named %q", in, tc.want)
					}
				case strings.HasPrefix(in, "support"):
					supports++
					if !strings.HasSuffix(in, "| Author: "+tc.author+". Date: 1890-12-01.") {
						t.Errorf("support prompt %q, want the author's full name %q", in, tc.author)
					}
				}
			}
			if extracts == 0 || supports == 0 {
				t.Errorf("%d extract and %d support prompts, want some of each", extracts, supports)
			}
		})
	}
}
