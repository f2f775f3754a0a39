package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/uploads"
	"github.com/crucible-portal/crucible/views"
)

// UploadService receives corpus uploads and reads them back.
// *uploads.Runner implements it.
type UploadService interface {
	// Stage makes a staging folder for a new upload's files.
	Stage() (*uploads.Staging, error)
	// Submit queues the staged files as an upload by uploader. The
	// staging then belongs to the upload.
	Submit(ctx context.Context, st *uploads.Staging, uploader string) (uploads.Upload, error)
	// Upload returns an upload with its first problems, or an error
	// wrapping pipeline.ErrNotFound.
	Upload(ctx context.Context, id int64) (uploads.Upload, error)
	// Uploads lists the most recent uploads, newest first.
	Uploads(ctx context.Context, limit int) ([]uploads.Upload, error)
	// Cancel ends a queued or running upload for good, keeping what it
	// committed; an upload that has ended is an error wrapping
	// pipeline.ErrInvalid, an unknown one pipeline.ErrNotFound.
	Cancel(ctx context.Context, id int64, by string) error
}

// Upload limits used when Uploads' fields are not set.
const (
	// DefaultMaxUploadBytes bounds all the files of one upload: 200 MiB.
	// Larger collections are ingested on the server with `crucible
	// ingest`.
	DefaultMaxUploadBytes = 200 << 20
	// DefaultMaxUploadFileBytes bounds one file of an upload: 100 MiB.
	DefaultMaxUploadFileBytes = 100 << 20
)

// UploadListLimit is how many recent uploads the upload page lists.
const UploadListLimit = 20

// uploadReadWindow is how long an upload's body may take to arrive: the
// server's ReadTimeout and WriteTimeout are meant for forms, not for
// 200 MiB over a slow link.
const uploadReadWindow = 30 * time.Minute

// Uploads serves the corpus upload pages (administrators only; the routes
// check the permission): the form with the recent uploads, receiving an
// upload, and an upload's progress page.
type Uploads struct {
	Site    views.Site
	Service UploadService
	// MaxBytes bounds all the files of one upload and MaxFileBytes one
	// file; 0 means DefaultMaxUploadBytes and DefaultMaxUploadFileBytes. A
	// file limit above the total is the total. The upload route must be
	// exempt from the server's general body limit.
	MaxBytes     int64
	MaxFileBytes int64
	// Logger receives the clean-up failures of refused uploads. Optional.
	Logger *slog.Logger
}

// limits returns the total and per-file limits in force.
func (h *Uploads) limits() (total, perFile int64) {
	total, perFile = h.MaxBytes, h.MaxFileBytes
	if total <= 0 {
		total = DefaultMaxUploadBytes
	}
	if perFile <= 0 {
		perFile = DefaultMaxUploadFileBytes
	}
	return total, min(perFile, total)
}

// Show renders the upload form and the recent uploads.
func (h *Uploads) Show(c echo.Context) error {
	return h.render(c, http.StatusOK, "")
}

// Status renders the progress page of the upload whose id is in the path;
// an unknown upload is a 404.
func (h *Uploads) Status(c echo.Context) error {
	id, err := parseID(c.Param("id"), "upload")
	if err != nil {
		return err
	}
	u, err := h.Service.Upload(c.Request().Context(), id)
	if err != nil {
		if errors.Is(err, pipeline.ErrNotFound) {
			return fmt.Errorf("no upload has the id %d: %w", id, pipeline.ErrNotFound)
		}
		return fmt.Errorf("load upload %d: %w", id, err)
	}
	return Render(c, http.StatusOK, views.UploadStatus(views.UploadStatusPage{
		Site:   h.Site.WithActive(views.NavUpload),
		Upload: u,
	}))
}

// Cancel cancels the upload whose id is in the path and answers 303 to
// its page, which then says who cancelled it and what was kept. An
// upload that has already ended is 409 saying so; an unknown one 404.
func (h *Uploads) Cancel(c echo.Context) error {
	id, err := parseID(c.Param("id"), "upload")
	if err != nil {
		return err
	}
	err = h.Service.Cancel(c.Request().Context(), id, uploaderName(c.Request().Context()))
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		return fmt.Errorf("no upload has the id %d: %w", id, pipeline.ErrNotFound)
	case errors.Is(err, pipeline.ErrInvalid):
		return echo.NewHTTPError(http.StatusConflict, "Upload "+strconv.FormatInt(id, 10)+" has already ended: there is nothing to cancel.")
	case err != nil:
		return fmt.Errorf("cancel upload %d: %w", id, err)
	}
	return c.Redirect(http.StatusSeeOther, views.UploadURL(id))
}

