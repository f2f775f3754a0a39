package pipeline_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// draftOf builds a draft whose sentences answer the nuggets named, with
// texts "s1", "s2"... and the bank's nuggets in the order given.
func draftOf(sentenceNuggets []string, bank ...string) pipeline.Draft {
	var d pipeline.Draft
	for i, id := range sentenceNuggets {
		d.Sentences = append(d.Sentences, pipeline.DraftSentence{Sentence: pipeline.Sentence{
			Text: "s" + string(rune('1'+i)), NuggetID: id,
			Citation: pipeline.Citation{DocID: "d", Ordinal: i, Start: 10 * i, End: 10*i + 5},
		}})
	}
	for i, id := range bank {
		d.Nuggets = append(d.Nuggets, pipeline.DraftNugget{Nugget: pipeline.Nugget{ID: id, Question: id + "?", Answer: id, Rank: i + 1}})
	}
	return d
}

func texts(d pipeline.Draft) []string {
	var out []string
	for _, s := range d.Sentences {
		out = append(out, s.Text)
	}
	return out
}

func bankOrder(d pipeline.Draft) []string {
	var out []string
	for _, n := range d.Nuggets {
		id := n.ID
		if n.Pinned {
			id += "*"
		}
		out = append(out, id)
	}
	return out
}

func TestDraftSentenceEdits(t *testing.T) {
	base := draftOf([]string{"a", "b", "c"}, "a", "b", "c")
	base.Sentences[1].Supported, base.Sentences[1].Covers = pipeline.VerdictYes, pipeline.VerdictYes
	tests := []struct {
		name       string
		edit       func(pipeline.Draft) (pipeline.Draft, string, error)
		want       []string
		wantChange string
		wantErr    string
	}{
		{name: "delete", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Delete(0) },
			want: []string{"s2", "s3"}, wantChange: "deleted sentence 1"},
		{name: "move up", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Move(2, -1) },
			want: []string{"s1", "s3", "s2"}, wantChange: "moved sentence 3 up"},
		{name: "move down", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Move(0, 1) },
			want: []string{"s2", "s1", "s3"}, wantChange: "moved sentence 1 down"},
		{name: "first cannot move up", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Move(0, -1) },
			wantErr: "sentence 1 is already the first"},
		{name: "last cannot move down", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Move(2, 1) },
			wantErr: "sentence 3 is already the last"},
		{name: "no such sentence", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.Delete(3) },
			wantErr: "the report has no sentence 4 (it has 3)"},
		{name: "edit text", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.EditText(1, "  New\r\n text\t here ") },
			want: []string{"s1", "New text here", "s3"}, wantChange: "edited sentence 2"},
		{name: "edit to nothing", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.EditText(1, " \n ") },
			wantErr: "the sentence is empty"},
		{name: "edit unchanged", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.EditText(1, "s2") },
			wantErr: "sentence 2 already reads so"},
		{name: "edit too long", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) {
			return d.EditText(1, strings.Repeat("é", pipeline.MaxSentenceChars+1))
		}, wantErr: "the sentence is 2001 characters long; the limit is 2000"},
		{name: "control character", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) { return d.EditText(1, "a\x00b") },
			wantErr: "control character (U+0000)"},
		{name: "swap", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) {
			return d.Swap(1, pipeline.Candidate{NuggetID: "b", Sentence: "other", Citation: pipeline.Citation{DocID: "e", Start: 1, End: 2}})
		}, want: []string{"s1", "other", "s3"}, wantChange: "swapped sentence 2 for another candidate"},
		{name: "swap another nugget's candidate", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) {
			return d.Swap(1, pipeline.Candidate{NuggetID: "c", Sentence: "other"})
		}, wantErr: `the candidate answers nugget "c", not sentence 2's nugget "b"`},
		{name: "insert a duplicate", edit: func(d pipeline.Draft) (pipeline.Draft, string, error) {
			return d.Insert(0, d.Sentences[2], "added")
		}, wantErr: "sentence 3 already says this"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := texts(base)
			got, change, err := tt.edit(base)
			if diff := cmp.Diff(before, texts(base)); diff != "" {
				t.Errorf("the edit changed the original draft (-before +after)\n%s", diff)
			}
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInvalid saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, texts(got)); diff != "" {
				t.Errorf("sentences (-want +got)\n%s", diff)
			}
			if change != tt.wantChange {
				t.Errorf("change %q, want %q", change, tt.wantChange)
			}
		})
	}

	// An edited sentence keeps its citation, is marked for re-check and
	// loses the verdicts that judged the old text; its key changes.
	edited, _, err := base.EditText(1, "New text")
	if err != nil {
		t.Fatal(err)
	}
	s := edited.Sentences[1]
	if !s.Recheck || s.Supported != pipeline.VerdictUnchecked || s.Covers != pipeline.VerdictUnchecked || s.Citation != base.Sentences[1].Citation {
		t.Errorf("edited sentence = %+v", s)
	}
	if s.Key() == base.Sentences[1].Key() {
		t.Error("an edited sentence kept its key")
	}
	verified, change, _ := edited.SetVerdicts(1, pipeline.VerdictYes, pipeline.VerdictNo)
	if v := verified.Sentences[1]; v.Recheck || v.Supported != pipeline.VerdictYes || v.Covers != pipeline.VerdictNo {
		t.Errorf("re-verified sentence = %+v", v)
	}
	if want := "re-verified sentence 2 (support yes, covers the nugget no)"; change != want {
		t.Errorf("change %q, want %q", change, want)
	}
	// Moving a sentence keeps its key: a review stays with it.
	moved, _, _ := base.Move(0, 1)
	if moved.Sentences[1].Key() != base.Sentences[0].Key() {
		t.Error("a moved sentence changed its key")
	}
}

