package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

var errNotFound = pipeline.ErrNotFound

// Document returns the document with the id, or an error wrapping
// pipeline.ErrNotFound.
func (d *DB) Document(ctx context.Context, id string) (pipeline.Document, error) {
	doc, _, err := d.DocumentPassages(ctx, id)
	return doc, err
}

// DocumentPassages returns the document with the id and its passages in
// order, in one read of its passages (its text is put together from
// them), or an error wrapping pipeline.ErrNotFound.
func (d *DB) DocumentPassages(ctx context.Context, id string) (pipeline.Document, []pipeline.Passage, error) {
	var doc pipeline.Document
	var meta, at, tail string
	var n int
	err := d.db.QueryRowContext(ctx,
		`SELECT id, title, metadata, source, ingested_at, tail, bytes FROM documents WHERE id = ?`, id).
		Scan(&doc.ID, &doc.Title, &meta, &doc.Source, &at, &tail, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Document{}, nil, fmt.Errorf("document %q: %w", id, errNotFound)
	}
	if err != nil {
		return pipeline.Document{}, nil, fmt.Errorf("load document %q: %w", id, err)
	}
	if err := json.Unmarshal([]byte(meta), &doc.Metadata); err != nil {
		return pipeline.Document{}, nil, fmt.Errorf("document %q: metadata: %w", id, err)
	}
	doc.IngestedAt, _ = time.Parse(time.RFC3339Nano, at)
	rows, err := d.db.QueryContext(ctx,
		`SELECT ordinal, start, "end", text, gap FROM passages WHERE doc_id = ? ORDER BY ordinal`, id)
	if err != nil {
		return pipeline.Document{}, nil, fmt.Errorf("load document %q: %w", id, err)
	}
	defer rows.Close()
	var text strings.Builder
	text.Grow(n)
	var ps []pipeline.Passage
	for rows.Next() {
		p := pipeline.Passage{DocID: id}
		var gap sql.RawBytes
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End, &p.Text, &gap); err != nil {
			return pipeline.Document{}, nil, fmt.Errorf("load document %q: %w", id, err)
		}
		text.Write(gap)
		text.WriteString(p.Text)
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return pipeline.Document{}, nil, fmt.Errorf("load document %q: %w", id, err)
	}
	text.WriteString(tail)
	doc.Text = text.String()
	return doc, ps, nil
}

// A document's text is stored once, in its passages: each passage's text
// after its gap (the text between it and the passage before it, usually
// white space), then the document's tail (the text after its last
// passage); documents.bytes is its length (migration 0020).

// layout checks that a document's passages are its text's bytes
// Start..End, in order (of ordinals and offsets) and apart, and returns the gap before each and the
// text's tail; an error (wrapping pipeline.ErrInvalid) names the first
// passage that is not.
func layout(doc pipeline.Document, ps []pipeline.Passage) (gaps []string, tail string, err error) {
	gaps = make([]string, len(ps))
	prev := 0
	for i, p := range ps {
		if i > 0 && p.Ordinal <= ps[i-1].Ordinal {
			return nil, "", pipeline.Invalidf("store passage %s: its ordinal is not above the passage before it (%d)", p.ID(), ps[i-1].Ordinal)
		}
		if p.Start < prev || p.End < p.Start || p.End > len(doc.Text) {
			return nil, "", pipeline.Invalidf("store passage %s: offsets %d..%d are not inside its document's %d bytes after the passage before it", p.ID(), p.Start, p.End, len(doc.Text))
		}
		if doc.Text[p.Start:p.End] != p.Text {
			return nil, "", pipeline.Invalidf("store passage %s: its text is not its document's bytes %d..%d", p.ID(), p.Start, p.End)
		}
		gaps[i] = doc.Text[prev:p.Start]
		prev = p.End
	}
	return gaps, doc.Text[prev:], nil
}