// Create receives an upload (a multipart form whose views.FieldUploadFiles
// parts are the files; the CSRF token comes first) and answers 303 See
// Other to its progress page, where a background worker's progress shows.
//
// Each file is streamed to a staging folder under the data folder, never
// held whole in memory. The upload is refused whole, with the form shown
// again and nothing stored, when a file is not a corpus file (422, naming
// the file), when two files share a name or none was chosen (422), and
// when a file is larger than the per-file limit or all of them than the
// total limit (413).
func (h *Uploads) Create(c echo.Context) error {
	total, perFile := h.limits()
	tooLarge := fmt.Sprintf("The upload is larger than %s, the most one upload may hold. "+
		"Upload the files in several parts, or ingest them on the server with crucible ingest.", byteSize(total))
	req := c.Request()
	if req.ContentLength > total+multipartSlack {
		return h.render(c, http.StatusRequestEntityTooLarge, tooLarge)
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEMultipartForm {
		return h.render(c, http.StatusUnprocessableEntity, "The upload must be sent as a form with files (multipart/form-data).")
	}
	// The body may take longer than the server's read and write timeouts
	// allow a form. A writer without deadlines (a test recorder) cannot be
	// given one; the upload works all the same.
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Now().Add(uploadReadWindow))
	_ = rc.SetWriteDeadline(time.Now().Add(uploadReadWindow + time.Minute))
	req.Body = http.MaxBytesReader(c.Response(), req.Body, total+multipartSlack)
	mr, err := req.MultipartReader()
	if err != nil {
		return h.render(c, http.StatusUnprocessableEntity, "The upload could not be read: "+err.Error()+".")
	}

	st, err := h.Service.Stage()
	if err != nil {
		return fmt.Errorf("prepare a folder for the upload: %w", err)
	}
	submitted := false
	defer func() {
		if submitted {
			return
		}
		if err := st.Discard(); err != nil && h.Logger != nil {
			h.Logger.Warn("remove a refused upload's files", "err", err)
		}
	}()
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			status, problem := readFailure(err, tooLarge)
			return h.render(c, status, problem)
		}
		if part.FormName() != views.FieldUploadFiles || part.FileName() == "" {
			// The CSRF token, other fields, or a file input left empty.
			if _, err := io.Copy(io.Discard, part); err != nil {
				status, problem := readFailure(err, tooLarge)
				return h.render(c, status, problem)
			}
			continue
		}
		remaining := total - st.Bytes()
		_, err = st.AddFile(part.FileName(), part, min(perFile, remaining))
		var big *uploads.TooLargeError
		var broken *uploads.ReadError
		switch {
		case err == nil:
		case errors.As(err, &big) && perFile <= remaining:
			return h.render(c, http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"%s is larger than %s, the largest file one upload may hold. Split it into smaller files, or ingest it on the server with crucible ingest.",
				big.Name, byteSize(perFile)))
		case errors.As(err, &big):
			return h.render(c, http.StatusRequestEntityTooLarge, tooLarge)
		case errors.Is(err, pipeline.ErrInvalid):
			return h.render(c, http.StatusUnprocessableEntity, err.Error()+".")
		case errors.As(err, &broken):
			status, problem := readFailure(broken.Err, tooLarge)
			return h.render(c, status, problem)
		default:
			return fmt.Errorf("receive an upload: %w", err)
		}
	}
	if len(st.Files()) == 0 {
		return h.render(c, http.StatusUnprocessableEntity, "Choose one or more files to upload.")
	}
	u, err := h.Service.Submit(req.Context(), st, uploaderName(req.Context()))
	if err != nil {
		return fmt.Errorf("queue the upload: %w", err)
	}
	submitted = true
	return c.Redirect(http.StatusSeeOther, views.UploadURL(u.ID))
}

// uploaderName names the user an upload is recorded under: the signed-in
// user, or "local" in single-user local mode.
func uploaderName(ctx context.Context) string {
	switch v := views.ViewerFrom(ctx); {
	case v.Local:
		return "local"
	case v.Name == "":
		// The route lets only signed-in administrators through.
		return "unknown"
	default:
		return v.Name
	}
}

// render shows the upload form with the status, and the problem that
// refused the last upload when not empty.
func (h *Uploads) render(c echo.Context, status int, problem string) error {
	recent, err := h.Service.Uploads(c.Request().Context(), UploadListLimit)
	if err != nil {
		return fmt.Errorf("list uploads: %w", err)
	}
	total, perFile := h.limits()
	return Render(c, status, views.Upload(views.UploadPage{
		Site:         h.Site.WithActive(views.NavUpload),
		MaxBytes:     byteSize(total),
		MaxFileBytes: byteSize(perFile),
		Recent:       recent,
		Limit:        UploadListLimit,
		Problem:      problem,
	}))
}
