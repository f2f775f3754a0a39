package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Importance is how much a gold nugget matters to its request.
type Importance string

const (
	// Vital nuggets must be in a good report.
	Vital Importance = "vital"
	// Okay nuggets are worth having. It is the default: a nugget file that
	// does not grade its nuggets (SummHay's does not) claims none of them
	// is vital, and its vital nugget recall is then undefined (see
	// Summary.VitalRequests).
	Okay Importance = "okay"
)

// Nugget is one gold nugget of a request: either a question with the
// answers that count ("answer nugget"), or a claim a report should state
// ("claim nugget"). A line may give both; the answers are then what the
// offline judge matches and the claim is shown to the model judge.
type Nugget struct {
	RequestID string `json:"request_id"`
	ID        string `json:"nugget_id"`
	Question  string `json:"question,omitempty"`
	// Answers are the acceptable answers, in file order, none blank.
	Answers []string `json:"answers,omitempty"`
	// Text is the claim of a claim nugget.
	Text       string     `json:"text,omitempty"`
	Importance Importance `json:"importance"`
	// Name is an optional short label (SummHay's insight names).
	Name string `json:"name,omitempty"`
	// DocIDs are the documents known to hold the nugget, when the file
	// lists them. Metrics do not use them; a UI may show them.
	DocIDs []string `json:"docids,omitempty"`
}

// IsClaim reports whether the nugget is judged as a claim: it has no
// answers.
func (n Nugget) IsClaim() bool { return len(n.Answers) == 0 }

// Label is the nugget's text for display: the question (with its first
// answer) or the claim.
func (n Nugget) Label() string {
	if n.IsClaim() {
		return n.Text
	}
	if n.Question == "" {
		return strings.Join(n.Answers, " | ")
	}
	return n.Question + " — " + n.Answers[0]
}

