// Package export writes reports in the formats analysts and evaluators
// read: the TREC NeuCLIR 2024 report JSON, the RAGTIME 2025 and TREC RAG
// 2024/2025 forms (trec.go), and Markdown with numbered
// citations. Every format says when the offline engine made the report.
package export

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// OfflineLabel is how reports made without a model are labelled.
const OfflineLabel = "offline engine"

// NeuCLIRReport is the TREC NeuCLIR 2024 report-generation format:
// request_id, run_id, collection_ids and the sentences, each with its text
// and the ids of the documents it cites. Crucible keeps provenance in an
// extra "crucible" object per sentence and at the top level; readers of
// the track's format ignore fields they do not know.
type NeuCLIRReport struct {
	RequestID     string            `json:"request_id"`
	RunID         string            `json:"run_id"`
	CollectionIDs []string          `json:"collection_ids"`
	Sentences     []NeuCLIRSentence `json:"sentences"`
	Crucible      *ReportMeta       `json:"crucible,omitempty"`
	// Format is the format the report was read in (judge.ReadReports);
	// it is not written.
	Format Format `json:"-"`
}

// NeuCLIRSentence is one sentence of a NeuCLIR report.
type NeuCLIRSentence struct {
	Text      string        `json:"text"`
	Citations []string      `json:"citations"`
	Crucible  *SentenceMeta `json:"crucible,omitempty"`
}

// SentenceMeta is a sentence's provenance.
type SentenceMeta struct {
	PassageID  string  `json:"passage_id"`
	Start      int     `json:"start"` // byte offsets of the cited span in the document
	End        int     `json:"end"`
	NuggetID   string  `json:"nugget_id"`
	Confidence float64 `json:"confidence"`
	Supported  string  `json:"supported,omitempty"`
	Covers     string  `json:"covers,omitempty"`
	// Facet is the heading the sentence stands under in the portal,
	// Markdown and print; the list stays flat, in the report's order.
	Facet string `json:"facet,omitempty"`
}

// ReportMeta describes how the report was made and what verification
// did for it (pipeline.VerificationSummary).
type ReportMeta struct {
	Engine  string `json:"engine"`
	Offline bool   `json:"offline"`
	Title   string `json:"title"`
	Limit   int    `json:"limit"`
	// Verified is set when the run verified its candidates;
	// DroppedUnsupported counts the candidate sentences it dropped as
	// unsupported, Unchecked the sentences that stand on no verification
	// and FailedCheck those that carry a failed check.
	Verified           bool `json:"verified"`
	DroppedUnsupported int  `json:"dropped_unsupported"`
	Unchecked          int  `json:"unchecked"`
	FailedCheck        int  `json:"failed_check,omitempty"`
	// RunNotes are what the run had to tell the report's readers
	// (pipeline.Report.Problems: a tolerated failure, or what limits the
	// report, such as a narrow subject); absent when there are none.
	RunNotes []string `json:"run_notes,omitempty"`
	// Facets are the things the request asks for, in its order, that the
	// sentences are grouped under; absent when the report is not grouped.
	Facets []pipeline.Facet `json:"facets,omitempty"`
	// Nuggets are the nuggets the sentences answer (their nugget_id), in
	// order of first answer: comparing two reports (crucible diff) tells
	// by their questions which nuggets one gained or lost.
	Nuggets []NuggetMeta `json:"nuggets,omitempty"`
	// Manifest records how the report was made (pipeline.Manifest:
	// corpus fingerprint, index, engine, prompt hashes, settings,
	// software); absent for reports made before manifests were kept.
	Manifest *pipeline.Manifest `json:"manifest,omitempty"`
	// Scorecard is the report's latest scorecard (pipeline.Scorecard:
	// judge, independence, nugget recall, citation support, on-topic
	// share, reviewers' support); absent when none was computed.
	Scorecard *pipeline.Scorecard `json:"scorecard,omitempty"`
}

// NuggetMeta is a nugget a report's sentences answer.
type NuggetMeta struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// IsOffline reports whether the engine label names the offline engine.
func IsOffline(engine string) bool { return strings.EqualFold(strings.TrimSpace(engine), OfflineLabel) }

// NeuCLIR converts a report. collectionIDs may be nil (an empty list is
// written). A request without an id is named by its generated id
// (pipeline.Request.GeneratedID).
func NeuCLIR(r pipeline.Report, collectionIDs []string) NeuCLIRReport {
	if collectionIDs == nil {
		collectionIDs = []string{}
	}
	out := NeuCLIRReport{
		RequestID: requestID(r), RunID: r.RunID, CollectionIDs: collectionIDs,
		Sentences: make([]NeuCLIRSentence, 0, len(r.Sentences)),
		Crucible:  reportMeta(r),
	}
	for _, s := range r.Sentences {
		out.Sentences = append(out.Sentences, NeuCLIRSentence{
			Text:      s.Text,
			Citations: []string{s.Citation.DocID},
			Crucible:  sentenceMeta(s),
		})
	}
	return out
}

