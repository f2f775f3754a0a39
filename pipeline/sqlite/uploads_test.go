package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/uploads"
)

func TestUploadLifecycle(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	files := []uploads.File{{Name: "<b>a</b>.jsonl", Size: 120}, {Name: "note.txt", Size: 30}}
	u, err := db.CreateUpload(ctx, uploads.Upload{Uploader: "ada", Files: files, Dir: "upload-1", State: uploads.Done, Message: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	want := uploads.Upload{ID: u.ID, Uploader: "ada", Files: files, Dir: "upload-1", State: uploads.Queued}
	if diff := cmp.Diff(want, u, cmpopts.IgnoreFields(uploads.Upload{}, "CreatedAt")); diff != "" {
		t.Errorf("created (-want +got)\n%s", diff)
	}
	if u.ID == 0 || u.CreatedAt.IsZero() || u.TotalBytes() != 150 {
		t.Errorf("created upload id %d, created at %v, %d bytes; want an id, a time and 120+30 = 150 bytes", u.ID, u.CreatedAt, u.TotalBytes())
	}
	second, err := db.CreateUpload(ctx, uploads.Upload{Uploader: "alan", Files: files[1:], Dir: "upload-2"})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := db.UnfinishedUploadDirs(ctx)
	if err != nil || !cmp.Equal(dirs, []string{"upload-1", "upload-2"}) {
		t.Errorf("UnfinishedUploadDirs = %v, %v", dirs, err)
	}

	// The oldest queued upload is claimed first.
	claimed, err := db.ClaimUpload(ctx)
	if err != nil || claimed.ID != u.ID || claimed.State != uploads.Running || claimed.StartedAt.IsZero() {
		t.Fatalf("claim = %+v, %v", claimed, err)
	}
	c := uploads.Counts{Records: 7, Documents: 5, Added: 4, Replaced: 1, Passages: 9, Skipped: 2, Notices: 1, BytesRead: 100}
	problems := []uploads.RecordError{
		{Seq: 0, File: "<b>a</b>.jsonl", Line: 3, Reason: "invalid JSON", Skipped: true},
		{Seq: 1, File: "note.txt", Reason: "empty file"},
	}
	if err := db.SaveUploadProgress(ctx, u.ID, c, 5, problems); err != nil {
		t.Fatal(err)
	}
	// A resumed upload reports problem 1 again, then a new one, and one
	// past the cap.
	more := []uploads.RecordError{
		{Seq: 1, File: "note.txt", Reason: "a second report of the same problem"},
		{Seq: 2, File: "<b>a</b>.jsonl", Line: 9, Reason: "missing \"id\" field", Skipped: true},
		{Seq: uploads.MaxErrors, File: "x", Reason: "past the cap", Skipped: true},
	}
	if err := db.SaveUploadProgress(ctx, u.ID, c, 5, more); err != nil {
		t.Fatal(err)
	}
	got, err := db.Upload(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got.Counts); diff != "" {
		t.Errorf("counts (-want +got)\n%s", diff)
	}
	wantProblems := []uploads.RecordError{problems[0], problems[1], more[1]}
	if diff := cmp.Diff(wantProblems, got.Errors); diff != "" {
		t.Errorf("problems (-want +got)\n%s", diff)
	}
	if got.Committed != 5 {
		t.Errorf("committed %d, want 5", got.Committed)
	}

	// A restart queues the running upload again, keeping its counts.
	if n, err := db.RequeueUploads(ctx); err != nil || n != 1 {
		t.Errorf("RequeueUploads = %d, %v; want 1", n, err)
	}
	again, err := db.ClaimUpload(ctx)
	if err != nil || again.ID != u.ID || again.Committed != 5 || again.Added != 4 || !again.StartedAt.Equal(claimed.StartedAt) {
		t.Errorf("claimed again: %+v, %v; want upload %d with its counts and first start", again, err, u.ID)
	}

	if err := db.FinishUpload(ctx, u.ID, uploads.Running, ""); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("finish as running = %v, want ErrInvalid", err)
	}
	if err := db.FinishUpload(ctx, u.ID, uploads.Failed, "disk full"); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Upload(ctx, u.ID)
	if got.State != uploads.Failed || got.Message != "disk full" || got.FinishedAt.IsZero() {
		t.Errorf("finished upload: state %q message %q finished %v", got.State, got.Message, got.FinishedAt)
	}
	dirs, _ = db.UnfinishedUploadDirs(ctx)
	if !cmp.Equal(dirs, []string{"upload-2"}) {
		t.Errorf("UnfinishedUploadDirs after finishing = %v, want [upload-2]", dirs)
	}

	list, err := db.Uploads(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, l := range list {
		ids = append(ids, l.ID)
		if len(l.Errors) != 0 {
			t.Errorf("the list carries upload %d's problems", l.ID)
		}
	}
	if diff := cmp.Diff([]int64{second.ID, u.ID}, ids); diff != "" {
		t.Errorf("Uploads order (-want +got)\n%s", diff)
	}
	if list, _ := db.Uploads(ctx, 1); len(list) != 1 || list[0].ID != second.ID {
		t.Errorf("Uploads(1) = %v, want the newest only", list)
	}
}

func TestUploadErrors(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	tests := []struct {
		name string
		u    uploads.Upload
	}{
		{name: "no files", u: uploads.Upload{Uploader: "ada", Dir: "upload-1"}},
		{name: "no folder", u: uploads.Upload{Uploader: "ada", Files: []uploads.File{{Name: "a.txt", Size: 1}}, Dir: " "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.CreateUpload(ctx, tt.u); !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("CreateUpload = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := db.Upload(ctx, 99); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("Upload(99) = %v, want ErrNotFound", err)
	}
	if _, err := db.ClaimUpload(ctx); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ClaimUpload with none queued = %v, want ErrNotFound", err)
	}
	if err := db.SaveUploadProgress(ctx, 99, uploads.Counts{}, 0, nil); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("SaveUploadProgress(99) = %v, want ErrNotFound", err)
	}
	if err := db.FinishUpload(ctx, 99, uploads.Done, ""); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("FinishUpload(99) = %v, want ErrNotFound", err)
	}
}
