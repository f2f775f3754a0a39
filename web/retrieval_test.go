package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/web"
)

// rerankingJobs adds the rerank records of pipeline.RerankStore to the
// fake job store.
type rerankingJobs struct {
	*fakeJobStore
	recs map[int64]pipeline.RerankRecord
}

func (r *rerankingJobs) Rerank(_ context.Context, jobID int64) (pipeline.RerankRecord, error) {
	rec, ok := r.recs[jobID]
	if !ok {
		return rec, fmt.Errorf("job %d: %w", jobID, pipeline.ErrNotFound)
	}
	return rec, nil
}

// rerankingService offers rerankers beside the fake report service.
type rerankingService struct{ *fakeReportService }

func (rerankingService) RerankMethods() []string {
	return []string{rerank.MethodLANCER, rerank.MethodPureCover}
}

func retrievalServer(t *testing.T, recs map[int64]pipeline.RerankRecord) *reportServer {
	t.Helper()
	var s *reportServer
	s = newReportServer(t, reportStore(), web.Config{}, func(rd *reportDeps) {
		rd.jobs = &rerankingJobs{fakeJobStore: rd.jobs.(*fakeJobStore), recs: recs}
		rd.service = func(f *fakeReportService) pipeline.ReportService { return rerankingService{f} }
	})
	withReport(s, sampleReport())
	return s
}

func TestRetrievalViewWithoutReranker(t *testing.T) {
	s := retrievalServer(t, nil)
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{
		{Rank: 1, DocID: sotu, Title: "Address 1901", Score: 12.5},
		{Rank: 2, DocID: "news/wind", Title: "", Score: 7},
	}
	rec := s.get(t, "/reports/9/retrieval")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	if !strings.Contains(textOf(doc, "retrieval-no-rerank"), "without a reranker") {
		t.Errorf("no notice that the report was not reranked")
	}
	if diff := cmp.Diff([]string{"Address 1901", "news/wind"}, texts(doc, "retrieval-doc")); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if n := byTestID(doc, "retrieval-trace").Length(); n != 0 {
		t.Errorf("a trace section without a reranker")
	}
	wantStatus(t, s.get(t, "/reports/77/retrieval"), http.StatusNotFound)
}

