package judge

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/crucible-portal/crucible/pipeline"
)

// tableColumns are the metric columns of WriteTable, in order.
var tableColumns = []string{"recall", "vital", "density", "novelty", "relevant", "support"}

func (m Metrics) row() []float64 {
	return []float64{m.NuggetRecall, m.VitalRecall, m.NuggetDensity, m.SentenceNovelty, m.RelevantSentences, m.CitationSupport}
}

// WriteTable writes the results as a plain-text table: one row per request
// (its sentence, nugget and citation counts, then nugget recall, vital
// nugget recall, nugget density, sentence novelty, relevant sentences and
// citation support to three decimals), a "mean" row, and lines naming the
// judge and listing the missing, unjudged and not requested requests. A
// missing report's row says "missing"; a request without vital nuggets
// shows "-" for vital recall, as does the mean when no request has one.
//
// When on-topic sentences were measured (r.Topics is set) a last column,
// "on-topic", gives them, "-" for a request without topic terms (and for
// the mean when no request has any), and lines list the requests without
// topic terms and the unused ones. When a reader's judgements were given
// (r.Judged is set) a last line gives the share of the judged sentences
// on topic and how many were judged.
func WriteTable(w io.Writer, r Results) error {
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	head := strings.Join(tableColumns, "\t")
	if r.Topics != nil {
		head += "\ton-topic"
	}
	fmt.Fprintf(tw, "request\tsentences\tnuggets\tcitations\t%s\n", head)
	for _, rr := range r.Requests {
		c := rr.Counts
		sentences := fmt.Sprint(c.Sentences)
		if rr.Missing {
			sentences = "missing"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d/%d\t%s%s\n", rr.RequestID, sentences, c.Covered, c.Nuggets,
			c.Supported, c.Citations, formatRow(rr.Metrics, c.VitalNuggets > 0), topicCell(r, rr.Metrics))
	}
	t := r.Totals
	fmt.Fprintf(tw, "mean (%d)\t%d\t%d/%d\t%d/%d\t%s%s\n", len(r.Requests), t.Sentences, t.Covered, t.Nuggets,
		t.Supported, t.Citations, formatRow(r.Mean, r.VitalRequests > 0), topicCell(r, r.Mean))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write evaluation table: %w", err)
	}
	fmt.Fprintf(bw, "judge: %s\n", r.Judge)
	if line := independenceLine(r); line != "" {
		fmt.Fprintln(bw, line)
	}
	if r.VitalRequests < len(r.Requests) {
		fmt.Fprintf(bw, "vital recall averaged over the %d of %d requests with vital nuggets\n", r.VitalRequests, len(r.Requests))
	}
	if t.Undecided > 0 {
		fmt.Fprintf(bw, "undecided verdicts (counted as no): %d\n", t.Undecided)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(bw, "missing reports (scored 0): %s\n", strings.Join(r.Missing, ", "))
	}
	if len(r.Unjudged) > 0 {
		fmt.Fprintf(bw, "no gold nuggets (not scored): %s\n", strings.Join(r.Unjudged, ", "))
	}
	if len(r.NotRequested) > 0 {
		fmt.Fprintf(bw, "gold nuggets but not requested (not scored): %s\n", strings.Join(r.NotRequested, ", "))
	}
	if tp := r.Topics; tp != nil {
		if tp.Requests < len(r.Requests) {
			fmt.Fprintf(bw, "on-topic averaged over the %d of %d requests with topic terms\n", tp.Requests, len(r.Requests))
		}
		if len(tp.NoTopics) > 0 {
			fmt.Fprintf(bw, "no topic terms (on-topic not averaged): %s\n", strings.Join(tp.NoTopics, ", "))
		}
		if len(tp.Unused) > 0 {
			fmt.Fprintf(bw, "topic terms of requests not scored (ignored): %s\n", strings.Join(tp.Unused, ", "))
		}
	}
	if jd := r.Judged; jd != nil {
		fmt.Fprintln(bw, judgedSummaryLine(jd))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write evaluation table: %w", err)
	}
	return nil
}

// judgedSummaryLine is the table's line on the judged on-topic measure.
func judgedSummaryLine(jd *JudgedSummary) string {
	if jd.Share == nil {
		return fmt.Sprintf("judged on topic by a reader: none of the %d sentences was judged", jd.Sentences)
	}
	line := fmt.Sprintf("judged on topic by a reader: %.3f (%d of the %d judged; %d of %d sentences judged)",
		*jd.Share, jd.OnTopic, jd.Judged, jd.Judged, jd.Sentences)
	if jd.Disputed > 0 {
		line += fmt.Sprintf("; %d judged both ways, counted off topic", jd.Disputed)
	}
	return line
}

// topicCell is the on-topic cell of a table row, with its leading tab;
// empty when on-topic sentences were not measured.
func topicCell(r Results, m Metrics) string {
	switch {
	case r.Topics == nil:
		return ""
	case m.OnTopicSentences == nil:
		return "\t-"
	}
	return fmt.Sprintf("\t%.3f", *m.OnTopicSentences)
}

func formatRow(m Metrics, hasVital bool) string {
	cells := make([]string, 0, len(tableColumns))
	for i, v := range m.row() {
		if i == 1 && !hasVital {
			cells = append(cells, "-")
			continue
		}
		cells = append(cells, fmt.Sprintf("%.3f", v))
	}
	return strings.Join(cells, "\t")
}

