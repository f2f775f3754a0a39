package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Format names a report format of the TREC tracks whose tools evaluate
// cited reports. The field names follow the public TREC Auto-Judge
// tooling (trec-auto-judge/auto-judge-base: report.py and
// track_specs.yml) and the TREC RAG track guidelines; docs/formats.md
// lists them.
type Format string

// The formats Crucible writes and reads.
const (
	// FormatNeuCLIR is the NeuCLIR 2024 report: request_id, run_id,
	// collection_ids and "sentences", each citing a list of document ids.
	// It is Crucible's own export and keeps all provenance.
	FormatNeuCLIR Format = "neuclir"
	// FormatRAGTIME is the RAGTIME 2025 report: a "metadata" object
	// (team_id, run_id, topic_id, collection_ids, task), "responses" whose
	// "citations" map document ids to confidence, and "references", the
	// cited documents.
	FormatRAGTIME Format = "ragtime"
	// FormatRAG24 is the TREC RAG 2024 answer: run_id, topic_id, topic,
	// "references", response_length (words) and "answer", whose
	// "citations" are zero-based indices into references.
	FormatRAG24 Format = "rag24"
	// FormatRAG25 is the TREC RAG 2025 answer: a "metadata" object
	// (team_id, run_id, type, narrative_id, narrative), "references" and
	// "answer" with indices into references.
	FormatRAG25 Format = "rag25"
)

// FormatInfo describes a format for menus and usage text.
type FormatInfo struct {
	ID    Format
	Label string
	// Ext is the file extension of one report in the format: ".json" for
	// the indented NeuCLIR object, ".jsonl" for the one-line forms the
	// tracks collect into a run file.
	Ext string
}

// Formats lists the formats, Crucible's own first.
func Formats() []FormatInfo {
	return []FormatInfo{
		{FormatNeuCLIR, "NeuCLIR 2024 (Crucible's JSON)", ".json"},
		{FormatRAGTIME, "RAGTIME 2025", ".jsonl"},
		{FormatRAG24, "TREC RAG 2024", ".jsonl"},
		{FormatRAG25, "TREC RAG 2025", ".jsonl"},
	}
}

// Info describes f; ok is false for a format Crucible does not know.
func (f Format) Info() (FormatInfo, bool) {
	for _, i := range Formats() {
		if i.ID == f {
			return i, true
		}
	}
	return FormatInfo{}, false
}

// ParseFormat reads a format name ("ragtime", "RAG25", " neuclir "). An
// empty name is FormatNeuCLIR. An unknown name is an error listing the
// known ones.
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return FormatNeuCLIR, nil
	}
	if _, ok := Format(s).Info(); ok {
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown report format %q (%s)", s, strings.Join(FormatNames(), ", "))
}

// FormatNames lists the formats' names.
func FormatNames() []string {
	var out []string
	for _, i := range Formats() {
		out = append(out, string(i.ID))
	}
	return out
}

// Run names the submission a report belongs to, as the TREC formats ask.
type Run struct {
	// TeamID is the team's id ("crucible" when empty).
	TeamID string
	// CollectionIDs name the collection searched (RAGTIME's
	// collection_ids; the NeuCLIR form's too).
	CollectionIDs []string
	// Task is RAGTIME's task: "english" (the default) or "multilingual".
	Task string
	// Type is RAG 2025's run type: "automatic" (the default) or "manual".
	Type string
}

// DefaultTeamID names the team when Run.TeamID is empty.
const DefaultTeamID = "crucible"

func (r Run) teamID() string {
	if t := strings.TrimSpace(r.TeamID); t != "" {
		return t
	}
	return DefaultTeamID
}

func (r Run) collectionIDs() []string {
	if r.CollectionIDs == nil {
		return []string{}
	}
	return r.CollectionIDs
}

// Encode writes a report in format f. FormatNeuCLIR is NeuCLIRJSON
// (indented); the other formats are one line of JSON ending in a newline,
// so that concatenated reports make the track's JSON Lines run file.
// Crucible's provenance travels in the "crucible" member of each
// sentence's "metadata" object, which the tracks' tools carry along.
func Encode(f Format, r pipeline.Report, run Run) ([]byte, error) {
	var v any
	switch f {
	case FormatNeuCLIR, "":
		return NeuCLIRJSON(r, run.CollectionIDs)
	case FormatRAGTIME:
		v = RAGTIME(r, run)
	case FormatRAG24:
		v = RAG24(r, run)
	case FormatRAG25:
		v = RAG25(r, run)
	default:
		_, err := ParseFormat(string(f))
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode report %q as %s: %w", r.Request.ID, f, err)
	}
	return append(b, '\n'), nil
}

// TRECMeta is the "metadata" object of the RAGTIME and RAG 2025 forms.
// Each form fills the members its track names; the others are omitted.
type TRECMeta struct {
	TeamID        string   `json:"team_id"`
	RunID         string   `json:"run_id"`
	TopicID       string   `json:"topic_id,omitempty"`
	RequestID     string   `json:"request_id,omitempty"`
	CollectionIDs []string `json:"collection_ids,omitempty"`
	Task          string   `json:"task,omitempty"`
	Type          string   `json:"type,omitempty"`
	NarrativeID   string   `json:"narrative_id,omitempty"`
	Narrative     string   `json:"narrative,omitempty"`
	Limit         int      `json:"limit,omitempty"`
	// Crucible says how the report was made.
	Crucible *ReportMeta `json:"crucible,omitempty"`
}

