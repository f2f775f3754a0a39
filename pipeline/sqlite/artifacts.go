package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// replaceRows deletes a job's rows of table and inserts new ones in one
// transaction.
func (d *DB) replaceRows(ctx context.Context, what, table string, jobID int64, insert string, rows [][]any) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save %s of job %d: %w", what, jobID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE job_id = ?`, jobID); err != nil {
		return fmt.Errorf("save %s of job %d: %w", what, jobID, err)
	}
	stmt, err := tx.PrepareContext(ctx, insert)
	if err != nil {
		return fmt.Errorf("save %s of job %d: %w", what, jobID, err)
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, append([]any{jobID}, r...)...); err != nil {
			if isConstraint(err) {
				return fmt.Errorf("save %s of job %d: %w: %v", what, jobID, pipeline.ErrConflict, err)
			}
			return fmt.Errorf("save %s of job %d: %w", what, jobID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save %s of job %d: %w", what, jobID, err)
	}
	return nil
}

// toJSON encodes plain data; it fails only on values JSON cannot hold
// (NaN or infinite numbers), which callers report as invalid input.
func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", pipeline.Invalidf("encode %T: %v", v, err)
	}
	return string(b), nil
}

// SaveRetrieval implements pipeline.JobStore.
func (d *DB) SaveRetrieval(ctx context.Context, jobID int64, docs []pipeline.RetrievedDoc) error {
	rows := make([][]any, len(docs))
	for i, r := range docs {
		rows[i] = []any{r.Rank, r.DocID, r.Title, r.Score, r.Ordinal}
	}
	return d.replaceRows(ctx, "retrieval", "job_retrieval", jobID,
		`INSERT INTO job_retrieval (job_id, rank, doc_id, title, score, ordinal) VALUES (?, ?, ?, ?, ?, ?)`, rows)
}

