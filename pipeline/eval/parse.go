package eval

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/crucible-portal/crucible/pipeline"
)

// maxLineBytes bounds one line of a qrels or run file. Real lines are well
// under 1 KiB; the bound keeps a corrupt file from being read into memory
// as one line.
const maxLineBytes = 1 << 20

// ParseError reports a malformed line of a TREC file. Its message is
// "FILE:LINE: reason"; it wraps pipeline.ErrInvalid.
type ParseError struct {
	File   string
	Line   int // 1-based
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

// Unwrap lets callers test a parse error with errors.Is(err,
// pipeline.ErrInvalid).
func (e *ParseError) Unwrap() error { return pipeline.ErrInvalid }

// isSpace reports whether c is whitespace for C's isspace in the "C"
// locale, which is what trec_eval splits fields on.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// fields splits line on ASCII whitespace. Unlike strings.Fields it leaves
// non-ASCII spaces (U+00A0...) inside fields, as trec_eval does.
func fields(line []byte) []string {
	var out []string
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		start := i
		for i < len(line) && !isSpace(line[i]) {
			i++
		}
		if i > start {
			out = append(out, string(line[start:i]))
		}
	}
	return out
}

// eachRecord calls fn with the fields and 1-based number of every line of
// r that is neither blank nor a comment (first field starting with '#').
// An error from fn stops the scan and is returned as is; a line too long
// to be a record becomes a ParseError; a read error is wrapped with name.
func eachRecord(r io.Reader, name string, fn func(line int, f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		f := fields(sc.Bytes())
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		if err := fn(line, f); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{File: name, Line: line + 1,
				Reason: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}
