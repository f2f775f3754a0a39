package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// This file holds the second on-topic measure: sentences a reader judged
// on topic or not by meaning (testdata/eval/judged), looked up by their
// text. Unlike the topic terms it covers only the sentences someone
// judged, so it says how many of a report's sentences it found.

// Judged are sentences a reader judged on topic or not, by request and
// text. The zero value holds none.
type Judged struct {
	// byRequest maps a request to its judged sentences' texts (trimmed)
	// and whether they are on topic.
	byRequest map[string]map[string]judgement
}

// judgement is what the files say of one sentence: on topic when every
// judgement of it says so; disputed when two disagree.
type judgement struct {
	onTopic  bool
	disputed bool
}

// judgedLine is a judged line as written.
type judgedLine struct {
	RequestID json.RawMessage `json:"request_id"`
	Text      *string         `json:"text"`
	OnTopic   *bool           `json:"on_topic_judge"`
}

// ReadJudged adds to j the judgements of JSON Lines, one sentence per
// line:
//
//	{"request_id": "sotu107-01", "text": "In 1909, Taft reported …", "on_topic_judge": true}
//
// "request_id" is a string or an integer, "text" the sentence as a report
// writes it, "on_topic_judge" a boolean; other fields are ignored. Blank
// lines are skipped; a UTF-8 byte order mark and CR line ends are
// tolerated. A sentence judged twice, in one file or several, is on topic
// only when both judgements say so, and counts as disputed when they
// differ. A file without any line is an error.
//
// name labels errors, which are *ParseError values "name:LINE: reason".
func (j *Judged) ReadJudged(r io.Reader, name string) error {
	if j.byRequest == nil {
		j.byRequest = map[string]map[string]judgement{}
	}
	br := bufio.NewReader(r)
	lines := 0
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				return &ParseError{File: name, Line: lineNo, Reason: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
			}
			return fmt.Errorf("read %s: %w", name, err)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if b := bytes.TrimSpace(line); len(b) > 0 {
			id, text, on, reason := parseJudgedLine(b)
			if reason != "" {
				return &ParseError{File: name, Line: lineNo, Reason: reason}
			}
			lines++
			m := j.byRequest[id]
			if m == nil {
				m = map[string]judgement{}
				j.byRequest[id] = m
			}
			prev, seen := m[text]
			switch {
			case !seen:
				m[text] = judgement{onTopic: on}
			case prev.onTopic != on:
				m[text] = judgement{onTopic: false, disputed: true}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if lines == 0 {
		return &ParseError{File: name, Reason: "no judged sentences"}
	}
	return nil
}

// ReadJudgedFiles reads judged files with ReadJudged, naming errors by
// their paths.
func ReadJudgedFiles(paths ...string) (*Judged, error) {
	j := &Judged{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("open judged sentences: %w", err)
		}
		err = j.ReadJudged(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return j, nil
}

// parseJudgedLine reads one non-blank line; reason is non-empty when it
// is malformed.
func parseJudgedLine(b []byte) (id, text string, onTopic bool, reason string) {
	if b[0] != '{' {
		return "", "", false, "not a JSON object"
	}
	var l judgedLine
	if err := json.Unmarshal(b, &l); err != nil {
		return "", "", false, "bad JSON: " + jsonReason(err, b)
	}
	id, ok := idValue(l.RequestID)
	switch {
	case !ok:
		return "", "", false, "request_id must be a string or an integer"
	case id == "":
		return "", "", false, "missing request_id"
	case l.Text == nil || strings.TrimSpace(*l.Text) == "":
		return "", "", false, fmt.Sprintf("request %q: missing text", id)
	case l.OnTopic == nil:
		return "", "", false, fmt.Sprintf("request %q: missing on_topic_judge (true or false)", id)
	}
	return id, strings.TrimSpace(*l.Text), *l.OnTopic, ""
}

// Sentences is the number of distinct judged sentences.
func (j *Judged) Sentences() int {
	if j == nil {
		return 0
	}
	n := 0
	for _, m := range j.byRequest {
		n += len(m)
	}
	return n
}

// Lookup returns whether the reader judged the request's sentence on
// topic; judged is false when no file judged it.
func (j *Judged) Lookup(requestID, sentence string) (onTopic, judged, disputed bool) {
	if j == nil {
		return false, false, false
	}
	v, ok := j.byRequest[requestID][strings.TrimSpace(sentence)]
	return v.onTopic, ok, v.disputed
}

// JudgedSummary accounts for the judged on-topic measure over the scored
// reports: of their Sentences, Judged were found judged, OnTopic of those
// on topic, Disputed judged both ways (counted off topic). Share is
// OnTopic / Judged, pooled over the reports' sentences; nil when none was
// judged.
type JudgedSummary struct {
	Sentences int      `json:"sentences"`
	Judged    int      `json:"judged"`
	OnTopic   int      `json:"on_topic"`
	Disputed  int      `json:"disputed"`
	Share     *float64 `json:"share,omitempty"`
}

// Mark looks up every sentence of an evaluated report, setting its
// JudgedOnTopic when a reader judged it, and adds the report to s.
func (j *Judged) Mark(rr *ReportResult, s *JudgedSummary) {
	for i := range rr.Sentences {
		sent := &rr.Sentences[i]
		s.Sentences++
		on, ok, disputed := j.Lookup(rr.RequestID, sent.Text)
		if !ok {
			continue
		}
		sent.JudgedOnTopic = &on
		s.Judged++
		if on {
			s.OnTopic++
		}
		if disputed {
			s.Disputed++
		}
	}
	if s.Judged > 0 {
		share := float64(s.OnTopic) / float64(s.Judged)
		s.Share = &share
	}
}