// SaveNuggets implements pipeline.JobStore.
func (d *DB) SaveNuggets(ctx context.Context, jobID int64, all []pipeline.Nugget) error {
	rows := make([][]any, len(all))
	for i, n := range all {
		src, err1 := toJSON(nonNil(n.Sources))
		par, err2 := toJSON(nonNil(n.Paraphrases))
		feat, err3 := toJSON(nonNilMap(n.Features))
		if err := errors.Join(err1, err2, err3); err != nil {
			return fmt.Errorf("save nugget %s of job %d: %w", n.ID, jobID, err)
		}
		rows[i] = []any{i, n.ID, n.Question, n.Answer, src, par, n.Popularity, feat, n.QualityScore, n.Rank}
	}
	return d.replaceRows(ctx, "nuggets", "job_nuggets", jobID,
		`INSERT INTO job_nuggets (job_id, position, nugget_id, question, answer, sources, paraphrases, popularity, features, quality, rank)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rows)
}

// SaveCandidates implements pipeline.JobStore.
func (d *DB) SaveCandidates(ctx context.Context, jobID int64, cs []pipeline.Candidate) error {
	rows := make([][]any, len(cs))
	for i, c := range cs {
		rows[i] = []any{i, c.NuggetID, c.Sentence, c.Support, c.Citation.DocID, c.Citation.Ordinal,
			c.Citation.Start, c.Citation.End, c.Confidence, string(c.Supported), string(c.Covers)}
	}
	return d.replaceRows(ctx, "candidates", "job_candidates", jobID,
		`INSERT INTO job_candidates (job_id, position, nugget_id, sentence, support, doc_id, ordinal, start, "end", confidence, supported, covers)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rows)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

// Retrieval implements pipeline.JobStore.
func (d *DB) Retrieval(ctx context.Context, jobID int64) ([]pipeline.RetrievedDoc, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT rank, doc_id, title, score, ordinal FROM job_retrieval WHERE job_id = ? ORDER BY rank`, jobID)
	if err != nil {
		return nil, fmt.Errorf("retrieval of job %d: %w", jobID, err)
	}
	defer rows.Close()
	var out []pipeline.RetrievedDoc
	for rows.Next() {
		var r pipeline.RetrievedDoc
		if err := rows.Scan(&r.Rank, &r.DocID, &r.Title, &r.Score, &r.Ordinal); err != nil {
			return nil, fmt.Errorf("retrieval of job %d: %w", jobID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Nuggets implements pipeline.JobStore: every nugget of the job in stored
// order (kept ones have Rank > 0).
func (d *DB) Nuggets(ctx context.Context, jobID int64) ([]pipeline.Nugget, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT nugget_id, question, answer, sources, paraphrases, popularity, features, quality, rank
		FROM job_nuggets WHERE job_id = ? ORDER BY position`, jobID)
	if err != nil {
		return nil, fmt.Errorf("nuggets of job %d: %w", jobID, err)
	}
	defer rows.Close()
	var out []pipeline.Nugget
	for rows.Next() {
		var n pipeline.Nugget
		var src, par, feat string
		if err := rows.Scan(&n.ID, &n.Question, &n.Answer, &src, &par, &n.Popularity, &feat, &n.QualityScore, &n.Rank); err != nil {
			return nil, fmt.Errorf("nuggets of job %d: %w", jobID, err)
		}
		if err := errors.Join(json.Unmarshal([]byte(src), &n.Sources), json.Unmarshal([]byte(par), &n.Paraphrases),
			json.Unmarshal([]byte(feat), &n.Features)); err != nil {
			return nil, fmt.Errorf("nuggets of job %d: %w", jobID, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Candidates implements pipeline.JobStore.
func (d *DB) Candidates(ctx context.Context, jobID int64) ([]pipeline.Candidate, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT nugget_id, sentence, support, doc_id, ordinal, start, "end", confidence, supported, covers
		FROM job_candidates WHERE job_id = ? ORDER BY position`, jobID)
	if err != nil {
		return nil, fmt.Errorf("candidates of job %d: %w", jobID, err)
	}
	defer rows.Close()
	var out []pipeline.Candidate
	for rows.Next() {
		var c pipeline.Candidate
		var sup, cov string
		if err := rows.Scan(&c.NuggetID, &c.Sentence, &c.Support, &c.Citation.DocID, &c.Citation.Ordinal,
			&c.Citation.Start, &c.Citation.End, &c.Confidence, &sup, &cov); err != nil {
			return nil, fmt.Errorf("candidates of job %d: %w", jobID, err)
		}
		c.Supported, c.Covers = pipeline.Verdict(sup), pipeline.Verdict(cov)
		out = append(out, c)
	}
	return out, rows.Err()
}

// SaveReport implements pipeline.JobStore. A job has at most one report:
// saving again replaces it.
func (d *DB) SaveReport(ctx context.Context, jobID int64, r pipeline.Report) (int64, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM reports WHERE job_id = ?`, jobID); err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	req, err1 := toJSON(r.Request)
	set, err2 := toJSON(r.Settings)
	facets, err3 := toJSON(nonNil(r.Facets))
	man, err4 := encodeManifest(r.Manifest)
	problems, err5 := toJSON(nonNil(r.Problems))
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO reports (job_id, request, run_id, engine, settings, created_at, dropped_unsupported, facets, manifest, problems)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, jobID, req, r.RunID, r.Engine, set, formatTime(d.now()), r.DroppedUnsupported, facets, man, problems)
	if err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO report_sentences (report_id, position, text, doc_id, ordinal, start, "end",
		nugget_id, confidence, supported, covers, facet) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	defer stmt.Close()
	for i, s := range r.Sentences {
		if _, err := stmt.ExecContext(ctx, id, i, s.Text, s.Citation.DocID, s.Citation.Ordinal, s.Citation.Start, s.Citation.End,
			s.NuggetID, s.Confidence, string(s.Supported), string(s.Covers), s.Facet); err != nil {
			return 0, fmt.Errorf("save report of job %d: sentence %d: %w", jobID, i, err)
		}
	}
	// The job's manifest becomes the run's final one (a report without
	// one, from a caller that keeps none, leaves the job's as it was).
	if _, err := tx.ExecContext(ctx, `UPDATE jobs SET report_id = ?, manifest = CASE WHEN ? = '' THEN manifest ELSE ? END WHERE id = ?`,
		id, man, man, jobID); err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("save report of job %d: %w", jobID, err)
	}
	return id, nil
}

// ReportProblems returns what the run that made a report had to tell its
// readers (pipeline.Report.Problems) without reading the report: the job
// list and the job page show them. A report with none gives nil; an
// unknown one an error wrapping pipeline.ErrNotFound.
func (d *DB) ReportProblems(ctx context.Context, id int64) ([]string, error) {
	var problems string
	err := d.db.QueryRowContext(ctx, `SELECT problems FROM reports WHERE id = ?`, id).Scan(&problems)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("report %d: %w", id, errNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("problems of report %d: %w", id, err)
	}
	var out []string
	if err := json.Unmarshal([]byte(problems), &out); err != nil {
		return nil, fmt.Errorf("problems of report %d: %w", id, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Report implements pipeline.JobStore. A report with versions
// (pipeline.VersionStore) is returned as its newest version: its
// sentences and nugget bank.
func (d *DB) Report(ctx context.Context, id int64) (pipeline.Report, error) {
	r := pipeline.Report{ID: id}
	var req, set, created, facets, man, problems string
	var jobID sql.NullInt64
	err := d.db.QueryRowContext(ctx, `SELECT job_id, request, run_id, engine, settings, created_at, dropped_unsupported, facets, manifest, problems
		FROM reports WHERE id = ?`, id).Scan(&jobID, &req, &r.RunID, &r.Engine, &set, &created, &r.DroppedUnsupported, &facets, &man, &problems)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("report %d: %w", id, errNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	}
	if err := errors.Join(json.Unmarshal([]byte(req), &r.Request), json.Unmarshal([]byte(set), &r.Settings),
		json.Unmarshal([]byte(facets), &r.Facets), json.Unmarshal([]byte(problems), &r.Problems)); err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	}
	if len(r.Facets) == 0 {
		r.Facets = nil
	}
	if len(r.Problems) == 0 {
		r.Problems = nil
	}
	if r.Manifest, err = decodeManifest(man); err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	}
	r.CreatedAt = parseTime(created)
	// A report edited in the portal reads as its newest version.
	if n, err := latestVersion(ctx, d.db, id); err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	} else if n > 0 {
		v, err := readVersion(ctx, d.db, id, n)
		if err != nil {
			return r, fmt.Errorf("load report %d: version %d: %w", id, n, err)
		}
		return v.Apply(r), nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT text, doc_id, ordinal, start, "end", nugget_id, confidence, supported, covers, facet
		FROM report_sentences WHERE report_id = ? ORDER BY position`, id)
	if err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s pipeline.Sentence
		var sup, cov string
		if err := rows.Scan(&s.Text, &s.Citation.DocID, &s.Citation.Ordinal, &s.Citation.Start, &s.Citation.End,
			&s.NuggetID, &s.Confidence, &sup, &cov, &s.Facet); err != nil {
			return r, fmt.Errorf("load report %d: %w", id, err)
		}
		s.Supported, s.Covers = pipeline.Verdict(sup), pipeline.Verdict(cov)
		r.Sentences = append(r.Sentences, s)
	}
	if err := rows.Err(); err != nil {
		return r, fmt.Errorf("load report %d: %w", id, err)
	}
	if jobID.Valid {
		all, err := d.Nuggets(ctx, jobID.Int64)
		if err != nil {
			return r, err
		}
		for _, n := range all {
			if n.Rank > 0 {
				r.Nuggets = append(r.Nuggets, n)
			}
		}
	}
	return r, nil
}

// ReportJob returns the id of the job that produced a report, or an error
// wrapping pipeline.ErrNotFound when there is no such report or it has no
// job.
func (d *DB) ReportJob(ctx context.Context, reportID int64) (int64, error) {
	var job sql.NullInt64
	err := d.db.QueryRowContext(ctx, `SELECT job_id FROM reports WHERE id = ?`, reportID).Scan(&job)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !job.Valid) {
		return 0, fmt.Errorf("job of report %d: %w", reportID, errNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("job of report %d: %w", reportID, err)
	}
	return job.Int64, nil
}