// ParseError reports a malformed line or file. Its message is
// "FILE:LINE: reason" (or "FILE: reason" when no line applies); it wraps
// pipeline.ErrInvalid.
type ParseError struct {
	File   string
	Line   int // 1-based; 0 when the error concerns the whole file
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// Unwrap lets callers test with errors.Is(err, pipeline.ErrInvalid).
func (e *ParseError) Unwrap() error { return pipeline.ErrInvalid }

// maxLineBytes bounds one nugget line; real lines are a few KiB.
const maxLineBytes = 4 << 20

// nuggetLine is a nugget line as written. Ids may be strings or integers;
// answers a list of strings or one string.
type nuggetLine struct {
	RequestID  json.RawMessage `json:"request_id"`
	QID        json.RawMessage `json:"qid"`
	NuggetID   json.RawMessage `json:"nugget_id"`
	Question   *string         `json:"question"`
	Answers    json.RawMessage `json:"answers"`
	Text       *string         `json:"text"`
	Importance *string         `json:"importance"`
	Name       *string         `json:"name"`
	DocIDs     []string        `json:"docids"`
}

// ReadNuggets reads gold nuggets from JSON Lines, one nugget per line:
//
//	{"request_id": "r1", "nugget_id": "n1", "question": "...", "answers": ["...", "..."], "importance": "vital"}
//	{"qid": "r1", "nugget_id": "n2", "text": "a claim ...", "docids": ["d1"]}
//
// The request id is read from "request_id" or, failing that, "qid" (the
// SummHay files); both may be strings or integers, and when both are given
// they must agree. Every nugget needs a nugget id, unique within its
// request, and either a non-empty "answers" list (a single string is one
// answer; no answer may be blank) or a non-blank "text". "importance" is
// "vital" or "okay" in any case, and Okay when absent or null. "question",
// "name" and "docids" are optional; other fields are ignored. Blank lines
// are skipped; a UTF-8 byte order mark and CR line ends are tolerated.
//
// name labels errors, which are *ParseError values "name:LINE: reason".
// Nuggets come back in file order.
func ReadNuggets(r io.Reader, name string) ([]Nugget, error) {
	br := bufio.NewReader(r)
	var out []Nugget
	seen := map[string]map[string]int{} // request → nugget id → line
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				return nil, &ParseError{File: name, Line: lineNo, Reason: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			n, reason := parseNugget(t)
			if reason != "" {
				return nil, &ParseError{File: name, Line: lineNo, Reason: reason}
			}
			ids := seen[n.RequestID]
			if ids == nil {
				ids = map[string]int{}
				seen[n.RequestID] = ids
			}
			if prev, dup := ids[n.ID]; dup {
				return nil, &ParseError{File: name, Line: lineNo,
					Reason: fmt.Sprintf("duplicate nugget_id %q for request %q (first on line %d)", n.ID, n.RequestID, prev)}
			}
			ids[n.ID] = lineNo
			out = append(out, n)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
	}
}

// ReadNuggetsFile reads a nugget file with ReadNuggets, naming errors by
// its path.
func ReadNuggetsFile(path string) ([]Nugget, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open nuggets: %w", err)
	}
	defer f.Close()
	return ReadNuggets(f, path)
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its line end. At the end of the input it
// returns the last (possibly empty) line with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLineBytes {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}

// parseNugget reads one non-blank line; reason is non-empty when it is
// malformed.
func parseNugget(b []byte) (n Nugget, reason string) {
	if b[0] != '{' {
		return n, "not a JSON object"
	}
	var l nuggetLine
	if err := json.Unmarshal(b, &l); err != nil {
		return n, "bad JSON: " + jsonReason(err, b)
	}
	reqID, ok := idValue(l.RequestID)
	if !ok {
		return n, "request_id must be a string or an integer"
	}
	qid, ok := idValue(l.QID)
	if !ok {
		return n, "qid must be a string or an integer"
	}
	switch {
	case reqID != "" && qid != "" && reqID != qid:
		return n, fmt.Sprintf("request_id %q and qid %q disagree", reqID, qid)
	case reqID == "":
		reqID = qid
	}
	if reqID == "" {
		return n, "missing request_id (or qid)"
	}
	n.RequestID = reqID
	if n.ID, ok = idValue(l.NuggetID); !ok {
		return n, "nugget_id must be a string or an integer"
	}
	if n.ID == "" {
		return n, "missing nugget_id"
	}
	if l.Question != nil {
		n.Question = strings.TrimSpace(*l.Question)
	}
	if l.Text != nil {
		n.Text = strings.TrimSpace(*l.Text)
	}
	if l.Name != nil {
		n.Name = strings.TrimSpace(*l.Name)
	}
	n.DocIDs = l.DocIDs
	answers, reason := answerList(l.Answers)
	if reason != "" {
		return n, reason
	}
	n.Answers = answers
	if len(n.Answers) == 0 && n.Text == "" {
		return n, fmt.Sprintf("nugget %q has neither answers nor text", n.ID)
	}
	n.Importance = Okay
	if l.Importance != nil {
		switch Importance(strings.ToLower(strings.TrimSpace(*l.Importance))) {
		case Vital:
			n.Importance = Vital
		case Okay:
		default:
			return n, fmt.Sprintf("importance %q is neither %q nor %q", *l.Importance, Vital, Okay)
		}
	}
	return n, ""
}

// answerList reads "answers": absent, null, a string or a list of strings.
func answerList(raw json.RawMessage) ([]string, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var list []string
	if raw[0] == '"' {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, "answers: " + jsonReason(err, raw)
		}
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "answers must be a list of strings"
	}
	for i, a := range list {
		list[i] = strings.TrimSpace(a)
		if list[i] == "" {
			return nil, fmt.Sprintf("answers[%d] is blank", i)
		}
	}
	if len(list) == 0 {
		return nil, ""
	}
	return list, ""
}

// idValue reads an id written as a string or an integer; absent and null
// give "". ok is false for any other JSON value.
func idValue(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return strings.TrimSpace(s), true
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return string(raw), true
	}
	return "", false
}

// jsonReason shortens a decoding error of the JSON text b to what was
// wrong, with the column (1-based, in bytes, on its line) of a syntax
// error.
func jsonReason(err error, b []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at column %d)", se, columnAt(b, se.Offset))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %s has a JSON %s where a %s belongs", te.Field, te.Value, te.Type)
		}
		return fmt.Sprintf("a JSON %s where a %s belongs", te.Value, te.Type)
	}
	return err.Error()
}

// columnAt is the 1-based column of the byte before offset off of b: the
// decoder reports errors after reading off bytes.
func columnAt(b []byte, off int64) int {
	off = max(0, min(off, int64(len(b))))
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	return max(1, int(off)-start)
}

// ByRequest groups nuggets by request id, keeping their order.
func ByRequest(nuggets []Nugget) map[string][]Nugget {
	out := map[string][]Nugget{}
	for _, n := range nuggets {
		out[n.RequestID] = append(out[n.RequestID], n)
	}
	return out
}

// RequestIDs lists the distinct request ids of nuggets, sorted.
func RequestIDs(nuggets []Nugget) []string {
	seen := map[string]bool{}
	var ids []string
	for _, n := range nuggets {
		if !seen[n.RequestID] {
			seen[n.RequestID] = true
			ids = append(ids, n.RequestID)
		}
	}
	sort.Strings(ids)
	return ids
}