// documentTexts puts together the texts of the documents with the ids,
// by id, from their passages and tails: two queries per chunk of ids
// (eachIDChunk). Unknown ids are absent.
func documentTexts(ctx context.Context, q queryer, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	err := eachIDChunk(ids, func(part []string, ph string, args []any) error {
		builders := make(map[string]*strings.Builder, len(part))
		tails := make(map[string]string, len(part))
		rows, err := q.QueryContext(ctx, `SELECT id, bytes, tail FROM documents WHERE id IN (`+ph+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, tail string
			var n int
			if err := rows.Scan(&id, &n, &tail); err != nil {
				rows.Close()
				return err
			}
			b := &strings.Builder{}
			b.Grow(n)
			builders[id], tails[id] = b, tail
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		rows, err = q.QueryContext(ctx, `SELECT doc_id, gap, text FROM passages WHERE doc_id IN (`+ph+`) ORDER BY doc_id, ordinal`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var gap, text sql.RawBytes
			if err := rows.Scan(&id, &gap, &text); err != nil {
				rows.Close()
				return err
			}
			if b := builders[id]; b != nil {
				b.Write(gap)
				b.Write(text)
			}
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		for id, b := range builders {
			b.WriteString(tails[id])
			out[id] = b.String()
		}
		return nil
	})
	return out, err
}

// closeRows closes rows and returns the error that ended them, if any.
func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// DocumentDates returns the "date" metadata of the documents with the
// ids, by id; documents without a date and unknown ids are left out
// (pipeline.DateLister).
func (d *DB) DocumentDates(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	const chunk = 500 // well under SQLite's bound on query parameters
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		rows, err := d.db.QueryContext(ctx,
			`SELECT id, json_extract(metadata, '$.date') FROM documents WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("document dates: %w", err)
		}
		for rows.Next() {
			var id string
			var date sql.NullString
			if err := rows.Scan(&id, &date); err != nil {
				rows.Close()
				return nil, fmt.Errorf("document dates: %w", err)
			}
			if date.Valid && date.String != "" {
				out[id] = date.String
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("document dates: %w", err)
		}
		ids = ids[n:]
	}
	return out, nil
}

// Passages returns the document's passages in order, or an error wrapping
// pipeline.ErrNotFound when the document does not exist.
func (d *DB) Passages(ctx context.Context, docID string) ([]pipeline.Passage, error) {
	rows, err := d.db.QueryContext(ctx,
		`SELECT ordinal, start, "end", text FROM passages WHERE doc_id = ? ORDER BY ordinal`, docID)
	if err != nil {
		return nil, fmt.Errorf("passages of %q: %w", docID, err)
	}
	defer rows.Close()
	var ps []pipeline.Passage
	for rows.Next() {
		p := pipeline.Passage{DocID: docID}
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End, &p.Text); err != nil {
			return nil, fmt.Errorf("passages of %q: %w", docID, err)
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("passages of %q: %w", docID, err)
	}
	if len(ps) == 0 {
		var n int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM documents WHERE id = ?`, docID).Scan(&n); err != nil {
			return nil, fmt.Errorf("passages of %q: %w", docID, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("document %q: %w", docID, errNotFound)
		}
	}
	return ps, nil
}

// Passage returns one passage by document id and ordinal.
func (d *DB) Passage(ctx context.Context, docID string, ordinal int) (pipeline.Passage, error) {
	p := pipeline.Passage{DocID: docID, Ordinal: ordinal}
	err := d.db.QueryRowContext(ctx,
		`SELECT start, "end", text FROM passages WHERE doc_id = ? AND ordinal = ?`, docID, ordinal).
		Scan(&p.Start, &p.End, &p.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("passage %s: %w", pipeline.PassageID(docID, ordinal), errNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("load passage %s: %w", pipeline.PassageID(docID, ordinal), err)
	}
	return p, nil
}

// HitPassages loads the passages named by ids ("doc#ordinal") and the
// titles of their documents in one query per 400 passages (a search page,
// or a retrieval of 100 documents, is one round trip). Unknown passages
// are absent from the map; a malformed id is an error.
func (d *DB) HitPassages(ctx context.Context, ids []string) (map[string]pipeline.Passage, map[string]string, error) {
	passages := make(map[string]pipeline.Passage, len(ids))
	titles := make(map[string]string)
	const chunk = 400
	for len(ids) > 0 {
		part := ids[:min(chunk, len(ids))]
		ids = ids[len(part):]
		args := make([]any, 0, 2*len(part))
		var q strings.Builder
		// A join with the list (not "IN (VALUES ...)", which SQLite
		// answers by scanning every passage) looks each one up by key.
		q.WriteString(`SELECT p.doc_id, p.ordinal, p.start, p."end", p.text, d.title FROM (VALUES `)
		for i, id := range part {
			docID, ord, err := pipeline.ParsePassageID(id)
			if err != nil {
				return nil, nil, err
			}
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?,?)")
			args = append(args, docID, ord)
		}
		q.WriteString(`) v JOIN passages p ON p.doc_id = v.column1 AND p.ordinal = v.column2
			JOIN documents d ON d.id = p.doc_id`)
		rows, err := d.db.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return nil, nil, fmt.Errorf("load passages: %w", err)
		}
		for rows.Next() {
			var p pipeline.Passage
			var title string
			if err := rows.Scan(&p.DocID, &p.Ordinal, &p.Start, &p.End, &p.Text, &title); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("load passages: %w", err)
			}
			passages[p.ID()] = p
			titles[p.DocID] = title
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("load passages: %w", err)
		}
	}
	return passages, titles, nil
}