// WriteReport writes one report's evaluation as plain text: the metrics,
// the nugget × sentence coverage grid ("x" covered, "?" undecided, "."
// not; sentences numbered from 1; vital nuggets starred), the nuggets with
// the sentences covering them, and each sentence with its citations'
// verdicts. When on-topic sentences were measured, their share follows
// citation support and each sentence says whether it is on topic, and by
// which term.
func WriteReport(w io.Writer, rr ReportResult) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "request %s", rr.RequestID)
	if rr.RunID != "" {
		fmt.Fprintf(bw, ", run %s", rr.RunID)
	}
	if rr.Missing {
		bw.WriteString(": no report")
	}
	fmt.Fprintf(bw, "\njudge: %s\n", rr.Judge)
	m, c := rr.Metrics, rr.Counts
	fmt.Fprintf(bw, "nugget recall %.3f (%d/%d)", m.NuggetRecall, c.Covered, c.Nuggets)
	if c.VitalNuggets > 0 {
		fmt.Fprintf(bw, ", vital %.3f (%d/%d)", m.VitalRecall, c.VitalCovered, c.VitalNuggets)
	}
	fmt.Fprintf(bw, "\nnugget density %.3f, sentence novelty %.3f (%d/%d), relevant sentences %.3f (%d/%d)\n",
		m.NuggetDensity, m.SentenceNovelty, c.NovelSentences, c.Sentences, m.RelevantSentences, c.RelevantSentences, c.Sentences)
	fmt.Fprintf(bw, "citation support %.3f (%d/%d)\n", m.CitationSupport, c.Supported, c.Citations)
	if m.OnTopicSentences != nil && c.OnTopicSentences != nil {
		fmt.Fprintf(bw, "on-topic sentences %.3f (%d/%d)\n", *m.OnTopicSentences, *c.OnTopicSentences, c.Sentences)
	}
	if c.Undecided > 0 {
		fmt.Fprintf(bw, "undecided verdicts (counted as no): %d\n", c.Undecided)
	}
	if len(rr.Nuggets) > 0 && len(rr.Sentences) > 0 {
		bw.WriteString("\ncoverage (nugget × sentence):\n")
		tw := tabwriter.NewWriter(bw, 0, 0, 1, ' ', 0)
		head := []string{"nugget"}
		for j := range rr.Sentences {
			head = append(head, fmt.Sprint(j+1))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for i, n := range rr.Nuggets {
			cells := []string{nuggetTag(n.Nugget)}
			for j := range rr.Sentences {
				mark := "."
				switch v := rr.Coverage[i][j]; {
				case v.Error != "":
					mark = "?"
				case v.Yes:
					mark = "x"
				}
				cells = append(cells, mark)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	if len(rr.Nuggets) > 0 {
		bw.WriteString("\nnuggets (* vital; covering sentences in brackets):\n")
		for _, n := range rr.Nuggets {
			by := make([]string, len(n.Sentences))
			for k, j := range n.Sentences {
				by[k] = fmt.Sprint(j + 1)
			}
			fmt.Fprintf(bw, "%s [%s] %s\n", nuggetTag(n.Nugget), strings.Join(by, " "), oneLine(n.Nugget.Label()))
		}
	}
	for _, s := range rr.Sentences {
		fmt.Fprintf(bw, "\n%d. %s\n", s.Index+1, oneLine(s.Text))
		switch {
		case s.OnTopic == nil:
		case *s.OnTopic:
			fmt.Fprintf(bw, "   on topic: %q\n", s.TopicTerm)
		default:
			bw.WriteString("   off topic\n")
		}
		switch {
		case s.JudgedOnTopic == nil:
		case *s.JudgedOnTopic:
			bw.WriteString("   judged on topic by a reader\n")
		default:
			bw.WriteString("   judged off topic by a reader\n")
		}
		for _, cit := range s.Citations {
			verdict := "unsupported"
			switch {
			case cit.Verdict.Error != "":
				verdict = "undecided"
			case cit.Verdict.Yes:
				verdict = "supported"
			}
			where := cit.Evidence.PassageID
			if where == "" {
				where = cit.DocID
			}
			fmt.Fprintf(bw, "   [%s] %s (%s)", where, verdict, cit.Evidence.Basis)
			if r := cit.Verdict.Reason; r != "" {
				fmt.Fprintf(bw, ": %s", r)
			}
			if e := cit.Verdict.Error; e != "" {
				fmt.Fprintf(bw, ": %s", e)
			}
			bw.WriteString("\n")
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report evaluation: %w", err)
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// nuggetTag is a nugget's id, starred when vital.
func nuggetTag(n Nugget) string {
	if n.Importance == Vital {
		return n.ID + "*"
	}
	return n.ID
}

// independenceLine says how the judge stands to the reports' makers
// (ReportResult.Independence): "scores: independent" when all are alike,
// else each label with its requests; "" when no report says what made it
// (other systems' runs, reports without manifests).
func independenceLine(r Results) string {
	var labels []string
	ids := map[string][]string{}
	for _, rr := range r.Requests {
		if rr.Independence == "" {
			continue
		}
		if _, ok := ids[rr.Independence]; !ok {
			labels = append(labels, rr.Independence)
		}
		ids[rr.Independence] = append(ids[rr.Independence], rr.RequestID)
	}
	switch {
	case len(labels) == 0 || len(labels) == 1 && labels[0] == pipeline.GeneratorUnknown:
		return ""
	case len(labels) == 1:
		return "scores: " + labels[0]
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l + " (" + strings.Join(ids[l], ", ") + ")"
	}
	return "scores: " + strings.Join(parts, "; ")
}