func TestRetrievalViewLANCER(t *testing.T) {
	trace, _ := json.Marshal(rerank.LANCERTrace{
		Aggregation: "sum:tau=1", Depth: 3, Questions: []string{"What did it cost?", "Who built it <b>?"},
		Rows: []rerank.LANCERRow{
			{DocID: "a", Title: "Doc A", FirstStageRank: 1, Rank: 3, Ratings: []int{1, 0}, Score: 1},
			{DocID: "b", Title: "Doc B", FirstStageRank: 2, Rank: 1, Ratings: []int{5, 4}, Score: 9},
			{DocID: "c", Title: "Doc C", FirstStageRank: 3, Rank: 2, Ratings: []int{0, 5}, Score: 5},
		},
		Notes: []string{"one rating was unreadable and counted 0"},
	})
	rec := pipeline.RerankRecord{
		Method: rerank.MethodLANCER,
		FirstStage: []pipeline.RetrievedDoc{
			{Rank: 1, DocID: "a", Title: "Doc A", Score: 9}, {Rank: 2, DocID: "b", Title: "Doc B", Score: 8}, {Rank: 3, DocID: "c", Title: "<script>alert(1)</script>", Score: 7},
		},
		Order: []string{"b", "c", "a"}, Trace: trace, Usage: pipeline.Usage{Calls: 8, CacheHits: 2},
	}
	s := retrievalServer(t, map[int64]pipeline.RerankRecord{5: rec})
	resp := s.get(t, "/reports/9/retrieval")
	wantStatus(t, resp, http.StatusOK)
	if strings.Contains(resp.Body.String(), "<script>alert(1)") || strings.Contains(resp.Body.String(), "<b>?") {
		t.Fatal("document title or sub-question rendered as markup")
	}
	doc := parseHTML(t, resp)
	if got := textOf(doc, "retrieval-method"); !strings.HasPrefix(got, "LANCER") {
		t.Errorf("method = %q", got)
	}
	if diff := cmp.Diff([]string{"3", "1", "2"}, texts(doc, "retrieval-reranked")); diff != "" {
		t.Errorf("reranked ranks in first-stage order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"↓2", "↑1", "↑1"}, texts(doc, "retrieval-change")); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	grid := byTestID(doc, "trace-table").First()
	var head []string
	grid.Find("th").Each(func(_ int, th *goquery.Selection) { head = append(head, strings.TrimSpace(th.Text())) })
	if diff := cmp.Diff([]string{"Document", "First stage", "Reranked", "Q1: What did it cost?", "Q2: Who built it <b>?", "Score"}, head); diff != "" {
		t.Errorf("grid columns (-want +got):\n%s", diff)
	}
	var second []string
	grid.Find("tbody tr").Eq(1).Find("td").Each(func(_ int, td *goquery.Selection) { second = append(second, td.Text()) })
	if diff := cmp.Diff([]string{"Doc B", "2", "1", "5", "4", "9.00"}, second); diff != "" {
		t.Errorf("grid row of Doc B (-want +got):\n%s", diff)
	}
	if !strings.Contains(textOf(doc, "trace-notes"), "unreadable") {
		t.Errorf("notes missing: %q", textOf(doc, "trace-notes"))
	}
}

func TestRetrievalViewPureCoverMarksTheChosenSet(t *testing.T) {
	trace, _ := json.Marshal(rerank.PureCoverTrace{
		K: 2, Lambda: 0.3, Temperature: 0.25,
		Requirements: []rerank.PureCoverRequirement{{Text: "cost", Weight: 3, P: 0.75}, {Text: "builder", Weight: 1, P: 0.25}},
		Rows: []rerank.PureCoverRow{
			{DocID: "a", FirstStageRank: 1, Rank: 2, Support: []float64{0.1, 0.9}, Noise: 0.2, Selected: true},
			{DocID: "b", FirstStageRank: 2, Rank: 1, Support: []float64{0.9, 0.1}, Noise: 0.1, Selected: true},
			{DocID: "c", FirstStageRank: 3, Rank: 3, Support: []float64{0, 0}, Noise: 1},
		},
		Steps: []rerank.PureCoverStep{{DocID: "b", Gain: 0.6, Coverage: 0.7, Noise: 0.1, Objective: 0.67}, {DocID: "a", Gain: 0.2, Coverage: 0.95, Noise: 0.3, Objective: 0.86}},
	})
	rec := pipeline.RerankRecord{
		Method:     rerank.MethodPureCover,
		FirstStage: []pipeline.RetrievedDoc{{Rank: 1, DocID: "a", Title: "A"}, {Rank: 2, DocID: "b", Title: "B"}, {Rank: 3, DocID: "c", Title: "C"}},
		Order:      []string{"b", "a", "c"}, Selected: 2, Trace: trace,
	}
	s := retrievalServer(t, map[int64]pipeline.RerankRecord{5: rec})
	resp := s.get(t, "/reports/9/retrieval")
	wantStatus(t, resp, http.StatusOK)
	doc := parseHTML(t, resp)
	if n := byTestID(doc, "retrieval-chosen").Length(); n != 2 {
		t.Errorf("%d documents marked chosen, want 2", n)
	}
	if !strings.Contains(textOf(doc, "retrieval-summary"), "set of 2 documents") {
		t.Errorf("summary %q", textOf(doc, "retrieval-summary"))
	}
	if !strings.Contains(textOf(doc, "retrieval-trace"), "Objective by step") || !strings.Contains(textOf(doc, "retrieval-trace"), "0.860") {
		t.Errorf("objective steps missing: %q", textOf(doc, "retrieval-trace"))
	}
}

func TestNewReportFormOffersRerankers(t *testing.T) {
	s := retrievalServer(t, nil)
	doc := parseHTML(t, s.get(t, "/reports/new"))
	var options []string
	byTestID(doc, "field-reranker").Find("option").Each(func(_ int, o *goquery.Selection) { options = append(options, o.AttrOr("value", "")) })
	if diff := cmp.Diff([]string{"", "lancer", "purecover"}, options); diff != "" {
		t.Errorf("reranker options (-want +got):\n%s", diff)
	}
	// Both fell short of BM25 on a gold set with the offline engine
	// (rerank.OfflineGain), and the form says so.
	if diff := cmp.Diff([]string{"LANCER (sub-question coverage) — no gain measured offline", "PureCover (coverage minus noise) — no gain measured offline"}, texts(doc, "reranker-option")); diff != "" {
		t.Errorf("reranker labels (-want +got):\n%s", diff)
	}
	form := url.Values{"title": {"Canal"}, "problem_statement": {"How was the canal paid for?"}, "limit": {"1500"}, "reranker": {"purecover"}}
	wantStatus(t, s.postForm(t, "/reports", form), http.StatusSeeOther)
	subs := s.svc.submissions()
	if len(subs) != 1 || subs[0].Settings.Reranker != "purecover" {
		t.Fatalf("submitted %+v", subs)
	}
	form.Set("reranker", "Bad Name!")
	resp := s.postForm(t, "/reports", form)
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	if !strings.Contains(resp.Body.String(), "is not a method name") {
		t.Errorf("no reranker field error in:\n%s", resp.Body.String())
	}
}

func TestRetrievalViewNamesTheRequestsPeriod(t *testing.T) {
	s := retrievalServer(t, nil)
	rep := sampleReport()
	rep.Request.ProblemStatement = "How did the economy fare from 1929 to 1939, and in the 1970s?"
	withReport(s, rep)
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{{Rank: 1, DocID: sotu, Title: "Address 1901", Score: 12.5}}
	doc := parseHTML(t, s.get(t, "/reports/9/retrieval"))
	note := textOf(doc, "retrieval-period")
	for _, want := range []string{"1929–1939", "1970–1979", "tripled"} {
		if !strings.Contains(note, want) {
			t.Errorf("period note %q lacks %q", note, want)
		}
	}

	// A range of the collection's authors names a period too.
	s = retrievalServer(t, nil)
	s.store.authors = map[string]pipeline.Period{"John F Kennedy": {From: 1961, To: 1963}, "Barack Obama": {From: 2009, To: 2016}}
	rep = sampleReport()
	rep.Request.Title = "Protecting the consumer from Kennedy to Obama"
	withReport(s, rep)
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{{Rank: 1, DocID: sotu, Title: "Address 1901", Score: 12.5}}
	if note := textOf(parseHTML(t, s.get(t, "/reports/9/retrieval")), "retrieval-period"); !strings.Contains(note, "1961–2016") {
		t.Errorf("period note %q lacks the authors' 1961–2016", note)
	}

	// The authors cannot be read: the page says what failed.
	s.store.err = errors.New("disk gone")
	resp := s.get(t, "/reports/9/retrieval")
	wantStatus(t, resp, http.StatusInternalServerError)
	if s.log.Len() == 0 || !strings.Contains(s.log.String(), "collection's authors") {
		t.Errorf("log lacks the authors error:\n%s", s.log.String())
	}

	// The sample request names no period: no note.
	s = retrievalServer(t, nil)
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{{Rank: 1, DocID: sotu, Title: "Address 1901", Score: 12.5}}
	if n := byTestID(parseHTML(t, s.get(t, "/reports/9/retrieval")), "retrieval-period").Length(); n != 0 {
		t.Errorf("%d period notes for a request without a period", n)
	}
}
