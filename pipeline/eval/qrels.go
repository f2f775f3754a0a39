package eval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Qrels holds relevance judgements: query id → document id → grade. A grade
// of 1 or more means relevant; 0 and negative grades are judged
// non-relevant.
type Qrels map[string]map[string]int

// ReadQrels parses TREC qrels lines "qid iter docid grade". The iter field
// is ignored. name labels errors, which read "NAME:LINE: reason" and wrap
// pipeline.ErrInvalid (see ParseError). A line with a field count other than
// four, a grade that is not a whole number, or a second judgement of the
// same document for the same query is an error, since trec_eval refuses a
// query judged twice for one document.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	type key struct{ qid, docID string }
	q := Qrels{}
	first := map[key]int{} // line of each judgement, for duplicate reports
	err := eachRecord(r, name, func(line int, f []string) error {
		if len(f) != 4 {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("want 4 fields (qid iter docid grade), got %d", len(f))}
		}
		qid, docID := f[0], f[2]
		grade, err := parseInt(f[3])
		if err != nil {
			return &ParseError{File: name, Line: line, Reason: "grade " + err.Error()}
		}
		k := key{qid, docID}
		if prev, ok := first[k]; ok {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("document %q judged again for query %q (first on line %d)", docID, qid, prev)}
		}
		first[k] = line
		docs := q[qid]
		if docs == nil {
			docs = map[string]int{}
			q[qid] = docs
		}
		docs[docID] = grade
		return nil
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// ReadQrelsFile reads the qrels file at path; errors name the path.
func ReadQrelsFile(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadQrels(f, path)
}

// NumRelevant returns the number of documents judged relevant (grade ≥ 1)
// for query qid.
func (q Qrels) NumRelevant(qid string) int {
	n := 0
	for _, g := range q[qid] {
		if g >= relevanceLevel {
			n++
		}
	}
	return n
}

// WriteQrels writes q as TREC qrels lines "qid 0 docid grade", queries and
// documents in byte order. Ids must be non-empty without whitespace and
// query ids must not start with '#'; otherwise WriteQrels writes nothing and
// returns an error wrapping pipeline.ErrInvalid.
func WriteQrels(w io.Writer, q Qrels) error {
	qids := sortedKeys(q)
	for _, qid := range qids {
		if err := checkQueryID(qid); err != nil {
			return err
		}
		for docID := range q[qid] {
			if err := checkField("document id", docID); err != nil {
				return fmt.Errorf("query %q: %w", qid, err)
			}
		}
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, qid := range qids {
		for _, docID := range sortedKeys(q[qid]) {
			buf = append(buf[:0], qid...)
			buf = append(buf, " 0 "...)
			buf = append(buf, docID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(q[qid][docID]), 10)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("write qrels: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write qrels: %w", err)
	}
	return nil
}
