package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// reportStore holds the documents the sample report cites: sampleStore's
// two-passage address and a one-passage news item.
func reportStore() *fakeStore {
	s := sampleStore()
	s.add(pipeline.Document{ID: "news/wind", Title: "Wind subsidies in Denmark", Text: "Denmark paid feed-in tariffs. Wind power grew fast."})
	return s
}

const sotu = "sotu/2021 biden"

// sampleReport is report 9 of job 5. Its sentences cite passage 0 of the
// address, the news item, passage 1 of the address and passage 0 of the
// address again, so their citation numbers are 1, 2, 3 and 1.
func sampleReport() pipeline.Report {
	return pipeline.Report{
		ID: 9,
		Request: pipeline.Request{
			Title: "State of the economy", Background: "I brief a committee.",
			ProblemStatement: "How is the economy doing?", Limit: 2000,
		},
		RunID:  "crucible-offline-engine",
		Engine: "offline engine",
		Sentences: []pipeline.Sentence{
			{Text: "The economy is growing.", Citation: pipeline.Citation{DocID: sotu, Ordinal: 0, Start: 21, End: 39},
				NuggetID: "n1", Confidence: 0.87, Supported: pipeline.VerdictYes},
			{Text: "Denmark paid feed-in tariffs for wind power.", Citation: pipeline.Citation{DocID: "news/wind", Ordinal: 0, Start: 0, End: 29},
				NuggetID: "n2", Confidence: 0.5, Supported: pipeline.VerdictNo, Covers: pipeline.VerdictYes},
			{Text: "The union is sound.", Citation: pipeline.Citation{DocID: sotu, Ordinal: 1, Start: 54, End: 72},
				NuggetID: "n3", Confidence: 0.333},
			{Text: "The Union is strong.", Citation: pipeline.Citation{DocID: sotu, Ordinal: 0, Start: 0, End: 20},
				NuggetID: "n9", Confidence: 1},
		},
		Nuggets: []pipeline.Nugget{
			{ID: "n1", Question: "How is the economy doing?", Answer: "It grows.", Rank: 1},
			{ID: "n2", Question: "Which country paid feed-in tariffs?", Answer: "Denmark.", Rank: 2},
			{ID: "n3", Question: "Is the union sound?", Answer: "Yes.", Rank: 3},
		},
		CreatedAt: time.Date(2026, 5, 6, 11, 0, 0, 0, time.UTC),
	}
}

// withReport stores the sample report as report 9 of job 5.
func withReport(s *reportServer, rep pipeline.Report) {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	s.jobs.reports[rep.ID] = rep
	s.jobs.reportJobs[rep.ID] = 5
}

