package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the comparison as plain text, as `crucible diff`
// prints it: the two reports, the manifest's differences, the sentences
// added (+), removed (-) and changed (~, with removed words in [-...-]
// and added ones in {+...+}), the citations changed, the nuggets gained
// and lost, and the metric differences when both were evaluated. Kept
// sentences are counted, not listed.
func WriteText(w io.Writer, r Result) error {
	bw := bufio.NewWriter(w)
	side := func(tag string, s SideInfo) {
		fmt.Fprintf(bw, "%s: %s — request %s, run %s, %d %s", tag, s.Label, orNone(s.RequestID), orNone(s.RunID),
			s.Sentences, plural(s.Sentences, "sentence", "sentences"))
		switch {
		case s.ManifestHash == "":
			bw.WriteString(", no manifest")
		case s.EditedByHand:
			fmt.Fprintf(bw, ", manifest %s (edited by hand)", s.ManifestHash)
		default:
			fmt.Fprintf(bw, ", manifest %s", s.ManifestHash)
		}
		bw.WriteString("\n")
	}
	side("A", r.A)
	side("B", r.B)
	if r.A.RequestID != r.B.RequestID {
		bw.WriteString("The reports answer different requests.\n")
	}

	bw.WriteString("\nManifest: ")
	m := r.Manifest
	switch {
	case m.MissingA && m.MissingB:
		bw.WriteString("neither report has one.\n")
	case m.MissingA:
		bw.WriteString("A has none; not compared.\n")
	case m.MissingB:
		bw.WriteString("B has none; not compared.\n")
	case m.Same:
		bw.WriteString("the same.\n")
	default:
		fmt.Fprintf(bw, "%d %s.\n", len(m.Fields), plural(len(m.Fields), "difference", "differences"))
		for _, f := range m.Fields {
			fmt.Fprintf(bw, "  %s: %s → %s\n", f.Key, fieldValue(f.A, f.InA), fieldValue(f.B, f.InB))
		}
	}

	fmt.Fprintf(bw, "\nSentences: %d kept, %d changed, %d added, %d removed.\n", r.Kept, r.ChangedCount, r.AddedCount, r.RemovedCount)
	for _, s := range r.Sentences {
		switch s.Op {
		case Added:
			fmt.Fprintf(bw, "  + B%d  %s\n", s.B, oneLine(s.TextB))
		case Removed:
			fmt.Fprintf(bw, "  - A%d  %s\n", s.A, oneLine(s.TextA))
		case Changed:
			fmt.Fprintf(bw, "  ~ A%d→B%d  %s\n", s.A, s.B, markedWords(s.Words))
		}
	}

	fmt.Fprintf(bw, "\nCitations: %d changed.\n", len(r.Citations))
	for _, c := range r.Citations {
		what := "same text"
		if !c.SameText {
			what = "changed sentence"
		}
		fmt.Fprintf(bw, "  A%d→B%d (%s): %s → %s\n", c.A, c.B, what, c.From, c.To)
	}
	if len(r.DocsOnlyA) > 0 {
		fmt.Fprintf(bw, "  cited only by A: %s\n", strings.Join(r.DocsOnlyA, ", "))
	}
	if len(r.DocsOnlyB) > 0 {
		fmt.Fprintf(bw, "  cited only by B: %s\n", strings.Join(r.DocsOnlyB, ", "))
	}

	bw.WriteString("\nNuggets: ")
	n := r.Nuggets
	if !n.Known {
		bw.WriteString("not compared: the reports do not both carry Crucible's nugget provenance.\n")
	} else {
		fmt.Fprintf(bw, "%d gained, %d lost, %d in both", len(n.Gained), len(n.Lost), n.Both)
		if n.ByID {
			bw.WriteString(" (matched by nugget id: the reports do not both name their nuggets' questions)")
		}
		bw.WriteString(".\n")
		for _, g := range n.Gained {
			fmt.Fprintf(bw, "  + %s\n", nuggetText(g.ID, g.Question, g.Answer))
		}
		for _, l := range n.Lost {
			fmt.Fprintf(bw, "  - %s\n", nuggetText(l.ID, l.Question, l.Answer))
		}
	}

	bw.WriteString("\nMetrics: ")
	if r.Metrics == nil {
		bw.WriteString("not compared: the reports were not both evaluated.\n")
	} else {
		fmt.Fprintf(bw, "judged by %s.\n", r.Judge)
		for _, mc := range r.Metrics {
			fmt.Fprintf(bw, "  %-20s %.3f → %.3f  (%+.3f)\n", mc.Name, mc.A, mc.B, mc.Delta)
		}
	}
	return bw.Flush()
}

// markedWords writes a changed sentence's words with the removed ones in
// [-...-] and the added ones in {+...+}.
func markedWords(ws []Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		switch w.Op {
		case Removed:
			parts[i] = "[-" + w.Text + "-]"
		case Added:
			parts[i] = "{+" + w.Text + "+}"
		default:
			parts[i] = w.Text
		}
	}
	return strings.Join(parts, " ")
}

func nuggetText(id, q, a string) string {
	if q == "" {
		return "nugget " + id
	}
	return fmt.Sprintf("%s — %s (%s)", oneLine(q), oneLine(a), id)
}

func fieldValue(v string, present bool) string {
	if !present {
		return "(absent)"
	}
	if v == "" {
		return `""`
	}
	return v
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
