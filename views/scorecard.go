package views

import (
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// ScorecardAnchor is the report page's scorecard, for links to it.
const ScorecardAnchor = "scorecard"

// ReportScorecardURL is where a report page's scorecard form posts.
func ReportScorecardURL(id int64) string { return ReportURL(id) + "/scorecard" }

// ScorecardPanel is a report page's scorecard and what can be done with
// it.
type ScorecardPanel struct {
	ReportID int64
	// Scorecard is the stored one; nil when none has been computed.
	Scorecard *pipeline.Scorecard
	// Stale is set when it scored an older version of the report.
	Stale bool
	// Judge names the portal's judge, which computes scorecards.
	Judge string
}

// scorecardRow is one figure of a scorecard.
type scorecardRow struct {
	Key, Label, Value, Detail string
}

// scorecardRows lists a scorecard's figures: nugget recall (with gold
// nuggets), citation support and on-topic share by the judge, reviewers'
// verified support.
func scorecardRows(sc pipeline.Scorecard) []scorecardRow {
	var rows []scorecardRow
	if g := sc.Gold; g != nil {
		d := formatCount(g.Covered) + " of " + formatCount(g.Nuggets) + " gold nuggets of “" + g.Set + "”"
		if g.VitalRecall != nil {
			d += "; vital " + score3(*g.VitalRecall)
		}
		rows = append(rows, scorecardRow{"nugget-recall", "Nugget recall", score3(g.Recall), d})
	}
	rows = append(rows,
		scorecardRow{"citation-support", "Citation support", score3(sc.CitationSupport),
			"of " + countText(sc.Citations, "citation", "citations") + ", by the judge"},
		scorecardRow{"on-topic", "On topic", score3(sc.OnTopic),
			"of " + countText(sc.Sentences, "sentence", "sentences") + ", by the judge"})
	if r := sc.Reviewed; r != nil {
		rows = append(rows, scorecardRow{"reviewed-support", "Reviewers' verified support", score3(r.Support),
			formatCount(r.Reviewed) + " of " + countText(sc.Sentences, "citation", "citations") + " reviewed: " +
				formatCount(r.Supported) + " supported, " + formatCount(r.Partly) + " partly, " + formatCount(r.Unsupported) + " not"})
	} else {
		rows = append(rows, scorecardRow{"reviewed-support", "Reviewers' verified support", "–", "no citation reviewed yet"})
	}
	return rows
}

// score3 shows a share with three decimals, as the evaluation does.
func score3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// scorecardJudged says who judged, when, and which version.
func scorecardJudged(sc pipeline.Scorecard) string {
	s := "Judged by " + sc.Judge.Name + " on " + formatTime(sc.ComputedAt)
	if sc.Version > 0 {
		s += ", version " + strconv.Itoa(sc.Version)
	}
	return s + "."
}
