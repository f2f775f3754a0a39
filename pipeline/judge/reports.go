package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/export"
)

// maxReportBytes bounds one report file. A NeuCLIR report is a few KiB;
// the bound keeps a wrong file from being read whole into memory.
const maxReportBytes = 64 << 20

// ReadReport reads a file holding exactly one report, in any of the
// formats ReadReports reads. A second report in the file is an error.
//
// name labels errors, which are *ParseError values; a JSON syntax error
// names its line ("name:LINE: ...").
func ReadReport(r io.Reader, name string) (export.NeuCLIRReport, error) {
	reps, err := readReports(r, name, 1)
	if err != nil {
		return export.NeuCLIRReport{}, err
	}
	return reps[0], nil
}

// ReadReports reads the reports of one file: one JSON object, or several
// (the JSON Lines run file the TREC tracks collect), each in any of the
// formats export.Formats lists, recognised report by report:
//
//   - NeuCLIR 2024 (Crucible's export): "request_id", "sentences" citing
//     lists of document ids;
//   - RAGTIME 2025: "metadata" (topic_id or request_id), "responses"
//     citing {document id: confidence} (read in falling confidence);
//   - TREC RAG 2024: "topic_id", "answer" citing indices into
//     "references";
//   - TREC RAG 2025: "metadata" (narrative_id), "answer" citing indices
//     into "references" or document ids.
//
// Every report comes back in the NeuCLIR form the evaluator reads, with
// Format saying which form it was written in. Crucible's provenance
// ("crucible" objects, at the top, in "metadata" or in a sentence's
// "metadata") is kept; unknown fields are ignored. Ids may be strings or
// integers. A missing or null sentence list or citation list is empty.
// Blank citations, reference numbers outside "references" and ids that
// disagree ("topic_id" and "narrative_id") are errors naming the report's
// line.
func ReadReports(r io.Reader, name string) ([]export.NeuCLIRReport, error) {
	return readReports(r, name, 0)
}

