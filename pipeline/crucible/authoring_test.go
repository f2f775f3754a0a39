package crucible

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// memVersions is an in-memory pipeline.VersionStore with the SQLite
// store's checks.
type memVersions struct {
	mu       sync.Mutex
	versions map[int64][]pipeline.Version
	reviews  map[int64]map[string]pipeline.Review
	status   map[int64]pipeline.StatusRecord
	moves    map[int64][]pipeline.StatusRecord // status changes, oldest first
}

func newMemVersions() *memVersions {
	return &memVersions{versions: map[int64][]pipeline.Version{}, reviews: map[int64]map[string]pipeline.Review{},
		status: map[int64]pipeline.StatusRecord{}, moves: map[int64][]pipeline.StatusRecord{}}
}

func (m *memVersions) CurrentVersion(_ context.Context, id int64) (pipeline.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := m.versions[id]
	if len(vs) == 0 {
		return pipeline.Version{}, pipeline.ErrNotFound
	}
	return vs[len(vs)-1], nil
}

func (m *memVersions) ReportVersion(_ context.Context, id int64, n int) (pipeline.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := m.versions[id]
	if n < 1 || n > len(vs) {
		return pipeline.Version{}, pipeline.ErrNotFound
	}
	return vs[n-1], nil
}

func (m *memVersions) ReportVersions(_ context.Context, id int64) ([]pipeline.VersionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []pipeline.VersionInfo
	for _, v := range slices.Backward(m.versions[id]) {
		out = append(out, v.VersionInfo)
	}
	return out, nil
}

func (m *memVersions) SaveVersion(_ context.Context, id int64, base int, info pipeline.VersionInfo, d pipeline.Draft) (pipeline.VersionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := m.versions[id]
	if len(vs) != base {
		return pipeline.VersionInfo{}, &pipeline.StaleVersionError{Base: base, Current: vs[len(vs)-1].VersionInfo}
	}
	if m.status[id].Status == pipeline.StatusApproved {
		return pipeline.VersionInfo{}, pipeline.Conflictf("approved")
	}
	info.Report, info.Number = id, base+1
	m.versions[id] = append(vs, pipeline.Version{VersionInfo: info, Draft: d.Clone()})
	return info, nil
}

func (m *memVersions) SaveReview(_ context.Context, r pipeline.Review) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reviews[r.Report] == nil {
		m.reviews[r.Report] = map[string]pipeline.Review{}
	}
	m.reviews[r.Report][r.Key] = r
	return nil
}

func (m *memVersions) Reviews(_ context.Context, id int64) (map[string]pipeline.Review, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reviews[id], nil
}

func (m *memVersions) Status(_ context.Context, id int64) (pipeline.StatusRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.status[id]
	if !ok {
		st.Status = pipeline.StatusDraft
	}
	return st, nil
}

func (m *memVersions) SetStatus(_ context.Context, id int64, base int, rec pipeline.StatusRecord) (pipeline.StatusRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.status[id]
	if !ok {
		cur.Status = pipeline.StatusDraft
	}
	if err := cur.Status.CheckMove(rec.Status); err != nil {
		return rec, err
	}
	rec.Version = base
	m.status[id] = rec
	m.moves[id] = append(m.moves[id], rec)
	return rec, nil
}

// memJobs is a pipeline.JobStore holding one job and its report.
type memJobs struct {
	pipeline.JobStore // unused methods panic
	job               pipeline.Job
	report            pipeline.Report
	retrieved         []pipeline.RetrievedDoc
	candidates        []pipeline.Candidate
}

