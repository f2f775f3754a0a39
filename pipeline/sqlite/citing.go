package sqlite

import (
	"context"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// CitingSentences returns, in one query, at most limit of the sentences
// of the reports' newest versions (report_version_sentences of each
// report's highest version; report_sentences for a report never edited)
// that cite the document docID, with how many do in all. Sentences citing
// the span first (same bytes, then overlapping ones; pass an empty span
// for none), then the newest reports first, each report's sentences in
// order.
func (d *DB) CitingSentences(ctx context.Context, docID string, first pipeline.Span, limit int) (pipeline.CitingSentences, error) {
	var out pipeline.CitingSentences
	if limit <= 0 {
		return out, nil
	}
	// current is each edited report's newest version; its sentences are
	// read through the primary key (report_id, version, position), so the
	// query reads the reports' current sentences, never their history.
	rows, err := d.db.QueryContext(ctx, `
		WITH current (report_id, version) AS (
			SELECT report_id, MAX(version) FROM report_versions GROUP BY report_id
		), citing (report_id, position, text, ordinal, start, "end") AS (
			SELECT s.report_id, s.position, s.text, s.ordinal, s.start, s."end"
			FROM current c JOIN report_version_sentences s ON s.report_id = c.report_id AND s.version = c.version
			WHERE s.doc_id = ?1
			UNION ALL
			SELECT s.report_id, s.position, s.text, s.ordinal, s.start, s."end"
			FROM report_sentences s
			WHERE s.doc_id = ?1 AND s.report_id NOT IN (SELECT report_id FROM current)
		)
		SELECT c.report_id, COALESCE(json_extract(r.request, '$.Title'), ''), c.position, c.text, c.ordinal, c.start, c."end",
			COUNT(*) OVER ()
		FROM citing c JOIN reports r ON r.id = c.report_id
		ORDER BY CASE WHEN c.start = ?2 AND c."end" = ?3 THEN 0 WHEN c.start < ?3 AND ?2 < c."end" THEN 1 ELSE 2 END,
			c.report_id DESC, c.position
		LIMIT ?4`, docID, first.Start, first.End, limit)
	if err != nil {
		return out, fmt.Errorf("sentences citing document %q: %w", docID, err)
	}
	defer rows.Close()
	for rows.Next() {
		s := pipeline.CitingSentence{Citation: pipeline.Citation{DocID: docID}}
		var pos int
		if err := rows.Scan(&s.ReportID, &s.ReportTitle, &pos, &s.Text, &s.Citation.Ordinal, &s.Citation.Start, &s.Citation.End,
			&out.Total); err != nil {
			return out, fmt.Errorf("sentences citing document %q: %w", docID, err)
		}
		s.Number = pos + 1
		out.Sentences = append(out.Sentences, s)
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("sentences citing document %q: %w", docID, err)
	}
	return out, nil
}