func TestReportPage(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	withReport(s, rep)
	rec := s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	got := map[string]string{
		"title":   textOf(doc, "report-title"),
		"engine":  textOf(doc, "report-engine"),
		"offline": byTestID(doc, "report-engine").AttrOr("class", ""),
		"run id":  textOf(doc, "report-run-id"),
		"length":  textOf(doc, "report-length"),
	}
	want := map[string]string{
		"title":   "State of the economy",
		"engine":  "offline engine",
		"offline": "badge badge-offline",
		"run id":  "crucible-offline-engine",
		"length":  strconv.Itoa(rep.Length()) + " of 2,000 characters",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report header (-want +got):\n%s", diff)
	}
	if !strings.Contains(textOf(doc, "offline-notice"), "offline engine") {
		t.Errorf("offline notice = %q", textOf(doc, "offline-notice"))
	}
	if diff := cmp.Diff([]string{"[1]", "[2]", "[3]", "[1]"}, texts(doc, "sentence-ref")); diff != "" {
		t.Errorf("citation numbers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"The economy is growing.", "Denmark paid feed-in tariffs for wind power.", "The union is sound.", "The Union is strong."},
		texts(doc, "sentence-text")); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
	byTestID(doc, "sentence").Each(func(i int, d *goquery.Selection) {
		if goquery.NodeName(d) != "details" || !d.Children().First().Is("summary") {
			t.Errorf("sentence %d is not a <details> opened by its <summary>", i+1)
		}
		if _, open := d.Attr("open"); open {
			t.Errorf("sentence %d starts open", i+1)
		}
		if d.Find(`summary [data-testid="sentence-text"]`).Length() != 1 {
			t.Errorf("sentence %d text is not in its summary", i+1)
		}
	})

	type reference struct{ Number, Title, Href, DocID string }
	var refs []reference
	byTestID(doc, "reference").Each(func(_ int, r *goquery.Selection) {
		href, _ := r.Find(`[data-testid="reference-title"]`).Attr("href")
		refs = append(refs, reference{
			Number: r.Find(`[data-testid="reference-number"]`).Text(),
			Title:  r.Find(`[data-testid="reference-title"]`).Text(),
			Href:   href,
			DocID:  r.Find(`[data-testid="reference-doc-id"]`).Text(),
		})
	})
	wantRefs := []reference{
		{Number: "[1]", Title: "Address Before a Joint Session", Href: "/documents/sotu/2021%20biden#p0", DocID: sotu},
		{Number: "[2]", Title: "Wind subsidies in Denmark", Href: "/documents/news/wind#p0", DocID: "news/wind"},
		{Number: "[3]", Title: "Address Before a Joint Session", Href: "/documents/sotu/2021%20biden#p1", DocID: sotu},
	}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	if got := strings.Join(strings.Fields(byTestID(doc, "reference").First().Text()), " "); got != "[1] Address Before a Joint Session — sotu/2021 biden, passage 0" {
		t.Errorf("first reference reads %q", got)
	}

	links := map[string]string{}
	for _, id := range []string{"report-nuggets-link", "report-job-link"} {
		links[id], _ = byTestID(doc, id).Attr("href")
	}
	if diff := cmp.Diff(map[string]string{"report-nuggets-link": "/reports/9/nuggets", "report-job-link": "/jobs/5"}, links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if goquery.NodeName(byTestID(doc, "report-request")) != "details" {
		t.Errorf("request is not collapsible")
	}
	if got := textOf(doc, "request-background"); got != "I brief a committee." {
		t.Errorf("background = %q", got)
	}
	if got := textOf(doc, "request-problem"); got != "How is the economy doing?" {
		t.Errorf("problem statement = %q", got)
	}
}

func TestReportProvenance(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	doc := parseHTML(t, s.get(t, "/reports/9"))
	passages := reportStore().passages[sotu]

	type provenance struct {
		Question, Answer, DocTitle, DocHref, DocID, Byline, Passage, Cited, Confidence, Supported, Covers, NoNugget string
	}
	var got []provenance
	byTestID(doc, "sentence").Each(func(_ int, d *goquery.Selection) {
		p := d.Find(`[data-testid="provenance"]`)
		field := func(id string) string {
			return strings.Join(strings.Fields(p.Find(`[data-testid="`+id+`"]`).Text()), " ")
		}
		href, _ := p.Find(`[data-testid="prov-doc-link"]`).Attr("href")
		got = append(got, provenance{
			Question: field("prov-question"), Answer: field("prov-answer"), NoNugget: field("prov-no-nugget"),
			DocTitle: field("prov-doc-link"), DocHref: href, DocID: field("prov-doc-id"), Byline: field("prov-byline"),
			Passage:    p.Find(`[data-testid="prov-passage"]`).Text(),
			Cited:      strings.Join(p.Find("mark.cite").Map(func(_ int, m *goquery.Selection) string { return m.Text() }), "|"),
			Confidence: field("prov-confidence"), Supported: field("prov-supported"), Covers: field("prov-covers"),
		})
	})
	want := []provenance{
		{
			Question: "How is the economy doing?", Answer: "It grows.",
			DocTitle: "Address Before a Joint Session", DocHref: "/documents/sotu/2021%20biden?span=21-39#cite", DocID: sotu,
			Byline:  "By Biden, dated unknown: who said it and when, in the sentence, come from here; what it says comes from the highlighted span.",
			Passage: passages[0].Text, Cited: "Our economy grows.",
			Confidence: "87%", Supported: "yes", Covers: "not checked",
		},
		{
			Question: "Which country paid feed-in tariffs?", Answer: "Denmark.",
			DocTitle: "Wind subsidies in Denmark", DocHref: "/documents/news/wind?span=0-29#cite", DocID: "news/wind",
			Passage: "Denmark paid feed-in tariffs. Wind power grew fast.", Cited: "Denmark paid feed-in tariffs.",
			Confidence: "50%", Supported: "no", Covers: "yes",
		},
		{
			Question: "Is the union sound?", Answer: "Yes.",
			DocTitle: "Address Before a Joint Session", DocHref: "/documents/sotu/2021%20biden?span=54-72#cite", DocID: sotu,
			Byline:  "By Biden, dated unknown: who said it and when, in the sentence, come from here; what it says comes from the highlighted span.",
			Passage: passages[1].Text, Cited: "the union is sound",
			Confidence: "33%", Supported: "not checked", Covers: "not checked",
		},
		{
			NoNugget: "The report does not hold the nugget n9.",
			DocTitle: "Address Before a Joint Session", DocHref: "/documents/sotu/2021%20biden?span=0-20#cite", DocID: sotu,
			Byline:  "By Biden, dated unknown: who said it and when, in the sentence, come from here; what it says comes from the highlighted span.",
			Passage: passages[0].Text, Cited: "The Union is strong.",
			Confidence: "100%", Supported: "not checked", Covers: "not checked",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("provenance (-want +got):\n%s", diff)
	}
	// The document page the provenance links to marks the same span.
	href, _ := byTestID(doc, "prov-doc-link").First().Attr("href")
	target, _, _ := strings.Cut(href, "#")
	docPage := parseHTML(t, s.get(t, target))
	if got := docPage.Find("mark.cite").Text(); got != "Our economy grows." {
		t.Errorf("linked document page marks %q, want the cited span", got)
	}
}

func TestReportProvenanceWhenSourcesChanged(t *testing.T) {
	store := reportStore()
	store.add(pipeline.Document{ID: "short", Title: "Short", Text: "Only one passage here."})
	s := newReportServer(t, store, web.Config{})
	rep := sampleReport()
	rep.Sentences = []pipeline.Sentence{
		{Text: "Gone.", Citation: pipeline.Citation{DocID: "deleted/doc", Ordinal: 2, Start: 0, End: 5}, NuggetID: "n1"},
		{Text: "Re-cut.", Citation: pipeline.Citation{DocID: "short", Ordinal: 3, Start: 0, End: 4}, NuggetID: "n1"},
		{Text: "Elsewhere.", Citation: pipeline.Citation{DocID: sotu, Ordinal: 1, Start: 0, End: 10}, NuggetID: "n1"},
	}
	withReport(s, rep)
	rec := s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	sentences := byTestID(doc, "sentence")
	check := func(i int, id, want string) {
		t.Helper()
		if got := strings.Join(strings.Fields(sentences.Eq(i).Find(`[data-testid="`+id+`"]`).Text()), " "); !strings.Contains(got, want) {
			t.Errorf("sentence %d %s = %q, want it to contain %q", i+1, id, got, want)
		}
	}
	check(0, "prov-passage-missing", "no longer in the collection")
	check(0, "prov-doc-link", "deleted/doc")
	check(1, "prov-passage-missing", "no longer has this passage")
	check(1, "prov-doc-link", "Short")
	check(2, "prov-span-outside", "outside this passage")
	if n := sentences.Eq(2).Find("mark").Length(); n != 0 {
		t.Errorf("%d marks for a span outside its passage", n)
	}
	if got := textOf(doc, "reference"); !strings.Contains(got, "(no longer in the collection)") {
		t.Errorf("references = %q, want the missing document noted", got)
	}
}

func TestReportFromAModel(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Engine = "Llama-3.3-70B"
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, "/reports/9"))
	if got := textOf(doc, "report-engine"); got != "Llama-3.3-70B" {
		t.Errorf("engine = %q", got)
	}
	if n := doc.Find(".badge-offline").Length() + byTestID(doc, "offline-notice").Length(); n != 0 {
		t.Errorf("a model's report is labelled offline")
	}
}

func TestReportEmpty(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Sentences = nil
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, "/reports/9"))
	if byTestID(doc, "report-empty").Length() != 1 || byTestID(doc, "references").Length() != 0 {
		t.Errorf("empty report: notice %d, references %d; want the notice only",
			byTestID(doc, "report-empty").Length(), byTestID(doc, "references").Length())
	}
	if got := textOf(doc, "report-length"); got != "0 of 2,000 characters" {
		t.Errorf("length = %q", got)
	}
}