// reportMeta is how the report was made (a report made before requests
// got generated ids is named by its generated id elsewhere).
func reportMeta(r pipeline.Report) *ReportMeta {
	v := r.Verification()
	return &ReportMeta{Engine: r.Engine, Offline: IsOffline(r.Engine), Title: r.Request.Title, Limit: r.Request.Limit,
		Verified: v.Verified, DroppedUnsupported: v.Dropped, Unchecked: v.Unchecked, FailedCheck: v.Failed,
		RunNotes: r.Problems, Facets: r.Facets, Nuggets: answeredNuggets(r), Manifest: r.Manifest, Scorecard: r.Scorecard}
}

// answeredNuggets lists the report's nuggets its sentences answer, in
// order of first answer; nuggets the report does not hold are left out.
func answeredNuggets(r pipeline.Report) []NuggetMeta {
	byID := make(map[string]pipeline.Nugget, len(r.Nuggets))
	for _, n := range r.Nuggets {
		byID[n.ID] = n
	}
	var out []NuggetMeta
	seen := map[string]bool{}
	for _, s := range r.Sentences {
		n, ok := byID[s.NuggetID]
		if !ok || seen[n.ID] {
			continue
		}
		seen[n.ID] = true
		out = append(out, NuggetMeta{ID: n.ID, Question: n.Question, Answer: n.Answer})
	}
	return out
}

// sentenceMeta is a sentence's provenance.
func sentenceMeta(s pipeline.Sentence) *SentenceMeta {
	return &SentenceMeta{
		PassageID: s.Citation.PassageID(), Start: s.Citation.Start, End: s.Citation.End,
		NuggetID: s.NuggetID, Confidence: s.Confidence,
		Supported: string(s.Supported), Covers: string(s.Covers), Facet: s.Facet,
	}
}

// NeuCLIRJSON is NeuCLIR encoded as indented JSON with a final newline.
func NeuCLIRJSON(r pipeline.Report, collectionIDs []string) ([]byte, error) {
	b, err := json.MarshalIndent(NeuCLIR(r, collectionIDs), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report %q: %w", r.Request.ID, err)
	}
	return append(b, '\n'), nil
}

// Reference is one numbered entry of a report's reference list: a cited
// passage.
type Reference struct {
	Number  int
	DocID   string
	Title   string
	Ordinal int
}

// Numbering numbers the cited passages in order of first citation and
// returns, per sentence, its citation number, and the reference list.
func Numbering(r pipeline.Report, titles map[string]string) (numbers []int, refs []Reference) {
	byPassage := map[string]int{}
	numbers = make([]int, len(r.Sentences))
	for i, s := range r.Sentences {
		id := s.Citation.PassageID()
		n, ok := byPassage[id]
		if !ok {
			n = len(refs) + 1
			byPassage[id] = n
			refs = append(refs, Reference{Number: n, DocID: s.Citation.DocID, Title: titles[s.Citation.DocID], Ordinal: s.Citation.Ordinal})
		}
		numbers[i] = n
	}
	return numbers, refs
}

// Markdown renders the report's text as Markdown with numbered
// citations and a reference list, without the export's appendices (see
// MarkdownWithEvidence). titles maps document ids to titles (missing ids
// show the id). Text from documents and models is escaped so it cannot
// add Markdown structure or raw HTML.
func Markdown(r pipeline.Report, titles map[string]string) string {
	return markdown(r, titles, nil, false)
}

// The sentences are one paragraph per facet: each facet's heading, a
// "## " section heading, opens a paragraph of its sentences whenever the
// facet changes from one sentence to the next.
//
// MarkdownWithEvidence is the Markdown export: Markdown with an evidence
// appendix — under each reference's number, the spans its sentences cite,
// quoted (quotes maps a citation to the text of its span; citations
// without a quote are left out; with no quotes there is no evidence
// appendix) — and the appendix "How this was made", the report's run
// manifest in words (WriteManifestMarkdown).
func MarkdownWithEvidence(r pipeline.Report, titles map[string]string, quotes map[pipeline.Citation]string) string {
	return markdown(r, titles, quotes, true)
}

