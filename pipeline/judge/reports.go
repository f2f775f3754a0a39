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
	"strings"

	"github.com/crucible-portal/crucible/pipeline/export"
)

// maxReportBytes bounds one report file. A NeuCLIR report is a few KiB;
// the bound keeps a wrong file from being read whole into memory.
const maxReportBytes = 64 << 20

// ReadReport reads one report in the TREC NeuCLIR 2024 JSON format
// (export.NeuCLIRReport): an object with a non-empty "request_id", an
// optional "run_id" and "collection_ids", and "sentences", each with
// "text" and "citations" (a list of document ids). Crucible's "crucible"
// provenance objects are read when present; unknown fields are ignored, so
// reports of other systems read too. A missing or null "sentences" or
// "citations" is an empty list. Blank citation ids are an error.
//
// name labels errors, which are *ParseError values; a JSON syntax error
// names its line ("name:LINE: ...").
func ReadReport(r io.Reader, name string) (export.NeuCLIRReport, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxReportBytes+1))
	if err != nil {
		return export.NeuCLIRReport{}, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > maxReportBytes {
		return export.NeuCLIRReport{}, &ParseError{File: name, Reason: fmt.Sprintf("larger than %d bytes", maxReportBytes)}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return export.NeuCLIRReport{}, &ParseError{File: name, Reason: "empty file"}
	}
	if t[0] != '{' {
		return export.NeuCLIRReport{}, &ParseError{File: name, Line: lineAt(b, int64(bytes.IndexByte(b, t[0]))), Reason: "not a JSON object"}
	}
	var rep export.NeuCLIRReport
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rep); err != nil {
		return export.NeuCLIRReport{}, &ParseError{File: name, Line: errorLine(b, err), Reason: "bad JSON: " + jsonReason(err, b)}
	}
	if dec.More() {
		return export.NeuCLIRReport{}, &ParseError{File: name, Line: lineAt(b, dec.InputOffset()), Reason: "data after the report object"}
	}
	rep.RequestID = strings.TrimSpace(rep.RequestID)
	if rep.RequestID == "" {
		return export.NeuCLIRReport{}, &ParseError{File: name, Reason: "missing request_id"}
	}
	if rep.CollectionIDs == nil {
		rep.CollectionIDs = []string{}
	}
	if rep.Sentences == nil {
		rep.Sentences = []export.NeuCLIRSentence{}
	}
	for i := range rep.Sentences {
		s := &rep.Sentences[i]
		if s.Citations == nil {
			s.Citations = []string{}
		}
		for j, c := range s.Citations {
			s.Citations[j] = strings.TrimSpace(c)
			if s.Citations[j] == "" {
				return export.NeuCLIRReport{}, &ParseError{File: name,
					Reason: fmt.Sprintf("sentence %d: citation %d is blank", i+1, j+1)}
			}
		}
	}
	return rep, nil
}

// ReadReportFile reads one report file with ReadReport, naming errors by
// its path.
func ReadReportFile(path string) (export.NeuCLIRReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return export.NeuCLIRReport{}, fmt.Errorf("open report: %w", err)
	}
	defer f.Close()
	return ReadReport(f, path)
}

// ReadReportDir reads every "*.json" file directly inside dir (the layout
// `crucible report --requests` writes: one "<request_id>.json" per
// request) and returns the reports by request id. Reports are keyed by the
// request_id inside the file, not by the file name, since export.FileName
// may have had to change characters of the id. Two files with the same
// request_id, a directory with no .json file and any unreadable file are
// errors naming the files.
func ReadReportDir(dir string) (map[string]export.NeuCLIRReport, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read report directory: %w", err)
	}
	out := map[string]export.NeuCLIRReport{}
	from := map[string]string{}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, &ParseError{File: dir, Reason: "no .json report files"}
	}
	for _, n := range names {
		path := filepath.Join(dir, n)
		rep, err := ReadReportFile(path)
		if err != nil {
			return nil, err
		}
		if prev, dup := from[rep.RequestID]; dup {
			return nil, &ParseError{File: path, Reason: fmt.Sprintf("request_id %q is also the request of %s", rep.RequestID, prev)}
		}
		from[rep.RequestID] = path
		out[rep.RequestID] = rep
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