func (j *memJobs) Job(_ context.Context, id int64) (pipeline.Job, error) {
	if id != j.job.ID {
		return pipeline.Job{}, pipeline.ErrNotFound
	}
	return j.job, nil
}
func (j *memJobs) Report(_ context.Context, id int64) (pipeline.Report, error) {
	if id != j.report.ID {
		return pipeline.Report{}, pipeline.ErrNotFound
	}
	return j.report, nil
}
func (j *memJobs) Retrieval(context.Context, int64) ([]pipeline.RetrievedDoc, error) {
	return j.retrieved, nil
}
func (j *memJobs) Candidates(context.Context, int64) ([]pipeline.Candidate, error) {
	return j.candidates, nil
}
func (j *memJobs) SaveCandidates(_ context.Context, _ int64, cs []pipeline.Candidate) error {
	j.candidates = cs
	return nil
}
func (j *memJobs) ReportJob(_ context.Context, id int64) (int64, error) {
	if id != j.report.ID {
		return 0, pipeline.ErrNotFound
	}
	return j.job.ID, nil
}

// newEditor generates the test report with the scripted model and
// returns an editor over it; the report's id is 1 and its job's 7.
func newEditor(t *testing.T, verify bool) (*Editor, *memJobs, *scripted) {
	t.Helper()
	c := testCorpus()
	m := &scripted{nuggets: testNuggets()}
	s := pipeline.DefaultSettings()
	s.Verify = verify
	s.TargetNuggets = 3
	rec := &recorder{}
	eng := newEngine(c, m)
	rep, err := eng.Generate(context.Background(), testRequest, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	rep.ID = 1
	jobs := &memJobs{job: pipeline.Job{ID: 7, Engine: "scripted", Settings: s}, report: rep,
		retrieved: rec.retrieved, candidates: rec.candidates}
	ed := &Editor{
		Versions: newMemVersions(), Jobs: jobs, ReportJobs: jobs, Documents: c,
		Engine: func(id string) (*Engine, error) {
			if id != "scripted" {
				t.Errorf("engine %q asked for, want the job's", id)
			}
			return eng, nil
		},
		Now: func() time.Time { return time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC) },
	}
	return ed, jobs, m
}

func sentenceTexts(d pipeline.Draft) []string {
	var out []string
	for _, s := range d.Sentences {
		out = append(out, s.Text)
	}
	return out
}

