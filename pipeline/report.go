package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Request is an analyst's report request, shaped like a TREC NeuCLIR 2024
// request: a title, background on the requester, the problem statement,
// and a length limit in characters.
type Request struct {
	ID               string
	Title            string
	Background       string
	ProblemStatement string
	// Limit is the report's length limit in characters.
	Limit int
}

// Bounds of a request's fields.
const (
	MaxRequestTitleChars = 500
	MaxRequestFieldChars = 8000
	MinReportLimit       = 100
	// DefaultReportLimit is the report length, in characters, a request
	// that names none gets (the form's and the command line's default).
	DefaultReportLimit = 2000
	MaxReportLimit     = 100000
	MaxRequestIDBytes  = 200
)

// FieldErrors maps a request field ("title", "problem_statement", ...) to
// what is wrong with it. It wraps ErrInvalid.
type FieldErrors map[string]string

func (fe FieldErrors) Error() string {
	keys := make([]string, 0, len(fe))
	for k := range fe {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + fe[k]
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (fe FieldErrors) Unwrap() error { return ErrInvalid }

// Validate checks the request and returns FieldErrors naming every bad
// field, or nil. Surrounding whitespace is the caller's to trim.
func (r Request) Validate() error {
	fe := FieldErrors{}
	checkText := func(name, v string, max int, required bool) {
		n := utf8.RuneCountInString(v)
		switch {
		case !utf8.ValidString(v):
			fe[name] = "is not valid UTF-8 text"
		case required && strings.TrimSpace(v) == "":
			fe[name] = "is required"
		case n > max:
			fe[name] = fmt.Sprintf("is %d characters long; the limit is %d", n, max)
		}
	}
	checkText("title", r.Title, MaxRequestTitleChars, true)
	checkText("background", r.Background, MaxRequestFieldChars, false)
	checkText("problem_statement", r.ProblemStatement, MaxRequestFieldChars, true)
	switch {
	case len(r.ID) > MaxRequestIDBytes:
		fe["request_id"] = fmt.Sprintf("is %d bytes long; the limit is %d", len(r.ID), MaxRequestIDBytes)
	case strings.ContainsAny(r.ID, " \t\r\n/\\"):
		fe["request_id"] = "must not contain spaces or slashes (it names the output file)"
	}
	switch {
	case r.Limit < MinReportLimit:
		fe["limit"] = fmt.Sprintf("is %d; a report needs at least %d characters", r.Limit, MinReportLimit)
	case r.Limit > MaxReportLimit:
		fe["limit"] = fmt.Sprintf("is %d; the largest report is %d characters", r.Limit, MaxReportLimit)
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}

// RequestWords are the words report requests use to say what they want
// rather than what it is about ("describe", "trace", "the annual
// messages", "name the commanders"): they name no subject.
const RequestWords = "describe described describes description discuss discussed discusses discussion explain explained " +
	"explains explanation identify find information info document documents report reports reporting mention " +
	"mentioned mentions say says said statement statements relevant regarding concerning related relate relates " +
	"example examples list provide provided details detail aspects aspect know want wants interested interest " +
	"looking look learn understand overview summary summarize include includes including particular particularly " +
	"specific specifically various different kind kinds type types way ways question questions answer answers " +
	"propose proposed proposes proposal proposals " +
	"trace traces traced cover covers covering covered figure figures name names named single singled account " +
	"accounts tell told show shows shown outline assess compare note notes highlight key main feature features " +
	"event events " +
	"annual message messages address addresses speech speeches " +
	// In requests about addresses and statements, "presidents" names the
	// speakers rather than the subject.
	"president presidents presidential"

// QuestionWords are the words nugget questions use to ask rather than to
// say what they ask about ("What sum of money is given regarding ...?",
// "Which name is mentioned ...?"): with RequestWords, they name no
// subject.
const QuestionWords = "what which who whom whose when where why how many much given mentioned regarding " +
	"name named number amount sum money percentage percent date month year decade place called known"

// GeneratedID is the id a request gets when it names none: "req-" and 10
// hex digits of a hash of its text and limit, so submitting the same
// request twice gives the same id (and finds the same running job).
func (r Request) GeneratedID() string {
	h := sha256.Sum256([]byte(r.Title + "\x00" + r.Background + "\x00" + r.ProblemStatement + "\x00" + strconv.Itoa(r.Limit)))
	return "req-" + hex.EncodeToString(h[:5])
}

// Query is the retrieval query of the request: its title and problem
// statement (the background is context for the model, not for BM25).
// What the statement says to leave out stays in it: those words were
// found to lead retrieval to the request's documents (docs/pipeline.md,
// "What a request leaves aside"). A place the title names only by its
// adjective ("the Korean War") is added by its name (TitlePlaces).
func (r Request) Query() string {
	q := strings.TrimSpace(r.Title + "\n" + r.ProblemStatement)
	if places := r.TitlePlaces(); len(places) > 0 {
		q += "\n" + strings.Join(places, " ")
	}
	return q
}

// TitlePlaces are the places the request's title names only by their
// adjective or their people and that the request never writes by name
// (DemonymPlaces): the title of "The Korean War in the messages of
// Truman and Eisenhower" is about Korea, which the addresses of
// 1951-1954 name where a request writes "Korean", and the analyzer does
// not match the one to the other. An adjective the problem statement
// alone writes ("the European powers" of a request on the Monroe
// Doctrine) seldom names what the request is about, and adds nothing.
func (r Request) TitlePlaces() []string {
	return DemonymPlaces(r.Title, r.ProblemStatement)
}

// Settings are the pipeline's knobs. DefaultSettings documents the
// defaults; Validate bounds them.
type Settings struct {
	// Retrieve is the number of documents retrieved (N).
	Retrieve int
	// IdeationDocs is the number of top documents nuggets are drawn from (D).
	IdeationDocs int
	// NuggetsPerDoc bounds the nuggets asked of each document.
	NuggetsPerDoc int
	// TargetNuggets is the number of canonical nuggets paraphrase merging
	// stops at.
	TargetNuggets int
	// KeepNuggets is the number of ranked nuggets kept for scanning.
	KeepNuggets int
	// ScanCandidates stops scanning a nugget once this many candidates
	// that state its answer reach the confidence threshold (early
	// stopping): ConfidenceThreshold when above 0; at 0 the run sets it
	// from its own confidences (CalibratedThreshold records the value).
	ScanCandidates      int
	ConfidenceThreshold float64
	// CalibratedThreshold is the threshold a run with ConfidenceThreshold
	// 0 set for itself; what a request asks for is ignored.
	CalibratedThreshold float64 `json:",omitempty"`
	// FullScan reads every passage of the report's documents for every
	// kept nugget, with no early stopping (the papers' schedule).
	FullScan bool `json:",omitempty"`
	// SentencesPerNugget is k of the selection: sentences taken per nugget.
	SentencesPerNugget int
	// Verify runs the support and coverage checks (Crucible-Verified).
	Verify bool
	// Concurrency bounds the model calls in flight.
	Concurrency int
	// Reranker names the method that reranks the retrieved documents
	// before ideation (DESIGN §6: "lancer", "setr", "purecover", ...); ""
	// keeps the first-stage order. A set-selection method's chosen set is
	// the report's context: nuggets are drawn from it alone.
	Reranker string `json:",omitempty"`
	// Ranker is the id of the trained nugget ranker the rank stage used
	// (pipeline.RankerModel; 0: DefaultWeights). The run sets it from the
	// engine's active ranker; what a request asks for is ignored.
	Ranker int64 `json:",omitempty"`
	// PreferPeriod, PassageScores, SpreadSources, BestPassage,
	// ChooseSentences, FacetNuggets and FillReport switch the rules
	// Crucible adds to the papers' method (see Heuristics); nil takes the
	// engine's default, and a run records what it used.
	PreferPeriod  *bool `json:",omitempty"`
	PassageScores *bool `json:",omitempty"`
	SpreadSources *bool `json:",omitempty"`
	BestPassage   *bool `json:",omitempty"`
	// ChooseSentences, FacetNuggets, FillReport: see Heuristics.
	ChooseSentences *bool `json:",omitempty"`
	FacetNuggets    *bool `json:",omitempty"`
	FillReport      *bool `json:",omitempty"`
}

// Heuristics are the retrieval and ranking rules Crucible adds to the
// method of DESIGN §5. They were measured with the offline engine only, so
// each engine has its own defaults: none with a model (the papers'
// behaviour), those measured to help on more than one evaluation set with
// the offline engine.
type Heuristics struct {
	// PreferPeriod: when the request names a period ("1812-1815", "the
	// 1970s"), the documents dated in it among the best thousand that
	// match join the retrieved ones and their retrieval scores are
	// tripled; the evidence of nuggets drawn from documents outside it is
	// scaled down as much.
	PreferPeriod bool
	// PassageScores: a document's retrieval score is the decayed sum of
	// its best three passage scores rather than its best one (MaxP).
	PassageScores bool
	// SpreadSources: among the kept nuggets, one source document gives at
	// most two before every other source has had its turn.
	SpreadSources bool
	// BestPassage: a reranker's prompts show each candidate document's
	// best BM25 passage for the request instead of the document's opening
	// (the papers show the document, cut to a budget).
	BestPassage bool
	// ChooseSentences: assembly chooses the report's sentences across
	// nuggets by an estimate of how likely each candidate is to state a
	// wanted fact, per square root of its length, rather than taking each
	// nugget's most confident candidate in rank order (the papers'
	// assembly); the chosen sentences keep their nuggets' order.
	ChooseSentences bool
	// FacetNuggets: ideation also draws nuggets from the two best passages
	// for each facet of the request (the things its problem statement asks
	// for), among the request's best passages, and keeps them all, beyond
	// keep_nuggets; the papers draw nuggets from the top documents alone.
	FacetNuggets bool
	// FillReport: when the assembled sentences leave room within the
	// length limit, the request's best passages' sentences that share most
	// of its words and speak of its subject each give a nugget, drawn from
	// that sentence alone, and the sentence extracted for it fills the
	// room; the papers' report ends with the kept nuggets' sentences.
	FillReport bool
}

// Heuristics returns the rules the settings switch on, def filling those
// left to the engine's default.
func (s Settings) Heuristics(def Heuristics) Heuristics {
	pick := func(v *bool, d bool) bool {
		if v == nil {
			return d
		}
		return *v
	}
	return Heuristics{
		PreferPeriod:  pick(s.PreferPeriod, def.PreferPeriod),
		PassageScores: pick(s.PassageScores, def.PassageScores),
		SpreadSources: pick(s.SpreadSources, def.SpreadSources),
		BestPassage:   pick(s.BestPassage, def.BestPassage),

		ChooseSentences: pick(s.ChooseSentences, def.ChooseSentences),
		FacetNuggets:    pick(s.FacetNuggets, def.FacetNuggets),
		FillReport:      pick(s.FillReport, def.FillReport),
	}
}

// WithHeuristics returns the settings with every rule set explicitly: as
// the settings choose, else as def.
func (s Settings) WithHeuristics(def Heuristics) Settings {
	h := s.Heuristics(def)
	s.PreferPeriod, s.PassageScores, s.SpreadSources, s.BestPassage = &h.PreferPeriod, &h.PassageScores, &h.SpreadSources, &h.BestPassage
	s.ChooseSentences, s.FacetNuggets, s.FillReport = &h.ChooseSentences, &h.FacetNuggets, &h.FillReport
	return s
}

// DefaultSettings are the defaults of DESIGN §5.
func DefaultSettings() Settings {
	return Settings{
		Retrieve:            100,
		IdeationDocs:        20,
		NuggetsPerDoc:       5,
		TargetNuggets:       60,
		KeepNuggets:         20,
		ScanCandidates:      3,
		ConfidenceThreshold: 0,
		SentencesPerNugget:  1,
		Verify:              false,
		Concurrency:         16,
	}
}

// Validate returns FieldErrors for settings out of their bounds.
func (s Settings) Validate() error {
	fe := FieldErrors{}
	check := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			fe[name] = fmt.Sprintf("is %d; it must be between %d and %d", v, lo, hi)
		}
	}
	check("retrieve", s.Retrieve, 1, 1000)
	check("ideation_docs", s.IdeationDocs, 1, 200)
	check("nuggets_per_doc", s.NuggetsPerDoc, 1, 20)
	check("target_nuggets", s.TargetNuggets, 1, 1000)
	check("keep_nuggets", s.KeepNuggets, 1, 200)
	check("scan_candidates", s.ScanCandidates, 1, 50)
	check("sentences_per_nugget", s.SentencesPerNugget, 1, 10)
	check("concurrency", s.Concurrency, 1, 256)
	if !validMethodName(s.Reranker) {
		fe["reranker"] = fmt.Sprintf("%q is not a method name (lower-case letters, digits and dashes, at most 32)", s.Reranker)
	}
	if s.ConfidenceThreshold < 0 || s.ConfidenceThreshold > 1 {
		fe["confidence_threshold"] = fmt.Sprintf("is %g; it must be between 0 and 1", s.ConfidenceThreshold)
	}
	if s.IdeationDocs > s.Retrieve {
		fe["ideation_docs"] = fmt.Sprintf("is %d, more than the %d documents retrieved", s.IdeationDocs, s.Retrieve)
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}

// Nugget is a question-and-answer pair a report should cover.
type Nugget struct {
	ID       string
	Question string
	Answer   string
	// Sources are the documents the nugget (and its paraphrases) came from.
	Sources []string
	// Paraphrases are the ids of the nuggets merged into this one.
	Paraphrases []string
	// Popularity is the paraphrase count: 1 + the nuggets merged into it.
	Popularity int
	// Features are the quality features by name, and QualityScore their
	// linear combination.
	Features     map[string]float64
	QualityScore float64
	// Rank is the 1-based rank after fusing quality and popularity.
	Rank int
}

// Citation points a sentence at its evidence: a passage of a document and
// the supporting span inside it (byte offsets into the document text).
type Citation struct {
	DocID   string
	Ordinal int // passage ordinal
	Start   int
	End     int
}

// PassageID is the cited passage's id.
func (c Citation) PassageID() string { return PassageID(c.DocID, c.Ordinal) }

// Overlaps reports whether two citations cite overlapping spans of the
// same document (offsets are into the document, so spans of different
// passages compare too).
func (c Citation) Overlaps(o Citation) bool {
	return c.DocID == o.DocID && c.Start < o.End && o.Start < c.End
}

// Verdict is the outcome of a yes/no verification.
type Verdict string

// Verdicts.
const (
	VerdictUnchecked Verdict = ""
	VerdictYes       Verdict = "yes"
	VerdictNo        Verdict = "no"
)

// Candidate is one extraction: a sentence drawn from a passage for a
// nugget, with its confidence and verification verdicts.
type Candidate struct {
	NuggetID string
	Sentence string
	// Support is the passage text the model said supports the answer.
	Support  string
	Citation Citation
	// Confidence is the extraction confidence in [0, 1]: the sentence's
	// token likelihood where the model gives log-probabilities, else the
	// model's stated confidence.
	Confidence float64
	Supported  Verdict // does the cited span support the sentence?
	Covers     Verdict // does the sentence answer the nugget?
}

// Sentence is one sentence of a report with exactly one citation.
type Sentence struct {
	Text       string
	Citation   Citation
	NuggetID   string
	Confidence float64
	Supported  Verdict
	Covers     Verdict
	// Facet is the heading of the request's facet the sentence is grouped
	// under (GroupByFacet); "" when the report is not grouped.
	Facet string
}

// Report is the assembled report with the artefacts that produced it.
type Report struct {
	ID      int64
	Request Request
	// RunID names the configuration in exports (NeuCLIR "run_id").
	RunID     string
	Engine    string // "offline engine" or the model name
	Settings  Settings
	Sentences []Sentence
	Nuggets   []Nugget
	// Facets are the things the request asks for, in its order, that the
	// sentences are grouped under; nil when the report is not grouped
	// (made before grouping, or the facets could not be read).
	Facets    []Facet
	CreatedAt time.Time
	// DroppedUnsupported is the number of candidate sentences the run's
	// verification dropped as unsupported (DroppedUnsupported); 0 when
	// the run did not verify.
	DroppedUnsupported int
	// Problems are what the run has to tell the report's readers: the
	// failures it tolerated (an unparsable model answer, a fallback
	// taken) and what limits the report (a subject few of the request's
	// best passages speak of), each a sentence opening with the stage
	// ("subject: ..."). They are stored with the report, shown with it in
	// the portal and its exports, and logged.
	Problems []string
	// Scanned counts the passages the scan stage read against the papers'
	// full schedule (every kept nugget × every passage of the report's
	// documents); for logs and benchmarks, not stored.
	Scanned ScanCount
	// Manifest records how the report was made (see Manifest); nil for
	// reports made before manifests were kept.
	Manifest *Manifest
	// Scorecard is the report's latest scorecard (ScorecardStore), which
	// its exports carry; nil when none has been computed or it was not
	// loaded.
	Scorecard *Scorecard
}

// ScanCount is what a scan read: Read passage extractions of Schedule,
// the full scan's.
type ScanCount struct {
	Read, Schedule int
}

// RunNote is one of a report's Problems as its readers see it: the
// stage that met it ("Subject", "Assemble") and what it says.
type RunNote struct {
	Stage, Text string
}

// RunNotes splits the report's problems into their stage and text, the
// stage and the text each with a capital and the text ending as a
// sentence does: "subject: only 9 of ... may help" is {"Subject", "Only 9
// of ... may help."}. A problem that opens with no stage keeps its text
// whole (with a full stop) and an empty stage.
func (r Report) RunNotes() []RunNote { return RunNotesOf(r.Problems) }

// RunNotesOf is Report.RunNotes for a report's problems read on their own
// (the job list and the job page read only them).
func RunNotesOf(problems []string) []RunNote {
	out := make([]RunNote, 0, len(problems))
	for _, p := range problems {
		n := RunNote{Text: p}
		if stage, text, ok := strings.Cut(p, ": "); ok && stage != "" && strings.IndexFunc(stage, func(c rune) bool { return c < 'a' || c > 'z' }) < 0 {
			n = RunNote{Stage: upperFirstRune(stage), Text: upperFirstRune(text)}
		}
		if !strings.HasSuffix(n.Text, ".") && !strings.HasSuffix(n.Text, "?") && !strings.HasSuffix(n.Text, "!") {
			n.Text += "."
		}
		out = append(out, n)
	}
	return out
}

// Length is the report's length in characters as the limit counts it:
// the sentences joined by single spaces.
func (r Report) Length() int {
	n := 0
	for i, s := range r.Sentences {
		if i > 0 {
			n++
		}
		n += utf8.RuneCountInString(s.Text)
	}
	return n
}

// Usage counts the model calls of a job.
type Usage struct {
	Calls            int
	CacheHits        int
	PromptTokens     int
	CompletionTokens int
}

// Add records one response.
func (u *Usage) Add(r ModelResponse) {
	u.Calls++
	if r.Cached {
		u.CacheHits++
	}
	u.PromptTokens += r.PromptTokens
	u.CompletionTokens += r.CompletionTokens
}

// validMethodName reports whether name can name a reranker: empty, or up
// to 32 lower-case letters, digits and dashes. Which methods exist is the
// engine's business (pipeline/rerank).
func validMethodName(name string) bool {
	if len(name) > 32 {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