func TestReportNotFound(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	for _, target := range []string{"/reports/10", "/reports/abc", "/reports/0", "/reports/10/nuggets", "/reports/x/nuggets"} {
		rec := s.get(t, target)
		wantStatus(t, rec, http.StatusNotFound)
		if got := textOf(parseHTML(t, rec), "error-status"); got != "404" {
			t.Errorf("GET %s error status = %q", target, got)
		}
	}
}

func TestReportStoreFailures(t *testing.T) {
	store := reportStore()
	store.err = fmt.Errorf("read document: %w", errSecret)
	s := newReportServer(t, store, web.Config{})
	withReport(s, sampleReport())
	rec := s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))

	s = newReportServer(t, reportStore(), web.Config{}, func(d *reportDeps) {
		d.finder = finderFunc(func(context.Context, int64) (int64, error) { return 0, errSecret })
	})
	withReport(s, sampleReport())
	rec = s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
}

func TestReportJobLookup(t *testing.T) {
	tests := []struct {
		name     string
		opt      func(*reportDeps)
		wantJob  string // job link, "" for none
		wantBank int    // status of the nugget bank
	}{
		{name: "the job store finds jobs", wantJob: "/jobs/5", wantBank: http.StatusOK},
		{
			name:     "no finder",
			opt:      func(d *reportDeps) { d.jobs = storeWithoutFinder{d.jobs} },
			wantBank: http.StatusNotFound,
		},
		{
			name: "explicit finder",
			opt: func(d *reportDeps) {
				d.jobs = storeWithoutFinder{d.jobs}
				d.finder = finderFunc(func(_ context.Context, id int64) (int64, error) {
					if id == 9 {
						return 5, nil
					}
					return 0, pipeline.ErrNotFound
				})
			},
			wantJob: "/jobs/5", wantBank: http.StatusOK,
		},
		{
			name: "job deleted",
			opt: func(d *reportDeps) {
				d.finder = finderFunc(func(context.Context, int64) (int64, error) { return 0, pipeline.ErrNotFound })
			},
			wantBank: http.StatusNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []func(*reportDeps)
			if tt.opt != nil {
				opts = append(opts, tt.opt)
			}
			s := newReportServer(t, reportStore(), web.Config{}, opts...)
			withReport(s, sampleReport())
			rec := s.get(t, "/reports/9")
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			if href, _ := byTestID(doc, "report-job-link").Attr("href"); href != tt.wantJob {
				t.Errorf("job link = %q, want %q", href, tt.wantJob)
			}
			if got := byTestID(doc, "report-nuggets-link").Length() == 1; got != (tt.wantJob != "") {
				t.Errorf("nugget bank link shown = %t, want %t", got, tt.wantJob != "")
			}
			wantStatus(t, s.get(t, "/reports/9/nuggets"), tt.wantBank)
		})
	}
}