func TestEditorVersionsAndConflicts(t *testing.T) {
	ctx := context.Background()
	ed, jobs, _ := newEditor(t, false)
	v1, err := ed.Current(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Number != 1 || v1.Author != GeneratedAuthor || len(v1.Sentences) != len(jobs.report.Sentences) {
		t.Fatalf("first version = %+v with %d sentences", v1.VersionInfo, len(v1.Sentences))
	}
	if len(v1.Sentences) < 2 {
		t.Fatalf("the test report has %d sentences; the test needs 2", len(v1.Sentences))
	}
	// alan and grace both open version 1; alan saves first.
	info, err := ed.EditText(ctx, pipeline.Edit{Report: 1, Base: 1, Author: "alan"}, 0, "Congress passed a tariff.")
	if err != nil || info.Number != 2 || info.Change != "edited sentence 1" {
		t.Fatalf("edit: %+v %v", info, err)
	}
	_, err = ed.Delete(ctx, pipeline.Edit{Report: 1, Base: 1, Author: "grace"}, 1)
	var stale *pipeline.StaleVersionError
	if !errors.As(err, &stale) || stale.Current.Number != 2 || stale.Current.Author != "alan" {
		t.Fatalf("grace's stale delete: err %v, want a StaleVersionError naming version 2 by alan", err)
	}
	cur, _ := ed.Current(ctx, 1)
	if cur.Number != 2 || len(cur.Sentences) != len(v1.Sentences) || !cur.Sentences[0].Recheck {
		t.Errorf("after the refused delete: version %d with %d sentences", cur.Number, len(cur.Sentences))
	}

	// Restore version 1: a new version 3 with version 1's text.
	restored, err := ed.Restore(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "grace"}, 1)
	if err != nil || restored.Number != 3 || restored.RestoredFrom != 1 {
		t.Fatalf("restore: %+v %v", restored, err)
	}
	cur, _ = ed.Current(ctx, 1)
	if diff := cmp.Diff(sentenceTexts(v1.Draft), sentenceTexts(cur.Draft)); diff != "" {
		t.Errorf("restored text (-version 1 +current)\n%s", diff)
	}
	hist, _ := ed.History(ctx, 1)
	if len(hist) != 3 || hist[0].Number != 3 {
		t.Errorf("history = %+v", hist)
	}

	// Review, submit, approve; an approved report refuses edits.
	key := cur.Sentences[0].Key()
	if _, err := ed.Review(ctx, 1, 3, key, pipeline.ReviewPartly, " only the year ", "grace"); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.Review(ctx, 1, 3, "ffffffffffffffff", pipeline.ReviewSupported, "", "grace"); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("review of an unknown sentence: err %v, want ErrInvalid", err)
	}
	rv, _ := ed.Reviews(ctx, 1)
	if rv[key].Comment != "only the year" || rv[key].Verdict != pipeline.ReviewPartly {
		t.Errorf("stored review %+v", rv[key])
	}
	if _, err := ed.SetStatus(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "alan"}, pipeline.StatusInReview); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.SetStatus(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "grace"}, pipeline.StatusApproved); !errors.As(err, &stale) {
		t.Errorf("approve a stale version: err %v, want a StaleVersionError", err)
	}
	// One citation is partly supported, the others unreviewed: approving
	// needs a confirmation of those counts, and records them.
	open := pipeline.SummarizeReviews(cur.Sentences, rv).Open()
	if open.Partly != 1 || open.Unreviewed != len(cur.Sentences)-1 {
		t.Fatalf("open citations %+v", open)
	}
	var refused *pipeline.ApprovalError
	if _, err := ed.SetStatus(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "grace"}, pipeline.StatusApproved); !errors.As(err, &refused) || !errors.Is(err, pipeline.ErrInvalid) || refused.Open != open {
		t.Errorf("approve with open citations, unconfirmed: err %v, want an ApprovalError of %+v", err, open)
	}
	other := pipeline.OpenCitations{Unreviewed: 1}
	if _, err := ed.Approve(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "grace"}, pipeline.Approval{Confirm: true, Shown: &other}); !errors.As(err, &refused) || refused.Shown == nil {
		t.Errorf("approve confirming other counts: err %v, want an ApprovalError naming the counts shown", err)
	}
	if st, _ := ed.Status(ctx, 1); st.Status != pipeline.StatusInReview {
		t.Errorf("a refused approval changed the status to %s", st.Status)
	}
	st, err := ed.Approve(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "grace"}, pipeline.Approval{Confirm: true, Shown: &open})
	if err != nil {
		t.Fatal(err)
	}
	if st.Confirmed != open {
		t.Errorf("approval confirmed %+v, want %+v", st.Confirmed, open)
	}
	changes, _ := ed.StatusChanges(ctx, 1)
	if len(changes) != 2 || changes[0].Text() != "approved with "+open.String()+", confirmed by grace" {
		t.Errorf("status changes %+v", changes)
	}
	_, err = ed.Move(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "alan"}, 0, 1)
	if !errors.Is(err, pipeline.ErrConflict) || !strings.Contains(err.Error(), "approved (by grace)") {
		t.Errorf("edit an approved report: err %v, want a conflict naming the approval", err)
	}
}

