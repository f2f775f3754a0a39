package uploads

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// MaxNameBytes is the longest file name kept, in bytes: what file systems
// allow.
const MaxNameBytes = 255

// CleanName returns the name to keep for a file a browser sent: the base
// of the name (after either kind of slash), valid UTF-8, without control
// characters or surrounding spaces. A name with nothing left, "." or
// "..", or longer than MaxNameBytes is an error wrapping
// pipeline.ErrInvalid.
func CleanName(name string) (string, error) {
	clean := strings.ReplaceAll(strings.ToValidUTF8(name, "\uFFFD"), `\`, "/")
	clean = path.Base(clean)
	clean = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, clean)
	clean = strings.TrimSpace(clean)
	switch {
	case clean == "" || clean == "." || clean == ".." || clean == "/":
		return "", pipeline.Invalidf("a file has no usable name (%q)", name)
	case len(clean) > MaxNameBytes:
		return "", pipeline.Invalidf("%s…: the file name is longer than %d bytes", truncateName(clean, 40), MaxNameBytes)
	}
	return clean, nil
}

// truncateName cuts a name to at most n characters for a message.
func truncateName(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// TooLargeError is a file that did not fit in the limit it was given.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the file is larger than %d bytes", e.Name, e.Limit)
}

// ReadError is a file that could not be received: reading what the
// client sent failed (the connection broke, a body limit was reached).
type ReadError struct {
	Name string
	Err  error
}

func (e *ReadError) Error() string { return e.Name + ": receive the file: " + e.Err.Error() }

// Unwrap returns the read's error.
func (e *ReadError) Unwrap() error { return e.Err }

// errReader remembers the error of the reader it wraps, so a failed copy
// can tell reading from writing.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		e.err = err
	}
	return n, err
}

// Staging is the folder receiving a new upload's files. Runner.Stage makes
// one; Runner.Submit queues its files, and Discard removes it when the
// upload is given up. It is not safe for concurrent use.
type Staging struct {
	dir   string // full path
	files []File
	names map[string]bool
	// release, set by the Runner, forgets the folder once it is
	// submitted or discarded.
	release func()
}

// NewStaging makes a staging folder, a new folder inside root (created if
// needed). Runner.Stage is what a server uses; this is for tools and
// tests that stage files without a runner.
func NewStaging(root string) (*Staging, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("create the uploads folder: %w", err)
	}
	dir, err := os.MkdirTemp(root, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("create a folder for the upload: %w", err)
	}
	return &Staging{dir: dir, names: map[string]bool{}}, nil
}

// stagingPrefix starts the names of staging folders, so a restart's clean-up
// touches nothing else in the uploads folder.
const stagingPrefix = "upload-"

// Dir is the staging folder's name (not its path).
func (s *Staging) Dir() string { return filepath.Base(s.dir) }

// Files lists the files received, in order.
func (s *Staging) Files() []File { return append([]File(nil), s.files...) }

// Bytes is the total size of the files received.
func (s *Staging) Bytes() int64 {
	var n int64
	for _, f := range s.files {
		n += f.Size
	}
	return n
}

// AddFile writes the content of r, at most limit bytes, as the file name
// (see CleanName). It returns an error wrapping pipeline.ErrInvalid for a
// name CleanName refuses, a type Accepted refuses or a name already
// received, a *TooLargeError when r holds more than limit bytes, and a
// *ReadError when reading r fails (it unwraps to the read's error, so a
// body limit's *http.MaxBytesError can be recognised). On any error
// nothing of the file is kept.
func (s *Staging) AddFile(name string, r io.Reader, limit int64) (File, error) {
	clean, err := CleanName(name)
	if err != nil {
		return File{}, err
	}
	if !Accepted(clean) {
		return File{}, pipeline.Invalidf("%s: not a corpus file: upload %s files", clean, strings.Join(AcceptedTypes, ", "))
	}
	if s.names[clean] {
		return File{}, pipeline.Invalidf("%s: two files have this name; upload each name once", clean)
	}
	p := filepath.Join(s.dir, clean)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return File{}, fmt.Errorf("%s: store the file: %w", clean, err)
	}
	src := &errReader{r: io.LimitReader(r, limit+1)}
	n, err := io.Copy(f, src)
	switch cerr := f.Close(); {
	case src.err != nil:
		err = &ReadError{Name: clean, Err: src.err}
	case err != nil:
		err = fmt.Errorf("%s: store the file: %w", clean, err)
	case cerr != nil:
		err = fmt.Errorf("%s: store the file: %w", clean, cerr)
	}
	if err == nil && n > limit {
		err = &TooLargeError{Name: clean, Limit: limit}
	}
	if err != nil {
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("%s: remove the partial file: %w", clean, rerr))
		}
		return File{}, err
	}
	file := File{Name: clean, Size: n}
	s.names[clean] = true
	s.files = append(s.files, file)
	return file, nil
}

// Discard removes the staging folder and everything in it.
func (s *Staging) Discard() error {
	defer s.done()
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove the upload's folder: %w", err)
	}
	return nil
}

// done tells the runner the folder is no longer being staged.
func (s *Staging) done() {
	if s.release != nil {
		s.release()
		s.release = nil
	}
}
