package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Authoring: every change to a report's text or nugget bank makes a new
// version of it (a Draft: its sentences and its bank), with who made it,
// when and a short description. Edits are optimistic: each names the
// version it was made from, and a store refuses it with
// *StaleVersionError when another version was saved since. Reviewers
// record, per citation, whether it holds (a Review); a report moves from
// draft to in review to approved (ReportStatus), and an approved report
// refuses edits until it is reopened. See docs/authoring.md.

// Bounds of what authors type.
const (
	// MaxSentenceChars bounds a sentence's text.
	MaxSentenceChars = 2000
	// MaxNuggetQuestionChars and MaxNuggetAnswerChars bound a nugget an
	// analyst adds or edits.
	MaxNuggetQuestionChars = 500
	MaxNuggetAnswerChars   = 1000
	// MaxReviewCommentChars bounds a reviewer's comment.
	MaxReviewCommentChars = 2000
	// MaxChangeChars bounds a version's change description.
	MaxChangeChars = 200
)

// conflictError is a conflict whose message is written for users; it
// wraps ErrConflict without adding the sentinel's words to the message.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }
func (e *conflictError) Unwrap() error { return ErrConflict }

// Conflictf returns an error wrapping ErrConflict whose message is the
// formatted text alone.
func Conflictf(format string, args ...any) error {
	return &conflictError{msg: fmt.Sprintf(format, args...)}
}

// VersionInfo describes one version of a report.
type VersionInfo struct {
	Report int64
	// Number counts the report's versions from 1 (the generated text).
	Number int
	// Author is the user name of who made the version.
	Author string
	At     time.Time
	// Change says briefly what changed: "edited sentence 3".
	Change string
	// RestoredFrom is the version a restore copied, 0 otherwise.
	RestoredFrom int
}

// Edit says which report an action changes, the version it was made from
// (Base) and who makes it (the user name).
type Edit struct {
	Report int64
	Base   int
	Author string
}

// Quote is a span of a document an analyst selected to add to a report
// as a sentence that cites it.
type Quote struct {
	DocID string
	// Start and End are byte offsets into the document's text.
	Start, End int
	// NuggetID, optional, is the bank nugget the sentence answers.
	NuggetID string
}

// StaleVersionError refuses a change made from a version that is no
// longer the newest. It wraps ErrConflict.
type StaleVersionError struct {
	// Base is the version the change was made from.
	Base int
	// Current is the newest version.
	Current VersionInfo
}

func (e *StaleVersionError) Error() string {
	by := e.Current.Author
	if by == "" {
		by = "someone"
	}
	return fmt.Sprintf("this report changed since you opened it: version %d by %s, '%s'; reload the report and make your change again",
		e.Current.Number, by, e.Current.Change)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *StaleVersionError) Unwrap() error { return ErrConflict }

// DraftSentence is a sentence of a report version.
type DraftSentence struct {
	Sentence
	// Recheck is set when the sentence's text was edited by hand: its
	// citation was chosen for other words and must be checked again. A
	// re-run of verification clears it.
	Recheck bool
}

// Key identifies the sentence's text and citation (see SentenceKey).
func (s DraftSentence) Key() string { return SentenceKey(s.Sentence) }