// withNuggetBank stores job 5's nuggets, candidates and retrieval.
func withNuggetBank(s *reportServer) {
	features := map[string]float64{
		pipeline.FeatureTask: 0.9, pipeline.FeatureBackground: 0.5, pipeline.FeatureRole: 0.25, pipeline.FeatureStyle: 1,
		pipeline.FeatureScope: 0.75, pipeline.FeatureVital: 1, pipeline.FeatureResearchy: 0,
		pipeline.FeatureReadability: 0.625, pipeline.FeatureComplexity: 0.4, pipeline.FeatureEvidence: 0.55,
		pipeline.FeatureAmbiguous: 0.2, pipeline.FeatureMultifaceted: 0.6, pipeline.FeatureNonfactoid: 0.8,
	}
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	s.jobs.nuggets[5] = []pipeline.Nugget{
		{ID: "n2", Question: "Which country paid feed-in tariffs?", Answer: "Denmark.", Rank: 2, Popularity: 1, QualityScore: 0.61,
			Sources: []string{"news/wind"}},
		{ID: "n1", Question: "How is the economy doing?", Answer: "It grows.", Rank: 1, Popularity: 3, QualityScore: 0.7342,
			Features: features, Paraphrases: []string{"n1b", "n1c"}, Sources: []string{sotu, "news/wind"}},
		{ID: "n3", Question: "Is the union sound?", Answer: "Yes.", Rank: 3, Popularity: 1, QualityScore: 0.5, Sources: []string{sotu}},
		{ID: "n4", Question: "What endures?", Answer: "The union.", Rank: 4, Popularity: 2, QualityScore: 0.45,
			Paraphrases: []string{"n4b", "n4x"}, Sources: []string{sotu}},
		{ID: "n5", Question: "Below the cut, first?", Answer: "Five.", Popularity: 1, QualityScore: 0.2},
		{ID: "n6", Question: "Below the cut, second?", Answer: "Six.", Popularity: 1, QualityScore: 0.3},
		{ID: "n1b", Question: "Is the economy growing?", Answer: "Yes, it grows."},
		{ID: "n1c", Question: "What is the economy doing?", Answer: "Growing."},
		{ID: "n4b", Question: "What lasts?", Answer: "The union lasts."},
		{ID: "n7", Question: "An orphan?", Answer: "Merged, but named by no group."},
	}
	s.jobs.candidates[5] = []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "It grows."}, {NuggetID: "n4", Sentence: "The union endures."}, {NuggetID: "n2", Sentence: "Denmark."},
		{NuggetID: "n1", Sentence: "It grows fast."}, {NuggetID: "n4", Sentence: "The union lasts."}, {NuggetID: "n3", Sentence: "Yes."},
	}
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{
		{Rank: 1, DocID: sotu, Title: "Address Before a Joint Session"},
		{Rank: 2, DocID: "news/wind", Title: "Wind subsidies in Denmark"},
	}
}

