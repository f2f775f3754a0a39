package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

var _ pipeline.VersionStore = (*DB)(nil)

// queryer is what reading a version needs: the database or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// CurrentVersion implements pipeline.VersionStore.
func (d *DB) CurrentVersion(ctx context.Context, reportID int64) (pipeline.Version, error) {
	n, err := latestVersion(ctx, d.db, reportID)
	if err != nil {
		return pipeline.Version{}, fmt.Errorf("current version of report %d: %w", reportID, err)
	}
	if n == 0 {
		return pipeline.Version{}, fmt.Errorf("report %d has no stored version: %w", reportID, errNotFound)
	}
	return d.ReportVersion(ctx, reportID, n)
}

// latestVersion is a report's newest version number, 0 when it has none.
func latestVersion(ctx context.Context, q queryer, reportID int64) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM report_versions WHERE report_id = ?`, reportID).Scan(&n)
	return n, err
}

// ReportVersion implements pipeline.VersionStore.
func (d *DB) ReportVersion(ctx context.Context, reportID int64, n int) (pipeline.Version, error) {
	v, err := readVersion(ctx, d.db, reportID, n)
	if err != nil {
		return v, fmt.Errorf("version %d of report %d: %w", n, reportID, err)
	}
	return v, nil
}

func readVersion(ctx context.Context, q queryer, reportID int64, n int) (pipeline.Version, error) {
	v := pipeline.Version{}
	var at string
	err := q.QueryRowContext(ctx, `SELECT version, author, created_at, change, restored_from
		FROM report_versions WHERE report_id = ? AND version = ?`, reportID, n).
		Scan(&v.Number, &v.Author, &at, &v.Change, &v.RestoredFrom)
	if errors.Is(err, sql.ErrNoRows) {
		return v, errNotFound
	}
	if err != nil {
		return v, err
	}
	v.Report, v.At = reportID, parseTime(at)

	rows, err := q.QueryContext(ctx, `SELECT text, doc_id, ordinal, start, "end", nugget_id, confidence, supported, covers, recheck, facet
		FROM report_version_sentences WHERE report_id = ? AND version = ? ORDER BY position`, reportID, n)
	if err != nil {
		return v, err
	}
	defer rows.Close()
	for rows.Next() {
		var s pipeline.DraftSentence
		var sup, cov string
		if err := rows.Scan(&s.Text, &s.Citation.DocID, &s.Citation.Ordinal, &s.Citation.Start, &s.Citation.End,
			&s.NuggetID, &s.Confidence, &sup, &cov, &s.Recheck, &s.Facet); err != nil {
			return v, err
		}
		s.Supported, s.Covers = pipeline.Verdict(sup), pipeline.Verdict(cov)
		v.Sentences = append(v.Sentences, s)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}

	nrows, err := q.QueryContext(ctx, `SELECT position, nugget_id, question, answer, sources, paraphrases, popularity, features, quality, pinned, changed
		FROM report_version_nuggets WHERE report_id = ? AND version = ? ORDER BY position`, reportID, n)
	if err != nil {
		return v, err
	}
	defer nrows.Close()
	for nrows.Next() {
		var dn pipeline.DraftNugget
		var pos int
		var src, par, feat string
		if err := nrows.Scan(&pos, &dn.ID, &dn.Question, &dn.Answer, &src, &par, &dn.Popularity, &feat,
			&dn.QualityScore, &dn.Pinned, &dn.Changed); err != nil {
			return v, err
		}
		if err := errors.Join(json.Unmarshal([]byte(src), &dn.Sources), json.Unmarshal([]byte(par), &dn.Paraphrases),
			json.Unmarshal([]byte(feat), &dn.Features)); err != nil {
			return v, fmt.Errorf("nugget %s: %w", dn.ID, err)
		}
		dn.Rank = pos + 1
		v.Nuggets = append(v.Nuggets, dn)
	}
	return v, nrows.Err()
}

// ReportVersions implements pipeline.VersionStore.
func (d *DB) ReportVersions(ctx context.Context, reportID int64) ([]pipeline.VersionInfo, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT version, author, created_at, change, restored_from
		FROM report_versions WHERE report_id = ? ORDER BY version DESC`, reportID)
	if err != nil {
		return nil, fmt.Errorf("versions of report %d: %w", reportID, err)
	}
	defer rows.Close()
	var out []pipeline.VersionInfo
	for rows.Next() {
		vi := pipeline.VersionInfo{Report: reportID}
		var at string
		if err := rows.Scan(&vi.Number, &vi.Author, &at, &vi.Change, &vi.RestoredFrom); err != nil {
			return nil, fmt.Errorf("versions of report %d: %w", reportID, err)
		}
		vi.At = parseTime(at)
		out = append(out, vi)
	}
	return out, rows.Err()
}

