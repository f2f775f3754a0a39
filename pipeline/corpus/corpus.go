// Package corpus reads the collections `crucible ingest` stores: JSON Lines
// files (optionally gzipped) and folders of .txt, .md, .html, .pdf and
// .docx files.
//
// It only reads and validates. Every good record becomes a pipeline.Document
// handed to a callback in input order; every bad record becomes a Problem
// naming the file and line, and reading goes on. Storage, segmentation and
// indexing are the caller's business.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Default limits, used when the matching Options field is zero or negative.
const (
	DefaultMaxFieldBytes = 16 << 20
	DefaultMaxLineBytes  = 64 << 20
	// DefaultMaxFileBytes bounds the content read from one JSON Lines
	// file, after decompression: a .gz of a few MiB can hold gigabytes.
	DefaultMaxFileBytes = 4 << 30
)

// MaxIDBytes is the longest document id accepted, in bytes.
const MaxIDBytes = 512

// Options tunes Walk. The zero value is ready to use.
type Options struct {
	// MaxFieldBytes bounds every field of a record (id, title, text and each
	// metadata value, measured after JSON decoding) and the text of a folder
	// file. A record with a bigger field is skipped. Default 16 MiB.
	MaxFieldBytes int64
	// MaxLineBytes bounds a JSON Lines line, without its line break, and the
	// raw size of an HTML file. A longer line is skipped without being held
	// in memory. Default 64 MiB.
	MaxLineBytes int64
	// MaxFileBytes bounds the content read from one JSON Lines file,
	// counted after decompression. Reading the file stops at the limit,
	// with a Problem naming the line it stopped after; the records before
	// it are kept. Default 4 GiB.
	MaxFileBytes int64
	// MaxTotalBytes, when positive, bounds the content read from all files
	// of a Walk together, counted as MaxFileBytes is (a folder file counts
	// its size). Reading stops at the limit: the file being read ends with
	// a Problem, and each file after it is a Problem saying it was not
	// read. Zero means no bound.
	MaxTotalBytes int64
	// Progress, when not nil, is called on Walk's goroutine with the number
	// of input bytes consumed since the previous call: on-disk bytes, so
	// compressed bytes for .gz files. Over a whole Walk the calls add up to TotalBytes, files
	// skipped or cut short included, unless files change while being read.
	Progress func(n int64)
}