func TestNuggetBank(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	withNuggetBank(s)
	rec := s.get(t, "/reports/9/nuggets")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	if got, want := textOf(doc, "bank-summary"), "10 nuggets drafted, 6 distinct after merging paraphrases, 4 kept after ranking."; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	kept := byTestID(doc, "kept-nuggets").Find(`[data-testid="nugget"]`)
	type card struct {
		Rank, Question, Answer, Quality, Popularity, Candidates, Sentences string
		Sources, Paraphrases                                               []string
	}
	read := func(sel *goquery.Selection) []card {
		var out []card
		sel.Each(func(_ int, n *goquery.Selection) {
			field := func(id string) string {
				return strings.Join(strings.Fields(n.Find(`[data-testid="`+id+`"]`).Text()), " ")
			}
			c := card{
				Rank: field("nugget-rank"), Question: field("nugget-question"), Answer: field("nugget-answer"),
				Quality: field("nugget-quality"), Popularity: field("nugget-popularity"),
				Candidates: field("nugget-candidates"), Sentences: field("nugget-sentences"),
			}
			n.Find(`[data-testid="nugget-source"]`).Each(func(_ int, a *goquery.Selection) {
				href, _ := a.Attr("href")
				c.Sources = append(c.Sources, a.Text()+" <"+href+">")
			})
			n.Find(`[data-testid="paraphrase"]`).Each(func(_ int, p *goquery.Selection) {
				c.Paraphrases = append(c.Paraphrases, strings.Join(strings.Fields(p.Text()), " "))
			})
			out = append(out, c)
		})
		return out
	}
	want := []card{
		{Rank: "1", Question: "How is the economy doing?", Answer: "It grows.", Quality: "0.734", Popularity: "3",
			Candidates: "2 candidates", Sentences: "1 sentence in the report",
			Sources:     []string{"Address Before a Joint Session </documents/sotu/2021%20biden>", "Wind subsidies in Denmark </documents/news/wind>"},
			Paraphrases: []string{"Is the economy growing? — Yes, it grows. n1b", "What is the economy doing? — Growing. n1c"}},
		{Rank: "2", Question: "Which country paid feed-in tariffs?", Answer: "Denmark.", Quality: "0.610", Popularity: "1",
			Candidates: "1 candidate", Sentences: "1 sentence in the report",
			Sources: []string{"Wind subsidies in Denmark </documents/news/wind>"}},
		{Rank: "3", Question: "Is the union sound?", Answer: "Yes.", Quality: "0.500", Popularity: "1",
			Candidates: "1 candidate", Sentences: "1 sentence in the report",
			Sources: []string{"Address Before a Joint Session </documents/sotu/2021%20biden>"}},
		{Rank: "4", Question: "What endures?", Answer: "The union.", Quality: "0.450", Popularity: "2",
			Candidates: "2 candidates", Sentences: "left out: length limit, duplicate or removed by hand",
			Sources:     []string{"Address Before a Joint Session </documents/sotu/2021%20biden>"},
			Paraphrases: []string{"What lasts? — The union lasts. n4b", "n4x"}},
	}
	if diff := cmp.Diff(want, read(kept)); diff != "" {
		t.Errorf("kept nuggets (-want +got):\n%s", diff)
	}

	first := kept.First()
	var features []string
	for _, f := range []string{"task", "background", "role", "style", "scope", "vital", "researchy", "readability", "complexity", "evidence"} {
		features = append(features, f+"="+first.Find(`[data-testid="feature-`+f+`"]`).Text())
	}
	wantFeatures := []string{"task=0.90", "background=0.50", "role=0.25", "style=1.00", "scope=0.75", "vital=1.00",
		"researchy=0.00", "readability=0.62", "complexity=0.40", "evidence=0.55"}
	if diff := cmp.Diff(wantFeatures, features); diff != "" {
		t.Errorf("features of the first nugget (-want +got):\n%s", diff)
	}
	// The question's profile has a table of its own; a dimension the
	// answer did not give shows "–".
	var captions []string
	first.Find(`[data-testid="nugget-features"] caption`).Each(func(_ int, c *goquery.Selection) { captions = append(captions, c.Text()) })
	if diff := cmp.Diff([]string{"The nugget", "Its question"}, captions); diff != "" {
		t.Errorf("feature tables (-want +got):\n%s", diff)
	}
	features = nil
	for _, f := range []string{"ambiguous", "incomplete", "multifaceted", "harmful", "nonfactoid"} {
		features = append(features, f+"="+first.Find(`[data-testid="feature-`+f+`"]`).Text())
	}
	if diff := cmp.Diff([]string{"ambiguous=0.20", "incomplete=–", "multifaceted=0.60", "harmful=–", "nonfactoid=0.80"}, features); diff != "" {
		t.Errorf("question profile of the first nugget (-want +got):\n%s", diff)
	}
	if got := kept.Eq(1).Find(`[data-testid="feature-task"]`).Text(); got != "–" {
		t.Errorf("missing feature shown as %q, want –", got)
	}

	var unused []string
	byTestID(doc, "no-sentence-item").Each(func(_ int, li *goquery.Selection) {
		href, _ := li.Find("a").Attr("href")
		unused = append(unused, href+" "+strings.Join(strings.Fields(li.Text()), " "))
	})
	if diff := cmp.Diff([]string{"#nugget-n4 #4 What endures? — left out: length limit, duplicate or removed by hand (2 candidates)"}, unused); diff != "" {
		t.Errorf("nuggets without a sentence (-want +got):\n%s", diff)
	}
	if n := doc.Find("#" + views.NuggetAnchor("n4")).Length(); n != 1 {
		t.Errorf("%d elements with the anchor of n4, want 1", n)
	}

	below := byTestID(doc, "below-cut")
	if goquery.NodeName(below) != "details" {
		t.Fatalf("below-cut nuggets are not collapsed")
	}
	if _, open := below.Attr("open"); open {
		t.Errorf("below-cut nuggets start open")
	}
	var belowQ []string
	below.Find(`[data-testid="nugget"]`).Each(func(_ int, n *goquery.Selection) {
		belowQ = append(belowQ, n.Find(`[data-testid="nugget-question"]`).Text())
		if n.Find(`[data-testid="nugget-rank"]`).Length() != 0 {
			t.Errorf("below-cut nugget shows a rank")
		}
	})
	if diff := cmp.Diff([]string{"Below the cut, first?", "Below the cut, second?"}, belowQ); diff != "" {
		t.Errorf("below-cut nuggets (-want +got):\n%s", diff)
	}
	if got := textOf(doc, "ungrouped-item"); got != "An orphan? — Merged, but named by no group. n7" {
		t.Errorf("ungrouped merged nuggets = %q", got)
	}
	for id, want := range map[string]string{"bank-report-link": "/reports/9", "bank-job-link": "/jobs/5"} {
		if href, _ := byTestID(doc, id).Attr("href"); href != want {
			t.Errorf("%s = %q, want %q", id, href, want)
		}
	}
}