// readReports reads up to limit reports (0: any number).
func readReports(r io.Reader, name string, limit int) ([]export.NeuCLIRReport, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > maxReportBytes {
		return nil, &ParseError{File: name, Reason: fmt.Sprintf("larger than %d bytes", maxReportBytes)}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &ParseError{File: name, Reason: "empty file"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []export.NeuCLIRReport
	for {
		off := dec.InputOffset()
		rest := b[off:]
		lead := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		start := off + int64(lead)
		if start >= int64(len(b)) {
			break
		}
		if limit > 0 && len(out) == limit {
			return nil, &ParseError{File: name, Line: lineAt(b, start), Reason: "data after the report object"}
		}
		if b[start] != '{' {
			return nil, &ParseError{File: name, Line: lineAt(b, start), Reason: "not a JSON object"}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &ParseError{File: name, Line: errorLine(b, err), Reason: "bad JSON: " + jsonReason(err, b)}
		}
		rep, err := fromWire(raw)
		if err != nil {
			line := lineAt(b, start)
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				line = lineAt(b, start+te.Offset)
				err = errors.New("bad JSON: " + jsonReason(te, b))
			}
			if line == 1 {
				line = 0 // the whole of a one-report file
			}
			return nil, &ParseError{File: name, Line: line, Reason: err.Error()}
		}
		out = append(out, rep)
	}
	return out, nil
}

// wireReport is a report in any of the formats, as written.
type wireReport struct {
	RequestID     json.RawMessage    `json:"request_id"`
	TopicID       json.RawMessage    `json:"topic_id"`
	RunID         json.RawMessage    `json:"run_id"`
	CollectionIDs []string           `json:"collection_ids"`
	Sentences     []wireSentence     `json:"sentences"`
	Responses     []wireSentence     `json:"responses"`
	Answer        []wireSentence     `json:"answer"`
	References    []json.RawMessage  `json:"references"`
	Metadata      *wireMeta          `json:"metadata"`
	Crucible      *export.ReportMeta `json:"crucible"`
}

// wireMeta is the "metadata" object of the RAGTIME and RAG 2025 forms.
type wireMeta struct {
	RunID         json.RawMessage    `json:"run_id"`
	TopicID       json.RawMessage    `json:"topic_id"`
	RequestID     json.RawMessage    `json:"request_id"`
	NarrativeID   json.RawMessage    `json:"narrative_id"`
	CollectionIDs []string           `json:"collection_ids"`
	Crucible      *export.ReportMeta `json:"crucible"`
}

// wireSentence is a sentence of any format; Citations is read by
// citations.
type wireSentence struct {
	Text      string               `json:"text"`
	Citations json.RawMessage      `json:"citations"`
	Crucible  *export.SentenceMeta `json:"crucible"`
	Metadata  json.RawMessage      `json:"metadata"`
}

// fromWire converts one report object to the NeuCLIR form.
func fromWire(raw json.RawMessage) (export.NeuCLIRReport, error) {
	var w wireReport
	if err := json.Unmarshal(raw, &w); err != nil {
		return export.NeuCLIRReport{}, err
	}
	rep := export.NeuCLIRReport{Format: export.FormatNeuCLIR, CollectionIDs: w.CollectionIDs, Crucible: w.Crucible}
	ids := []struct {
		field string
		raw   json.RawMessage
	}{{"request_id", w.RequestID}, {"topic_id", w.TopicID}}
	run := w.RunID
	sentences := w.Sentences
	switch {
	case w.Metadata != nil:
		m := w.Metadata
		ids = append(ids, []struct {
			field string
			raw   json.RawMessage
		}{{"metadata.topic_id", m.TopicID}, {"metadata.request_id", m.RequestID}, {"metadata.narrative_id", m.NarrativeID}}...)
		if len(bytes.TrimSpace(run)) == 0 {
			run = m.RunID
		}
		if rep.CollectionIDs == nil {
			rep.CollectionIDs = m.CollectionIDs
		}
		if rep.Crucible == nil {
			rep.Crucible = m.Crucible
		}
		rep.Format, sentences = export.FormatRAGTIME, w.Responses
		if w.Responses == nil && w.Answer != nil {
			rep.Format, sentences = export.FormatRAG25, w.Answer
		}
	case w.Sentences == nil && w.Answer != nil:
		rep.Format, sentences = export.FormatRAG24, w.Answer
	case w.Sentences == nil && w.Responses != nil:
		rep.Format, sentences = export.FormatRAGTIME, w.Responses
	}
	var idField string
	for _, c := range ids {
		v, ok := idValue(c.raw)
		if !ok {
			return rep, fmt.Errorf("%s is neither a string nor a whole number", c.field)
		}
		switch {
		case v == "":
		case rep.RequestID == "":
			rep.RequestID, idField = v, c.field
		case v != rep.RequestID:
			return rep, fmt.Errorf("%s %q and %s %q name different requests", idField, rep.RequestID, c.field, v)
		}
	}
	if rep.RequestID == "" {
		return rep, errors.New("missing request_id (or topic_id, or narrative_id in metadata)")
	}
	runID, ok := idValue(run)
	if !ok {
		return rep, errors.New("run_id is neither a string nor a whole number")
	}
	rep.RunID = runID
	refs := make([]string, len(w.References))
	for i, r := range w.References {
		v, ok := idValue(r)
		if !ok || v == "" {
			return rep, fmt.Errorf("reference %d is not a document id", i)
		}
		refs[i] = v
	}
	if rep.CollectionIDs == nil {
		rep.CollectionIDs = []string{}
	}
	rep.Sentences = make([]export.NeuCLIRSentence, 0, len(sentences))
	for i, s := range sentences {
		cites, err := citations(s.Citations, refs)
		if err != nil {
			return rep, fmt.Errorf("sentence %d: %v", i+1, err)
		}
		meta := s.Crucible
		if meta == nil && len(s.Metadata) > 0 {
			var m struct {
				Crucible *export.SentenceMeta `json:"crucible"`
			}
			if json.Unmarshal(s.Metadata, &m) == nil {
				meta = m.Crucible
			}
		}
		rep.Sentences = append(rep.Sentences, export.NeuCLIRSentence{Text: s.Text, Citations: cites, Crucible: meta})
	}
	return rep, nil
}

// citations reads a sentence's citations as document ids, most
// confident first: a list of document ids, a list of zero-based indices
// into refs, or an object of document ids and confidences.
func citations(raw json.RawMessage, refs []string) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []string{}, nil
	}
	switch raw[0] {
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("citations: %v", err)
		}
		out := make([]string, 0, len(list))
		for j, c := range list {
			c = bytes.TrimSpace(c)
			if len(c) > 0 && c[0] == '"' {
				var id string
				if err := json.Unmarshal(c, &id); err != nil {
					return nil, fmt.Errorf("citation %d: %v", j+1, err)
				}
				if id = strings.TrimSpace(id); id == "" {
					return nil, fmt.Errorf("citation %d is blank", j+1)
				}
				out = append(out, id)
				continue
			}
			n, err := strconv.Atoi(string(c))
			if err != nil {
				return nil, fmt.Errorf("citation %d is %s: neither a document id nor a reference number", j+1, c)
			}
			if len(refs) == 0 {
				return nil, fmt.Errorf("citation %d is reference number %d, but the report has no references", j+1, n)
			}
			if n < 0 || n >= len(refs) {
				return nil, fmt.Errorf("citation %d is reference number %d; the report has references 0 to %d", j+1, n, len(refs)-1)
			}
			out = append(out, refs[n])
		}
		return out, nil
	case '{':
		var m map[string]float64
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, errors.New("citations: an object must map document ids to confidence numbers")
		}
		out := make([]string, 0, len(m))
		for id := range m {
			if strings.TrimSpace(id) == "" {
				return nil, errors.New("a citation's document id is blank")
			}
			out = append(out, id)
		}
		sort.Slice(out, func(a, b int) bool {
			if m[out[a]] != m[out[b]] {
				return m[out[a]] > m[out[b]]
			}
			return out[a] < out[b]
		})
		for j := range out {
			out[j] = strings.TrimSpace(out[j])
		}
		return out, nil
	}
	return nil, fmt.Errorf("citations are %s: a list of document ids or reference numbers, or an object of document ids and confidences, belongs there", firstWord(raw))
}

