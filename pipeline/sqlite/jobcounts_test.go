package sqlite_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestJobCounts(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	got, err := db.JobCounts(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("no jobs: counts %v, %v", got, err)
	}
	for _, title := range []string{"a", "b", "c"} {
		j := newJob()
		j.Request.Title = title
		if _, _, err := db.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := db.ClaimJob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, claimed.ID, pipeline.JobDone, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimJob(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = db.JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[pipeline.JobState]int{pipeline.JobDone: 1, pipeline.JobRunning: 1, pipeline.JobQueued: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("job counts (-want +got):\n%s", diff)
	}
}