// TestNuggetBankOutcomes: in a verified report, the nugget bank tells a
// nugget whose checked candidates all failed verification ("no supported
// sentence") from one scanning found nothing for and from one whose
// usable sentence was left out.
func TestNuggetBankOutcomes(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Settings.Verify = true
	rep.Sentences = rep.Sentences[:1] // n1 only
	withReport(s, rep)
	s.jobs.nuggets[5] = []pipeline.Nugget{
		{ID: "n1", Question: "Answered?", Rank: 1, Popularity: 1},
		{ID: "n2", Question: "Nothing found?", Rank: 2, Popularity: 1},
		{ID: "n3", Question: "All failed?", Rank: 3, Popularity: 1},
		{ID: "n4", Question: "Left out?", Rank: 4, Popularity: 1},
	}
	yes, no := pipeline.VerdictYes, pipeline.VerdictNo
	s.jobs.candidates[5] = []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "The economy is growing.", Supported: yes, Covers: yes},
		{NuggetID: "n3", Sentence: "Fails support.", Supported: no, Covers: yes},
		{NuggetID: "n3", Sentence: "Fails coverage.", Supported: yes, Covers: no},
		{NuggetID: "n3", Sentence: "Never checked."},
		{NuggetID: "n4", Sentence: "Passed, but too long for the limit.", Supported: yes, Covers: yes},
	}
	doc := parseHTML(t, s.get(t, "/reports/9/nuggets"))
	var got []string
	byTestID(doc, "no-sentence-item").Each(func(_ int, li *goquery.Selection) {
		got = append(got, li.AttrOr("data-outcome", "")+": "+li.Find(`[data-testid="no-sentence-question"]`).Text()+
			" "+li.Find(`[data-testid="no-sentence-reason"]`).Text())
	})
	want := []string{
		"no_candidate: Nothing found? no candidate found",
		"no_supported: All failed? no supported sentence (2 of 3 candidates checked, 2 failed)",
		"left_out: Left out? left out: length limit, duplicate or removed by hand (1 candidate)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nuggets without a sentence (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1 sentence in the report", "no candidate found", "no supported sentence", "left out: length limit, duplicate or removed by hand"},
		texts(doc, "nugget-sentences")); diff != "" {
		t.Errorf("kept nuggets' sentences (-want +got):\n%s", diff)
	}
}