// readStatus is a report's status; a draft when none is stored.
func readStatus(ctx context.Context, q queryer, reportID int64) (pipeline.StatusRecord, error) {
	rec := pipeline.StatusRecord{Status: pipeline.StatusDraft}
	var status, at string
	err := q.QueryRowContext(ctx, `SELECT status, changed_by, changed_at, version, confirmed_unreviewed, confirmed_partly,
		confirmed_unsupported FROM report_status WHERE report_id = ?`, reportID).
		Scan(&status, &rec.By, &at, &rec.Version, &rec.Confirmed.Unreviewed, &rec.Confirmed.Partly, &rec.Confirmed.Unsupported)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	rec.Status, rec.At = pipeline.ReportStatus(status), parseTime(at)
	return rec, nil
}

// checkBase returns *pipeline.StaleVersionError when base is not the
// report's newest version.
func checkBase(ctx context.Context, q queryer, reportID int64, base int) error {
	latest, err := latestVersion(ctx, q, reportID)
	if err != nil {
		return err
	}
	if latest == base {
		return nil
	}
	stale := &pipeline.StaleVersionError{Base: base, Current: pipeline.VersionInfo{Report: reportID, Number: latest}}
	if latest > 0 {
		cur, err := readVersion(ctx, q, reportID, latest)
		if err != nil {
			return err
		}
		stale.Current = cur.VersionInfo
	}
	return stale
}