func TestEditorSwapAndAdd(t *testing.T) {
	ctx := context.Background()
	ed, jobs, _ := newEditor(t, false)
	cur, _ := ed.Current(ctx, 1)
	// The McKinley nugget n1.1 has two candidates: swap in the one the
	// report does not use.
	i := slices.IndexFunc(cur.Sentences, func(s pipeline.DraftSentence) bool { return s.NuggetID == "n1.1" })
	if i < 0 {
		t.Fatalf("no sentence answers n1.1 in %+v", cur.Sentences)
	}
	mine := cur.Sentences[i]
	k := slices.IndexFunc(jobs.candidates, func(c pipeline.Candidate) bool {
		return c.NuggetID == mine.NuggetID && c.Sentence != mine.Text
	})
	if k < 0 {
		t.Fatalf("no alternative candidate for nugget %s in %+v", mine.NuggetID, jobs.candidates)
	}
	if _, err := ed.Swap(ctx, pipeline.Edit{Report: 1, Base: 1, Author: "alan"}, i, k); err != nil {
		t.Fatal(err)
	}
	cur, _ = ed.Current(ctx, 1)
	if got := cur.Sentences[i]; got.Text != jobs.candidates[k].Sentence || got.Citation != jobs.candidates[k].Citation || got.Recheck {
		t.Errorf("swapped sentence = %+v, want candidate %+v", got, jobs.candidates[k])
	}
	other := slices.IndexFunc(jobs.candidates, func(c pipeline.Candidate) bool { return c.NuggetID != mine.NuggetID })
	if _, err := ed.Swap(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "alan"}, i, other); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("swap in another nugget's candidate: err %v, want ErrInvalid", err)
	}
	if _, err := ed.Swap(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "alan"}, i, 999); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("swap in candidate 999: err %v, want ErrInvalid", err)
	}

	// Quote "Duties rose sharply." from passage 0 of d2, selected with
	// the space before it: the space is left out.
	d2 := "The tariff of 1890 was named for McKinley. Duties rose sharply."
	start := strings.Index(d2, " Duties")
	info, err := ed.AddQuote(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "alan"}, pipeline.Quote{DocID: "d2", Start: start, End: len(d2)})
	if err != nil {
		t.Fatal(err)
	}
	before := cur.Sentences[len(cur.Sentences)-1]
	cur, _ = ed.Current(ctx, 1)
	last := cur.Sentences[len(cur.Sentences)-1]
	// Without a nugget it goes at the end, under the facet of the
	// sentence before it.
	want := pipeline.Sentence{Text: "Duties rose sharply.", Confidence: 1,
		Citation: pipeline.Citation{DocID: "d2", Ordinal: 0, Start: start + 1, End: len(d2)}, Facet: before.Facet}
	if before.Facet == "" {
		t.Errorf("the report's sentences have no facet to inherit")
	}
	if diff := cmp.Diff(want, last.Sentence); diff != "" {
		t.Errorf("quoted sentence (-want +got)\n%s", diff)
	}
	if !strings.Contains(info.Change, "quoted from document d2") {
		t.Errorf("change %q", info.Change)
	}
	// A selection across two passages of d2 is refused.
	_, err = ed.AddQuote(ctx, pipeline.Edit{Report: 1, Base: 3, Author: "alan"}, pipeline.Quote{DocID: "d2", Start: start, End: len(d2) + 10})
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), "within one passage") {
		t.Errorf("cross-passage quote: err %v", err)
	}
}

