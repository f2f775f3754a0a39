package crucible

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// newRun prepares a run of the engine for one request outside Generate.
func (e *Engine) newRun(req pipeline.Request, s pipeline.Settings) *run {
	return &run{
		e: e, req: req, s: s.WithHeuristics(e.Defaults), h: s.Heuristics(e.Defaults), obs: nopObserver{},
		info: prompts.RequestInfo{ID: req.ID, Title: req.Title, Background: req.Background,
			ProblemStatement: req.ProblemStatement, Limit: req.Limit},
		model:     &meter{next: e.Model},
		docs:      map[string]pipeline.Document{},
		passages:  map[string][]pipeline.Passage{},
		sentences: map[string][]sentenceInfo{},
	}
}

// Verification is the outcome of re-running verification on one sentence.
type Verification struct {
	// Supported says whether the cited span supports the sentence, Covers
	// whether the sentence answers its nugget; VerdictUnchecked when the
	// check could not run (no nugget) or the model's answer could not be
	// read (Problems says so).
	Supported pipeline.Verdict
	Covers    pipeline.Verdict
	Problems  []string
	Usage     pipeline.Usage
}

// VerifySentence runs the support and coverage checks of the verification
// stage (DESIGN §5, step 6) on one sentence: does the text its citation
// marks support it, and does it answer nugget n (nil: the coverage check
// is skipped). The cited document must still be stored.
func (e *Engine) VerifySentence(ctx context.Context, s pipeline.Sentence, n *pipeline.Nugget) (Verification, error) {
	r := e.newRun(pipeline.Request{}, pipeline.DefaultSettings())
	doc, err := r.document(ctx, s.Citation.DocID)
	if err != nil {
		return Verification{}, fmt.Errorf("verify: cited document %q: %w", s.Citation.DocID, err)
	}
	ps, err := r.passagesOf(ctx, s.Citation.DocID)
	if err != nil {
		return Verification{}, fmt.Errorf("verify: passages of %q: %w", s.Citation.DocID, err)
	}
	passage := ""
	for _, p := range ps {
		if p.Ordinal == s.Citation.Ordinal {
			passage = p.Text
		}
	}
	support, ok := spanText(doc.Text, s.Citation.Start, s.Citation.End)
	if !ok {
		return Verification{}, pipeline.Invalidf("the cited span (bytes %d–%d) lies outside document %q, which has changed since it was cited",
			s.Citation.Start, s.Citation.End, s.Citation.DocID)
	}
	var out Verification
	sup, resp, ok, err := complete(ctx, r, prompts.BuildVerifySupport(supportInput(doc, s.Text, support, passage)),
		prompts.ParseVerifySupport)
	if err != nil {
		return Verification{}, err
	}
	if ok {
		out.Supported = verdict(yesConfidence(sup.Yes, resp))
	}
	if n != nil {
		cov, resp, ok, err := complete(ctx, r, prompts.BuildVerifyCoverage(prompts.VerifyCoverageInput{
			Nugget: prompts.QA{Question: n.Question, Answer: n.Answer}, Sentence: s.Text,
		}), prompts.ParseVerifyCoverage)
		if err != nil {
			return Verification{}, err
		}
		if ok {
			out.Covers = verdict(yesConfidence(cov.Yes, resp))
		}
	}
	out.Problems, out.Usage = r.problems, r.model.usage()
	return out, nil
}