func TestDraftPlace(t *testing.T) {
	tests := []struct {
		name      string
		sentences []string
		bank      []string
		nugget    string
		want      int
	}{
		// Bank a, b, c; sentences answer a, c: b's goes between them.
		{name: "between", sentences: []string{"a", "c"}, bank: []string{"a", "b", "c"}, nugget: "b", want: 1},
		{name: "after its own", sentences: []string{"a", "b", "c"}, bank: []string{"a", "b", "c"}, nugget: "b", want: 2},
		{name: "first", sentences: []string{"b", "c"}, bank: []string{"a", "b", "c"}, nugget: "a", want: 0},
		{name: "last", sentences: []string{"a", "b"}, bank: []string{"a", "b", "c"}, nugget: "c", want: 2},
		{name: "unknown nugget at the end", sentences: []string{"a", "b"}, bank: []string{"a", "b"}, nugget: "zz", want: 2},
		// A sentence without a bank nugget does not move the place.
		{name: "skips others", sentences: []string{"a", "", "c"}, bank: []string{"a", "b", "c"}, nugget: "b", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := draftOf(tt.sentences, tt.bank...).Place(tt.nugget); got != tt.want {
				t.Errorf("Place(%q) = %d, want %d", tt.nugget, got, tt.want)
			}
		})
	}
}