// SentenceMetadata is a TREC sentence's "metadata" object.
type SentenceMetadata struct {
	Crucible *SentenceMeta `json:"crucible,omitempty"`
}

// RAGTIMEReport is the RAGTIME 2025 form.
type RAGTIMEReport struct {
	Metadata   TRECMeta          `json:"metadata"`
	Responses  []RAGTIMESentence `json:"responses"`
	References []string          `json:"references"`
}

// RAGTIMESentence cites documents with a confidence each.
type RAGTIMESentence struct {
	Text      string             `json:"text"`
	Citations map[string]float64 `json:"citations"`
	Metadata  *SentenceMetadata  `json:"metadata,omitempty"`
}

// RAG24Report is the TREC RAG 2024 form.
type RAG24Report struct {
	RunID          string           `json:"run_id"`
	TopicID        string           `json:"topic_id"`
	Topic          string           `json:"topic"`
	References     []string         `json:"references"`
	ResponseLength int              `json:"response_length"`
	Answer         []IndexedCitings `json:"answer"`
	Crucible       *ReportMeta      `json:"crucible,omitempty"`
}

// RAG25Report is the TREC RAG 2025 form.
type RAG25Report struct {
	Metadata   TRECMeta         `json:"metadata"`
	References []string         `json:"references"`
	Answer     []IndexedCitings `json:"answer"`
}

// IndexedCitings is a RAG answer sentence: its citations are zero-based
// indices into the report's references.
type IndexedCitings struct {
	Text      string            `json:"text"`
	Citations []int             `json:"citations"`
	Metadata  *SentenceMetadata `json:"metadata,omitempty"`
}

// requestID is the report's request id, generated when it has none.
func requestID(r pipeline.Report) string {
	if r.Request.ID != "" {
		return r.Request.ID
	}
	return r.Request.GeneratedID()
}

// requestText is the request as one line of text, for the RAG forms'
// topic and narrative: the problem statement, or the title without one.
func requestText(q pipeline.Request) string {
	if t := strings.Join(strings.Fields(q.ProblemStatement), " "); t != "" {
		return t
	}
	return strings.Join(strings.Fields(q.Title), " ")
}

// sentenceMetadata wraps a sentence's provenance for a TREC sentence.
func sentenceMetadata(s pipeline.Sentence) *SentenceMetadata {
	return &SentenceMetadata{Crucible: sentenceMeta(s)}
}

// references lists the cited documents in order of first citation, and
// each document's index in the list.
func references(r pipeline.Report) ([]string, map[string]int) {
	refs := []string{}
	index := map[string]int{}
	for _, s := range r.Sentences {
		if _, ok := index[s.Citation.DocID]; !ok {
			index[s.Citation.DocID] = len(refs)
			refs = append(refs, s.Citation.DocID)
		}
	}
	return refs, index
}

// RAGTIME converts a report to the RAGTIME 2025 form. Each sentence cites
// its one document with the sentence's confidence (0 to 1, within the
// track's 0–100 range); references are the cited documents, as the track
// requires.
func RAGTIME(r pipeline.Report, run Run) RAGTIMEReport {
	id := requestID(r)
	task := strings.TrimSpace(run.Task)
	if task == "" {
		task = "english"
	}
	refs, _ := references(r)
	out := RAGTIMEReport{
		Metadata: TRECMeta{TeamID: run.teamID(), RunID: r.RunID, TopicID: id, RequestID: id,
			CollectionIDs: run.collectionIDs(), Task: task, Limit: r.Request.Limit, Crucible: reportMeta(r)},
		Responses:  make([]RAGTIMESentence, 0, len(r.Sentences)),
		References: refs,
	}
	for _, s := range r.Sentences {
		out.Responses = append(out.Responses, RAGTIMESentence{
			Text: s.Text, Citations: map[string]float64{s.Citation.DocID: s.Confidence}, Metadata: sentenceMetadata(s),
		})
	}
	return out
}

// indexed converts the sentences to RAG answer sentences.
func indexed(r pipeline.Report) ([]string, []IndexedCitings, int) {
	refs, index := references(r)
	answer := make([]IndexedCitings, 0, len(r.Sentences))
	words := 0
	for _, s := range r.Sentences {
		words += len(strings.Fields(s.Text))
		answer = append(answer, IndexedCitings{Text: s.Text, Citations: []int{index[s.Citation.DocID]}, Metadata: sentenceMetadata(s)})
	}
	return refs, answer, words
}

// RAG24 converts a report to the TREC RAG 2024 form: the topic is the
// request's problem statement (its title when it has none) and the
// references are the cited documents.
func RAG24(r pipeline.Report, _ Run) RAG24Report {
	refs, answer, words := indexed(r)
	return RAG24Report{RunID: r.RunID, TopicID: requestID(r), Topic: requestText(r.Request),
		References: refs, ResponseLength: words, Answer: answer, Crucible: reportMeta(r)}
}

// RAG25 converts a report to the TREC RAG 2025 form: the narrative is
// the request's problem statement (its title when it has none).
func RAG25(r pipeline.Report, run Run) RAG25Report {
	refs, answer, _ := indexed(r)
	typ := strings.TrimSpace(run.Type)
	if typ == "" {
		typ = "automatic"
	}
	return RAG25Report{
		Metadata: TRECMeta{TeamID: run.teamID(), RunID: r.RunID, Type: typ,
			NarrativeID: requestID(r), Narrative: requestText(r.Request), Crucible: reportMeta(r)},
		References: refs, Answer: answer,
	}
}