// spanText is text[start:end], widened to whole characters; ok is false
// when the span is empty or outside the text.
func spanText(text string, start, end int) (string, bool) {
	if start < 0 || end > len(text) || start >= end {
		return "", false
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	return text[start:end], true
}

// RegenerateInput is what regenerating a report's changed nuggets needs.
type RegenerateInput struct {
	Request  pipeline.Request
	Settings pipeline.Settings
	// Retrieved are the documents of the report's job in rank order: the
	// passages scanned are theirs.
	Retrieved []pipeline.RetrievedDoc
	// Nuggets is the report's bank in rank order (Rank set).
	Nuggets []pipeline.Nugget
	// Changed are the ids of the bank's nuggets to scan for again.
	Changed []string
	// Sentences are the report's current sentences.
	Sentences []pipeline.DraftSentence
	// Facets are the report's facets (pipeline.Report.Facets): new
	// sentences are grouped under them. Without facets they go by their
	// nugget's rank.
	Facets []pipeline.Facet
}

// RegenerateResult is a regenerated report text.
type RegenerateResult struct {
	Sentences []pipeline.DraftSentence
	// Candidates are the candidates scanning found for the changed
	// nuggets (verified when the settings say so).
	Candidates []pipeline.Candidate
	// Added counts the new sentences, Dropped the sentences removed: of
	// changed nuggets and of nuggets no longer in the bank.
	Added, Dropped int
	// DroppedUnsupported counts the changed nuggets' candidates that
	// verification dropped (pipeline.DroppedUnsupported).
	DroppedUnsupported int
	// Unanswered are the changed nuggets that got no sentence, and
	// Reasons says why of each, by nugget id.
	Unanswered []string
	Reasons    map[string]NoSentence
	Problems   []string
	Usage      pipeline.Usage
}

// NoSentence is why regeneration gave a changed nugget no sentence.
type NoSentence struct {
	Why NoSentenceReason
	// Candidates counts the candidate sentences scanning found for it.
	Candidates int
	// Read is how many passages scanning read for it; 0 when not known
	// (several nuggets were scanned together).
	Read int
	// Repeats is the number (1-based, in the regenerated text) of the
	// sentence its candidate repeats, for NoSentenceRepeats.
	Repeats int
	// Needs is the length of its shortest candidate and Left what the
	// length limit left, in characters, for NoSentenceNoRoom.
	Needs, Left int
}

// NoSentenceReason names why a nugget got no sentence.
type NoSentenceReason string

// Reasons a changed nugget gets no sentence.
const (
	// NoSentenceNotFound: no passage scanning read states its answer.
	NoSentenceNotFound NoSentenceReason = "not_found"
	// NoSentenceUnsupported: every candidate failed verification (or was
	// not reached by it).
	NoSentenceUnsupported NoSentenceReason = "unsupported"
	// NoSentenceRepeats: its candidate says what a sentence of the
	// report already says, or cites the span that sentence cites: the
	// report answers it already.
	NoSentenceRepeats NoSentenceReason = "repeats"
	// NoSentenceNoRoom: its candidates are longer than what the report's
	// length limit leaves.
	NoSentenceNoRoom NoSentenceReason = "no_room"
)

// Regenerate re-runs scanning, extraction, verification (when the
// settings ask for it) and assembly for the changed nuggets only, and
// keeps every other sentence as it is, in its place:
//
//   - sentences of changed nuggets and of nuggets no longer in the bank
//     are dropped; sentences without a nugget (quoted from a document by
//     hand) stay;
//   - the changed nuggets' new sentences are assembled as the pipeline
//     does (the k most confident per nugget that pass verification, no
//     duplicate of a kept sentence) within what the length limit leaves;
//   - in a report grouped under facets, each new sentence is grouped as
//     the pipeline groups (pipeline.GroupByFacet) and goes into its
//     facet's sentences by the year of the document it cites
//     (pipeline.FacetMatcher.FacetPlace); otherwise it goes after the last
//     sentence of a nugget ranked no lower (pipeline.Draft.Place) and takes
//     the facet of the sentence before it.
func (e *Engine) Regenerate(ctx context.Context, in RegenerateInput) (RegenerateResult, error) {
	if err := in.Settings.Validate(); err != nil {
		return RegenerateResult{}, err
	}
	if len(in.Changed) == 0 && !hasOrphans(in) {
		return RegenerateResult{}, pipeline.Invalidf("nothing to regenerate: no nugget was added, edited or removed since the sentences were made")
	}
	r := e.newRun(in.Request, in.Settings)
	// Regeneration answers a page's request: it reads at most
	// regenerateScanLimit promising passages per changed nugget, whatever
	// the engine's limit or the report's full scan, which could hold the
	// page for minutes with a model.
	r.s.FullScan = false
	r.scanCap = regenerateScanLimit
	changed := map[string]bool{}
	for _, id := range in.Changed {
		changed[id] = true
	}
	bank := map[string]bool{}
	var todo []pipeline.Nugget
	for i, n := range in.Nuggets {
		bank[n.ID] = true
		n.Rank = i + 1
		if changed[n.ID] {
			todo = append(todo, n)
		}
	}
	if len(todo) < len(changed) {
		return RegenerateResult{}, pipeline.Invalidf("%d of the changed nuggets are not in the bank", len(changed)-len(todo))
	}

	var res RegenerateResult
	draft := pipeline.Draft{}
	for i, n := range in.Nuggets {
		n.Rank = i + 1
		draft.Nuggets = append(draft.Nuggets, pipeline.DraftNugget{Nugget: n})
	}
	for _, s := range in.Sentences {
		if s.NuggetID != "" && (changed[s.NuggetID] || !bank[s.NuggetID]) {
			res.Dropped++
			continue
		}
		draft.Sentences = append(draft.Sentences, s)
	}

	if len(todo) > 0 {
		if len(in.Retrieved) == 0 {
			return RegenerateResult{}, pipeline.Invalidf("the report's job has no retrieved documents to scan")
		}
		cands, err := r.scan(ctx, todo, in.Retrieved)
		if err != nil {
			return RegenerateResult{}, &StageError{Stage: StageScan, Err: err}
		}
		read := 0
		if len(todo) == 1 {
			read = r.scanned.Read
		}
		if in.Settings.Verify {
			if cands, err = r.verify(ctx, todo, cands); err != nil {
				return RegenerateResult{}, &StageError{Stage: StageVerify, Err: err}
			}
		}
		res.Candidates = cands
		res.DroppedUnsupported = pipeline.DroppedUnsupported(todo, cands)

		// New sentences must not repeat a kept one (its words, or the
		// span it cites), and must fit in what the limit leaves: one
		// space joins them to the kept text.
		seen := map[string]bool{}
		for _, s := range draft.Sentences {
			seen[e.SentenceKey(s.Text)] = true
		}
		fresh := slices.DeleteFunc(slices.Clone(cands), func(c pipeline.Candidate) bool {
			return seen[e.SentenceKey(c.Sentence)] || slices.ContainsFunc(draft.Sentences, func(s pipeline.DraftSentence) bool {
				return s.Citation.Overlaps(c.Citation)
			})
		})
		room := in.Request.Limit - draft.Length()
		if len(draft.Sentences) > 0 {
			room--
		}
		picked := pipeline.Assemble(todo, fresh, pipeline.AssembleOptions{
			K: in.Settings.SentencesPerNugget, Limit: room, Key: e.SentenceKey, Verified: in.Settings.Verify,
		})
		answered := map[string]bool{}
		facets, err := r.facetMatcher(ctx, in.Facets)
		if err != nil {
			return res, err
		}
		years := map[string]int{}
		for _, s := range draft.Sentences {
			years[s.Citation.DocID] = r.documentYear(ctx, s.Citation.DocID)
		}
		items := r.facetItems(ctx, todo, cands, picked)
		for i, s := range picked {
			var at int
			if facets.Empty() {
				at = draft.Place(s.NuggetID)
				s.Facet = draft.FacetFor(s.NuggetID, at)
			} else {
				s.Facet = facets.Assign(items[i].About, items[i].Author)
				years[s.Citation.DocID] = items[i].Year
				at = facets.FacetPlace(draft.Sentences, s.Facet, items[i].Year, years)
			}
			draft.Sentences = slices.Insert(draft.Sentences, at, pipeline.DraftSentence{Sentence: s})
			answered[s.NuggetID] = true
			res.Added++
		}
		for _, n := range todo {
			if !answered[n.ID] {
				res.Unanswered = append(res.Unanswered, n.ID)
				if res.Reasons == nil {
					res.Reasons = map[string]NoSentence{}
				}
				ns := e.noSentence(n.ID, cands, draft.Sentences, in.Settings.Verify, in.Request.Limit)
				ns.Read = read
				res.Reasons[n.ID] = ns
			}
		}
	}
	res.Sentences = draft.Sentences
	res.Problems, res.Usage = r.problems, r.model.usage()
	return res, nil
}

// noSentence says why the nugget with the id got no sentence in the
// regenerated text: no candidate; none eligible (verification); its
// best eligible candidate repeats a sentence of the text (its words, or
// the span it cites), which then answers it already; or none fits in
// what the length limit leaves.
func (e *Engine) noSentence(id string, cands []pipeline.Candidate, text []pipeline.DraftSentence, verified bool, limit int) NoSentence {
	var ns NoSentence
	var eligible []pipeline.Candidate
	for _, c := range cands {
		if c.NuggetID != id || c.Sentence == "" {
			continue
		}
		ns.Candidates++
		if c.Eligible(verified) {
			eligible = append(eligible, c)
		}
	}
	switch {
	case ns.Candidates == 0:
		ns.Why = NoSentenceNotFound
		return ns
	case len(eligible) == 0:
		ns.Why = NoSentenceUnsupported
		return ns
	}
	slices.SortStableFunc(eligible, func(a, b pipeline.Candidate) int { return cmp.Compare(b.Confidence, a.Confidence) })
	for _, c := range eligible {
		key := e.SentenceKey(c.Sentence)
		for i, s := range text {
			if s.Citation.Overlaps(c.Citation) || e.SentenceKey(s.Text) == key {
				ns.Why, ns.Repeats = NoSentenceRepeats, i+1
				return ns
			}
		}
	}
	ns.Why = NoSentenceNoRoom
	length := pipeline.Draft{Sentences: text}.Length()
	ns.Left = max(limit-length, 0)
	if len(text) > 0 {
		ns.Left = max(ns.Left-1, 0) // the space that joins it
	}
	for _, c := range eligible {
		if n := utf8.RuneCountInString(c.Sentence); ns.Needs == 0 || n < ns.Needs {
			ns.Needs = n
		}
	}
	return ns
}

// unansweredText says, for the history, which changed nugget got no
// sentence and why, naming each by its question (bank) rather than its
// id: "no sentence found for “…”: none of the 24 passages read states
// its answer", "“…” is answered by sentence 4 already", "no room for the
// sentence found for “…”: 312 characters, 79 left under the limit", "the
// 3 candidate sentences for “…” failed verification". The questions are
// cut shorter when the parts, joined by "; ", would not fit in room
// characters (a version's change is pipeline.MaxChangeChars at most).
func (res RegenerateResult) unansweredText(bank []pipeline.Nugget, room int) []string {
	var parts []string
	for _, cut := range []int{regenerateQuestionChars, 60, 40, 24} {
		parts = res.unansweredParts(bank, cut)
		if utf8.RuneCountInString(strings.Join(parts, "; ")) <= room {
			break
		}
	}
	return parts
}

// unansweredParts is unansweredText with the questions cut to cut
// characters.
func (res RegenerateResult) unansweredParts(bank []pipeline.Nugget, cut int) []string {
	questions := make(map[string]string, len(bank))
	for _, n := range bank {
		questions[n.ID] = n.Question
	}
	name := func(id string) string {
		if q := questions[id]; q != "" {
			return "“" + shorten(q, cut) + "”"
		}
		return "a removed nugget"
	}
	var notFound, parts []string
	read := 0
	for _, id := range res.Unanswered {
		ns := res.Reasons[id]
		switch ns.Why {
		case NoSentenceRepeats:
			parts = append(parts, fmt.Sprintf("%s is answered by sentence %d already", name(id), ns.Repeats))
		case NoSentenceNoRoom:
			parts = append(parts, fmt.Sprintf("no room for the sentence found for %s: %s, %s left under the limit",
				name(id), characters(ns.Needs), pipeline.Thousands(ns.Left)))
		case NoSentenceUnsupported:
			parts = append(parts, fmt.Sprintf("the %d %s for %s failed verification", ns.Candidates,
				plural(ns.Candidates, "candidate sentence", "candidate sentences"), name(id)))
		default:
			notFound = append(notFound, name(id))
			read = ns.Read
		}
	}
	if len(notFound) > 0 {
		text := "no sentence found for " + strings.Join(notFound, ", ")
		if len(notFound) == 1 && read > 0 {
			text += fmt.Sprintf(": none of the %d %s read states its answer", read, plural(read, "passage", "passages"))
		}
		parts = append([]string{text}, parts...)
	}
	return parts
}

// characters is "1,312 characters".
func characters(n int) string {
	return pipeline.Thousands(n) + " " + plural(n, "character", "characters")
}

// hasOrphans reports whether a sentence answers a nugget no longer in the
// bank.
func hasOrphans(in RegenerateInput) bool {
	bank := map[string]bool{}
	for _, n := range in.Nuggets {
		bank[n.ID] = true
	}
	for _, s := range in.Sentences {
		if s.NuggetID != "" && !bank[s.NuggetID] {
			return true
		}
	}
	return false
}
