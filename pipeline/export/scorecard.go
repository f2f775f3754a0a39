package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// ScorecardHeading is the heading of a report's scorecard in the Markdown
// export and on the report and printable pages.
const ScorecardHeading = "Scorecard"

// ScorecardLines words a scorecard, one line per figure: who judged and
// how the judge stands to the report's maker, then nugget recall (with a
// gold set), citation support and the on-topic share by the judge, and
// what reviewers verified.
func ScorecardLines(sc pipeline.Scorecard) []string {
	judged := "Judged by " + sc.Judge.Name + " (" + sc.Independence + ") on " + sc.ComputedAt.UTC().Format("2006-01-02 15:04 UTC")
	if sc.Version > 0 {
		judged += ", version " + strconv.Itoa(sc.Version)
	}
	lines := []string{judged}
	if g := sc.Gold; g != nil {
		l := fmt.Sprintf("Nugget recall %s (%d of %d gold nuggets of %q)", ratio(g.Recall), g.Covered, g.Nuggets, g.Set)
		if g.VitalRecall != nil {
			l += fmt.Sprintf("; vital %s", ratio(*g.VitalRecall))
		}
		lines = append(lines, l)
	}
	lines = append(lines,
		fmt.Sprintf("Citation support %s (of %d citations, by the judge)", ratio(sc.CitationSupport), sc.Citations),
		fmt.Sprintf("On topic %s (of %d sentences, by the judge)", ratio(sc.OnTopic), sc.Sentences))
	if r := sc.Reviewed; r != nil {
		lines = append(lines, fmt.Sprintf("Reviewers' verified support %s (%d of %d citations reviewed: %d supported, %d partly, %d not)",
			ratio(r.Support), r.Reviewed, sc.Sentences, r.Supported, r.Partly, r.Unsupported))
	} else {
		lines = append(lines, "Reviewers' verified support: no citation reviewed")
	}
	if sc.Undecided > 0 {
		lines = append(lines, fmt.Sprintf("%d judgements could not be made (counted as no)", sc.Undecided))
	}
	return lines
}

func ratio(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// writeScorecardMarkdown writes the report's scorecard, when it has one.
func writeScorecardMarkdown(b *strings.Builder, sc *pipeline.Scorecard) {
	if sc == nil {
		return
	}
	b.WriteString("\n## " + ScorecardHeading + "\n\n")
	for _, l := range ScorecardLines(*sc) {
		b.WriteString("- " + escapeMarkdown(l) + "\n")
	}
}
