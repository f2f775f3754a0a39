// Package compare compares two reports, or two versions of one (issue 16
// #2): how their run manifests differ, which sentences were added,
// removed or changed (with the changed words), which citations changed,
// which nuggets one answers that the other does not, and how their
// evaluation figures differ when both were evaluated. It reads reports
// as the judge reads them (export.NeuCLIRReport, from any of the formats
// judge.ReadReports reads), so `crucible diff` and the portal's compare
// page say the same.
package compare

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
)

// Side is one of the two reports compared.
type Side struct {
	// Label names the report in the output: a file name, "report 7,
	// version 2".
	Label  string
	Report export.NeuCLIRReport
	// Metrics are the report's evaluation figures; nil when it was not
	// evaluated. Metric differences are given when both sides have them.
	Metrics *judge.Metrics
	// Judge names the judge of Metrics ("offline (...)").
	Judge string
}

// Op says what became of a sentence, or of a word, from A to B.
type Op string

// The operations.
const (
	Same    Op = "same"
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Result is the comparison of A with B.
type Result struct {
	A, B SideInfo
	// Manifest compares the run manifests.
	Manifest ManifestDiff
	// Sentences align A's sentences with B's, in reading order: kept
	// (Same), Changed (with word-level changes), Removed (A only) and
	// Added (B only).
	Sentences []SentenceChange
	// Kept, Changed, Added and Removed count the sentences by operation.
	Kept, ChangedCount, AddedCount, RemovedCount int
	// Citations lists the aligned sentences whose citation changed.
	Citations []CitationChange
	// DocsOnlyA and DocsOnlyB are the documents only one report cites.
	DocsOnlyA, DocsOnlyB []string
	// Nuggets compares the nuggets the reports' sentences answer.
	Nuggets NuggetDiff
	// Metrics are the differences of the evaluation figures, when both
	// reports carry them; nil otherwise.
	Metrics []MetricChange
	// Judge names the judge of the metrics ("" when there are none, or
	// the two sides were judged differently: then it says so).
	Judge string
}

// SideInfo describes a compared report.
type SideInfo struct {
	Label, RequestID, RunID string
	Sentences               int
	// ManifestHash is the report's manifest hash ("" without a manifest).
	ManifestHash string
	EditedByHand bool
}

// ManifestDiff compares two manifests.
type ManifestDiff struct {
	// MissingA and MissingB are set when a report has no manifest: its
	// fields are then not compared.
	MissingA, MissingB bool
	// Same is set when both manifests are equal.
	Same bool
	// Fields are the fields that differ, in manifest order (A's, then
	// B's own); an empty A or B value is a field the side lacks.
	Fields []FieldChange
}

// FieldChange is a manifest field that differs.
type FieldChange struct {
	Key  string // "Settings / retrieve"
	A, B string
	// InA and InB tell whether each side has the field.
	InA, InB bool
}

// SentenceChange is one step of the alignment.
type SentenceChange struct {
	Op Op
	// A and B are the sentence's 1-based numbers in each report, 0 where
	// it is absent.
	A, B         int
	TextA, TextB string
	// Words are a changed sentence's words, each kept, removed or added,
	// in order (A's removed words before B's added ones at each place).
	Words []Word
	// CiteA and CiteB name what each side's sentence cites (Citation);
	// CitationChanged is set when both exist and differ.
	CiteA, CiteB    string
	CitationChanged bool
}

// Word is a run of words of a changed sentence.
type Word struct {
	Op   Op // Same, Removed or Added
	Text string
}

// CitationChange is an aligned sentence whose citation changed.
type CitationChange struct {
	A, B       int
	Text       string // the sentence's text in B
	From, To   string
	SameText   bool // the sentence's text did not change
	DocChanged bool // it cites another document
}

// NuggetDiff compares the nuggets the reports answer.
type NuggetDiff struct {
	// Known is false when either report lacks nugget provenance (the
	// "crucible" objects' nugget ids): nothing is compared.
	Known bool
	// ByID is set when the reports carry nugget ids but not both their
	// questions: nuggets are then matched by id, which only means the
	// same nugget within one run (two versions of one report).
	ByID bool
	// Gained are answered in B only, Lost in A only.
	Gained, Lost []export.NuggetMeta
	// Both counts the nuggets both answer.
	Both int
}

// MetricChange is one evaluation figure in both reports.
type MetricChange struct {
	Name  string
	A, B  float64
	Delta float64
}

// Compare compares report a with report b.
func Compare(a, b Side) Result {
	res := Result{A: info(a), B: info(b)}
	res.Manifest = manifestDiff(a.Report.Crucible, b.Report.Crucible)
	res.Sentences = alignSentences(a.Report, b.Report)
	for _, s := range res.Sentences {
		switch s.Op {
		case Same:
			res.Kept++
		case Changed:
			res.ChangedCount++
		case Added:
			res.AddedCount++
		case Removed:
			res.RemovedCount++
		}
		if s.CitationChanged {
			res.Citations = append(res.Citations, CitationChange{A: s.A, B: s.B, Text: s.TextB, From: s.CiteA, To: s.CiteB,
				SameText: s.Op == Same, DocChanged: citedDoc(a.Report, s.A) != citedDoc(b.Report, s.B)})
		}
	}
	da, db := citedDocs(a.Report), citedDocs(b.Report)
	res.DocsOnlyA, res.DocsOnlyB = minus(da, db), minus(db, da)
	res.Nuggets = nuggetDiff(a.Report, b.Report)
	if a.Metrics != nil && b.Metrics != nil {
		res.Metrics = metricChanges(*a.Metrics, *b.Metrics)
		res.Judge = a.Judge
		if a.Judge != b.Judge {
			res.Judge = fmt.Sprintf("A judged by %s, B by %s", a.Judge, b.Judge)
		}
	}
	return res
}

func info(s Side) SideInfo {
	in := SideInfo{Label: s.Label, RequestID: s.Report.RequestID, RunID: s.Report.RunID, Sentences: len(s.Report.Sentences)}
	if m := manifestOf(s.Report.Crucible); m != nil {
		in.ManifestHash, in.EditedByHand = m.Hash(), m.EditedByHand
	}
	return in
}

func manifestOf(meta *export.ReportMeta) *pipeline.Manifest {
	if meta == nil {
		return nil
	}
	return meta.Manifest
}

// manifestDiff compares the manifests field by field (pipeline.Manifest
// Fields).
func manifestDiff(a, b *export.ReportMeta) ManifestDiff {
	ma, mb := manifestOf(a), manifestOf(b)
	d := ManifestDiff{MissingA: ma == nil, MissingB: mb == nil}
	if ma == nil || mb == nil {
		return d
	}
	fa, fb := ma.Fields(), mb.Fields()
	valA := make(map[string]string, len(fa))
	for _, f := range fa {
		valA[f.Key()] = f.Value
	}
	valB := make(map[string]string, len(fb))
	for _, f := range fb {
		valB[f.Key()] = f.Value
	}
	// Both lists are in manifest order: merge them, so a field only one
	// side has stands where it belongs.
	done := map[string]bool{}
	emit := func(key string) {
		if done[key] {
			return
		}
		done[key] = true
		va, inA := valA[key]
		vb, inB := valB[key]
		if !inA || !inB || va != vb {
			d.Fields = append(d.Fields, FieldChange{Key: key, A: va, B: vb, InA: inA, InB: inB})
		}
	}
	i, j := 0, 0
	for i < len(fa) || j < len(fb) {
		switch {
		case i < len(fa) && done[fa[i].Key()]:
			i++
		case j < len(fb) && done[fb[j].Key()]:
			j++
		case i < len(fa) && !hasKey(valB, fa[i].Key()):
			emit(fa[i].Key())
		case j < len(fb) && !hasKey(valA, fb[j].Key()):
			emit(fb[j].Key())
		case i < len(fa):
			emit(fa[i].Key())
		default:
			emit(fb[j].Key())
		}
	}
	d.Same = len(d.Fields) == 0
	return d
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// Citation names what a sentence cites: its passage and byte span when
// the sentence carries Crucible's provenance, else its documents.
func Citation(s export.NeuCLIRSentence) string {
	docs := strings.Join(s.Citations, ", ")
	if m := s.Crucible; m != nil && m.PassageID != "" {
		return fmt.Sprintf("%s bytes %d–%d", m.PassageID, m.Start, m.End)
	}
	if docs == "" {
		return "nothing"
	}
	return docs
}

func citedDoc(r export.NeuCLIRReport, n int) string {
	if n < 1 || n > len(r.Sentences) || len(r.Sentences[n-1].Citations) == 0 {
		return ""
	}
	return r.Sentences[n-1].Citations[0]
}

// alignSentences aligns the sentences: equal texts by a longest common
// subsequence; between two kept sentences, a removed and an added
// sentence that share most of their words are one changed sentence
// (pairs taken in order, most similar first within the order).
func alignSentences(a, b export.NeuCLIRReport) []SentenceChange {
	ta, tb := texts(a), texts(b)
	lcs := commonSubsequence(len(ta), len(tb), func(i, j int) bool { return ta[i] == tb[j] })
	var out []SentenceChange
	i, j := 0, 0
	flush := func(ie, je int) {
		out = append(out, hunk(a, b, i, ie, j, je)...)
		i, j = ie, je
	}
	for _, p := range lcs {
		flush(p[0], p[1])
		out = append(out, sentenceChange(a, b, Same, i+1, j+1))
		i, j = i+1, j+1
	}
	flush(len(ta), len(tb))
	return out
}

func texts(r export.NeuCLIRReport) []string {
	out := make([]string, len(r.Sentences))
	for i, s := range r.Sentences {
		out[i] = strings.Join(strings.Fields(s.Text), " ")
	}
	return out
}

// minSimilarity is the share of words two sentences must share to be one
// changed sentence (Dice's coefficient over their words).
const minSimilarity = 0.5

// hunk aligns A's sentences [ia, ea) with B's [jb, eb), none equal: each
// removed sentence is paired with the most similar added one after the
// last pair, if similar enough.
func hunk(a, b export.NeuCLIRReport, ia, ea, jb, eb int) []SentenceChange {
	type pair struct{ i, j int }
	var pairs []pair
	next := jb
	for i := ia; i < ea; i++ {
		best, bestSim := -1, minSimilarity
		for j := next; j < eb; j++ {
			if s := similarity(a.Sentences[i].Text, b.Sentences[j].Text); s >= bestSim {
				if best < 0 || s > bestSim {
					best, bestSim = j, s
				}
			}
		}
		if best >= 0 {
			pairs = append(pairs, pair{i, best})
			next = best + 1
		}
	}
	var out []SentenceChange
	i, j := ia, jb
	for _, p := range pairs {
		for ; i < p.i; i++ {
			out = append(out, sentenceChange(a, b, Removed, i+1, 0))
		}
		for ; j < p.j; j++ {
			out = append(out, sentenceChange(a, b, Added, 0, j+1))
		}
		out = append(out, sentenceChange(a, b, Changed, p.i+1, p.j+1))
		i, j = p.i+1, p.j+1
	}
	for ; i < ea; i++ {
		out = append(out, sentenceChange(a, b, Removed, i+1, 0))
	}
	for ; j < eb; j++ {
		out = append(out, sentenceChange(a, b, Added, 0, j+1))
	}
	return out
}

// sentenceChange describes sentence na of A and nb of B (1-based, 0:
// none).
func sentenceChange(a, b export.NeuCLIRReport, op Op, na, nb int) SentenceChange {
	c := SentenceChange{Op: op, A: na, B: nb}
	if na > 0 {
		s := a.Sentences[na-1]
		c.TextA, c.CiteA = s.Text, Citation(s)
	}
	if nb > 0 {
		s := b.Sentences[nb-1]
		c.TextB, c.CiteB = s.Text, Citation(s)
	}
	if na > 0 && nb > 0 {
		c.CitationChanged = c.CiteA != c.CiteB
	}
	if op == Changed {
		c.Words = wordDiff(c.TextA, c.TextB)
	}
	return c
}

// words splits a sentence into words at white space.
func words(s string) []string { return strings.Fields(s) }

// norm is a word as similarity compares it: lower case, without the
// punctuation around it.
func norm(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// similarity is Dice's coefficient over two sentences' words (as
// multisets, normalised).
func similarity(x, y string) float64 {
	wx, wy := words(x), words(y)
	if len(wx)+len(wy) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, w := range wx {
		count[norm(w)]++
	}
	shared := 0
	for _, w := range wy {
		if count[norm(w)] > 0 {
			count[norm(w)]--
			shared++
		}
	}
	return 2 * float64(shared) / float64(len(wx)+len(wy))
}

// wordDiff gives the words of x and y as kept, removed and added runs:
// a longest common subsequence of the words, compared exactly.
func wordDiff(x, y string) []Word {
	wx, wy := words(x), words(y)
	lcs := commonSubsequence(len(wx), len(wy), func(i, j int) bool { return wx[i] == wy[j] })
	var out []Word
	add := func(op Op, ws []string) {
		if len(ws) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += " " + strings.Join(ws, " ")
			return
		}
		out = append(out, Word{Op: op, Text: strings.Join(ws, " ")})
	}
	i, j := 0, 0
	for _, p := range lcs {
		add(Removed, wx[i:p[0]])
		add(Added, wy[j:p[1]])
		add(Same, wx[p[0]:p[0]+1])
		i, j = p[0]+1, p[1]+1
	}
	add(Removed, wx[i:])
	add(Added, wy[j:])
	return out
}

// commonSubsequence returns the index pairs of a longest common
// subsequence of two sequences of lengths n and m, in order; ties go to
// the earliest pairing in the first sequence.
func commonSubsequence(n, m int, eq func(i, j int) bool) [][2]int {
	// l[i][j] is the length of an LCS of the suffixes from i and j.
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case eq(i, j):
				l[i][j] = l[i+1][j+1] + 1
			case l[i+1][j] >= l[i][j+1]:
				l[i][j] = l[i+1][j]
			default:
				l[i][j] = l[i][j+1]
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case eq(i, j):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// citedDocs lists the documents a report cites, once each, in order.
func citedDocs(r export.NeuCLIRReport) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range r.Sentences {
		for _, d := range s.Citations {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// minus lists the items of x not in y, in x's order.
func minus(x, y []string) []string {
	in := map[string]bool{}
	for _, v := range y {
		in[v] = true
	}
	var out []string
	for _, v := range x {
		if !in[v] {
			out = append(out, v)
		}
	}
	return out
}

// answered lists the nuggets a report's sentences answer: from its
// report-level nugget list when it has one, else by the sentences'
// nugget ids alone; ok is false when no sentence names a nugget.
func answered(r export.NeuCLIRReport) (out []export.NuggetMeta, questions, ok bool) {
	var listed map[string]export.NuggetMeta
	if r.Crucible != nil && len(r.Crucible.Nuggets) > 0 {
		listed = map[string]export.NuggetMeta{}
		for _, n := range r.Crucible.Nuggets {
			listed[n.ID] = n
		}
	}
	seen := map[string]bool{}
	questions = listed != nil
	for _, s := range r.Sentences {
		if s.Crucible == nil || s.Crucible.NuggetID == "" {
			continue
		}
		ok = true
		id := s.Crucible.NuggetID
		if seen[id] {
			continue
		}
		seen[id] = true
		n, found := listed[id]
		if !found {
			n = export.NuggetMeta{ID: id}
			questions = false
		}
		out = append(out, n)
	}
	return out, questions, ok
}

// nuggetKey matches nuggets across reports: by question (case and
// spacing aside) when both reports give questions, else by id.
func nuggetKey(n export.NuggetMeta, byID bool) string {
	if byID {
		return n.ID
	}
	return strings.ToLower(strings.Join(strings.Fields(n.Question), " "))
}

func nuggetDiff(a, b export.NeuCLIRReport) NuggetDiff {
	na, qa, oka := answered(a)
	nb, qb, okb := answered(b)
	d := NuggetDiff{Known: oka && okb}
	if !d.Known {
		return d
	}
	d.ByID = !qa || !qb
	keys := func(ns []export.NuggetMeta) map[string]bool {
		m := map[string]bool{}
		for _, n := range ns {
			m[nuggetKey(n, d.ByID)] = true
		}
		return m
	}
	ka, kb := keys(na), keys(nb)
	for _, n := range nb {
		if !ka[nuggetKey(n, d.ByID)] {
			d.Gained = append(d.Gained, n)
		} else {
			d.Both++
		}
	}
	for _, n := range na {
		if !kb[nuggetKey(n, d.ByID)] {
			d.Lost = append(d.Lost, n)
		}
	}
	return d
}

// metricChanges lists the metrics in the evaluation table's order; the
// on-topic share when both have it.
func metricChanges(a, b judge.Metrics) []MetricChange {
	rows := []struct {
		name string
		a, b float64
	}{
		{"nugget recall", a.NuggetRecall, b.NuggetRecall},
		{"vital nugget recall", a.VitalRecall, b.VitalRecall},
		{"nugget density", a.NuggetDensity, b.NuggetDensity},
		{"sentence novelty", a.SentenceNovelty, b.SentenceNovelty},
		{"relevant sentences", a.RelevantSentences, b.RelevantSentences},
		{"citation support", a.CitationSupport, b.CitationSupport},
	}
	if a.OnTopicSentences != nil && b.OnTopicSentences != nil {
		rows = append(rows, struct {
			name string
			a, b float64
		}{"on-topic sentences", *a.OnTopicSentences, *b.OnTopicSentences})
	}
	out := make([]MetricChange, len(rows))
	for i, r := range rows {
		out[i] = MetricChange{Name: r.name, A: r.a, B: r.b, Delta: r.b - r.a}
	}
	return out
}
