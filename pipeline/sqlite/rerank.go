package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// storedRetrieved is a first-stage entry as job_rerank stores it.
type storedRetrieved struct {
	Rank    int     `json:"rank"`
	DocID   string  `json:"doc_id"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Ordinal int     `json:"ordinal"`
}

// SaveRerank implements pipeline.RerankStore: it stores (or replaces) the
// rerank stage's record of a job.
func (d *DB) SaveRerank(ctx context.Context, jobID int64, r pipeline.RerankRecord) error {
	first := make([]storedRetrieved, len(r.FirstStage))
	for i, f := range r.FirstStage {
		first[i] = storedRetrieved{Rank: f.Rank, DocID: f.DocID, Title: f.Title, Score: f.Score, Ordinal: f.Ordinal}
	}
	fj, err1 := toJSON(first)
	oj, err2 := toJSON(nonNil(r.Order))
	uj, err3 := toJSON(r.Usage)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("save rerank of job %d: %w", jobID, err)
	}
	trace := string(r.Trace)
	if trace == "" {
		trace = "null"
	} else if !json.Valid(r.Trace) {
		return fmt.Errorf("save rerank of job %d: the trace is not valid JSON: %w", jobID, pipeline.ErrInvalid)
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO job_rerank (job_id, method, first_stage, reranked, selected, trace, usage)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job_id) DO UPDATE SET method = excluded.method, first_stage = excluded.first_stage,
			reranked = excluded.reranked, selected = excluded.selected, trace = excluded.trace, usage = excluded.usage`,
		jobID, r.Method, fj, oj, r.Selected, trace, uj)
	if err != nil {
		return fmt.Errorf("save rerank of job %d: %w", jobID, err)
	}
	return nil
}

// Rerank implements pipeline.RerankStore: a job's rerank record, or
// ErrNotFound when the job did not rerank.
func (d *DB) Rerank(ctx context.Context, jobID int64) (pipeline.RerankRecord, error) {
	var rec pipeline.RerankRecord
	var first, order, trace, usage string
	err := d.db.QueryRowContext(ctx, `SELECT method, first_stage, reranked, selected, trace, usage FROM job_rerank WHERE job_id = ?`, jobID).
		Scan(&rec.Method, &first, &order, &rec.Selected, &trace, &usage)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, fmt.Errorf("job %d has no rerank stage: %w", jobID, pipeline.ErrNotFound)
	}
	if err != nil {
		return rec, fmt.Errorf("rerank of job %d: %w", jobID, err)
	}
	var stored []storedRetrieved
	if err := errors.Join(json.Unmarshal([]byte(first), &stored), json.Unmarshal([]byte(order), &rec.Order),
		json.Unmarshal([]byte(usage), &rec.Usage)); err != nil {
		return rec, fmt.Errorf("rerank of job %d: %w", jobID, err)
	}
	for _, s := range stored {
		rec.FirstStage = append(rec.FirstStage, pipeline.RetrievedDoc{Rank: s.Rank, DocID: s.DocID, Title: s.Title, Score: s.Score, Ordinal: s.Ordinal})
	}
	rec.Trace = json.RawMessage(trace)
	return rec, nil
}