func (o Options) withDefaults() Options {
	if o.MaxFieldBytes <= 0 {
		o.MaxFieldBytes = DefaultMaxFieldBytes
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	return o
}

// Problem is one bad or notable input record. Skipped problems mean input
// was lost (a bad record, an unreadable or corrupt file); the others are
// notices (an empty file, a duplicate id, a file of another type in a
// folder).
type Problem struct {
	File string
	// Line is the 1-based line of a JSON Lines record, 0 when the problem
	// concerns the whole file.
	Line    int
	Reason  string
	Skipped bool
}

// String formats the problem as "FILE:LINE: reason", or "FILE: reason" when
// Line is 0.
func (p Problem) String() string {
	if p.Line > 0 {
		return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Reason
	}
	return p.File + ": " + p.Reason
}

// Error returns the same text as String, so a Problem can travel as an error.
func (p Problem) Error() string { return p.String() }

// Summary counts what a Walk read.
type Summary struct {
	// Files is the number of corpus files opened or examined: JSON Lines
	// files and .txt/.md/.html/.pdf/.docx files. Files of other types found in folders
	// are not counted (each is a notice).
	Files int
	// Records is the number of records examined: non-blank JSON Lines lines
	// and non-empty folder files.
	Records int
	// Documents is the number of documents handed to the callback.
	Documents int
	// Skipped is the number of problems reported with Skipped set: bad
	// records plus files that could not be read to the end.
	Skipped int
	// Notices is the number of problems reported without Skipped set.
	Notices int
	// Bytes is the number of on-disk input bytes accounted for (the sum of
	// the Progress calls).
	Bytes int64
}

// Walk reads every path, a file or a folder read recursively, in the order
// given, and calls fn for each good document in input order and problem for
// each bad record (Skipped) or notice. Either callback may be nil; a nil fn
// validates without delivering. Callbacks run on the caller's goroutine.
//
// Files are read by extension: .jsonl, .json and .ndjson (each optionally
// .gz) as JSON Lines; .txt, .md, .markdown, .html, .htm, .pdf and .docx as
// one document each (a PDF's or Word file's pages kept as
// pipeline.MetaPageStarts), whose id is the path relative to the folder given, with forward
// slashes (the base name for a file given directly). In folders, entries are
// read in lexical order; other files are notices, hidden subfolders (".git")
// are not entered, and symbolic links are followed to files but not to
// folders.
//
// Every path must exist: Walk checks them all before reading anything and
// returns an error matching fs.ErrNotExist for the first one missing. Walk
// otherwise returns an error only when reading stops altogether: ctx is
// done (the error is ctx.Err()) or fn returned an error (wrapped with the
// record's source). Bad records, unreadable files and corrupt or truncated
// .gz files are Problems, and reading goes on with the next record or file.
// The Summary counts what was read up to the point Walk returned.
func Walk(ctx context.Context, paths []string, opts Options, fn func(pipeline.Document) error, problem func(Problem)) (Summary, error) {
	w := &walker{ctx: ctx, opts: opts.withDefaults(), fn: fn, problem: problem}
	err := walkPaths(ctx, paths, w.readFile, w.report)
	return w.sum, err
}

// TotalBytes returns the sum of the on-disk sizes of the files Walk would
// read from paths, for a progress bar's total. Like Walk it returns an error
// for a path that does not exist; folders it cannot list are left out.
func TotalBytes(paths []string) (int64, error) {
	var total int64
	err := walkPaths(context.Background(), paths, func(e entry) error {
		total += e.size
		return nil
	}, func(Problem) {})
	return total, err
}

// walker holds the state of one Walk.
type walker struct {
	ctx     context.Context
	opts    Options
	fn      func(pipeline.Document) error
	problem func(Problem)
	sum     Summary
	// content is the content read so far (decompressed), for
	// MaxTotalBytes; full is set once it passed the limit.
	content int64
	full    bool
}

// errFileLimit and errTotalLimit end a file's content at MaxFileBytes and
// MaxTotalBytes.
var (
	errFileLimit  = errors.New("file limit")
	errTotalLimit = errors.New("total limit")
)

// contentReader counts the content of one file as it is read and ends it
// with errFileLimit or errTotalLimit once it passes either limit.
type contentReader struct {
	r io.Reader
	w *walker
	n int64
}

func (c *contentReader) Read(p []byte) (int, error) {
	// Read at most one byte past the nearer limit: the bytes up to it are
	// passed on, and that byte shows the limit was passed.
	allowed, limitErr := c.w.opts.MaxFileBytes-c.n, errFileLimit
	if total := c.w.opts.MaxTotalBytes; total > 0 && total-c.w.content < allowed {
		allowed, limitErr = total-c.w.content, errTotalLimit
	}
	if int64(len(p)) > allowed+1 {
		p = p[:max(allowed+1, 0)]
	}
	n, err := c.r.Read(p)
	if int64(n) > allowed {
		n = int(max(allowed, 0))
		err = limitErr
		if limitErr == errTotalLimit {
			c.w.full = true
		}
	}
	c.n += int64(n)
	c.w.content += int64(n)
	return n, err
}

// limitReason words a content limit that ended a file.
func (w *walker) limitReason(err error) (string, bool) {
	switch {
	case errors.Is(err, errFileLimit):
		return fmt.Sprintf("the file's content passed the limit of %s per file (decompressed); the rest of the file was not read",
			sizeText(w.opts.MaxFileBytes)), true
	case errors.Is(err, errTotalLimit):
		return fmt.Sprintf("the content read passed the limit of %s for all files together (decompressed); the rest was not read",
			sizeText(w.opts.MaxTotalBytes)), true
	}
	return "", false
}

// report counts p and passes it on.
func (w *walker) report(p Problem) {
	if p.Skipped {
		w.sum.Skipped++
	} else {
		w.sum.Notices++
	}
	if w.problem != nil {
		w.problem(p)
	}
}

// deliver hands a good document to fn.
func (w *walker) deliver(doc pipeline.Document) error {
	w.sum.Documents++
	if w.fn == nil {
		return nil
	}
	if err := w.fn(doc); err != nil {
		return fmt.Errorf("%s: %w", doc.Source, err)
	}
	return nil
}

// consumed accounts for n input bytes.
func (w *walker) consumed(n int64) {
	if n <= 0 {
		return
	}
	w.sum.Bytes += n
	if w.opts.Progress != nil {
		w.opts.Progress(n)
	}
}

// readFile reads one corpus file. Whatever happens, the file's whole size is
// accounted to Progress, so a progress bar ends full.
func (w *walker) readFile(e entry) error {
	w.sum.Files++
	counted := &countingReader{w: w}
	defer func() { w.consumed(e.size - counted.n) }()
	if w.full {
		w.report(Problem{File: e.path, Skipped: true, Reason: fmt.Sprintf(
			"not read: the content read passed the limit of %s for all files together", sizeText(w.opts.MaxTotalBytes))})
		return nil
	}

	f, err := os.Open(e.path)
	if err != nil {
		if e.kind != kindJSONL {
			w.sum.Records++
		}
		w.report(Problem{File: e.path, Reason: "cannot open file: " + describeErr(err), Skipped: true})
		return nil
	}
	defer f.Close()
	counted.r = f

	switch e.kind {
	case kindJSONL:
		return w.readJSONLFile(e, counted)
	case kindPDF, kindDOCX:
		return w.readPagedFile(e, counted)
	default:
		return w.readDocFile(e, counted)
	}
}

// countingReader passes on reads and accounts for their bytes.
type countingReader struct {
	r io.Reader
	w *walker
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += int64(n)
		c.w.consumed(int64(n))
	}
	return n, err
}

// describeErr shortens an *fs.PathError, whose path the Problem already
// names, to its cause.
func describeErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// fileKind is how a file is read, decided by its extension.
type fileKind int