func TestDraftNuggetEdits(t *testing.T) {
	base := draftOf(nil, "a", "b", "c", "a7")
	pinned, _, err := base.Pin("c", true)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func() (pipeline.Draft, string, error)
		want    []string
		wantErr string
	}{
		{name: "pin moves to the top", edit: func() (pipeline.Draft, string, error) { return base.Pin("c", true) },
			want: []string{"c*", "a", "b", "a7"}},
		{name: "second pin goes after the first", edit: func() (pipeline.Draft, string, error) { return pinned.Pin("a7", true) },
			want: []string{"c*", "a7*", "a", "b"}},
		{name: "unpin goes first among the others", edit: func() (pipeline.Draft, string, error) { return pinned.Pin("c", false) },
			want: []string{"c", "a", "b", "a7"}},
		{name: "pin twice", edit: func() (pipeline.Draft, string, error) { return pinned.Pin("c", true) },
			wantErr: "nugget c is already pinned"},
		{name: "move down", edit: func() (pipeline.Draft, string, error) { return pinned.MoveNugget("a", 1) },
			want: []string{"c*", "b", "a", "a7"}},
		{name: "unpinned cannot pass a pinned one", edit: func() (pipeline.Draft, string, error) { return pinned.MoveNugget("a", -1) },
			wantErr: "pin it to move it higher"},
		{name: "remove", edit: func() (pipeline.Draft, string, error) { return pinned.RemoveNugget("b") },
			want: []string{"c*", "a", "a7"}},
		{name: "remove a pinned nugget", edit: func() (pipeline.Draft, string, error) { return pinned.RemoveNugget("c") },
			wantErr: "nugget c is pinned: unpin it before removing it"},
		// "a7" is taken, so the next added nugget is a8.
		{name: "add", edit: func() (pipeline.Draft, string, error) { return base.AddNugget(" Who?\n", " Them ") },
			want: []string{"a", "b", "c", "a7", "a8"}},
		{name: "add without an answer", edit: func() (pipeline.Draft, string, error) { return base.AddNugget("Who?", "") },
			wantErr: "the answer is empty"},
		{name: "add a duplicate", edit: func() (pipeline.Draft, string, error) { return base.AddNugget("B?", "b") },
			wantErr: "nugget b already asks this"},
		{name: "edit unknown", edit: func() (pipeline.Draft, string, error) { return base.EditNugget("zz", "q", "a") },
			wantErr: `the bank has no nugget "zz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := tt.edit()
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInvalid saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, bankOrder(got)); diff != "" {
				t.Errorf("bank (-want +got)\n%s", diff)
			}
			for i, n := range got.Nuggets {
				if n.Rank != i+1 {
					t.Errorf("nugget %s at place %d has rank %d", n.ID, i+1, n.Rank)
				}
			}
		})
	}

	added, change, _ := base.AddNugget(" Who?\n", " Them ")
	n := added.Nuggets[4]
	if n.Question != "Who?" || n.Answer != "Them" || !n.Changed || change != `added nugget "Who?"` {
		t.Errorf("added nugget %+v, change %q", n, change)
	}
	edited, _, _ := base.EditNugget("b", "Which b?", "b2")
	if e := edited.Nuggets[1]; !e.Changed || e.Question != "Which b?" || base.Nuggets[1].Changed {
		t.Errorf("edited nugget %+v (original changed: %v)", e, base.Nuggets[1].Changed)
	}
	// Stale: the changed nuggets, and sentences of nuggets removed.
	d := draftOf([]string{"a", "b", ""}, "a", "b")
	d, _, _ = d.EditNugget("a", "A again?", "a2")
	d, _, _ = d.RemoveNugget("b")
	changed, orphans := d.Stale()
	if diff := cmp.Diff([]string{"a"}, changed); diff != "" || orphans != 1 {
		t.Errorf("Stale() = %v, %d; want [a], 1 (-want +got changed)\n%s", changed, orphans, diff)
	}
}

func TestStatusMoves(t *testing.T) {
	tests := []struct {
		from, to pipeline.ReportStatus
		ok       bool
	}{
		{pipeline.StatusDraft, pipeline.StatusInReview, true},
		{pipeline.StatusInReview, pipeline.StatusApproved, true},
		{pipeline.StatusInReview, pipeline.StatusDraft, true},
		{pipeline.StatusApproved, pipeline.StatusDraft, true},
		{pipeline.StatusDraft, pipeline.StatusApproved, false},
		{pipeline.StatusApproved, pipeline.StatusInReview, false},
		{pipeline.StatusDraft, pipeline.StatusDraft, false},
		{pipeline.StatusDraft, "published", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.from)+"→"+string(tt.to), func(t *testing.T) {
			err := tt.from.CheckMove(tt.to)
			if (err == nil) != tt.ok {
				t.Errorf("CheckMove = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestSummarizeReviews(t *testing.T) {
	d := draftOf([]string{"a", "b", "c", "d"}, "a", "b", "c", "d")
	reviews := map[string]pipeline.Review{
		d.Sentences[0].Key(): {Verdict: pipeline.ReviewSupported},
		d.Sentences[1].Key(): {Verdict: pipeline.ReviewPartly},
		d.Sentences[3].Key(): {Verdict: pipeline.ReviewUnsupported},
		"0123456789abcdef":   {Verdict: pipeline.ReviewSupported}, // a sentence no longer in the report
	}
	got := pipeline.SummarizeReviews(d.Sentences, reviews)
	want := pipeline.ReviewSummary{Sentences: 4, Reviewed: 3, Supported: 1, Partly: 1, Unsupported: 1, Unreviewed: []int{3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got)\n%s", diff)
	}
	// (1 supported + 0.5 × 1 partly) / 3 reviewed = 0.5
	if s := got.Support(); math.Abs(s-0.5) > 1e-12 {
		t.Errorf("Support() = %g, want 0.5", s)
	}
	if (pipeline.ReviewSummary{Sentences: 2, Unreviewed: []int{1, 2}}).Defined() {
		t.Error("a summary without reviews is defined")
	}
}

func TestStaleVersionError(t *testing.T) {
	err := error(&pipeline.StaleVersionError{Base: 6, Current: pipeline.VersionInfo{Number: 7, Author: "grace", Change: "edited sentence 3"}})
	const want = "this report changed since you opened it: version 7 by grace, 'edited sentence 3'; reload the report and make your change again"
	if err.Error() != want || !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("err %q (is conflict %v), want %q", err, errors.Is(err, pipeline.ErrConflict), want)
	}
	if c := pipeline.Conflictf("report %d is approved", 3); c.Error() != "report 3 is approved" || !errors.Is(c, pipeline.ErrConflict) {
		t.Errorf("Conflictf = %q", c)
	}
}

func TestSentenceKey(t *testing.T) {
	s := pipeline.Sentence{Text: "a", Citation: pipeline.Citation{DocID: "d", Ordinal: 1, Start: 2, End: 3}, NuggetID: "n", Confidence: 0.4}
	other := s
	other.NuggetID, other.Confidence, other.Supported = "m", 0.9, pipeline.VerdictYes
	if pipeline.SentenceKey(s) != pipeline.SentenceKey(other) {
		t.Error("the key depends on more than the text and citation")
	}
	moved := s
	moved.Citation.End = 4
	if pipeline.SentenceKey(s) == pipeline.SentenceKey(moved) {
		t.Error("the key ignores the citation's span")
	}
	if k := pipeline.SentenceKey(s); len(k) != 16 {
		t.Errorf("key %q is not 16 hex digits", k)
	}
}

func TestCheckApproval(t *testing.T) {
	open := pipeline.OpenCitations{Unreviewed: 4, Unsupported: 1}
	other := pipeline.OpenCitations{Unreviewed: 4}
	for _, tc := range []struct {
		name    string
		open    pipeline.OpenCitations
		a       pipeline.Approval
		refused bool
	}{
		{"all reviewed supported, nothing confirmed", pipeline.OpenCitations{}, pipeline.Approval{}, false},
		{"open, not confirmed", open, pipeline.Approval{}, true},
		{"open, confirmed", open, pipeline.Approval{Confirm: true}, false},
		{"open, confirmed as shown", open, pipeline.Approval{Confirm: true, Shown: &open}, false},
		{"open, confirmed other counts", open, pipeline.Approval{Confirm: true, Shown: &other}, true},
		{"counts shown but not confirmed", open, pipeline.Approval{Shown: &open}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := pipeline.CheckApproval(tc.open, tc.a)
			var ae *pipeline.ApprovalError
			if got := errors.As(err, &ae); got != tc.refused || (got && !errors.Is(err, pipeline.ErrInvalid)) {
				t.Errorf("err = %v, refused %v", err, tc.refused)
			}
		})
	}
	for o, want := range map[pipeline.OpenCitations]string{
		{}:                              "no open citation",
		{Partly: 1}:                     "1 partly supported citation",
		{Unreviewed: 4, Unsupported: 1}: "4 unreviewed and 1 not supported citations",
		{Unreviewed: 1, Partly: 1, Unsupported: 2}: "1 unreviewed, 1 partly supported and 2 not supported citations",
	} {
		if got := o.String(); got != want {
			t.Errorf("%+v reads %q, want %q", o, got, want)
		}
	}
	rec := pipeline.StatusRecord{Status: pipeline.StatusApproved, By: "grace", Confirmed: open}
	if got := rec.Text(); got != "approved with 4 unreviewed and 1 not supported citations, confirmed by grace" {
		t.Errorf("history text %q", got)
	}
}
