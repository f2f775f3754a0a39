package eval

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Run holds ranked results: query id → retrieved documents. Entries keep
// the order they were read or built in; Evaluate orders them itself (see
// Ranked).
type Run map[string][]RunEntry

// RunEntry is one retrieved document of a query.
type RunEntry struct {
	DocID string
	// Rank is the rank column of the run file. trec_eval, and so Evaluate,
	// ignore it: order comes from Score.
	Rank  int
	Score float64
}

// ReadRun parses TREC run lines "qid Q0 docid rank score tag". The Q0 and
// tag fields are not kept. name labels errors, which read "NAME:LINE:
// reason" and wrap pipeline.ErrInvalid (see ParseError). A line without
// exactly six fields, a rank that is not a whole number, a score that is
// not a number (or is NaN), or a document listed twice for one query is an
// error; trec_eval refuses the last.
func ReadRun(r io.Reader, name string) (Run, error) {
	type key struct{ qid, docID string }
	run := Run{}
	first := map[key]int{} // line of each result, for duplicate reports
	err := eachRecord(r, name, func(line int, f []string) error {
		if len(f) != 6 {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("want 6 fields (qid Q0 docid rank score tag), got %d", len(f))}
		}
		qid, docID := f[0], f[2]
		rank, err := parseInt(f[3])
		if err != nil {
			return &ParseError{File: name, Line: line, Reason: "rank " + err.Error()}
		}
		// ParseFloat saturates to ±Inf with a range error for huge values,
		// as strtod, which trec_eval uses, does: keep those.
		score, err := strconv.ParseFloat(f[4], 64)
		if (err != nil && !isRangeErr(err)) || math.IsNaN(score) {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("score %q is not a number", f[4])}
		}
		k := key{qid, docID}
		if prev, ok := first[k]; ok {
			return &ParseError{File: name, Line: line,
				Reason: fmt.Sprintf("document %q retrieved again for query %q (first on line %d)", docID, qid, prev)}
		}
		first[k] = line
		run[qid] = append(run[qid], RunEntry{DocID: docID, Rank: rank, Score: score})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && ne.Err == strconv.ErrRange
}

// parseInt parses a whole number field; its error is a reason to follow
// the field's name ("grade", "rank").
func parseInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil {
		return n, nil
	}
	if isRangeErr(err) {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return 0, fmt.Errorf("%q is not a whole number", s)
}

// ReadRunFile reads the run file at path; errors name the path.
func ReadRunFile(path string) (Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRun(f, path)
}

// WriteRun writes one query's entries as TREC run lines "qid Q0 docid rank
// score tag", in the order given. The score is written in the shortest form
// that reads back to the same float64, so re-reading the file reproduces the
// ranking, ties included. The query id, document ids and tag must be
// non-empty without whitespace, the query id must not start with '#' (a
// comment to TREC readers), and scores must not be NaN; otherwise WriteRun
// writes nothing and returns an error wrapping pipeline.ErrInvalid.
func WriteRun(w io.Writer, qid string, entries []RunEntry, tag string) error {
	if err := checkQueryID(qid); err != nil {
		return err
	}
	if err := checkField("run tag", tag); err != nil {
		return err
	}
	for i, e := range entries {
		if err := checkField("document id", e.DocID); err != nil {
			return fmt.Errorf("query %q entry %d: %w", qid, i+1, err)
		}
		if math.IsNaN(e.Score) {
			return pipeline.Invalidf("query %q document %q: score is NaN", qid, e.DocID)
		}
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, e := range entries {
		buf = buf[:0]
		buf = append(buf, qid...)
		buf = append(buf, " Q0 "...)
		buf = append(buf, e.DocID...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(e.Rank), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, e.Score, 'g', -1, 64)
		buf = append(buf, ' ')
		buf = append(buf, tag...)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("write run: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}

// checkField rejects values that would not survive as one whitespace-
// separated field.
func checkField(what, s string) error {
	if s == "" {
		return pipeline.Invalidf("%s is empty", what)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }); i >= 0 {
		return pipeline.Invalidf("%s %q contains whitespace", what, s)
	}
	return nil
}

// checkQueryID is checkField for a query id, which also must not start
// with '#': readers take such a line for a comment.
func checkQueryID(qid string) error {
	if err := checkField("query id", qid); err != nil {
		return err
	}
	if qid[0] == '#' {
		return pipeline.Invalidf("query id %q starts with '#', which TREC readers skip as a comment", qid)
	}
	return nil
}

// EntriesFromHits turns ranked search hits into run entries, one per
// document: when several hits share a document (passage hits), the first,
// best-ranked one stands for it (MaxP). Ranks are renumbered 1, 2, ... in
// hit order.
func EntriesFromHits(hits []pipeline.Hit) []RunEntry {
	seen := make(map[string]bool, len(hits))
	out := make([]RunEntry, 0, len(hits))
	for _, h := range hits {
		if seen[h.DocID] {
			continue
		}
		seen[h.DocID] = true
		out = append(out, RunEntry{DocID: h.DocID, Rank: len(out) + 1, Score: h.Score})
	}
	return out
}

// Ranked returns a copy of entries in trec_eval order: score descending,
// equal scores by document id descending (byte order, like strcmp). A
// document listed more than once keeps only its first entry in that order,
// the one with the highest score. NaN scores, which ReadRun rejects, sort
// last. The input is not modified.
func Ranked(entries []RunEntry) []RunEntry {
	out := slices.Clone(entries)
	slices.SortFunc(out, compareTrecEval)
	return dropDuplicates(out)
}

// RankedByRank returns a copy of entries ordered by the rank column,
// lowest first, as ndeval orders runs by default (without -traditional).
// Equal ranks, which ndeval refuses, fall back to trec_eval order (score
// descending, then document id descending). A document listed more than
// once keeps only its first entry in that order. The input is not
// modified.
func RankedByRank(entries []RunEntry) []RunEntry {
	out := slices.Clone(entries)
	slices.SortFunc(out, func(a, b RunEntry) int {
		if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
			return c
		}
		return compareTrecEval(a, b)
	})
	return dropDuplicates(out)
}

// compareTrecEval orders run entries as trec_eval does: score descending,
// then document id descending.
func compareTrecEval(a, b RunEntry) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(b.DocID, a.DocID)
}

// dropDuplicates keeps the first entry of each document, in place.
func dropDuplicates(entries []RunEntry) []RunEntry {
	// Equal ids need not be adjacent, so remove duplicates with a set
	// rather than by neighbours.
	seen := make(map[string]bool, len(entries))
	kept := entries[:0]
	for _, e := range entries {
		if seen[e.DocID] {
			continue
		}
		seen[e.DocID] = true
		kept = append(kept, e)
	}
	return kept
}