const (
	kindUnknown fileKind = iota
	kindJSONL
	kindText
	kindMarkdown
	kindHTML
	kindPDF
	kindDOCX
)

// formatName is the "format" metadata value of folder documents.
func (k fileKind) formatName() string {
	switch k {
	case kindText:
		return "txt"
	case kindMarkdown:
		return "md"
	case kindHTML:
		return "html"
	case kindPDF:
		return "pdf"
	case kindDOCX:
		return "docx"
	}
	return ""
}

// classify returns how the named file is read and whether it is gzipped.
func classify(name string) (kind fileKind, gz bool) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".gz") {
		switch filepath.Ext(strings.TrimSuffix(lower, ".gz")) {
		case ".jsonl", ".json", ".ndjson":
			return kindJSONL, true
		}
		return kindUnknown, false
	}
	switch filepath.Ext(lower) {
	case ".jsonl", ".json", ".ndjson":
		return kindJSONL, false
	case ".txt":
		return kindText, false
	case ".md", ".markdown":
		return kindMarkdown, false
	case ".html", ".htm":
		return kindHTML, false
	case ".pdf":
		return kindPDF, false
	case ".docx":
		return kindDOCX, false
	}
	return kindUnknown, false
}

// Reasons shared by Walk and its tests.
const (
	reasonNotCorpusFile = "skipped: not a .txt/.md/.html/.pdf/.docx file"
	reasonUnsupported   = "unsupported file type: expected .jsonl, .json or .ndjson (optionally .gz), .txt, .md, .markdown, .html, .htm, .pdf or .docx"
)

// entry is one corpus file found by walkPaths.
type entry struct {
	path string // as walked: the given path, or folder joined with the relative path
	id   string // document id for folder files: the relative path with forward slashes
	kind fileKind
	gz   bool
	size int64
}

// walkPaths checks that every path exists, then visits them in order,
// calling file for each corpus file and skip for everything else worth
// mentioning. It stops at the first error from file or from ctx.
func walkPaths(ctx context.Context, paths []string, file func(entry) error, skip func(Problem)) error {
	if len(paths) == 0 {
		return pipeline.Invalidf("no corpus path given")
	}
	infos := make([]fs.FileInfo, len(paths))
	for i, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("corpus path %s: %w", p, unwrapPathErr(err))
		}
		infos[i] = info
	}
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		info := infos[i]
		switch {
		case info.IsDir():
			if err := walkDir(ctx, p, "", file, skip); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			kind, gz := classify(p)
			if kind == kindUnknown {
				skip(Problem{File: p, Reason: reasonUnsupported, Skipped: true})
				continue
			}
			if err := file(entry{path: p, id: filepath.Base(p), kind: kind, gz: gz, size: info.Size()}); err != nil {
				return err
			}
		default:
			skip(Problem{File: p, Reason: "not a regular file or folder", Skipped: true})
		}
	}
	return nil
}

// unwrapPathErr drops the "stat PATH" prefix of an *fs.PathError while
// keeping its cause, so errors.Is(err, fs.ErrNotExist) still holds.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// walkDir visits the folder dir, whose path relative to the folder given is
// rel ("" for the folder itself), in lexical order.
func walkDir(ctx context.Context, dir, rel string, file func(entry) error, skip func(Problem)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		// ReadDir returns the entries it could read along with the error.
		skip(Problem{File: dir, Reason: "cannot read folder: " + describeErr(err), Skipped: true})
	}
	for _, d := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		p := filepath.Join(dir, name)
		r := path.Join(rel, name)
		mode := d.Type()
		var size int64
		if mode&fs.ModeSymlink != 0 {
			info, err := os.Stat(p)
			switch {
			case err != nil:
				skip(Problem{File: p, Reason: "skipped: broken symbolic link"})
				continue
			case info.IsDir():
				skip(Problem{File: p, Reason: "skipped: symbolic link to a folder (not followed)"})
				continue
			case !info.Mode().IsRegular():
				skip(Problem{File: p, Reason: "skipped: not a regular file"})
				continue
			}
			mode, size = 0, info.Size()
		} else if mode.IsRegular() {
			info, err := d.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed since the folder was listed
				}
				skip(Problem{File: p, Reason: "cannot read file: " + describeErr(err), Skipped: true})
				continue
			}
			size = info.Size()
		}
		switch {
		case mode.IsDir():
			if strings.HasPrefix(name, ".") {
				skip(Problem{File: p, Reason: "skipped: hidden folder"})
				continue
			}
			if err := walkDir(ctx, p, r, file, skip); err != nil {
				return err
			}
		case mode.IsRegular():
			kind, gz := classify(name)
			if kind == kindUnknown {
				skip(Problem{File: p, Reason: reasonNotCorpusFile})
				continue
			}
			if err := file(entry{path: p, id: r, kind: kind, gz: gz, size: size}); err != nil {
				return err
			}
		default:
			skip(Problem{File: p, Reason: "skipped: not a regular file"})
		}
	}
	return nil
}

// sizeText formats a byte limit for messages: "16 MiB", "4 KiB", "100 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n == 1:
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