// Titles returns the titles of the given documents; unknown ids are absent
// from the map.
func (d *DB) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		part := ids[:n]
		ids = ids[n:]
		args := make([]any, len(part))
		ph := make([]byte, 0, 2*len(part))
		for i, id := range part {
			args[i] = id
			if i > 0 {
				ph = append(ph, ',')
			}
			ph = append(ph, '?')
		}
		rows, err := d.db.QueryContext(ctx, `SELECT id, title FROM documents WHERE id IN (`+string(ph)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load titles: %w", err)
		}
		for rows.Next() {
			var id, title string
			if err := rows.Scan(&id, &title); err != nil {
				rows.Close()
				return nil, fmt.Errorf("load titles: %w", err)
			}
			out[id] = title
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load titles: %w", err)
		}
	}
	return out, nil
}

// statsCache keeps the collection's statistics with the number of the last
// ingest batch they cover (every write of documents is a journalled
// batch, as for corpusCache): summing the texts' lengths reads every
// document, which the home page must not do on each visit.
type statsCache struct {
	mu    sync.Mutex
	valid bool
	batch int64
	stats pipeline.CollectionStats
}

// Stats summarises the collection. It reads the documents only when a
// batch was ingested since the last call (by any process: the batch
// number is read from the database).
func (d *DB) Stats(ctx context.Context) (pipeline.CollectionStats, error) {
	c := &d.stats
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, err := d.LatestBatch(ctx)
	if err != nil {
		return pipeline.CollectionStats{}, fmt.Errorf("collection stats: %w", err)
	}
	if c.valid && c.batch == batch {
		return c.stats, nil
	}
	s, err := d.readStats(ctx)
	if err != nil {
		return s, err
	}
	// The batch number read first may be older than what the counts hold,
	// never newer: at worst the next call reads them again.
	c.valid, c.batch, c.stats = true, batch, s
	return s, nil
}

func (d *DB) readStats(ctx context.Context) (pipeline.CollectionStats, error) {
	var s pipeline.CollectionStats
	var last sql.NullString
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(bytes),0), MAX(ingested_at) FROM documents`).
		Scan(&s.Documents, &s.Characters, &last)
	if err != nil {
		return s, fmt.Errorf("collection stats: %w", err)
	}
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM passages`).Scan(&s.Passages); err != nil {
		return s, fmt.Errorf("collection stats: %w", err)
	}
	if last.Valid {
		s.LastIngest, _ = time.Parse(time.RFC3339Nano, last.String)
	}
	return s, nil
}

