package crucible

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// indexAnalyzer gives the offline engine the index's English analysis.
type indexAnalyzer struct{ ix *index.Index }

func (a indexAnalyzer) Terms(text string) []string            { return a.ix.Terms(text) }
func (a indexAnalyzer) Sentences(text string) []pipeline.Span { return index.Sentences(text) }

// sotuCorpus reads the named addresses of the demo corpus
// (testdata/corpora/sotu.jsonl.gz) into a corpus, cut into passages as
// ingest cuts them, in the order given.
func sotuCorpus(t *testing.T, ids ...string) *memCorpus {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "corpora", "sotu.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	c := &memCorpus{docs: map[string]pipeline.Document{}, ps: map[string][]pipeline.Passage{}}
	sc := bufio.NewScanner(gz)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec map[string]string
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ids, rec["id"]) {
			continue
		}
		d := pipeline.Document{ID: rec["id"], Title: rec["title"], Text: rec["text"],
			Metadata: map[string]string{"author": rec["author"], "date": rec["date"]}}
		c.docs[d.ID] = d
		for i, sp := range index.Segment(d.Text, 1000) {
			c.ps[d.ID] = append(c.ps[d.ID], pipeline.Passage{DocID: d.ID, Ordinal: i, Start: sp.Start, End: sp.End, Text: d.Text[sp.Start:sp.End]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, ok := c.docs[id]; !ok {
			t.Fatalf("the demo corpus has no document %s", id)
		}
		c.ids = append(c.ids, id)
	}
	return c
}

// offlineEngine is the offline engine over c as the portal sets it up:
// the index's analysis, the offline rules and scan limit.
func offlineEngine(t *testing.T, c *memCorpus) *Engine {
	t.Helper()
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &Engine{Searcher: c, Store: c, Model: offline.New(indexAnalyzer{ix}), Terms: ix.Terms, SentenceKey: ix.SentenceKey,
		Sentences: index.Sentences, Defaults: OfflineHeuristics, ScanLimit: OfflineScanLimit, Name: "offline engine"}
}

// surplusRequest is a request about the federal surplus of the 1880s;
// surplusDocs the addresses its job retrieved, Cleveland's 1887 message
// among them (issue 15 #12: at rank 8).
var (
	surplusRequest = pipeline.Request{ID: "surplus-1880s", Title: "Federal surpluses in the 1880s",
		ProblemStatement: "What did the Presidents tell Congress in the 1880s about the federal surplus in the Treasury and how to reduce it?",
		Limit:            4000}
	surplusDocs = []string{
		"sotu-1880-rutherford-b-hayes-r", "sotu-1889-benjamin-harrison-r", "sotu-1882-chester-a-arthur-r",
		"sotu-1886-grover-cleveland-d", "sotu-1885-grover-cleveland-d", "sotu-1890-benjamin-harrison-r",
		"sotu-1888-grover-cleveland-d", "sotu-1887-grover-cleveland-d",
	}
)

func retrievedOf(c *memCorpus) []pipeline.RetrievedDoc {
	var ret []pipeline.RetrievedDoc
	for i, id := range c.ids {
		ret = append(ret, pipeline.RetrievedDoc{Rank: i + 1, DocID: id, Title: c.docs[id].Title})
	}
	return ret
}

// Issue 15 #12: a nugget asking what Cleveland said in 1887 found nothing
// on regeneration although his 1887 message, retrieved, states the
// answer. The offline engine counted the question's "Cleveland" and
// "1887" as words the message's sentences lack, when every sentence it
// takes from the message is attributed "In 1887, Grover Cleveland
// reported ...".
func TestRegenerateFindsANuggetNamingTheSpeakerAndYear(t *testing.T) {
	c := sotuCorpus(t, surplusDocs...)
	e := offlineEngine(t, c)
	for _, n := range []pipeline.Nugget{
		{ID: "a1", Question: "What did Cleveland say in 1887 about the surplus?", Answer: "the surplus in the Treasury would swell to $140,000,000"},
		{ID: "a2", Question: "What did Cleveland propose in 1887 to stop the surplus?", Answer: "reduction of customs duties"},
	} {
		t.Run(n.ID, func(t *testing.T) {
			res, err := e.Regenerate(context.Background(), RegenerateInput{
				Request: surplusRequest, Settings: pipeline.DefaultSettings(), Retrieved: retrievedOf(c),
				Nuggets: []pipeline.Nugget{n}, Changed: []string{n.ID},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Added != 1 || len(res.Sentences) != 1 {
				t.Fatalf("%q: %d sentences added, unanswered %v (%v); want the 1887 message's sentence", n.Question, res.Added, res.Unanswered, res.Reasons)
			}
			s := res.Sentences[0]
			if s.Citation.DocID != "sotu-1887-grover-cleveland-d" || !strings.HasPrefix(s.Text, "In 1887, Grover Cleveland") {
				t.Errorf("%q: sentence %q cites %s; want Cleveland's 1887 message, attributed", n.Question, s.Text, s.Citation.DocID)
			}
		})
	}
}

// A changed nugget that gets no sentence is told apart, for the history:
// its answer already stands in the report (the sentence repeats one
// kept), there is no room left under the length limit, or no passage read
// states it.
func TestRegenerateSaysWhyNoSentence(t *testing.T) {
	c := sotuCorpus(t, surplusDocs...)
	e := offlineEngine(t, c)
	ctx := context.Background()
	asked := pipeline.Nugget{ID: "a1", Question: "What did Cleveland say in 1887 about the surplus?", Answer: "the surplus in the Treasury would swell to $140,000,000"}
	first, err := e.Regenerate(ctx, RegenerateInput{Request: surplusRequest, Settings: pipeline.DefaultSettings(), Retrieved: retrievedOf(c),
		Nuggets: []pipeline.Nugget{asked}, Changed: []string{"a1"}})
	if err != nil || len(first.Sentences) != 1 {
		t.Fatalf("first regeneration: %v, %d sentences", err, len(first.Sentences))
	}
	kept := first.Sentences[0]
	kept.NuggetID = "n1"
	bank := []pipeline.Nugget{{ID: "n1", Question: "What did the Presidents say about the surplus?", Answer: "it grew"}, asked}
	regenerate := func(limit int, n pipeline.Nugget) RegenerateResult {
		t.Helper()
		req := surplusRequest
		req.Limit = limit
		res, err := e.Regenerate(ctx, RegenerateInput{Request: req, Settings: pipeline.DefaultSettings(), Retrieved: retrievedOf(c),
			Nuggets: []pipeline.Nugget{bank[0], n}, Changed: []string{n.ID}, Sentences: []pipeline.DraftSentence{kept}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Added != 0 || len(res.Unanswered) != 1 || res.Unanswered[0] != n.ID {
			t.Fatalf("%q: %d added, unanswered %v; want none added", n.Question, res.Added, res.Unanswered)
		}
		return res
	}

	// The report already holds the sentence: it answers the nugget.
	res := regenerate(4000, asked)
	if got := res.Reasons["a1"]; got.Why != NoSentenceRepeats || got.Repeats != 1 {
		t.Errorf("a nugget the kept sentence answers: %+v, want it to repeat sentence 1", got)
	}
	if got, want := strings.Join(res.unansweredText(bank, pipeline.MaxChangeChars), "; "), "“What did Cleveland say in 1887 about the surplus?” is answered by sentence 1 already"; got != want {
		t.Errorf("history\n got %q\nwant %q", got, want)
	}

	// Another span of the same message, with no room left for it.
	other := pipeline.Nugget{ID: "a2", Question: "What did Cleveland propose in 1887 to stop the surplus?", Answer: "reduction of customs duties"}
	bank[1] = other
	limit := utf8.RuneCountInString(kept.Text) + 40
	res = regenerate(limit, other)
	got := res.Reasons["a2"]
	if got.Why != NoSentenceNoRoom || got.Left != 39 || got.Needs <= got.Left || got.Candidates == 0 {
		t.Errorf("a nugget whose sentence does not fit: %+v, want no room (39 characters left)", got)
	}
	if text, want := strings.Join(res.unansweredText(bank, pipeline.MaxChangeChars), "; "),
		fmt.Sprintf("no room for the sentence found for “What did Cleveland propose in 1887 to stop the surplus?”: %s, 39 left under the limit", characters(got.Needs)); text != want {
		t.Errorf("history\n got %q\nwant %q", text, want)
	}

	// Nothing retrieved states it.
	moon := pipeline.Nugget{ID: "a3", Question: "Which crew landed on the Moon in 1969?", Answer: "Apollo 11"}
	bank[1] = moon
	res = regenerate(4000, moon)
	if got := res.Reasons["a3"]; got.Why != NoSentenceNotFound || got.Read == 0 || got.Candidates != 0 {
		t.Errorf("a nugget nothing states: %+v, want not found, with the passages read", got)
	}
	want := fmt.Sprintf("no sentence found for “Which crew landed on the Moon in 1969?”: none of the %d passages read states its answer",
		res.Reasons["a3"].Read)
	if got := strings.Join(res.unansweredText(bank, pipeline.MaxChangeChars), "; "); got != want {
		t.Errorf("history\n got %q\nwant %q", got, want)
	}
}

// The history's words for each reason a changed nugget got no sentence.
func TestUnansweredText(t *testing.T) {
	bank := []pipeline.Nugget{{ID: "a", Question: "A?"}, {ID: "b", Question: "B?"}, {ID: "c", Question: "C?"}, {ID: "d", Question: "D?"}}
	res := RegenerateResult{
		Unanswered: []string{"a", "b", "c", "d", "gone"},
		Reasons: map[string]NoSentence{
			"a": {Why: NoSentenceRepeats, Repeats: 4, Candidates: 1},
			"b": {Why: NoSentenceNoRoom, Needs: 312, Left: 1, Candidates: 2},
			"c": {Why: NoSentenceUnsupported, Candidates: 3},
			"d": {Why: NoSentenceNotFound},
		},
	}
	want := []string{
		"no sentence found for “D?”, a removed nugget",
		"“A?” is answered by sentence 4 already",
		"no room for the sentence found for “B?”: 312 characters, 1 left under the limit",
		"the 3 candidate sentences for “C?” failed verification",
	}
	if diff := cmp.Diff(want, res.unansweredText(bank, pipeline.MaxChangeChars)); diff != "" {
		t.Errorf("history (-want +got)\n%s", diff)
	}
}

// A version's change is at most pipeline.MaxChangeChars: the history of
// a regeneration cuts its questions shorter rather than its reasons.
func TestRegenerateChangeFits(t *testing.T) {
	long := "How large was the Treasury surplus Cleveland reported in 1887, and what did he ask Congress to do with it?"
	bank := []pipeline.Nugget{{ID: "a1", Question: long}}
	res := RegenerateResult{Dropped: 1, Unanswered: []string{"a1"},
		Reasons: map[string]NoSentence{"a1": {Why: NoSentenceNoRoom, Needs: 1510, Left: 179, Candidates: 2}}}
	got := regenerateChange(1, res, bank)
	if n := utf8.RuneCountInString(got); n > pipeline.MaxChangeChars || !strings.HasSuffix(got, "”: 1,510 characters, 179 left under the limit") {
		t.Errorf("change (%d characters) %q; want the reason whole within %d", n, got, pipeline.MaxChangeChars)
	}
	if !strings.Contains(got, "“How large was the Treasury surplus") {
		t.Errorf("change %q does not name the question", got)
	}
}
