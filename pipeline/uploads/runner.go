package uploads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

// Runner receives uploads and ingests them, one at a time, in the
// background. Documents and Index must be the store and index the serving
// process searches, so added documents are found at once.
type Runner struct {
	Store Store
	// Documents stores the documents and Index indexes their passages,
	// through a pipeline.Ingester; Segment cuts them into passages
	// (index.Segment).
	Documents pipeline.DocumentWriter
	Index     pipeline.PassageIndexer
	Segment   pipeline.Segmenter
	// BatchDocs is how many documents are stored and indexed together
	// (pipeline.Ingester.BatchDocs; default pipeline.DefaultBatchDocs). Progress counts of added
	// documents move a batch at a time, and a resumed upload restarts after
	// the last committed batch.
	BatchDocs int
	// Dir is the folder the staging folders live in, under the data
	// folder. Required.
	Dir string
	// Options tunes the corpus reader (field, line and content limits;
	// serve sets the content limits to DefaultMaxFileContentBytes and
	// DefaultMaxContentBytes unless told otherwise); Progress is
	// set by the runner.
	Options corpus.Options
	// MaxPassages bounds the passages of one uploaded document (0: no
	// bound; serve sets DefaultMaxPassages unless told otherwise): a
	// longer document is named among the upload's problems and not
	// stored.
	MaxPassages int
	// Poll is how often an idle Run looks for queued uploads that were not
	// announced (default 2 s); Submit wakes it at once.
	Poll   time.Duration
	Logger *slog.Logger
	// Observer, when set, hears uploads arrive and end, for the
	// operator's metrics. Optional.
	Observer pipeline.IngestObserver

	once    sync.Once
	wake    chan struct{}
	mu      sync.Mutex
	staging map[string]bool // folders being received (Dir names)
	// running is the upload being read and how to stop it (see Cancel).
	runningID int64
	stopRun   context.CancelFunc
}

// errCancelled is the cause of an upload's context when it is cancelled
// from its page.
var errCancelled = errors.New("upload cancelled")

// Cancel ends a queued or running upload at the request of by, for good:
// it is marked failed with a message saying who cancelled it and is never
// resumed. A running upload stops at its next read: the documents of the
// batches it committed are kept, those of the batch being read are not.
// An upload that has ended is an error wrapping pipeline.ErrInvalid.
func (r *Runner) Cancel(ctx context.Context, id int64, by string) error {
	r.init()
	if err := r.Store.CancelUpload(ctx, id, by, "Cancelled by "+by+" before it was read; nothing of it was stored."); err != nil {
		return err
	}
	r.mu.Lock()
	stop := r.stopRun
	running := r.runningID == id && stop != nil
	r.mu.Unlock()
	if running {
		stop()
		return nil
	}
	// Not being read: its files go now (a claim that raced the cancel
	// sees the cancel when it starts and ends at once).
	u, err := r.Store.Upload(ctx, id)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(r.Dir, u.Dir)); err != nil && r.Logger != nil {
		r.Logger.Warn("remove the cancelled upload's files", "upload_id", id, "err", err)
	}
	return nil
}

func (r *Runner) init() {
	r.once.Do(func() {
		r.wake = make(chan struct{}, 1)
		r.staging = map[string]bool{}
		if r.Poll <= 0 {
			r.Poll = 2 * time.Second
		}
		if r.Logger == nil {
			r.Logger = slog.New(slog.DiscardHandler)
		}
	})
}

