package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestClassify(t *testing.T) {
	internal := errors.New("open /var/lib/crucible/db: permission denied")
	tests := []struct {
		name string
		err  error
		want problem
	}{
		{
			name: "not found",
			err:  fmt.Errorf("document %q: %w", "x", pipeline.ErrNotFound),
			want: problem{Status: 404, Title: "Not found", Message: `Document "x": not found`},
		},
		{
			name: "invalid",
			err:  pipeline.Invalidf("span %q is reversed", "9-4"),
			want: problem{Status: 400, Title: "Bad Request", Message: `Invalid input: span "9-4" is reversed`},
		},
		{
			name: "conflict",
			err:  fmt.Errorf("save report: %w", pipeline.ErrConflict),
			want: problem{Status: 409, Title: "Conflict", Message: "Save report: conflict"},
		},
		{
			name: "echo not found",
			err:  echo.ErrNotFound,
			want: problem{Status: 404, Title: "Not found", Message: "There is nothing at this address. Check the link, or search the collection."},
		},
		{
			name: "echo method not allowed",
			err:  echo.ErrMethodNotAllowed,
			want: problem{Status: 405, Title: "Method Not Allowed", Message: "This address does not accept that kind of request."},
		},
		{
			name: "echo error with own message",
			err:  echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The request body is 5 bytes; the limit is 4 bytes."),
			want: problem{Status: 413, Title: "Request too large", Message: "The request body is 5 bytes; the limit is 4 bytes."},
		},
		{
			name: "echo server error hides its message",
			err:  echo.NewHTTPError(http.StatusInternalServerError, "template exploded").SetInternal(internal),
			want: problem{Status: 500, Title: "Something went wrong", Message: serverErrorMessage},
		},
		{
			name: "echo error nested as internal",
			err:  echo.NewHTTPError(http.StatusBadRequest).SetInternal(echo.NewHTTPError(http.StatusUnsupportedMediaType)),
			want: problem{Status: 415, Title: "Unsupported Media Type", Message: "Unsupported Media Type."},
		},
		{
			name: "echo error wins over a wrapped sentinel",
			err:  echo.NewHTTPError(http.StatusConflict, "already exists").SetInternal(pipeline.ErrNotFound),
			want: problem{Status: 409, Title: "Conflict", Message: "already exists"},
		},
		{
			name: "body read past the limit",
			err:  fmt.Errorf("read form: %w", &http.MaxBytesError{Limit: 10}),
			want: problem{Status: 413, Title: "Request too large", Message: "The request body is larger than this portal accepts."},
		},
		{
			name: "deadline",
			err:  fmt.Errorf("search: %w", context.DeadlineExceeded),
			want: problem{Status: 503, Title: "Service Unavailable", Message: "The request took too long and was stopped. Try again, or narrow it down."},
		},
		{
			name: "anything else",
			err:  fmt.Errorf("load stats: %w", internal),
			want: problem{Status: 500, Title: "Something went wrong", Message: serverErrorMessage},
		},
		{
			name: "panic",
			err:  &panicError{err: errors.New("nil map"), stack: []byte("goroutine 1")},
			want: problem{Status: 500, Title: "Something went wrong", Message: serverErrorMessage},
		},
		{
			name: "panic with a not-found error value",
			err:  &panicError{err: fmt.Errorf("oops: %w", pipeline.ErrNotFound)},
			want: problem{Status: 500, Title: "Something went wrong", Message: serverErrorMessage},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(tt.err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("classify(%v) (-want +got):\n%s", tt.err, diff)
			}
		})
	}
}