func markdown(r pipeline.Report, titles map[string]string, quotes map[pipeline.Citation]string, manifest bool) string {
	var b strings.Builder
	b.WriteString("# " + escapeMarkdown(r.Request.Title) + "\n\n")
	engine := r.Engine
	if IsOffline(engine) {
		engine = "the offline engine (no language model)"
	}
	fmt.Fprintf(&b, "_Generated by Crucible with %s; run `%s`; %d of %d characters._\n\n",
		escapeMarkdown(engine), codeSpan(r.RunID), r.Length(), r.Request.Limit)
	fmt.Fprintf(&b, "_Verification: %s._\n\n", escapeMarkdown(r.Verification().Text()))
	for _, n := range r.RunNotes() {
		if n.Stage != "" {
			n.Text = n.Stage + ": " + n.Text
		}
		fmt.Fprintf(&b, "_Note from the run: %s_\n\n", escapeMarkdown(n.Text))
	}
	numbers, refs := Numbering(r, titles)
	if len(r.Sentences) == 0 {
		b.WriteString("_The report has no sentences: no supporting evidence was found._\n")
	}
	for i, s := range r.Sentences {
		switch {
		case i > 0 && s.Facet == r.Sentences[i-1].Facet:
			b.WriteByte(' ')
		case i > 0:
			b.WriteString("\n\n")
		}
		if s.Facet != "" && (i == 0 || s.Facet != r.Sentences[i-1].Facet) {
			b.WriteString("## " + escapeMarkdown(s.Facet) + "\n\n")
		}
		fmt.Fprintf(&b, "%s [%d]", escapeMarkdown(s.Text), numbers[i])
	}
	if len(r.Sentences) > 0 {
		b.WriteString("\n")
	}
	if len(refs) > 0 {
		b.WriteString("\n## References\n\n")
		for _, ref := range refs {
			title := ref.Title
			if title == "" {
				title = ref.DocID
			}
			fmt.Fprintf(&b, "%d. %s (`%s`, passage %d)\n", ref.Number, escapeMarkdown(title),
				codeSpan(ref.DocID), ref.Ordinal)
		}
	}
	writeEvidence(&b, r, numbers, quotes)
	writeScorecardMarkdown(&b, r.Scorecard)
	if manifest {
		b.WriteString("\n")
		WriteManifestMarkdown(&b, r.Manifest)
	}
	return b.String()
}

// writeEvidence writes the evidence appendix: per reference number, in
// order, each distinct cited span once, as a block quote.
func writeEvidence(b *strings.Builder, r pipeline.Report, numbers []int, quotes map[pipeline.Citation]string) {
	if len(quotes) == 0 {
		return
	}
	byRef := map[int][]string{}
	var order []int
	seen := map[pipeline.Citation]bool{}
	for i, s := range r.Sentences {
		q, ok := quotes[s.Citation]
		if !ok || seen[s.Citation] || strings.TrimSpace(q) == "" {
			continue
		}
		seen[s.Citation] = true
		n := numbers[i]
		if _, ok := byRef[n]; !ok {
			order = append(order, n)
		}
		byRef[n] = append(byRef[n], q)
	}
	if len(order) == 0 {
		return
	}
	sort.Ints(order)
	b.WriteString("\n## Evidence\n")
	for _, n := range order {
		fmt.Fprintf(b, "\n[%d]\n", n)
		for _, q := range byRef[n] {
			b.WriteString("\n> " + escapeMarkdown(strings.Join(strings.Fields(q), " ")) + "\n")
		}
	}
}

// codeSpan makes text safe inside a one-backtick code span: no backticks
// (which would end it) and no line breaks (which could start a block).
func codeSpan(s string) string {
	return strings.Map(func(c rune) rune {
		switch c {
		case '`':
			return '\''
		case '\n', '\r', '\t':
			return ' '
		}
		return c
	}, s)
}

// escapeMarkdown backslash-escapes the characters that would start
// Markdown or HTML structure, and folds newlines into spaces.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '{', '}', '!':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// CitedDocIDs lists the distinct documents a report cites, sorted.
func CitedDocIDs(r pipeline.Report) []string {
	seen := map[string]bool{}
	var ids []string
	for _, s := range r.Sentences {
		if !seen[s.Citation.DocID] {
			seen[s.Citation.DocID] = true
			ids = append(ids, s.Citation.DocID)
		}
	}
	sort.Strings(ids)
	return ids
}

// FileName is a safe file name for a report's request id.
func FileName(requestID, ext string) string {
	var b strings.Builder
	for _, c := range requestID {
		if c == '/' || c == '\\' || c < ' ' || c == ':' {
			b.WriteByte('_')
		} else {
			b.WriteRune(c)
		}
	}
	name := b.String()
	if strings.Trim(name, ".") == "" {
		name = "report"
	}
	return name + ext
}

// CollectionIDs names a collection by the files its documents came from:
// each file's base name without its corpus extensions (".jsonl.gz",
// ".jsonl", ".json", ".txt", ".md", ".html", ".gz"), once each, in the
// order given ("testdata/corpora/sotu.jsonl.gz" is "sotu").
func CollectionIDs(files []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, f := range files {
		name := f
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		for {
			ext := strings.ToLower(filepath.Ext(name))
			switch ext {
			case ".gz", ".jsonl", ".json", ".txt", ".md", ".html", ".htm":
				name = name[:len(name)-len(ext)]
				continue
			}
			break
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