func TestNuggetBankEveryNuggetAnswered(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	s.jobs.nuggets[5] = []pipeline.Nugget{{ID: "n1", Question: "Q", Answer: "A", Rank: 1, Popularity: 1}}
	doc := parseHTML(t, s.get(t, "/reports/9/nuggets"))
	if byTestID(doc, "no-sentence-none").Length() != 1 || byTestID(doc, "no-sentence").Length() != 0 {
		t.Errorf("a bank whose nuggets all have sentences lists some without")
	}
	if byTestID(doc, "below-cut").Length() != 0 {
		t.Errorf("below-cut section shown without such nuggets")
	}
}

func TestNuggetBankStoreFailure(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	withNuggetBank(s)
	s.jobs.artefactErr = fmt.Errorf("select nuggets: %w", errSecret)
	rec := s.get(t, "/reports/9/nuggets")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
}

// rankerJobs is the fake job store that also keeps trained rankers.
type rankerJobs struct {
	*fakeJobStore
	models map[int64]pipeline.RankerModel
}

func (r rankerJobs) Ranker(_ context.Context, id int64) (pipeline.RankerModel, error) {
	m, ok := r.models[id]
	if !ok {
		return pipeline.RankerModel{}, fmt.Errorf("ranker %d: %w", id, pipeline.ErrNotFound)
	}
	return m, nil
}