// reportExists returns ErrNotFound when no report has the id.
func reportExists(ctx context.Context, q queryer, reportID int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM reports WHERE id = ?`, reportID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("no report has the id %d: %w", reportID, errNotFound)
	}
	return err
}

// SaveVersion implements pipeline.VersionStore.
func (d *DB) SaveVersion(ctx context.Context, reportID int64, base int, info pipeline.VersionInfo, dr pipeline.Draft) (pipeline.VersionInfo, error) {
	fail := func(err error) (pipeline.VersionInfo, error) {
		var stale *pipeline.StaleVersionError
		if errors.As(err, &stale) || errors.Is(err, pipeline.ErrConflict) || errors.Is(err, pipeline.ErrNotFound) {
			return pipeline.VersionInfo{}, err
		}
		return pipeline.VersionInfo{}, fmt.Errorf("save version %d of report %d: %w", base+1, reportID, err)
	}
	// The transaction takes the write lock at once (_txlock=immediate), so
	// the checks below and the insert see no concurrent writer.
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if err := reportExists(ctx, tx, reportID); err != nil {
		return fail(err)
	}
	if err := checkBase(ctx, tx, reportID, base); err != nil {
		return fail(err)
	}
	st, err := readStatus(ctx, tx, reportID)
	if err != nil {
		return fail(err)
	}
	if st.Status == pipeline.StatusApproved {
		return fail(pipeline.Conflictf("report %d is approved (by %s): reopen it as a draft to change it", reportID, st.By))
	}
	info.Report, info.Number = reportID, base+1
	if info.At.IsZero() {
		info.At = d.now()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_versions (report_id, version, author, created_at, change, restored_from)
		VALUES (?, ?, ?, ?, ?, ?)`, reportID, info.Number, info.Author, formatTime(info.At), info.Change, info.RestoredFrom); err != nil {
		return fail(err)
	}
	sstmt, err := tx.PrepareContext(ctx, `INSERT INTO report_version_sentences (report_id, version, position, text, doc_id, ordinal,
		start, "end", nugget_id, confidence, supported, covers, recheck, facet) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fail(err)
	}
	defer sstmt.Close()
	for i, s := range dr.Sentences {
		if _, err := sstmt.ExecContext(ctx, reportID, info.Number, i, s.Text, s.Citation.DocID, s.Citation.Ordinal,
			s.Citation.Start, s.Citation.End, s.NuggetID, s.Confidence, string(s.Supported), string(s.Covers), s.Recheck, s.Facet); err != nil {
			return fail(fmt.Errorf("sentence %d: %w", i+1, err))
		}
	}
	nstmt, err := tx.PrepareContext(ctx, `INSERT INTO report_version_nuggets (report_id, version, position, nugget_id, question,
		answer, sources, paraphrases, popularity, features, quality, pinned, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fail(err)
	}
	defer nstmt.Close()
	for i, n := range dr.Nuggets {
		src, err1 := toJSON(nonNil(n.Sources))
		par, err2 := toJSON(nonNil(n.Paraphrases))
		feat, err3 := toJSON(nonNilMap(n.Features))
		if err := errors.Join(err1, err2, err3); err != nil {
			return fail(fmt.Errorf("nugget %s: %w", n.ID, err))
		}
		if _, err := nstmt.ExecContext(ctx, reportID, info.Number, i, n.ID, n.Question, n.Answer, src, par,
			n.Popularity, feat, n.QualityScore, n.Pinned, n.Changed); err != nil {
			if isConstraint(err) {
				return fail(pipeline.Conflictf("the bank holds nugget %s twice", n.ID))
			}
			return fail(fmt.Errorf("nugget %s: %w", n.ID, err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return info, nil
}

// SaveReview implements pipeline.VersionStore.
func (d *DB) SaveReview(ctx context.Context, r pipeline.Review) error {
	if _, err := pipeline.ParseReviewVerdict(string(r.Verdict)); err != nil {
		return err
	}
	if r.At.IsZero() {
		r.At = d.now()
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO report_reviews (report_id, sentence_key, verdict, comment, reviewer, version, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.Report, r.Key, string(r.Verdict), r.Comment, r.Reviewer, r.Version, formatTime(r.At))
	if isConstraint(err) {
		return fmt.Errorf("review of report %d: %w", r.Report, errNotFound)
	}
	if err != nil {
		return fmt.Errorf("save review of report %d: %w", r.Report, err)
	}
	return nil
}

// Reviews implements pipeline.VersionStore.
func (d *DB) Reviews(ctx context.Context, reportID int64) (map[string]pipeline.Review, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT sentence_key, verdict, comment, reviewer, version, created_at
		FROM report_reviews WHERE report_id = ? ORDER BY id`, reportID)
	if err != nil {
		return nil, fmt.Errorf("reviews of report %d: %w", reportID, err)
	}
	defer rows.Close()
	out := map[string]pipeline.Review{}
	for rows.Next() {
		r := pipeline.Review{Report: reportID}
		var verdict, at string
		if err := rows.Scan(&r.Key, &verdict, &r.Comment, &r.Reviewer, &r.Version, &at); err != nil {
			return nil, fmt.Errorf("reviews of report %d: %w", reportID, err)
		}
		r.Verdict, r.At = pipeline.ReviewVerdict(verdict), parseTime(at)
		out[r.Key] = r // rows come oldest first: the newest wins
	}
	return out, rows.Err()
}

// Status implements pipeline.VersionStore.
func (d *DB) Status(ctx context.Context, reportID int64) (pipeline.StatusRecord, error) {
	rec, err := readStatus(ctx, d.db, reportID)
	if err != nil {
		return rec, fmt.Errorf("status of report %d: %w", reportID, err)
	}
	return rec, nil
}

// SetStatus implements pipeline.VersionStore.
func (d *DB) SetStatus(ctx context.Context, reportID int64, base int, rec pipeline.StatusRecord) (pipeline.StatusRecord, error) {
	fail := func(err error) (pipeline.StatusRecord, error) {
		var stale *pipeline.StaleVersionError
		if errors.As(err, &stale) || errors.Is(err, pipeline.ErrConflict) || errors.Is(err, pipeline.ErrNotFound) ||
			errors.Is(err, pipeline.ErrInvalid) {
			return pipeline.StatusRecord{}, err
		}
		return pipeline.StatusRecord{}, fmt.Errorf("set status of report %d: %w", reportID, err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if err := reportExists(ctx, tx, reportID); err != nil {
		return fail(err)
	}
	if err := checkBase(ctx, tx, reportID, base); err != nil {
		return fail(err)
	}
	cur, err := readStatus(ctx, tx, reportID)
	if err != nil {
		return fail(err)
	}
	if err := cur.Status.CheckMove(rec.Status); err != nil {
		return fail(err)
	}
	rec.Version = base
	if rec.At.IsZero() {
		rec.At = d.now()
	}
	c := rec.Confirmed
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_status (report_id, status, changed_by, changed_at, version,
		confirmed_unreviewed, confirmed_partly, confirmed_unsupported) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (report_id) DO UPDATE SET status = excluded.status, changed_by = excluded.changed_by,
		changed_at = excluded.changed_at, version = excluded.version, confirmed_unreviewed = excluded.confirmed_unreviewed,
		confirmed_partly = excluded.confirmed_partly, confirmed_unsupported = excluded.confirmed_unsupported`,
		reportID, string(rec.Status), rec.By, formatTime(rec.At), rec.Version, c.Unreviewed, c.Partly, c.Unsupported); err != nil {
		return fail(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO report_status_changes (report_id, status, changed_by, changed_at, version,
		confirmed_unreviewed, confirmed_partly, confirmed_unsupported) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		reportID, string(rec.Status), rec.By, formatTime(rec.At), rec.Version, c.Unreviewed, c.Partly, c.Unsupported); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return rec, nil
}

// StatusChanges implements pipeline.VersionStore.
func (d *DB) StatusChanges(ctx context.Context, reportID int64) ([]pipeline.StatusRecord, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT status, changed_by, changed_at, version, confirmed_unreviewed, confirmed_partly,
		confirmed_unsupported FROM report_status_changes WHERE report_id = ? ORDER BY id DESC`, reportID)
	if err != nil {
		return nil, fmt.Errorf("status changes of report %d: %w", reportID, err)
	}
	defer rows.Close()
	var out []pipeline.StatusRecord
	for rows.Next() {
		var rec pipeline.StatusRecord
		var status, at string
		if err := rows.Scan(&status, &rec.By, &at, &rec.Version, &rec.Confirmed.Unreviewed, &rec.Confirmed.Partly,
			&rec.Confirmed.Unsupported); err != nil {
			return nil, fmt.Errorf("status changes of report %d: %w", reportID, err)
		}
		rec.Status, rec.At = pipeline.ReportStatus(status), parseTime(at)
		out = append(out, rec)
	}
	return out, rows.Err()
}
