package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
)

// Server-sent event names of a job's event stream.
const (
	// EventProgress carries a views.JobStatus of an unfinished job.
	EventProgress = "progress"
	// EventFinished carries the views.JobStatus of a job that has just
	// finished; the stream ends after it.
	EventFinished = "finished"
)

// eventRetryMillis is the reconnection delay the stream asks browsers for
// when it ends before the job does (StreamLimit, a restart).
const eventRetryMillis = 3000

// eventWriteWindow is the write deadline given to each event, so the
// server's WriteTimeout, meant for pages, does not cut a stream that keeps
// writing.
const eventWriteWindow = 30 * time.Second

// Events streams the progress of the job whose id is in the path as
// server-sent events: a "progress" event with the job's views.JobStatus as
// JSON at once and then every PollInterval, until a "finished" event when
// the job has finished, after which the stream ends. The stream also ends
// when the client goes away, when Stop is closed and after StreamLimit
// (the browser then reconnects). An unknown job is a 404 before streaming.
func (h *Jobs) Events(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.loadJob(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	interval := h.PollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	limit := h.StreamLimit
	if limit <= 0 {
		limit = DefaultStreamLimit
	}

	w := c.Response()
	hdr := w.Header()
	hdr.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	hdr.Set(echo.HeaderCacheControl, "no-cache")
	// Ask proxies such as nginx not to buffer the stream.
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, payload any) error {
		// A recorder or writer without deadlines cannot be given one; the
		// stream works all the same.
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteWindow))
		if err := writeEvent(w, event, payload); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", eventRetryMillis); err != nil {
		return nil // the client has gone
	}

	id := j.ID
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		event := EventProgress
		if j.State.Finished() {
			event = EventFinished
		}
		if err := send(event, h.status(j)); err != nil {
			// Writes fail when the client has gone: nothing to report.
			return nil
		}
		if event == EventFinished {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-h.Stop:
			return nil
		case <-deadline.C:
			return nil
		case <-ticker.C:
		}
		j, err = h.Store.Job(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, pipeline.ErrNotFound) {
				return fmt.Errorf("job %d disappeared while its events streamed: %w", id, err)
			}
			return fmt.Errorf("stream events of job %d: %w", id, err)
		}
	}
}

// writeEvent writes one server-sent event whose data is payload as JSON.
// JSON holds no raw line breaks, so the data is a single "data:" line.
func writeEvent(w io.Writer, event string, payload any) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", event, err)
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
	return err
}
