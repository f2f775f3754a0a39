package views

import "strconv"

// ReportRetrievalURL is a report's retrieval view: the first-stage ranking
// beside the reranked one, with the reranker's trace.
func ReportRetrievalURL(id int64) string {
	return ReportsPath + "/" + strconv.FormatInt(id, 10) + "/retrieval"
}

// RetrievalPage is the view model of the retrieval view.
type RetrievalPage struct {
	Site     Site
	ReportID int64
	Title    string
	// Method is the reranker's name ("" when the report was made without
	// one) and MethodLabel its readable name.
	Method      string
	MethodLabel string
	// Selected is the size of a set method's chosen set (0 otherwise).
	Selected int
	// Calls and CacheHits count the rerank stage's model calls.
	Calls, CacheHits int
	// Rows are the documents in first-stage order.
	Rows []RetrievalRow
	// Facts describe the method's run ("aggregation: sum", "λ: 0.3").
	Facts []TraceFact
	// Tables render the trace for people: LANCER's question × document
	// grid, SetR's requirements, PureCover's objective by step, ...
	Tables []TraceTable
	// Notes are what the method recorded about fallbacks and failures.
	Notes []string
	// Periods are the periods the request names ("1812–1815"), whose
	// documents retrieval preferred.
	Periods []string
}

// RetrievalRow is one retrieved document.
type RetrievalRow struct {
	DocID      string
	Title      string
	DocURL     string
	FirstRank  int
	Reranked   int // 0 without reranking
	Score      float64
	InSelected bool
}

// Change is the row's move from first stage to reranked, as shown: "↑3",
// "↓2", "=" or "" without reranking.
func (r RetrievalRow) Change() string {
	switch {
	case r.Reranked == 0:
		return ""
	case r.Reranked < r.FirstRank:
		return "↑" + strconv.Itoa(r.FirstRank-r.Reranked)
	case r.Reranked > r.FirstRank:
		return "↓" + strconv.Itoa(r.Reranked-r.FirstRank)
	}
	return "="
}

// ChangeLabel says the change in words for screen readers.
func (r RetrievalRow) ChangeLabel() string {
	switch {
	case r.Reranked == 0:
		return ""
	case r.Reranked < r.FirstRank:
		return "up " + strconv.Itoa(r.FirstRank-r.Reranked)
	case r.Reranked > r.FirstRank:
		return "down " + strconv.Itoa(r.Reranked-r.FirstRank)
	}
	return "unchanged"
}

// TraceFact is one named value of a trace.
type TraceFact struct {
	Name  string
	Value string
}

// TraceTable is a part of a trace as a table of text cells.
type TraceTable struct {
	Caption string
	// Note explains how to read the table.
	Note    string
	Columns []string
	Rows    [][]string
	// Marked rows (by index) are highlighted: the chosen documents.
	Marked map[int]bool
}