func TestEditorVerify(t *testing.T) {
	ctx := context.Background()
	ed, _, m := newEditor(t, false)
	if _, err := ed.EditText(ctx, pipeline.Edit{Report: 1, Base: 1, Author: "alan"}, 0, "Congress passed the McKinley Tariff in 1890, friends."); err != nil {
		t.Fatal(err)
	}
	m.refuse = "friends"
	before := m.calls["verify_support"] + m.calls["verify_coverage"]
	info, err := ed.Verify(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "alan"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := ed.Current(ctx, 1)
	s := cur.Sentences[0]
	if s.Recheck || s.Supported != pipeline.VerdictNo || s.Covers != pipeline.VerdictYes {
		t.Errorf("verified sentence = %+v, want support no, covers yes, no re-check mark", s)
	}
	if info.Change != "re-verified sentence 1 (support no, covers the nugget yes)" {
		t.Errorf("change %q", info.Change)
	}
	var calls int
	for task, n := range m.calls {
		if strings.HasPrefix(string(task), "verify") {
			calls += n
		}
	}
	if calls-before != 2 {
		t.Errorf("verification made %d model calls, want 2 (support and coverage)", calls-before)
	}
}

func TestRegenerateOnlyChangedNuggets(t *testing.T) {
	ctx := context.Background()
	ed, jobs, m := newEditor(t, true)
	v1, _ := ed.Current(ctx, 1)
	if len(v1.Nuggets) < 2 {
		t.Fatalf("the test report has %d nuggets; the test needs 2", len(v1.Nuggets))
	}
	// Edit the McKinley nugget n1.1 to ask about the duties, and add one
	// about what followed the tariff debates.
	edited, _, ok := v1.Nugget("n1.1")
	if !ok {
		t.Fatalf("no nugget n1.1 in the bank %+v", v1.Nuggets)
	}
	e := pipeline.Edit{Report: 1, Base: 1, Author: "alan"}
	if _, err := ed.EditNugget(ctx, e, edited.ID, "What happened to duties?", "Duties rose"); err != nil {
		t.Fatal(err)
	}
	e.Base++
	if _, err := ed.AddNugget(ctx, e, "What followed the tariff debates?", "Peace followed"); err != nil {
		t.Fatal(err)
	}
	e.Base++
	kept := map[string]bool{}
	var keptBefore []string
	for _, s := range v1.Sentences {
		if s.NuggetID != edited.ID {
			kept[s.Key()] = true
			keptBefore = append(keptBefore, s.Key())
		}
	}
	if len(keptBefore) == 0 || len(keptBefore) == len(v1.Sentences) {
		t.Fatalf("the test needs sentences of n1.1 and of other nuggets: %+v", v1.Sentences)
	}
	extractsBefore := m.calls["extract"]
	info, err := ed.Regenerate(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if m.calls["extract"] == extractsBefore {
		t.Error("regeneration made no extraction call")
	}
	cur, _ := ed.Current(ctx, 1)
	for _, n := range cur.Nuggets {
		if n.Changed {
			t.Errorf("nugget %s is still marked changed", n.ID)
		}
	}
	// Every sentence of an unchanged nugget is kept, as it was, in order.
	var keptAfter []string
	byNugget := map[string][]string{}
	for _, s := range cur.Sentences {
		byNugget[s.NuggetID] = append(byNugget[s.NuggetID], s.Text)
		if kept[s.Key()] {
			keptAfter = append(keptAfter, s.Key())
		} else if s.NuggetID != edited.ID && s.NuggetID != "a1" {
			t.Errorf("sentence %q of unchanged nugget %s is new", s.Text, s.NuggetID)
		}
	}
	if diff := cmp.Diff(keptBefore, keptAfter); diff != "" {
		t.Errorf("kept sentences (-before +after)\n%s", diff)
	}
	// The changed nuggets got sentences from the passages that answer them.
	if diff := cmp.Diff([]string{"Duties rose sharply."}, byNugget[edited.ID]); diff != "" {
		t.Errorf("edited nugget's sentences (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Peace followed the tariff debates."}, byNugget["a1"]); diff != "" {
		t.Errorf("added nugget's sentences (-want +got)\n%s", diff)
	}
	// One old sentence of n1.1 dropped, two new ones added.
	if want := "regenerated 2 changed nuggets: 2 sentences added; 1 sentence dropped"; info.Change != want {
		t.Errorf("change %q, want %q", info.Change, want)
	}
	// The job's candidates now hold the new nuggets' candidates, and no
	// stale one of the edited nugget.
	var forA1 int
	for _, c := range jobs.candidates {
		switch {
		case c.NuggetID == "a1":
			forA1++
		case c.NuggetID == edited.ID && !strings.Contains(c.Sentence, "Duties"):
			t.Errorf("stale candidate %q of the edited nugget kept", c.Sentence)
		}
	}
	if forA1 == 0 {
		t.Error("the added nugget's candidates were not stored")
	}

	// Nothing changed any more: regenerating again is refused.
	if _, err := ed.Regenerate(ctx, pipeline.Edit{Report: 1, Base: e.Base + 1, Author: "alan"}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("regenerate with nothing changed: err %v, want ErrInvalid", err)
	}
}

func TestRegenerateDropsRemovedNuggets(t *testing.T) {
	ctx := context.Background()
	ed, _, m := newEditor(t, false)
	v1, _ := ed.Current(ctx, 1)
	gone := v1.Sentences[0].NuggetID
	if _, err := ed.RemoveNugget(ctx, pipeline.Edit{Report: 1, Base: 1, Author: "alan"}, gone); err != nil {
		t.Fatal(err)
	}
	calls := m.calls["extract"]
	info, err := ed.Regenerate(ctx, pipeline.Edit{Report: 1, Base: 2, Author: "alan"})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls["extract"] != calls {
		t.Errorf("regeneration without changed nuggets made %d extraction calls", m.calls["extract"]-calls)
	}
	cur, _ := ed.Current(ctx, 1)
	for _, s := range cur.Sentences {
		if s.NuggetID == gone {
			t.Errorf("sentence %q of the removed nugget is still there", s.Text)
		}
	}
	if len(cur.Sentences) != len(v1.Sentences)-1 || info.Change != "1 sentence dropped" {
		t.Errorf("%d sentences after regeneration (was %d), change %q", len(cur.Sentences), len(v1.Sentences), info.Change)
	}
}

func TestTrimSpan(t *testing.T) {
	text := "  héllo world \n"
	tests := []struct {
		name       string
		start, end int
		want       string
		wantErr    string
	}{
		{name: "trims", start: 0, end: len(text), want: "héllo world"},
		{name: "inside", start: 2, end: 8, want: "héllo"},
		{name: "cuts a character", start: 4, end: 8, wantErr: "cut through a character"},
		{name: "blank", start: 0, end: 2, wantErr: "only white space"},
		{name: "outside", start: 3, end: 99, wantErr: "not a span of the document"},
		{name: "empty", start: 5, end: 5, wantErr: "not a span of the document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e, err := trimSpan(text, tt.start, tt.end)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || text[s:e] != tt.want {
				t.Errorf("trimSpan = %q (%v), want %q", text[s:e], err, tt.want)
			}
		})
	}
}

