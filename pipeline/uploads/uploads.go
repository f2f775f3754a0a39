// Package uploads adds documents to the collection from files uploaded in
// the portal: the upload's files are received into a staging folder under
// the data folder, an upload record is queued in the Store, and a Runner
// in the serving process reads the files with pipeline/corpus and stores
// and indexes the documents with a pipeline.Ingester, writing progress
// and per-record problems to the Store as it goes.
//
// An upload interrupted by a restart resumes at the next start: its files
// are still on disk, and the documents already committed are skipped, so
// nothing is stored twice and nothing stored is lost. The staging folder is
// removed when the upload is done or has failed.
package uploads

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// State is where an upload is in its life.
type State string

// The states. An upload is queued when its files are received, running
// while a worker reads them, then done or failed.
const (
	Queued  State = "queued"
	Running State = "running"
	Done    State = "done"
	Failed  State = "failed"
)

// Finished reports whether the upload has ended, well or not.
func (s State) Finished() bool { return s == Done || s == Failed }

// MaxErrors is how many problems an upload keeps (and its page shows);
// the counts still cover every one.
const MaxErrors = 200

// Default content limits of an upload, after decompression: a .gz of a
// few MiB can hold gigabytes, and one upload holds the upload worker and
// the index until it is read.
const (
	DefaultMaxFileContentBytes = 1 << 30
	DefaultMaxContentBytes     = 2 << 30
	// DefaultMaxPassages bounds the passages of one uploaded document,
	// about 5 MB of text.
	DefaultMaxPassages = 5000
)

// File is one uploaded file.
type File struct {
	// Name is the file's name as uploaded, cleaned (CleanName). For a
	// .txt, .md, .html, .pdf or .docx file it is also the document's id.
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// RecordError is one problem the corpus reader reported: a bad record,
// skipped (Skipped), or a notice such as an empty file or a repeated id.
type RecordError struct {
	// Seq is the problem's 0-based ordinal in the upload.
	Seq int
	// File is the uploaded file's name.
	File string
	// Line is the 1-based line of a JSON Lines record, 0 when the problem
	// concerns the whole file.
	Line    int
	Reason  string
	Skipped bool
}

// String formats the problem as "FILE:LINE: reason", or "FILE: reason"
// when Line is 0.
func (e RecordError) String() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return e.File + ": " + e.Reason
}

// Counts are what an upload has read and stored so far.
type Counts struct {
	// Records is the number of records read: documents plus skipped
	// records.
	Records int
	// Documents is the number of good documents read.
	Documents int
	// Added and Replaced count the documents stored: new to the
	// collection, or replacing a stored document with the same id.
	// Passages counts their passages. The three change only when a batch
	// has been committed.
	Added    int
	Replaced int
	Passages int
	// Unchanged counts documents stored already exactly as given: they
	// are not written again.
	Unchanged int
	// Skipped counts the problems that lost input (bad records, files that
	// could not be read); Notices the others.
	Skipped int
	Notices int
	// BytesRead is how much of the files has been read, in bytes on disk.
	BytesRead int64
}

// Problems is the number of problems reported: Skipped + Notices.
func (c Counts) Problems() int { return c.Skipped + c.Notices }

// Upload is one corpus upload.
type Upload struct {
	ID int64
	// Uploader names the user who uploaded the files ("local" in
	// single-user local mode).
	Uploader string
	Files    []File
	// Dir is the staging folder holding the files, relative to the
	// Runner's Dir.
	Dir   string
	State State
	Counts
	// Committed is the number of documents read up to the last committed
	// batch: a resumed upload skips that many.
	Committed int
	// Errors holds the first MaxErrors problems in the order reported;
	// Counts.Problems says how many there were in all. Uploads (the list)
	// leaves it empty.
	Errors []RecordError
	// Message says why a failed upload failed.
	Message string
	// CancelledBy names who cancelled the upload from its page: it then
	// ended as Failed, keeping the documents committed before.
	CancelledBy string
	CreatedAt   time.Time
	StartedAt   time.Time
	FinishedAt  time.Time
}

// TotalBytes is the sum of the files' sizes.
func (u Upload) TotalBytes() int64 {
	var n int64
	for _, f := range u.Files {
		n += f.Size
	}
	return n
}

// Store keeps uploads. The SQLite store implements it.
type Store interface {
	// CreateUpload stores u as a new queued upload (Uploader, Files and
	// Dir are kept; the rest is ignored) and returns it with its id and
	// creation time. An upload without files or without Dir is an error
	// wrapping pipeline.ErrInvalid.
	CreateUpload(ctx context.Context, u Upload) (Upload, error)
	// Upload returns an upload with its first MaxErrors problems, or an
	// error wrapping pipeline.ErrNotFound.
	Upload(ctx context.Context, id int64) (Upload, error)
	// Uploads lists the most recent uploads, newest first, without their
	// problems.
	Uploads(ctx context.Context, limit int) ([]Upload, error)
	// ClaimUpload marks the oldest queued upload running and returns it
	// with its stored counts (a resumed upload's committed counts), or an
	// error wrapping pipeline.ErrNotFound when none is queued.
	ClaimUpload(ctx context.Context) (Upload, error)
	// SaveUploadProgress stores an upload's counts and committed document
	// count, and adds the problems given, ignoring those whose Seq is
	// already stored or not below MaxErrors.
	SaveUploadProgress(ctx context.Context, id int64, c Counts, committed int, problems []RecordError) error
	// FinishUpload ends an upload: state is Done or Failed (anything else
	// is an error wrapping pipeline.ErrInvalid), message says why it
	// failed.
	FinishUpload(ctx context.Context, id int64, state State, message string) error
	// CancelUpload ends a queued or running upload as Failed, cancelled by
	// by, with the message; an upload that has ended is an error wrapping
	// pipeline.ErrInvalid, an unknown one pipeline.ErrNotFound.
	CancelUpload(ctx context.Context, id int64, by, message string) error
	// RequeueUploads queues again the uploads left running by a stopped
	// process and returns how many there were.
	RequeueUploads(ctx context.Context) (int, error)
	// UnfinishedUploadDirs returns the staging folders of the uploads not
	// yet done or failed.
	UnfinishedUploadDirs(ctx context.Context) ([]string, error)
}

// Accepted reports whether a file of this name can be uploaded: the
// extensions corpus.Walk reads, .jsonl, .json and .ndjson (each optionally
// .gz), .txt, .md, .markdown, .html, .htm, .pdf and .docx, in any case.
func Accepted(name string) bool {
	lower := strings.ToLower(name)
	lower = strings.TrimSuffix(lower, ".gz")
	gz := len(lower) < len(name)
	i := strings.LastIndexByte(lower, '.')
	if i <= 0 {
		return false
	}
	switch lower[i:] {
	case ".jsonl", ".json", ".ndjson":
		return true
	case ".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx":
		return !gz
	}
	return false
}

// AcceptedTypes lists the accepted extensions for messages and the file
// input's accept attribute.
var AcceptedTypes = []string{".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz",
	".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}
