package crucible

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// judge wraps a model: extraction confidences are read from the
// sentence ("Account 7 ..." gives 0.7), and the verification checks say
// no to the sentences refuse names and yes to the others.
type judge struct {
	next   pipeline.Model
	refuse func(sentence string) bool

	mu      sync.Mutex
	checked []string // sentences the support check was asked about
}

func (j *judge) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	switch in := req.Input.(type) {
	case prompts.VerifySupportInput:
		j.mu.Lock()
		j.checked = append(j.checked, in.Sentence)
		j.mu.Unlock()
		return pipeline.ModelResponse{Text: prompts.FormatVerifySupport(prompts.VerifySupportOutput{Yes: !j.refuse(in.Sentence)})}, nil
	case prompts.VerifyCoverageInput:
		return pipeline.ModelResponse{Text: prompts.FormatVerifyCoverage(prompts.VerifyCoverageOutput{Yes: !j.refuse(in.Sentence)})}, nil
	}
	resp, err := j.next.Complete(ctx, req)
	if err != nil || req.Task != prompts.TaskExtract {
		return resp, err
	}
	out, err := prompts.ParseExtract(resp.Text)
	if err != nil || !out.Found {
		return resp, nil
	}
	if _, rest, ok := strings.Cut(out.Sentence, "Account "); ok && rest != "" && rest[0] >= '1' && rest[0] <= '9' {
		out.Confidence = float64(rest[0]-'0') / 10
	}
	resp.Text = prompts.FormatExtract(out)
	return resp, nil
}

// ghentCorpus holds six accounts of the Treaty of Ghent, each its own
// document and each with its own confidence, and one of Madison's
// signature.
func ghentCorpus() (*memCorpus, map[string][]prompts.QA) {
	c := newCorpus(
		[]string{"Account 9 says the Treaty of Ghent was signed in 1814."},
		[]string{"Account 8 says the Treaty of Ghent was signed in 1814 at Christmas."},
		[]string{"Account 7 says the Treaty of Ghent was signed in 1814 in Flanders."},
		[]string{"Account 6 says the Treaty of Ghent was signed in 1814 by envoys."},
		[]string{"Account 5 says the Treaty of Ghent was signed in 1814 after talks."},
		[]string{"Account 4 says the Treaty of Ghent was signed in 1814 at last."},
		[]string{"Madison ratified the Treaty of Ghent in February."},
	)
	return c, map[string][]prompts.QA{
		"d1": {{Question: "When was the Treaty of Ghent signed?", Answer: "1814"}},
		"d7": {{Question: "Who ratified the Treaty of Ghent?", Answer: "Madison"}},
	}
}

var ghentRequest = pipeline.Request{ID: "g1", Title: "The Treaty of Ghent", ProblemStatement: "When was the Treaty of Ghent signed and who ratified it?", Limit: 1000}

func ghentSettings(verify bool) pipeline.Settings {
	s := pipeline.DefaultSettings()
	s.Verify = verify
	s.ScanCandidates = 10 // scan every account
	return s
}

// accounts lists the accounts the sentences were drawn from ("9", "7").
func accounts(ss []string) []string {
	var out []string
	for _, s := range ss {
		if _, rest, ok := strings.Cut(s, "Account "); ok {
			out = append(out, rest[:1])
		}
	}
	return out
}

func reportTexts(r pipeline.Report) []string {
	var out []string
	for _, s := range r.Sentences {
		out = append(out, s.Text)
	}
	return out
}

// TestVerifyWidensWhenTheBestFail: the two most confident accounts fail
// verification, so a third is checked, passes and is the report's
// sentence; no account after it is checked.
func TestVerifyWidensWhenTheBestFail(t *testing.T) {
	c, nuggets := ghentCorpus()
	j := &judge{next: &scripted{nuggets: nuggets}, refuse: func(s string) bool {
		return strings.Contains(s, "Account 9") || strings.Contains(s, "Account 8")
	}}
	rep, err := newEngine(c, j).Generate(context.Background(), ghentRequest, ghentSettings(true), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"7"}, accounts(reportTexts(rep))); diff != "" {
		t.Errorf("accounts in the report (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"7", "8", "9"}, sorted(accounts(j.checked))); diff != "" {
		t.Errorf("accounts checked (-want +got)\n%s", diff)
	}
	if rep.DroppedUnsupported != 2 {
		t.Errorf("dropped as unsupported: %d, want accounts 9 and 8", rep.DroppedUnsupported)
	}
}

// TestVerifyFailsClosed: every checked account of the Ghent nugget fails
// verification. At most k+3 are checked, none of them and none of the
// unchecked ones is in the report, and every sentence of the report
// passed both checks.
func TestVerifyFailsClosed(t *testing.T) {
	c, nuggets := ghentCorpus()
	j := &judge{next: &scripted{nuggets: nuggets}, refuse: func(s string) bool { return strings.Contains(s, "Account") }}
	rec := &recorder{}
	rep, err := newEngine(c, j).Generate(context.Background(), ghentRequest, ghentSettings(true), rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := accounts(reportTexts(rep)); len(got) != 0 {
		t.Errorf("the report holds accounts %v that failed or were never checked", got)
	}
	if len(rep.Sentences) != 1 || !strings.Contains(rep.Sentences[0].Text, "Madison") {
		t.Errorf("report %q, want the Madison sentence alone", reportTexts(rep))
	}
	for _, s := range rep.Sentences {
		if s.Supported != pipeline.VerdictYes || s.Covers != pipeline.VerdictYes {
			t.Errorf("sentence %q has verdicts %q/%q in a verified report", s.Text, s.Supported, s.Covers)
		}
	}
	if diff := cmp.Diff([]string{"6", "7", "8", "9"}, sorted(accounts(j.checked))); diff != "" {
		t.Errorf("accounts checked (-want +got): k+3 = 4 in confidence order\n%s", diff)
	}
	var unchecked int
	for _, c := range rec.candidates {
		if strings.Contains(c.Sentence, "Account") && c.Supported == pipeline.VerdictUnchecked {
			unchecked++
		}
	}
	if unchecked != 2 {
		t.Errorf("%d accounts left unchecked, want 2 of 6", unchecked)
	}
	if v := rep.Verification(); v != (pipeline.VerificationSummary{Verified: true, Dropped: 4, Sentences: 1}) {
		t.Errorf("verification summary %+v, want 4 dropped and no sentence unchecked", v)
	}
	// The nugget bank says the Ghent nugget has no supported sentence.
	var ghent []pipeline.Candidate
	for _, c := range rec.candidates {
		if strings.Contains(c.Sentence, "Account") {
			ghent = append(ghent, c)
		}
	}
	want := pipeline.NuggetResult{Outcome: pipeline.OutcomeNoSupported, Candidates: 6, Checked: 4, Failed: 4}
	if got := pipeline.OutcomeOf(0, ghent, true); got != want {
		t.Errorf("the Ghent nugget's outcome %+v, want %+v", got, want)
	}

	// Without verification the most confident account is the sentence.
	rep, err = newEngine(c, &judge{next: &scripted{nuggets: nuggets}, refuse: j.refuse}).Generate(context.Background(), ghentRequest, ghentSettings(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"9"}, accounts(reportTexts(rep))); diff != "" {
		t.Errorf("unverified report's accounts (-want +got)\n%s", diff)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sortStable(out, func(a, b string) bool { return a < b })
	return out
}