// Stage makes a staging folder for a new upload's files. The caller adds
// the files, then calls Submit, or Discard to give up.
func (r *Runner) Stage() (*Staging, error) {
	r.init()
	if r.Dir == "" {
		return nil, errors.New("uploads: Runner.Dir is empty")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st, err := NewStaging(r.Dir)
	if err != nil {
		return nil, err
	}
	name := st.Dir()
	r.staging[name] = true
	st.release = func() {
		r.mu.Lock()
		delete(r.staging, name)
		r.mu.Unlock()
	}
	return st, nil
}

// Submit queues the staged files as an upload by uploader and wakes the
// worker. A staging without files is an error wrapping
// pipeline.ErrInvalid; the caller then still owns (and discards) it. Once
// submitted, the folder belongs to the upload: the worker removes it when
// the upload ends.
func (r *Runner) Submit(ctx context.Context, st *Staging, uploader string) (Upload, error) {
	r.init()
	if len(st.files) == 0 {
		return Upload{}, pipeline.Invalidf("the upload has no files")
	}
	// The lock keeps a start-up clean-up (cleanStaging) from seeing the
	// folder neither staged nor stored.
	r.mu.Lock()
	u, err := r.Store.CreateUpload(ctx, Upload{Uploader: uploader, Files: st.Files(), Dir: st.Dir()})
	if err == nil {
		delete(r.staging, st.Dir())
		st.release = nil
	}
	r.mu.Unlock()
	if err != nil {
		return Upload{}, fmt.Errorf("queue the upload: %w", err)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	if r.Observer != nil {
		r.Observer.UploadReceived(len(u.Files), u.TotalBytes())
	}
	r.Logger.Info("corpus upload queued", "upload_id", u.ID, "uploader", uploader, "files", len(u.Files), "bytes", u.TotalBytes())
	return u, nil
}

// Upload returns an upload with its first problems (Store.Upload).
func (r *Runner) Upload(ctx context.Context, id int64) (Upload, error) {
	return r.Store.Upload(ctx, id)
}

// Uploads lists the most recent uploads (Store.Uploads).
func (r *Runner) Uploads(ctx context.Context, limit int) ([]Upload, error) {
	return r.Store.Uploads(ctx, limit)
}

// Recover prepares a start: uploads a stopped process left running are
// queued again, to resume, and staging folders that belong to no
// unfinished upload (files being received when the process stopped, or
// left by an upload whose folder could not be removed) are removed. Run
// calls it first.
func (r *Runner) Recover(ctx context.Context) error {
	r.init()
	n, err := r.Store.RequeueUploads(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		r.Logger.Info("resuming interrupted corpus uploads", "uploads", n)
	}
	return r.cleanStaging(ctx)
}

// cleanStaging removes the staging folders no unfinished upload and no
// upload being received uses.
func (r *Runner) cleanStaging(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep, err := r.Store.UnfinishedUploadDirs(ctx)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, d := range keep {
		used[d] = true
	}
	entries, err := os.ReadDir(r.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the uploads folder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, stagingPrefix) || used[name] || r.staging[name] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(r.Dir, name)); err != nil {
			r.Logger.Warn("remove a left-over upload folder", "dir", name, "err", err)
			continue
		}
		r.Logger.Info("removed a left-over upload folder", "dir", name)
	}
	return nil
}

// Run recovers (Recover), then ingests queued uploads one at a time until
// ctx ends. An upload running when ctx ends stays running in the store
// and resumes at the next start.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	if err := r.Recover(ctx); err != nil {
		return err
	}
	for ctx.Err() == nil {
		ran, err := r.Step(ctx)
		if err != nil && ctx.Err() == nil {
			r.Logger.Error("claim a corpus upload", "err", err)
		}
		if ran {
			continue
		}
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-time.After(r.Poll):
		}
	}
	return nil
}

