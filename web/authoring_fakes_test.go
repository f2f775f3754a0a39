package web_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// fakeVersions is an in-memory pipeline.VersionStore with the checks of
// the SQLite store (stale base, approved report, status moves), counting
// the changes it accepts.
type fakeVersions struct {
	mu       sync.Mutex
	versions map[int64][]pipeline.Version
	reviews  map[int64]map[string]pipeline.Review
	status   map[int64]pipeline.StatusRecord
	moves    map[int64][]pipeline.StatusRecord // status changes, oldest first
	changes  int
}

func newFakeVersions() *fakeVersions {
	return &fakeVersions{versions: map[int64][]pipeline.Version{}, reviews: map[int64]map[string]pipeline.Review{},
		status: map[int64]pipeline.StatusRecord{}, moves: map[int64][]pipeline.StatusRecord{}}
}

// changed counts the versions, reviews and statuses stored after seeding.
func (f *fakeVersions) changed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changes
}

func (f *fakeVersions) CurrentVersion(_ context.Context, id int64) (pipeline.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs := f.versions[id]
	if len(vs) == 0 {
		return pipeline.Version{}, fmt.Errorf("report %d has no version: %w", id, pipeline.ErrNotFound)
	}
	return vs[len(vs)-1], nil
}

func (f *fakeVersions) ReportVersion(_ context.Context, id int64, n int) (pipeline.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs := f.versions[id]
	if n < 1 || n > len(vs) {
		return pipeline.Version{}, fmt.Errorf("version %d: %w", n, pipeline.ErrNotFound)
	}
	return vs[n-1], nil
}

func (f *fakeVersions) ReportVersions(_ context.Context, id int64) ([]pipeline.VersionInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []pipeline.VersionInfo
	for _, v := range slices.Backward(f.versions[id]) {
		out = append(out, v.VersionInfo)
	}
	return out, nil
}

func (f *fakeVersions) SaveVersion(_ context.Context, id int64, base int, info pipeline.VersionInfo, d pipeline.Draft) (pipeline.VersionInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs := f.versions[id]
	if len(vs) != base {
		return pipeline.VersionInfo{}, &pipeline.StaleVersionError{Base: base, Current: vs[len(vs)-1].VersionInfo}
	}
	if st := f.status[id]; st.Status == pipeline.StatusApproved {
		return pipeline.VersionInfo{}, pipeline.Conflictf("report %d is approved (by %s): reopen it as a draft to change it", id, st.By)
	}
	info.Report, info.Number = id, base+1
	f.versions[id] = append(vs, pipeline.Version{VersionInfo: info, Draft: d.Clone()})
	if base > 0 {
		f.changes++
	}
	return info, nil
}

func (f *fakeVersions) SaveReview(_ context.Context, r pipeline.Review) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reviews[r.Report] == nil {
		f.reviews[r.Report] = map[string]pipeline.Review{}
	}
	f.reviews[r.Report][r.Key] = r
	f.changes++
	return nil
}

func (f *fakeVersions) Reviews(_ context.Context, id int64) (map[string]pipeline.Review, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]pipeline.Review{}
	for k, r := range f.reviews[id] {
		out[k] = r
	}
	return out, nil
}

func (f *fakeVersions) Status(_ context.Context, id int64) (pipeline.StatusRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.status[id]
	if !ok {
		st.Status = pipeline.StatusDraft
	}
	return st, nil
}

func (f *fakeVersions) SetStatus(_ context.Context, id int64, base int, rec pipeline.StatusRecord) (pipeline.StatusRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if vs := f.versions[id]; len(vs) != base {
		return rec, &pipeline.StaleVersionError{Base: base, Current: vs[len(vs)-1].VersionInfo}
	}
	cur, ok := f.status[id]
	if !ok {
		cur.Status = pipeline.StatusDraft
	}
	if err := cur.Status.CheckMove(rec.Status); err != nil {
		return rec, err
	}
	rec.Version = base
	f.status[id] = rec
	f.moves[id] = append(f.moves[id], rec)
	f.changes++
	return rec, nil
}

// authoringJobs is the fake job store with SaveCandidates working, as
// regeneration needs.
type authoringJobs struct{ *fakeJobStore }

func (j authoringJobs) SaveCandidates(_ context.Context, jobID int64, cs []pipeline.Candidate) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.candidates[jobID] = cs
	return nil
}

// checkModel answers the model tasks authoring uses, as a careful model
// would: extraction quotes the passage's sentence holding the answer,
// support is "no" for sentences containing "unsupported", coverage "yes".
type checkModel struct {
	mu    sync.Mutex
	calls int
}