// firstWord names a JSON value by its kind, for messages.
func firstWord(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	default:
		return "a number"
	}
}

// ReadReportFile reads the reports of one file with ReadReports, naming
// errors by its path.
func ReadReportFile(path string) ([]export.NeuCLIRReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open report: %w", err)
	}
	defer f.Close()
	return ReadReports(f, path)
}

// ReadReportsPath reads the reports at path: a folder (ReadReportDir) or
// one file of one or more reports (a run file), by request id. Two
// reports of one request are an error.
func ReadReportsPath(path string) (map[string]export.NeuCLIRReport, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read reports: %w", err)
	}
	if st.IsDir() {
		return ReadReportDir(path)
	}
	reps, err := ReadReportFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]export.NeuCLIRReport{}
	if err := addReports(out, map[string]string{}, reps, path); err != nil {
		return nil, err
	}
	return out, nil
}

// addReports adds reps, read from path, to out; from names the file of
// each request already read.
func addReports(out map[string]export.NeuCLIRReport, from map[string]string, reps []export.NeuCLIRReport, path string) error {
	for _, rep := range reps {
		if prev, dup := from[rep.RequestID]; dup {
			if prev == path {
				return &ParseError{File: path, Reason: fmt.Sprintf("request_id %q has two reports in the file", rep.RequestID)}
			}
			return &ParseError{File: path, Reason: fmt.Sprintf("request_id %q is also the request of %s", rep.RequestID, prev)}
		}
		from[rep.RequestID] = path
		out[rep.RequestID] = rep
	}
	return nil
}

// ReadReportDir reads every "*.json" and "*.jsonl" file directly inside
// dir (the layout `crucible report --requests` writes: one
// "<request_id>.json" per request; or run files of many reports) and
// returns the reports by request id. Reports are keyed by the request id
// inside the file, not by the file name, since export.FileName may have
// had to change characters of the id. Two reports of one request, a
// directory with no report file and any unreadable file are errors naming
// the files.
func ReadReportDir(dir string) (map[string]export.NeuCLIRReport, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read report directory: %w", err)
	}
	out := map[string]export.NeuCLIRReport{}
	from := map[string]string{}
	var names []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".json" && ext != ".jsonl") {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, &ParseError{File: dir, Reason: "no .json or .jsonl report files"}
	}
	for _, n := range names {
		path := filepath.Join(dir, n)
		reps, err := ReadReportFile(path)
		if err != nil {
			return nil, err
		}
		if err := addReports(out, from, reps, path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// errorLine finds the 1-based line of a decoding error, 0 when unknown.
func errorLine(b []byte, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineAt(b, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return lineAt(b, te.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return lineAt(b, int64(len(b)))
	}
	return 0
}

// lineAt is the 1-based line holding byte offset off of b.
func lineAt(b []byte, off int64) int {
	if off < 0 {
		off = 0
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}