// Step claims the oldest queued upload and ingests it to its end (or
// until ctx ends). It reports whether there was one; the error is about
// claiming it, as how an upload ended is stored with it.
func (r *Runner) Step(ctx context.Context) (bool, error) {
	r.init()
	u, err := r.Store.ClaimUpload(ctx)
	if errors.Is(err, pipeline.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r.execute(ctx, u)
	return true, nil
}

// progressEvery bounds how often progress is written between batches;
// batches and the end are always written.
const progressEvery = 250 * time.Millisecond

// execute ingests one claimed upload.
func (r *Runner) execute(parent context.Context, u Upload) {
	ctx, stop := context.WithCancelCause(parent)
	r.mu.Lock()
	r.runningID, r.stopRun = u.ID, func() { stop(errCancelled) }
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.runningID, r.stopRun = 0, nil
		r.mu.Unlock()
		stop(nil)
	}()
	log := r.Logger.With("upload_id", u.ID)
	start := time.Now()
	dir := filepath.Join(r.Dir, u.Dir)
	// A cancel that came between the claim and now is seen here: the
	// upload is already marked cancelled, and nothing of it is read.
	if cur, err := r.Store.Upload(ctx, u.ID); err == nil && cur.CancelledBy != "" {
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("remove the cancelled upload's files", "dir", u.Dir, "err", err)
		}
		log.Info("corpus upload cancelled before it was read", "by", cur.CancelledBy)
		return
	}
	resumed := u.Committed > 0 || u.Added+u.Replaced > 0
	base := u.Counts

	finish := func(state State, msg string) {
		if r.Observer != nil {
			outcome := string(state)
			if errors.Is(context.Cause(ctx), errCancelled) {
				outcome = "cancelled"
			}
			r.Observer.Ingested("upload", outcome, pipeline.IngestCounts{
				Added: u.Added - base.Added, Replaced: u.Replaced - base.Replaced, Unchanged: u.Unchanged - base.Unchanged,
				Skipped: u.Skipped - base.Skipped, Passages: u.Passages - base.Passages,
			})
		}
		// Record the end even if ctx has ended.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := r.Store.FinishUpload(fctx, u.ID, state, msg); err != nil {
			log.Error("finish corpus upload", "err", err)
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("remove the upload's files", "dir", u.Dir, "err", err)
		}
		log.Info("corpus upload finished", "state", state, "elapsed", time.Since(start).Round(time.Millisecond),
			"added", u.Added, "replaced", u.Replaced, "skipped", u.Skipped)
	}

	paths := make([]string, len(u.Files))
	for i, f := range u.Files {
		paths[i] = filepath.Join(dir, f.Name)
		if _, err := os.Stat(paths[i]); err != nil {
			finish(Failed, fmt.Sprintf("%s: the uploaded file is no longer on the server (%v); upload the files again",
				f.Name, errors.Unwrap(err)))
			return
		}
	}
	if len(paths) == 0 {
		finish(Failed, "the upload has no files")
		return
	}
	if resumed {
		log.Info("resuming corpus upload", "committed_documents", u.Committed)
	}

	w := &ingestion{
		r:     r,
		ctx:   ctx,
		log:   log,
		id:    u.ID,
		dir:   dir,
		base:  u.Counts,
		skip:  u.Committed,
		in:    &pipeline.Ingester{Store: r.Documents, Index: r.Index, Segment: r.Segment, BatchDocs: r.BatchDocs, MaxPassages: r.MaxPassages},
		count: Counts{Added: u.Added, Replaced: u.Replaced, Unchanged: u.Unchanged, Passages: u.Passages},
	}
	w.committed = u.Committed
	opts := r.Options
	opts.Progress = func(n int64) { w.count.BytesRead += n }
	_, err := corpus.Walk(ctx, paths, opts, w.add, w.problem)
	if err == nil {
		before := w.in.Stats()
		err = w.in.Flush(ctx)
		if w.in.Stats() != before {
			w.sync()
		}
	}
	w.save(true)
	u.Counts = w.count
	switch {
	case err == nil && !errors.Is(context.Cause(ctx), errCancelled):
		finish(Done, "")
	case errors.Is(context.Cause(ctx), errCancelled):
		by := "an administrator"
		if cur, err := r.Store.Upload(context.WithoutCancel(ctx), u.ID); err == nil && cur.CancelledBy != "" {
			by = cur.CancelledBy
		}
		finish(Failed, fmt.Sprintf("Cancelled by %s while it was read; the %d documents (%d passages) stored before the cancel are kept.",
			by, w.count.Added+w.count.Replaced, w.count.Passages))
	case ctx.Err() != nil:
		log.Info("corpus upload interrupted by shutdown; it resumes at the next start",
			"committed_documents", w.committed)
	default:
		finish(Failed, w.clean(err.Error())+". The documents stored before this error are kept.")
	}
}