// SentenceKey identifies a sentence by its text and citation: 16 hex
// digits of a SHA-256 over them. Reviews are kept by this key, so a
// verdict stays with a sentence through moves, other sentences' edits and
// restores, and a sentence whose text or citation changes has none.
func SentenceKey(s Sentence) string {
	h := sha256.New()
	h.Write([]byte(s.Text))
	for _, part := range []string{s.Citation.DocID, strconv.Itoa(s.Citation.Ordinal),
		strconv.Itoa(s.Citation.Start), strconv.Itoa(s.Citation.End)} {
		h.Write([]byte{0})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// DraftNugget is a nugget of a report version's bank.
type DraftNugget struct {
	Nugget
	// Pinned nuggets stay at the top of the bank, in their own order, and
	// cannot be removed until unpinned.
	Pinned bool
	// Changed marks a nugget added or edited since the report's sentences
	// were last generated: regeneration scans for it again.
	Changed bool
}

// Draft is the content of a report version: its sentences in order and
// its nugget bank in rank order (Rank = position + 1).
type Draft struct {
	Sentences []DraftSentence
	Nuggets   []DraftNugget
}

// Version is a stored version of a report.
type Version struct {
	VersionInfo
	Draft
}

// NewDraft is the first version of a generated report: its sentences and
// its kept nuggets in rank order.
func NewDraft(r Report) Draft {
	d := Draft{Sentences: make([]DraftSentence, len(r.Sentences))}
	for i, s := range r.Sentences {
		d.Sentences[i] = DraftSentence{Sentence: s}
	}
	ns := slices.Clone(r.Nuggets)
	slices.SortStableFunc(ns, func(a, b Nugget) int { return a.Rank - b.Rank })
	for _, n := range ns {
		d.Nuggets = append(d.Nuggets, DraftNugget{Nugget: n})
	}
	d.renumber()
	return d
}

// Apply returns the report with the draft's sentences and nuggets.
func (d Draft) Apply(r Report) Report {
	r.Sentences = make([]Sentence, len(d.Sentences))
	for i, s := range d.Sentences {
		r.Sentences[i] = s.Sentence
	}
	r.Nuggets = make([]Nugget, len(d.Nuggets))
	for i, n := range d.Nuggets {
		r.Nuggets[i] = n.Nugget
	}
	return r
}

// Clone copies the draft, so edits leave the original as it was.
func (d Draft) Clone() Draft {
	return Draft{Sentences: slices.Clone(d.Sentences), Nuggets: slices.Clone(d.Nuggets)}
}

// Length is the draft's length in characters as a report's limit counts
// it: the sentences joined by single spaces.
func (d Draft) Length() int {
	n := 0
	for i, s := range d.Sentences {
		if i > 0 {
			n++
		}
		n += utf8.RuneCountInString(s.Text)
	}
	return n
}

// Nugget returns the bank's nugget with the id and its position, or
// false.
func (d Draft) Nugget(id string) (DraftNugget, int, bool) {
	for i, n := range d.Nuggets {
		if n.ID == id {
			return n, i, true
		}
	}
	return DraftNugget{}, -1, false
}

// renumber sets each nugget's Rank from its position.
func (d *Draft) renumber() {
	for i := range d.Nuggets {
		d.Nuggets[i].Rank = i + 1
	}
}

func (d Draft) sentence(i int) error {
	if i < 0 || i >= len(d.Sentences) {
		return Invalidf("the report has no sentence %d (it has %d)", i+1, len(d.Sentences))
	}
	return nil
}

// CleanText prepares text an author typed for a sentence or a nugget:
// line breaks and tabs become spaces, runs of spaces one, surrounding
// space is trimmed. It refuses invalid UTF-8, control characters and
// text longer than max characters; what names the field in messages.
func CleanText(what, text string, max int) (string, error) {
	if !utf8.ValidString(text) {
		return "", Invalidf("the %s is not valid UTF-8 text", what)
	}
	var b strings.Builder
	space := false
	for _, c := range text {
		switch {
		case unicode.IsSpace(c):
			space = true
			continue
		case unicode.IsControl(c):
			return "", Invalidf("the %s holds a control character (U+%04X)", what, c)
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(c)
	}
	out := b.String()
	if out == "" {
		return "", Invalidf("the %s is empty", what)
	}
	if n := utf8.RuneCountInString(out); n > max {
		return "", Invalidf("the %s is %d characters long; the limit is %d", what, n, max)
	}
	return out, nil
}

// EditText replaces sentence i's text (0-based). The citation stays and is
// marked for re-checking; the model's verdicts, which judged the old
// text, are cleared.
func (d Draft) EditText(i int, text string) (Draft, string, error) {
	if err := d.sentence(i); err != nil {
		return d, "", err
	}
	text, err := CleanText("sentence", text, MaxSentenceChars)
	if err != nil {
		return d, "", err
	}
	if text == d.Sentences[i].Text {
		return d, "", Invalidf("sentence %d already reads so: nothing to save", i+1)
	}
	out := d.Clone()
	s := &out.Sentences[i]
	s.Text = text
	s.Recheck = true
	s.Supported, s.Covers = VerdictUnchecked, VerdictUnchecked
	return out, fmt.Sprintf("edited sentence %d", i+1), nil
}

// Delete removes sentence i.
func (d Draft) Delete(i int) (Draft, string, error) {
	if err := d.sentence(i); err != nil {
		return d, "", err
	}
	out := d.Clone()
	out.Sentences = slices.Delete(out.Sentences, i, i+1)
	return out, fmt.Sprintf("deleted sentence %d", i+1), nil
}

// Move moves sentence i one place up (by = -1) or down (by = +1).
func (d Draft) Move(i, by int) (Draft, string, error) {
	if err := d.sentence(i); err != nil {
		return d, "", err
	}
	j := i + by
	switch {
	case by != -1 && by != 1:
		return d, "", Invalidf("a sentence moves one place up or down, not %d", by)
	case j < 0:
		return d, "", Invalidf("sentence %d is already the first", i+1)
	case j >= len(d.Sentences):
		return d, "", Invalidf("sentence %d is already the last", i+1)
	}
	out := d.Clone()
	out.Sentences[i], out.Sentences[j] = out.Sentences[j], out.Sentences[i]
	dir := "down"
	if by < 0 {
		dir = "up"
	}
	return out, fmt.Sprintf("moved sentence %d %s", i+1, dir), nil
}

// Swap replaces sentence i with another extraction candidate of the same
// nugget: its text, citation, confidence and verdicts. The sentence keeps
// its place and its facet.
func (d Draft) Swap(i int, c Candidate) (Draft, string, error) {
	if err := d.sentence(i); err != nil {
		return d, "", err
	}
	s := d.Sentences[i]
	switch {
	case c.NuggetID != s.NuggetID:
		return d, "", Invalidf("the candidate answers nugget %q, not sentence %d's nugget %q", c.NuggetID, i+1, s.NuggetID)
	case c.Sentence == "":
		return d, "", Invalidf("the candidate has no sentence")
	case c.Sentence == s.Text && c.Citation == s.Citation:
		return d, "", Invalidf("sentence %d already is this candidate", i+1)
	}
	out := d.Clone()
	out.Sentences[i] = DraftSentence{Sentence: FromCandidate(c)}
	out.Sentences[i].Facet = s.Facet
	return out, fmt.Sprintf("swapped sentence %d for another candidate", i+1), nil
}

// FromCandidate is the report sentence a candidate makes.
func FromCandidate(c Candidate) Sentence {
	return Sentence{Text: c.Sentence, Citation: c.Citation, NuggetID: c.NuggetID,
		Confidence: c.Confidence, Supported: c.Supported, Covers: c.Covers}
}

// Insert adds s at index at (0 to len), with the change description
// given.
func (d Draft) Insert(at int, s DraftSentence, change string) (Draft, string, error) {
	if at < 0 || at > len(d.Sentences) {
		return d, "", Invalidf("a sentence cannot go at place %d of %d", at+1, len(d.Sentences)+1)
	}
	if strings.TrimSpace(s.Text) == "" {
		return d, "", Invalidf("the sentence is empty")
	}
	key := s.Key()
	for j, o := range d.Sentences {
		if o.Key() == key {
			return d, "", Invalidf("sentence %d already says this with the same citation", j+1)
		}
	}
	out := d.Clone()
	out.Sentences = slices.Insert(out.Sentences, at, s)
	return out, change, nil
}

// Place is where a new sentence answering the nugget goes: after the last
// sentence whose nugget ranks no lower in the bank, else before the first
// sentence of a nugget ranked below it; at the end when the nugget is not
// in the bank. Sentences without a bank nugget do not move the place.
func (d Draft) Place(nuggetID string) int {
	_, rank, ok := d.Nugget(nuggetID)
	if !ok {
		return len(d.Sentences)
	}
	at := 0
	for j, s := range d.Sentences {
		if _, r, ok := d.Nugget(s.NuggetID); ok && r <= rank {
			at = j + 1
		}
	}
	return at
}

// FacetFor is the facet a sentence added at index at (before Insert)
// answering the nugget takes: the facet of the nugget's other sentences
// if it has any, else the facet of the sentence it goes after, else none.
func (d Draft) FacetFor(nuggetID string, at int) string {
	if nuggetID != "" {
		for _, s := range d.Sentences {
			if s.NuggetID == nuggetID {
				return s.Facet
			}
		}
	}
	if at > 0 && at <= len(d.Sentences) {
		return d.Sentences[at-1].Facet
	}
	return ""
}

// SetVerdicts records a re-run of verification on sentence i and clears
// its re-check mark.
func (d Draft) SetVerdicts(i int, supported, covers Verdict) (Draft, string, error) {
	if err := d.sentence(i); err != nil {
		return d, "", err
	}
	out := d.Clone()
	s := &out.Sentences[i]
	s.Supported, s.Covers, s.Recheck = supported, covers, false
	return out, fmt.Sprintf("re-verified sentence %d (support %s, covers the nugget %s)", i+1,
		verdictWord(supported), verdictWord(covers)), nil
}

func verdictWord(v Verdict) string {
	if v == VerdictUnchecked {
		return "not checked"
	}
	return string(v)
}

// cleanNugget checks a question and answer an analyst typed.
func cleanNugget(question, answer string) (string, string, error) {
	q, err := CleanText("question", question, MaxNuggetQuestionChars)
	if err != nil {
		return "", "", err
	}
	a, err := CleanText("answer", answer, MaxNuggetAnswerChars)
	if err != nil {
		return "", "", err
	}
	return q, a, nil
}

// AddNugget adds a nugget at the end of the bank, marked changed so that
// regeneration looks for a sentence for it. Its id is "a" and the next
// free number.
func (d Draft) AddNugget(question, answer string) (Draft, string, error) {
	q, a, err := cleanNugget(question, answer)
	if err != nil {
		return d, "", err
	}
	for _, n := range d.Nuggets {
		if strings.EqualFold(n.Question, q) && strings.EqualFold(n.Answer, a) {
			return d, "", Invalidf("nugget %s already asks this with this answer", n.ID)
		}
	}
	next := 1
	for _, n := range d.Nuggets {
		if rest, ok := strings.CutPrefix(n.ID, "a"); ok {
			if k, err := strconv.Atoi(rest); err == nil && k >= next {
				next = k + 1
			}
		}
	}
	out := d.Clone()
	out.Nuggets = append(out.Nuggets, DraftNugget{
		Nugget:  Nugget{ID: "a" + strconv.Itoa(next), Question: q, Answer: a, Popularity: 1},
		Changed: true,
	})
	out.renumber()
	return out, fmt.Sprintf("added nugget %q", excerptText(q, 60)), nil
}

// EditNugget changes a nugget's question and answer and marks it changed:
// its sentences are regenerated.
func (d Draft) EditNugget(id, question, answer string) (Draft, string, error) {
	_, i, ok := d.Nugget(id)
	if !ok {
		return d, "", Invalidf("the bank has no nugget %q", id)
	}
	q, a, err := cleanNugget(question, answer)
	if err != nil {
		return d, "", err
	}
	if q == d.Nuggets[i].Question && a == d.Nuggets[i].Answer {
		return d, "", Invalidf("nugget %s already reads so: nothing to save", id)
	}
	out := d.Clone()
	n := &out.Nuggets[i]
	n.Question, n.Answer, n.Changed = q, a, true
	// Model judgements of the old wording no longer hold.
	n.Features, n.QualityScore = nil, 0
	return out, fmt.Sprintf("edited nugget %s", id), nil
}

// RemoveNugget takes a nugget out of the bank. Its sentences stay until
// the report is regenerated; a pinned nugget must be unpinned first.
func (d Draft) RemoveNugget(id string) (Draft, string, error) {
	n, i, ok := d.Nugget(id)
	switch {
	case !ok:
		return d, "", Invalidf("the bank has no nugget %q", id)
	case n.Pinned:
		return d, "", Invalidf("nugget %s is pinned: unpin it before removing it", id)
	}
	out := d.Clone()
	out.Nuggets = slices.Delete(out.Nuggets, i, i+1)
	out.renumber()
	return out, fmt.Sprintf("removed nugget %s", id), nil
}

// pinnedCount is the number of pinned nuggets, which lead the bank.
func (d Draft) pinnedCount() int {
	k := 0
	for _, n := range d.Nuggets {
		if n.Pinned {
			k++
		}
	}
	return k
}

// Pin pins or unpins a nugget. A pinned nugget moves to the end of the
// pinned nuggets at the top of the bank; an unpinned one to the start of
// the others.
func (d Draft) Pin(id string, pinned bool) (Draft, string, error) {
	n, i, ok := d.Nugget(id)
	switch {
	case !ok:
		return d, "", Invalidf("the bank has no nugget %q", id)
	case n.Pinned == pinned && pinned:
		return d, "", Invalidf("nugget %s is already pinned", id)
	case n.Pinned == pinned:
		return d, "", Invalidf("nugget %s is not pinned", id)
	}
	out := d.Clone()
	out.Nuggets = slices.Delete(out.Nuggets, i, i+1)
	n.Pinned = pinned
	// Pinned nuggets lead the bank: the new one goes after them, an
	// unpinned one right after them too (the first of the others).
	out.Nuggets = slices.Insert(out.Nuggets, out.pinnedCount(), n)
	out.renumber()
	if pinned {
		return out, fmt.Sprintf("pinned nugget %s", id), nil
	}
	return out, fmt.Sprintf("unpinned nugget %s", id), nil
}

// MoveNugget moves a nugget one place up (by = -1) or down (by = +1)
// among the pinned nuggets or among the others.
func (d Draft) MoveNugget(id string, by int) (Draft, string, error) {
	n, i, ok := d.Nugget(id)
	if !ok {
		return d, "", Invalidf("the bank has no nugget %q", id)
	}
	if by != -1 && by != 1 {
		return d, "", Invalidf("a nugget moves one place up or down, not %d", by)
	}
	lo, hi := 0, d.pinnedCount() // the nugget's block: [lo, hi)
	if !n.Pinned {
		lo, hi = hi, len(d.Nuggets)
	}
	j := i + by
	switch {
	case j < lo && n.Pinned:
		return d, "", Invalidf("nugget %s is already the first", id)
	case j < lo:
		return d, "", Invalidf("nugget %s is already the first unpinned nugget; pin it to move it higher", id)
	case j >= hi && n.Pinned:
		return d, "", Invalidf("nugget %s is already the last pinned nugget", id)
	case j >= hi:
		return d, "", Invalidf("nugget %s is already the last", id)
	}
	out := d.Clone()
	out.Nuggets[i], out.Nuggets[j] = out.Nuggets[j], out.Nuggets[i]
	out.renumber()
	dir := "down"
	if by < 0 {
		dir = "up"
	}
	return out, fmt.Sprintf("moved nugget %s %s", id, dir), nil
}

// Stale lists what regeneration would change: the ids of the bank's
// changed nuggets, and the number of sentences answering nuggets no
// longer in the bank.
func (d Draft) Stale() (changed []string, orphans int) {
	for _, n := range d.Nuggets {
		if n.Changed {
			changed = append(changed, n.ID)
		}
	}
	for _, s := range d.Sentences {
		if _, _, ok := d.Nugget(s.NuggetID); s.NuggetID != "" && !ok {
			orphans++
		}
	}
	return changed, orphans
}

// excerptText shortens s to at most n characters, ending in "…" when cut.
func excerptText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// ReportStatus is where a report is in review.
type ReportStatus string

// Statuses: draft → in review → approved. A report in review may go back
// to draft; an approved one is reopened to draft before it can change.
const (
	StatusDraft    ReportStatus = "draft"
	StatusInReview ReportStatus = "in_review"
	StatusApproved ReportStatus = "approved"
)

// Valid reports whether s is a status.
func (s ReportStatus) Valid() bool {
	return s == StatusDraft || s == StatusInReview || s == StatusApproved
}

// Label words the status for pages: "draft", "in review", "approved".
func (s ReportStatus) Label() string {
	if s == StatusInReview {
		return "in review"
	}
	return string(s)
}

// CheckMove returns nil when a report may go from s to the status to, and
// otherwise an error wrapping ErrConflict that says why not. The moves
// are: draft → in review (submit), in review → approved (approve), in
// review → draft (withdraw) and approved → draft (reopen).
func (s ReportStatus) CheckMove(to ReportStatus) error {
	switch {
	case !to.Valid():
		return Invalidf("%q is not a report status", to)
	case s == to:
		return Conflictf("the report is already %s", s.Label())
	case s == StatusDraft && to == StatusApproved:
		return Conflictf("a draft cannot be approved: submit it for review first")
	case s == StatusApproved && to == StatusInReview:
		return Conflictf("the report is approved: reopen it as a draft before submitting it again")
	}
	return nil
}

// StatusRecord is a report's status and the last change of it.
type StatusRecord struct {
	Status ReportStatus
	// By and At say who set the status and when; empty for a report never
	// moved from draft.
	By string
	At time.Time
	// Version is the version the status was set on.
	Version int
	// Confirmed, on an approval, are the citations the approver
	// confirmed approving although no reviewer had found them supported
	// (CheckApproval); zero when every citation was reviewed supported.
	Confirmed OpenCitations
}

// Text words the status change for a report's history: "submitted for
// review by alan", "approved with 4 unreviewed and 1 not supported
// citations, confirmed by grace".
func (r StatusRecord) Text() string {
	by := r.By
	if by == "" {
		by = "someone"
	}
	switch r.Status {
	case StatusInReview:
		return "submitted for review by " + by
	case StatusApproved:
		if r.Confirmed.Any() {
			return "approved with " + r.Confirmed.String() + ", confirmed by " + by
		}
		return "approved by " + by
	}
	return "moved to draft by " + by
}

// OpenCitations counts the citations of a report version no reviewer has
// found supported: unreviewed, partly supported and not supported.
type OpenCitations struct {
	Unreviewed  int
	Partly      int
	Unsupported int
}

// Open counts the summary's citations no reviewer has found supported.
func (s ReviewSummary) Open() OpenCitations {
	return OpenCitations{Unreviewed: len(s.Unreviewed), Partly: s.Partly, Unsupported: s.Unsupported}
}

// Any reports whether any citation is open.
func (o OpenCitations) Any() bool { return o.Unreviewed+o.Partly+o.Unsupported > 0 }

// String words the counts: "4 unreviewed and 1 not supported citations",
// "1 partly supported citation"; "no open citation" when there are none.
func (o OpenCitations) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{o.Unreviewed, "unreviewed"}, {o.Partly, "partly supported"}, {o.Unsupported, "not supported"}} {
		if p.n > 0 {
			parts = append(parts, strconv.Itoa(p.n)+" "+p.word)
		}
	}
	total := o.Unreviewed + o.Partly + o.Unsupported
	switch len(parts) {
	case 0:
		return "no open citation"
	case 1:
		return parts[0] + " " + plural(total, "citation", "citations")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " " + plural(total, "citation", "citations")
}

// Approval is what an approver's form says besides the version.
type Approval struct {
	// Confirm is set when the approver confirmed approving although
	// citations are open (unreviewed, partly or not supported).
	Confirm bool
	// Shown, when set, are the open citations the approver's page showed
	// next to the confirmation: a confirmation of other counts than the
	// version now has is refused, so nobody confirms what they did not
	// see.
	Shown *OpenCitations
}

// ApprovalError refuses an approval that needs a confirmation it lacks:
// the version has open citations and the approver did not confirm them,
// or confirmed other counts than the version now has. It wraps
// ErrInvalid.
type ApprovalError struct {
	// Open are the version's open citations.
	Open OpenCitations
	// Shown are the counts the approver confirmed, when they differ.
	Shown *OpenCitations
}

func (e *ApprovalError) Error() string {
	if e.Shown != nil {
		return fmt.Sprintf("the reviews changed since the page was shown (it showed %s; the report now has %s): look at them and confirm again",
			e.Shown, e.Open)
	}
	return fmt.Sprintf("approving needs a confirmation: the report has %s; tick the confirmation next to the Approve button to approve it all the same",
		e.Open)
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *ApprovalError) Unwrap() error { return ErrInvalid }

// CheckApproval decides whether a version with open citations may be
// approved with the approver's a: nil when no citation is open, or when
// the approver confirmed (and, if the form says which counts it showed,
// they are the version's); else *ApprovalError.
func CheckApproval(open OpenCitations, a Approval) error {
	if !open.Any() {
		return nil
	}
	if !a.Confirm {
		return &ApprovalError{Open: open}
	}
	if a.Shown != nil && *a.Shown != open {
		return &ApprovalError{Open: open, Shown: a.Shown}
	}
	return nil
}

// ReviewVerdict is a reviewer's verdict on a citation.
type ReviewVerdict string

// Reviewer verdicts.
const (
	ReviewSupported   ReviewVerdict = "supported"
	ReviewPartly      ReviewVerdict = "partly"
	ReviewUnsupported ReviewVerdict = "unsupported"
)

// ParseReviewVerdict reads a verdict's name.
func ParseReviewVerdict(s string) (ReviewVerdict, error) {
	v := ReviewVerdict(strings.TrimSpace(s))
	switch v {
	case ReviewSupported, ReviewPartly, ReviewUnsupported:
		return v, nil
	}
	return "", Invalidf("%q is not a verdict: choose supported, partly or not supported", s)
}

// Label words the verdict for pages.
func (v ReviewVerdict) Label() string {
	switch v {
	case ReviewPartly:
		return "partly supported"
	case ReviewUnsupported:
		return "not supported"
	}
	return string(v)
}

// Credit is what the verdict counts toward the reviewed citation-support
// figure: 1 for supported, one half for partly, 0 for not supported.
func (v ReviewVerdict) Credit() float64 {
	switch v {
	case ReviewSupported:
		return 1
	case ReviewPartly:
		return 0.5
	}
	return 0
}

// Review is a reviewer's verdict on a sentence's citation, kept by the
// sentence's key.
type Review struct {
	Report   int64
	Key      string
	Verdict  ReviewVerdict
	Comment  string
	Reviewer string
	// Version is the report version the reviewer saw.
	Version int
	At      time.Time
}

// ReviewSummary is the review state of a report version.
type ReviewSummary struct {
	Sentences   int
	Reviewed    int
	Supported   int
	Partly      int
	Unsupported int
	// Unreviewed lists the 1-based numbers of sentences without a verdict.
	Unreviewed []int
}

// Support is the reviewed citation-support figure: the verdicts' credit
// (supported 1, partly 0.5) over the reviewed citations; 0 when none is
// reviewed (see Defined).
func (s ReviewSummary) Support() float64 {
	if s.Reviewed == 0 {
		return 0
	}
	return (float64(s.Supported) + 0.5*float64(s.Partly)) / float64(s.Reviewed)
}

// Defined reports whether any citation has been reviewed.
func (s ReviewSummary) Defined() bool { return s.Reviewed > 0 }

// SummarizeReviews counts the verdicts reviews (by sentence key) hold on
// the sentences.
func SummarizeReviews(sentences []DraftSentence, reviews map[string]Review) ReviewSummary {
	sum := ReviewSummary{Sentences: len(sentences)}
	for i, s := range sentences {
		r, ok := reviews[s.Key()]
		if !ok {
			sum.Unreviewed = append(sum.Unreviewed, i+1)
			continue
		}
		sum.Reviewed++
		switch r.Verdict {
		case ReviewSupported:
			sum.Supported++
		case ReviewPartly:
			sum.Partly++
		default:
			sum.Unsupported++
		}
	}
	return sum
}

// VersionStore keeps reports' versions, reviews and statuses.
type VersionStore interface {
	// CurrentVersion returns a report's newest version, or ErrNotFound
	// when none is stored yet.
	CurrentVersion(ctx context.Context, reportID int64) (Version, error)
	// ReportVersion returns version n of a report, or ErrNotFound.
	ReportVersion(ctx context.Context, reportID int64, n int) (Version, error)
	// ReportVersions lists a report's versions, newest first.
	ReportVersions(ctx context.Context, reportID int64) ([]VersionInfo, error)
	// SaveVersion stores d as the version after base (0 when the report
	// has none yet), with info's author, time, change and restored-from,
	// and returns the stored info. It fails with *StaleVersionError when
	// base is not the newest version, with an error wrapping ErrConflict
	// when the report is approved, and with ErrNotFound when there is no
	// such report. Both checks and the write are one transaction.
	SaveVersion(ctx context.Context, reportID int64, base int, info VersionInfo, d Draft) (VersionInfo, error)

	// SaveReview records a verdict; the newest per sentence key counts.
	SaveReview(ctx context.Context, r Review) error
	// Reviews returns the newest verdict per sentence key of a report.
	Reviews(ctx context.Context, reportID int64) (map[string]Review, error)

	// Status returns a report's status; a report never moved is a draft.
	Status(ctx context.Context, reportID int64) (StatusRecord, error)
	// SetStatus moves a report to rec.Status, as of version base, and
	// records the change (with rec.Confirmed) among its status changes:
	// it fails with *StaleVersionError when base is not the newest
	// version and with ErrConflict when the move is not allowed from the
	// current status (ReportStatus.CheckMove). rec.Version is set to base.
	SetStatus(ctx context.Context, reportID int64, base int, rec StatusRecord) (StatusRecord, error)
	// StatusChanges lists a report's status changes, newest first; a
	// report never moved from draft has none.
	StatusChanges(ctx context.Context, reportID int64) ([]StatusRecord, error)
}
