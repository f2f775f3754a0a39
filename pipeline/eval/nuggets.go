package eval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// NuggetQrels holds nugget-level judgements: query id → document id →
// nugget id → grade. A grade above 0 means the document covers the nugget;
// 0 and negative grades are judged not covering. Coverage is binary: every
// positive grade counts the same, as ndeval reads its qrels.
//
// A query's nuggets (see Nuggets) are the nuggets some document covers.
// A nugget with only non-covering judgements is not one of them: no
// ranking could cover it, so the nugget measures leave it out, as ndeval
// ignores a subtopic without a positive judgement.
//
// The file form, read by ReadNuggetQrels and written by WriteNuggetQrels,
// has one judgement a line:
//
//	qid nugget_id docid grade
//
// Fields are separated by ASCII whitespace; the grade is a whole number.
// This is the column order of ndeval's qrels ("topic subtopic docno
// judgment"), with ids that may be any strings without whitespace. Blank
// lines and lines whose first field starts with '#' are skipped, as in
// qrels and run files. Only covering judgements are needed: a document
// missing from the file covers nothing.
type NuggetQrels map[string]map[string]map[string]int

// ReadNuggetQrels parses nugget judgements, lines "qid nugget_id docid
// grade" (see NuggetQrels). name labels errors, which read "NAME:LINE:
// reason" and wrap pipeline.ErrInvalid (see ParseError). A line with a
// field count other than four, a grade that is not a whole number, or a
// second judgement of the same nugget and document for one query is an
// error.
func ReadNuggetQrels(r io.Reader, name string) (NuggetQrels, error) {
	type key struct{ qid, nuggetID, docID string }
	n := NuggetQrels{}
	first := map[key]int{} // line of each judgement, for duplicate reports
	err := eachRecord(r, name, func(line int, f []string) error {
		if len(f) != 4 {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("want 4 fields (qid nugget_id docid grade), got %d", len(f))}
		}
		qid, nuggetID, docID := f[0], f[1], f[2]
		grade, err := parseInt(f[3])
		if err != nil {
			return &ParseError{File: name, Line: line, Reason: "grade " + err.Error()}
		}
		k := key{qid, nuggetID, docID}
		if prev, ok := first[k]; ok {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("document %q judged again for nugget %q of query %q (first on line %d)",
					docID, nuggetID, qid, prev)}
		}
		first[k] = line
		n.set(qid, docID, nuggetID, grade)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// ReadNuggetQrelsFile reads the nugget judgements file at path; errors
// name the path.
func ReadNuggetQrelsFile(path string) (NuggetQrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadNuggetQrels(f, path)
}

func (n NuggetQrels) set(qid, docID, nuggetID string, grade int) {
	docs := n[qid]
	if docs == nil {
		docs = map[string]map[string]int{}
		n[qid] = docs
	}
	nuggets := docs[docID]
	if nuggets == nil {
		nuggets = map[string]int{}
		docs[docID] = nuggets
	}
	nuggets[nuggetID] = grade
}

// AddNugget records that each of docIDs covers nugget nuggetID of query
// qid (grade 1), replacing an earlier grade of the same judgement. It
// builds NuggetQrels from lists of covering documents, such as the
// {"qid","nugget_id","docids"} records of a nuggets.jsonl file; a document
// listed twice is recorded once. A nugget without documents adds nothing
// (see NuggetQrels). The ids must be non-empty without whitespace and the
// query id must not start with '#', so that WriteNuggetQrels can write
// them; otherwise AddNugget changes nothing and returns an error wrapping
// pipeline.ErrInvalid. n must be non-nil.
func (n NuggetQrels) AddNugget(qid, nuggetID string, docIDs []string) error {
	if err := checkQueryID(qid); err != nil {
		return err
	}
	if err := checkField("nugget id", nuggetID); err != nil {
		return fmt.Errorf("query %q: %w", qid, err)
	}
	for _, docID := range docIDs {
		if err := checkField("document id", docID); err != nil {
			return fmt.Errorf("query %q nugget %q: %w", qid, nuggetID, err)
		}
	}
	for _, docID := range docIDs {
		n.set(qid, docID, nuggetID, 1)
	}
	return nil
}

// Nuggets returns query qid's nuggets, the nuggets covered (grade > 0) by
// at least one document, in byte order; nil when it has none.
func (n NuggetQrels) Nuggets(qid string) []string {
	return nuggetsOf(n[qid])
}

// nuggetsOf returns the covered nuggets of one query's judgements
// (document id → nugget id → grade), in byte order.
func nuggetsOf(judgements map[string]map[string]int) []string {
	seen := map[string]bool{}
	var out []string
	for _, grades := range judgements {
		for nuggetID, g := range grades {
			if g > 0 && !seen[nuggetID] {
				seen[nuggetID] = true
				out = append(out, nuggetID)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Qrels derives document-level judgements: each judged document's grade is
// the number of the query's nuggets it covers, 0 for a document judged
// only as not covering. This is how graded qrels are commonly made from
// nugget labels (SummHay's qrels.txt is built so), and it lets nugget
// judgements alone drive Evaluate.
func (n NuggetQrels) Qrels() Qrels {
	q := make(Qrels, len(n))
	for qid, docs := range n {
		grades := make(map[string]int, len(docs))
		for docID, nuggets := range docs {
			covered := 0
			for _, g := range nuggets {
				if g > 0 {
					covered++
				}
			}
			grades[docID] = covered
		}
		q[qid] = grades
	}
	return q
}

// WriteNuggetQrels writes n as lines "qid nugget_id docid grade", ordered
// by query, nugget and document id in byte order. Ids must be non-empty
// without whitespace and query ids must not start with '#'; otherwise
// WriteNuggetQrels writes nothing and returns an error wrapping
// pipeline.ErrInvalid.
func WriteNuggetQrels(w io.Writer, n NuggetQrels) error {
	type judgement struct {
		nuggetID, docID string
		grade           int
	}
	qids := sortedKeys(n)
	byQuery := make(map[string][]judgement, len(qids))
	for _, qid := range qids {
		if err := checkQueryID(qid); err != nil {
			return err
		}
		var js []judgement
		for docID, nuggets := range n[qid] {
			if err := checkField("document id", docID); err != nil {
				return fmt.Errorf("query %q: %w", qid, err)
			}
			for nuggetID, g := range nuggets {
				if err := checkField("nugget id", nuggetID); err != nil {
					return fmt.Errorf("query %q document %q: %w", qid, docID, err)
				}
				js = append(js, judgement{nuggetID, docID, g})
			}
		}
		slices.SortFunc(js, func(a, b judgement) int {
			if a.nuggetID != b.nuggetID {
				return strings.Compare(a.nuggetID, b.nuggetID)
			}
			return strings.Compare(a.docID, b.docID)
		})
		byQuery[qid] = js
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, qid := range qids {
		for _, j := range byQuery[qid] {
			buf = append(buf[:0], qid...)
			buf = append(buf, ' ')
			buf = append(buf, j.nuggetID...)
			buf = append(buf, ' ')
			buf = append(buf, j.docID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j.grade), 10)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("write nugget qrels: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write nugget qrels: %w", err)
	}
	return nil
}