// ingestion is the state of one upload being read.
type ingestion struct {
	r   *Runner
	ctx context.Context
	log *slog.Logger
	id  int64
	dir string
	in  *pipeline.Ingester

	// base holds the counts stored when the upload was claimed.
	base Counts
	// skip is the number of documents a resumed upload had committed.
	skip int
	// count is what has been read and stored so far; committed the
	// documents read up to the last committed batch.
	count     Counts
	committed int
	// delivered counts the documents the reader delivered, refused ones
	// included: what skip and committed count.
	delivered int
	// seq is the next problem's ordinal; pending the problems not yet
	// written.
	seq     int
	pending []RecordError
	written time.Time
}

// add stores a document read, after a resumed upload's committed ones.
func (w *ingestion) add(doc pipeline.Document) error {
	// The source names the uploaded file (and line), not the staging
	// folder on the server.
	doc.Source = w.clean(doc.Source)
	w.delivered++
	w.count.Documents++
	w.count.Records++
	if w.delivered <= w.skip {
		return nil
	}
	before := w.in.Stats()
	err := w.in.Add(w.ctx, doc)
	var many *pipeline.TooManyPassagesError
	if errors.As(err, &many) {
		// Refused like a bad record: named among the problems, not stored.
		w.count.Documents--
		w.count.Records--
		file, line := doc.Source, 0
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if n, aerr := strconv.Atoi(file[i+1:]); aerr == nil {
				file, line = file[:i], n
			}
		}
		w.problem(corpus.Problem{File: filepath.Join(w.dir, file), Line: line, Reason: many.Error(), Skipped: true})
		return nil
	}
	switch {
	case w.in.Stats() != before:
		// A batch was stored: every document read so far is in the store,
		// even if indexing it then failed (the serving process rebuilds an
		// index out of step with the store when it starts).
		w.sync()
		if err == nil {
			w.save(true)
		}
	case err == nil:
		w.save(false)
	}
	return err
}

// sync takes the ingester's counts after a committed batch.
func (w *ingestion) sync() {
	st := w.in.Stats()
	w.count.Added = w.base.Added + st.Inserted
	w.count.Replaced = w.base.Replaced + st.Replaced
	w.count.Unchanged = w.base.Unchanged + st.Unchanged
	w.count.Passages = w.base.Passages + st.Passages
	w.committed = w.delivered
}

// problem records a bad record or notice.
func (w *ingestion) problem(p corpus.Problem) {
	if p.Skipped {
		w.count.Skipped++
		w.count.Records++
	} else {
		w.count.Notices++
	}
	if w.seq < MaxErrors {
		w.pending = append(w.pending, RecordError{
			Seq:     w.seq,
			File:    w.fileName(p.File),
			Line:    p.Line,
			Reason:  w.clean(p.Reason),
			Skipped: p.Skipped,
		})
	}
	w.seq++
	w.save(false)
}

// save writes the progress when force is set or progressEvery has passed.
// A failed write is logged: the next one catches up.
func (w *ingestion) save(force bool) {
	if !force && time.Since(w.written) < progressEvery {
		return
	}
	w.written = time.Now()
	ctx := w.ctx
	if ctx.Err() != nil {
		// The final write after a shutdown: keep what was read.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
	}
	if err := w.r.Store.SaveUploadProgress(ctx, w.id, w.count, w.committed, w.pending); err != nil {
		w.log.Warn("store corpus upload progress", "err", err)
		return
	}
	w.pending = nil
}

// fileName turns a path under the staging folder into the uploaded
// file's name.
func (w *ingestion) fileName(p string) string {
	if rel, err := filepath.Rel(w.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(p)
}

// clean removes the staging folder's path from a message, so pages name
// the uploaded files and not where the server keeps them.
func (w *ingestion) clean(msg string) string {
	return strings.ReplaceAll(msg, w.dir+string(filepath.Separator), "")
}