func (m *memVersions) StatusChanges(_ context.Context, id int64) ([]pipeline.StatusRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.moves[id])
	slices.Reverse(out)
	return out, nil
}

// The history names a nugget that got no sentence by its question, not
// by its internal id.
func TestRegenerateChangeNamesQuestions(t *testing.T) {
	bank := []pipeline.Nugget{
		{ID: "a1", Question: "How large was the Treasury surplus Cleveland reported in 1887, and what did he ask Congress to do with it?"},
		{ID: "a2", Question: "Who signed?"},
	}
	got := regenerateChange(2, RegenerateResult{Added: 1, Unanswered: []string{"a1", "gone"}}, bank)
	want := "regenerated 2 changed nuggets: 1 sentence added; no sentence found for " +
		"“How large was the Treasury surplus Cleveland reported in 1887, and what did he…”, a removed nugget"
	if got != want {
		t.Errorf("change\n got %q\nwant %q", got, want)
	}
	if strings.Contains(got, "a1") {
		t.Errorf("the history shows an internal id: %q", got)
	}
}

// A report over its length limit cannot be submitted for review; once it
// is shortened it can.
func TestSubmitForReviewRefusesAReportOverItsLimit(t *testing.T) {
	ctx := context.Background()
	ed, jobs, _ := newEditor(t, false)
	v1, err := ed.Current(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	jobs.report.Request.Limit = v1.Draft.Apply(jobs.report).Length() + 5
	long := strings.Repeat("A long sentence added by hand. ", 3)
	info, err := ed.EditText(ctx, pipeline.Edit{Report: 1, Base: v1.Number, Author: "ada"}, 0, long)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ed.SetStatus(ctx, pipeline.Edit{Report: 1, Base: info.Number, Author: "ada"}, pipeline.StatusInReview)
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), "over its limit of") {
		t.Fatalf("submit over the limit: %v, want a refusal naming the limit", err)
	}
	if st, _ := ed.Status(ctx, 1); st.Status != pipeline.StatusDraft {
		t.Errorf("a refused submission moved the report to %s", st.Status)
	}
	info, err = ed.Delete(ctx, pipeline.Edit{Report: 1, Base: info.Number, Author: "ada"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.SetStatus(ctx, pipeline.Edit{Report: 1, Base: info.Number, Author: "ada"}, pipeline.StatusInReview); err != nil {
		t.Errorf("submit within the limit: %v", err)
	}
}