// ReplaceDocuments stores documents with their passages in one transaction.
// A document whose id is already stored replaces the old one (and its
// passages); within the batch the last occurrence of an id wins. A
// document stored already exactly as given (title, text, metadata, source
// and passages) is left as it is and listed in ReplaceResult.Unchanged.
// Either the whole batch is stored or nothing is.
//
// A document's text is stored once, in its passages (see layout): each
// passage's text must be the document's bytes Start..End, the passages in
// order and apart, or the batch is refused with an error wrapping
// pipeline.ErrInvalid that names the passage.
//
// A batch that writes anything is journalled in ingest_batches in the same
// transaction (its number, the ids written and the versions replaced), so
// an index that lost the batch can be brought back in step exactly
// (BatchesAfter).
func (d *DB) ReplaceDocuments(ctx context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	var res pipeline.ReplaceResult
	// Last occurrence of an id wins within the batch.
	last := make(map[string]int, len(batch))
	for i, b := range batch {
		last[b.Doc.ID] = i
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("store documents: %w", err)
	}
	defer tx.Rollback()

	prepare := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	oldDoc := prepare(`SELECT title, tail, metadata, source FROM documents WHERE id = ?`)
	oldPassages := prepare(`SELECT ordinal, start, "end", text, gap FROM passages WHERE doc_id = ? ORDER BY ordinal`)
	del := prepare(`DELETE FROM documents WHERE id = ?`)
	insDoc := prepare(`INSERT INTO documents (id, title, tail, bytes, metadata, source, ingested_at, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	insPas := prepare(`INSERT INTO passages (doc_id, ordinal, start, "end", text, gap) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return res, fmt.Errorf("store documents: %w", err)
	}
	for _, st := range []*sql.Stmt{oldDoc, oldPassages, del, insDoc, insPas} {
		defer st.Close()
	}

	now := d.now().UTC().Format(time.RFC3339Nano)
	var written []string
	for i, b := range batch {
		if last[b.Doc.ID] != i {
			continue
		}
		doc := b.Doc
		meta := doc.Metadata
		if meta == nil {
			meta = map[string]string{}
		}
		mj, err := json.Marshal(meta)
		if err != nil {
			return res, fmt.Errorf("store document %q: metadata: %w", doc.ID, err)
		}
		gaps, tail, err := layout(doc, b.Passages)
		if err != nil {
			return res, err
		}
		prev, same, found, err := loadPrevious(ctx, oldDoc, oldPassages, b, string(mj))
		if err != nil {
			return res, fmt.Errorf("store document %q: %w", doc.ID, err)
		}
		switch {
		case same:
			res.Unchanged = append(res.Unchanged, doc.ID)
			continue
		case found:
			res.Replaced++
			res.Previous = append(res.Previous, prev)
			if _, err := del.ExecContext(ctx, doc.ID); err != nil {
				return res, fmt.Errorf("store document %q: %w", doc.ID, err)
			}
		default:
			res.Inserted++
		}
		written = append(written, doc.ID)
		doc.Metadata = meta
		if _, err := insDoc.ExecContext(ctx, doc.ID, doc.Title, tail, len(doc.Text), string(mj), doc.Source, now, pipeline.DocumentContentHash(doc)); err != nil {
			if isConstraint(err) {
				return res, fmt.Errorf("store document %q: %w: %v", doc.ID, pipeline.ErrConflict, err)
			}
			return res, fmt.Errorf("store document %q: %w", doc.ID, err)
		}
		for i, p := range b.Passages {
			if _, err := insPas.ExecContext(ctx, doc.ID, p.Ordinal, p.Start, p.End, p.Text, gaps[i]); err != nil {
				return res, fmt.Errorf("store passage %s: %w", p.ID(), err)
			}
		}
	}
	if len(written) > 0 {
		if res.Batch, err = journalBatch(ctx, tx, written, res.Previous, now); err != nil {
			return res, err
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("store documents: commit: %w", err)
	}
	return res, nil
}

// loadPrevious reads the stored version of b's document (title and
// passages) inside the replacing transaction, and whether it is exactly b
// (metadata given as stored JSON).
func loadPrevious(ctx context.Context, doc, passages *sql.Stmt, b pipeline.IngestDocument, meta string) (prev pipeline.IngestDocument, same, found bool, err error) {
	id := b.Doc.ID
	prev = pipeline.IngestDocument{Doc: pipeline.Document{ID: id}}
	var tail, oldMeta, source string
	err = doc.QueryRowContext(ctx, id).Scan(&prev.Doc.Title, &tail, &oldMeta, &source)
	if errors.Is(err, sql.ErrNoRows) {
		return prev, false, false, nil
	}
	if err != nil {
		return prev, false, false, err
	}
	rows, err := passages.QueryContext(ctx, id)
	if err != nil {
		return prev, false, true, err
	}
	defer rows.Close()
	var text strings.Builder
	for rows.Next() {
		p := pipeline.Passage{DocID: id}
		var gap string
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End, &p.Text, &gap); err != nil {
			return prev, false, true, err
		}
		text.WriteString(gap)
		text.WriteString(p.Text)
		prev.Passages = append(prev.Passages, p)
	}
	if err := rows.Err(); err != nil {
		return prev, false, true, err
	}
	text.WriteString(tail)
	same = prev.Doc.Title == b.Doc.Title && text.String() == b.Doc.Text && oldMeta == meta &&
		source == b.Doc.Source && samePassages(prev.Passages, b.Passages)
	return prev, same, true, nil
}

func samePassages(a, b []pipeline.Passage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Ordinal != b[i].Ordinal || a[i].Start != b[i].Start || a[i].End != b[i].End || a[i].Text != b[i].Text {
			return false
		}
	}
	return true
}

// EachPassage calls fn for every stored passage, in document id and ordinal
// order, with its document's title. It streams: memory stays flat however
// large the collection.
func (d *DB) EachPassage(ctx context.Context, fn func(title string, p pipeline.Passage) error) error {
	rows, err := d.db.QueryContext(ctx, `SELECT p.doc_id, d.title, p.ordinal, p.start, p."end", p.text
		FROM passages p JOIN documents d ON d.id = p.doc_id ORDER BY p.doc_id, p.ordinal`)
	if err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var title string
		var p pipeline.Passage
		if err := rows.Scan(&p.DocID, &title, &p.Ordinal, &p.Start, &p.End, &p.Text); err != nil {
			return fmt.Errorf("read passages: %w", err)
		}
		if err := fn(title, p); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	return nil
}

// SourceFiles lists the distinct files the documents were ingested from
// (their source up to its first ":", as "sotu.jsonl.gz" of
// "sotu.jsonl.gz:12"), in byte order, at most limit of them.
func (d *DB) SourceFiles(ctx context.Context, limit int) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT CASE WHEN instr(source, ':') > 0 THEN substr(source, 1, instr(source, ':') - 1)
		ELSE source END AS f FROM documents WHERE source != '' ORDER BY f LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list source files: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, fmt.Errorf("list source files: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