func (m *checkModel) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	var text string
	switch in := req.Input.(type) {
	case prompts.ExtractInput:
		out := prompts.ExtractOutput{}
		for _, s := range strings.SplitAfter(in.PassageText, ". ") {
			if strings.Contains(s, in.Nugget.Answer) {
				s = strings.TrimSpace(s)
				out = prompts.ExtractOutput{Found: true, Support: s, Sentence: s, Confidence: 0.8}
				break
			}
		}
		text = prompts.FormatExtract(out)
	case prompts.VerifySupportInput:
		text = prompts.FormatVerifySupport(prompts.VerifySupportOutput{Yes: !strings.Contains(in.Sentence, "unsupported")})
	case prompts.VerifyCoverageInput:
		text = prompts.FormatVerifyCoverage(prompts.VerifyCoverageOutput{Yes: true})
	default:
		return pipeline.ModelResponse{}, fmt.Errorf("%w: checkModel got %T", pipeline.ErrModel, req.Input)
	}
	return pipeline.ModelResponse{Text: text, Model: "check"}, nil
}

func (m *checkModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// lowerWords is the test engine's analyzer: lower-cased words.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
}

// Authoring fixtures: report 12 (evalReport, a draft) and report 13 (the
// same text, in review) were made by job 6, whose candidates are
// authoringCandidates and whose retrieval is document d1.
const (
	authoringJob     = 6
	reviewedReportID = 13
)

// authoringNuggets are the nuggets of evalReport's sentences.
func authoringNuggets() []pipeline.Nugget {
	return []pipeline.Nugget{
		{ID: "a", Question: "How high did the steel tariff rise?", Answer: "25 percent", Rank: 1, Popularity: 1},
		{ID: "b", Question: "Who answered with duties?", Answer: "Canada", Rank: 2, Popularity: 1},
		{ID: "c", Question: "What happened to steel prices?", Answer: "fell", Rank: 3, Popularity: 1},
		{ID: "d", Question: "Who signed an agreement?", Answer: "Mexico", Rank: 4, Popularity: 1},
	}
}

// authoringCandidates: 0 is another sentence for nugget a, 1 one for
// nugget b, 2 is sentence 1 of the report as it stands.
func authoringCandidates() []pipeline.Candidate {
	return []pipeline.Candidate{
		{NuggetID: "a", Sentence: "Steel tariffs reached 25 percent.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 44}, Confidence: 0.7},
		{NuggetID: "b", Sentence: "Canada put duties on whiskey.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 1, Start: 45, End: 84}, Confidence: 0.6},
		{NuggetID: "a", Sentence: "Tariffs on steel rose to 25 percent in 2018.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 44}, Confidence: 0.9},
	}
}

// newTestAuthoring stores the authoring fixtures in jobs and returns the
// editor the portal's authoring runs on, its version store (report 13
// already in review) and its model.
func newTestAuthoring(t *testing.T, jobs *fakeJobStore, docs pipeline.DocumentStore) (*crucible.Editor, *fakeVersions, *checkModel) {
	t.Helper()
	rep := evalReport()
	rep.Nuggets = authoringNuggets()
	reviewed := rep
	reviewed.ID = reviewedReportID
	done := sampleJob(authoringJob, pipeline.JobDone)
	done.ReportID = rep.ID
	jobs.put(done)
	jobs.mu.Lock()
	jobs.reports[rep.ID] = rep
	jobs.reports[reviewed.ID] = reviewed
	jobs.reportJobs[rep.ID] = authoringJob
	jobs.reportJobs[reviewed.ID] = authoringJob
	jobs.candidates[authoringJob] = authoringCandidates()
	jobs.nuggets[authoringJob] = authoringNuggets()
	jobs.retrieval[authoringJob] = []pipeline.RetrievedDoc{{Rank: 1, DocID: "d1", Title: "Steel tariffs"}}
	jobs.mu.Unlock()

	versions := newFakeVersions()
	model := &checkModel{}
	eng := &crucible.Engine{Store: docs, Model: model, Terms: lowerWords,
		SentenceKey: func(s string) string { return strings.Join(lowerWords(s), " ") }, Name: "offline engine"}
	ed := &crucible.Editor{
		Versions: versions, Jobs: authoringJobs{jobs}, ReportJobs: jobs, Documents: docs,
		Engine: func(string) (*crucible.Engine, error) { return eng, nil },
		Now:    func() time.Time { return testNow },
	}
	ctx := context.Background()
	if _, err := ed.Current(ctx, reviewed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := versions.SetStatus(ctx, reviewed.ID, 1, pipeline.StatusRecord{Status: pipeline.StatusInReview, By: "alan", At: testNow}); err != nil {
		t.Fatal(err)
	}
	versions.mu.Lock()
	versions.changes = 0
	versions.mu.Unlock()
	return ed, versions, model
}

func (f *fakeVersions) StatusChanges(_ context.Context, id int64) ([]pipeline.StatusRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.moves[id])
	slices.Reverse(out)
	return out, nil
}