// The nugget bank says how its nuggets were ranked: by the default
// weights, by a stored trained ranker (what it was trained on and how it
// cross-validated), or by one no longer stored.
func TestNuggetBankNamesItsRanker(t *testing.T) {
	model := pipeline.RankerModel{ID: 3, Engine: "offline engine", TrainedOn: "sotu-nuggets.jsonl (20 requests)",
		CV: &pipeline.RankerCV{BalancedAccuracy: 0.726}}
	withRankers := func(rd *reportDeps) {
		rd.jobs = rankerJobs{fakeJobStore: rd.jobs.(*fakeJobStore), models: map[int64]pipeline.RankerModel{3: model}}
	}
	for _, tc := range []struct {
		ranker int64
		want   string
	}{
		{0, "Ranked by the default weights of the quality features, fused with popularity."},
		{3, "Ranked by trained nugget ranker 3 of the offline engine, trained on sotu-nuggets.jsonl (20 requests) (leave-one-request-out balanced accuracy 0.726), fused with popularity."},
		{4, "Ranked by trained nugget ranker 4 (no longer stored), fused with popularity."},
	} {
		s := newReportServer(t, reportStore(), web.Config{}, withRankers)
		rep := sampleReport()
		rep.Settings.Ranker = tc.ranker
		withReport(s, rep)
		withNuggetBank(s)
		rec := s.get(t, "/reports/9/nuggets")
		wantStatus(t, rec, http.StatusOK)
		if got := textOf(parseHTML(t, rec), "bank-ranker"); got != tc.want {
			t.Errorf("ranker %d: %q, want %q", tc.ranker, got, tc.want)
		}
	}
}

// A report longer than its limit says so where its length is shown.
func TestReportPageWarnsOverTheLimit(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, views.ReportURL(9)))
	if byTestID(doc, "report-over-limit").Length() != 0 {
		t.Fatalf("a report within its limit warned: %q", textOf(doc, "report-over-limit"))
	}
	rep.Request.Limit = rep.Length() - 12
	withReport(s, rep)
	doc = parseHTML(t, s.get(t, views.ReportURL(9)))
	if got := textOf(doc, "report-over-limit"); !strings.Contains(got, "12 characters over its limit") || !strings.Contains(got, "before submitting it for review") {
		t.Errorf("over-limit warning %q", got)
	}
}
