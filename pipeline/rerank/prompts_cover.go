package rerank

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// SetRInput asks SetR's one set-wise question over documents identified
// [1]..[n] in the order given: the request's information requirements, the
// documents meeting each, and the set that covers them all with the least
// redundancy.
type SetRInput struct {
	Request prompts.RequestInfo
	Docs    []PromptDoc
}

// SetRRequirement is one information requirement of a SetR answer.
type SetRRequirement struct {
	Text string
	// Docs holds the 0-based positions of the documents the answer says
	// meet the requirement, in answer order.
	Docs []int
}

// SetROutput is a parsed SetR answer.
type SetROutput struct {
	// Requirements are read from the answer's reasoning; they are the
	// trace, and an answer without them still has a usable Selection.
	Requirements []SetRRequirement
	Selection    Selection
	// Report lists the requirement lines and identifiers that were dropped.
	Report prompts.ParseReport
}

// BuildSetR builds the rerank_setr request. Its answer is read by
// ParseSetR(answer, len(in.Docs)).
func BuildSetR(in SetRInput) pipeline.ModelRequest {
	n := len(in.Docs)
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below and must choose which documents to draw on.\n\n")
	writeRequestBlock(&b, in.Request)
	fmt.Fprintf(&b, "\nBelow are %d documents, each marked with an identifier in brackets, [1] to [%d].\n\n", n, n)
	for i, d := range in.Docs {
		writeDocBlock(&b, fmt.Sprintf("[%d]", i+1), d)
		b.WriteString("\n")
	}
	b.WriteString("Work in three steps.\n" +
		"1. Requirements: list the separate pieces of information a complete report on this request must contain.\n" +
		"2. Documents per requirement: for each requirement, give the identifiers of the documents that provide it, or none.\n" +
		"3. Final selection: choose the set of documents that together provide every requirement that any document provides, " +
		"with as little repetition as possible: leave out a document when the others already give all it adds. " +
		"There is no fixed number; choose as many or as few as the requirements need.\n\n")
	b.WriteString("Output format: the three sections below, the last line starting with \"### Final Selection:\" and listing the chosen identifiers, " +
		"most important first. For example, for another request, with three requirements and other documents:\n\n")
	b.WriteString(FormatSetR(SetROutput{
		Requirements: []SetRRequirement{
			{Text: "When the city council approved the flood barrier", Docs: []int{1, 4}},
			{Text: "What the barrier will cost", Docs: []int{4}},
			{Text: "Who objects to the barrier", Docs: nil},
		},
		Selection: Selection{Order: []int{4}},
	}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskSetR,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   setrMaxTokens,
		Temperature: 0,
	}
}

// FormatSetR writes the canonical SetR answer:
//
//	### Requirements
//	1. requirement
//	### Documents per requirement
//	1: [2] [5]
//	2: none
//	### Final Selection: [2] [5]
//
// The first two sections are left out when there are no requirements;
// an empty selection is written "none" (which ParseSetR rejects).
// Square brackets in a requirement's text become round ones, so that they
// cannot be read as identifiers.
func FormatSetR(out SetROutput) string {
	var b strings.Builder
	var reqs []SetRRequirement
	brackets := strings.NewReplacer("[", "(", "]", ")")
	for _, r := range out.Requirements {
		if t := formatLine(brackets.Replace(r.Text)); t != "" {
			reqs = append(reqs, SetRRequirement{Text: t, Docs: r.Docs})
		}
	}
	if len(reqs) > 0 {
		b.WriteString("### Requirements\n")
		for k, r := range reqs {
			fmt.Fprintf(&b, "%d. %s\n", k+1, r.Text)
		}
		b.WriteString("### Documents per requirement\n")
		for k, r := range reqs {
			ids := bracketIDs(r.Docs)
			if ids == "" {
				ids = "none"
			}
			fmt.Fprintf(&b, "%d: %s\n", k+1, ids)
		}
	}
	sel := bracketIDs(out.Selection.Order)
	if sel == "" {
		sel = "none"
	}
	b.WriteString("### Final Selection: " + sel)
	return b.String()
}

// bracketIDs writes 0-based positions as "[1] [3]".
func bracketIDs(positions []int) string {
	parts := make([]string, len(positions))
	for k, i := range positions {
		parts[k] = "[" + strconv.Itoa(i+1) + "]"
	}
	return strings.Join(parts, " ")
}

var (
	// reReqIndex opens a line that names a requirement by number:
	// "1:", "2.", "Requirement 3:", "**R4** -".
	// Group 1 is an opening bold marker, whose closing marker after the
	// separator goes with it ("**Requirement 1:** text", "**1.** text").
	reReqIndex = regexp.MustCompile(`(?i)^(?:(\*\*|__)\s*)?(?:requirement|req\.?|r)?\s*#?\s*(\d{1,3})\s*(?:\*\*|__)?\s*[:.)\-–—]\s*`)
	// reDocsLabel is a line's text that only introduces identifiers.
	reDocsLabel = regexp.MustCompile(`(?i)^(?:passages?|documents?|docs?|sources?|ids?|identifiers?|supported by|covered by|met by|provided by)$`)
)

// ParseSetR reads a SetR answer over n documents. The selection is read
// by ParseFinalSelection (the last "Final Selection" line); a missing or
// empty selection is a *prompts.ParseError, returned with the
// requirements that could be read. The requirements are read from the
// lines before it: under a heading naming requirements, the list entries
// (a "Requirement 2:" label, numbering and markdown removed); under a
// heading naming documents, passages or a mapping, lines "1: [2] [5]",
// "Requirement 1: [2]" or, without a number, in requirement order; and,
// without headings, numbered or bulleted lines (those holding bracketed
// identifiers map the requirement they name or follow). A requirement line
// may carry its identifiers after its text ("1. Cost of the barrier: [4]").
// Identifiers outside [1]..[n] are dropped and reported.
func ParseSetR(text string, n int) (SetROutput, error) {
	var out SetROutput
	if n < 0 {
		return out, parseErrorf(TaskSetR, text, "document count %d is negative", n)
	}
	clean := cleanText(text)
	lines := strings.Split(clean, "\n")
	label := len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if reSelectionLabel.MatchString(lines[i]) {
			label = i
			break
		}
	}
	out.Requirements = setrRequirements(lines[:label], n, &out.Report)
	sel, err := ParseFinalSelection(clean, n)
	out.Selection = sel
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), pipeline.ErrInvalid.Error()+": ")
		return out, parseErrorf(TaskSetR, text, "%s", reason)
	}
	if sel.OutOfRange > 0 || sel.Repeated > 0 {
		out.Report.Skipped = append(out.Report.Skipped, prompts.SkippedEntry{
			Text:   snippet(lines[min(label, len(lines)-1)]),
			Reason: fmt.Sprintf("final selection: %d identifiers out of range, %d repeated", sel.OutOfRange, sel.Repeated),
		})
	}
	return out, nil
}

// setrSection is the kind of section a SetR answer line is in.
type setrSection int

const (
	sectionNone setrSection = iota
	sectionRequirements
	sectionMapping
	sectionOther
)

// setrHeading classifies a heading line; ok is false for other lines.
func setrHeading(line string) (setrSection, bool) {
	t := strings.TrimSpace(line)
	bare := unwrapEmphasis(strings.TrimSpace(strings.TrimLeft(t, "#")))
	heading := strings.HasPrefix(t, "#") ||
		(strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && !strings.Contains(bare, "[")) ||
		(strings.HasSuffix(bare, ":") && !strings.Contains(bare, "[") && len(bare) < 80 && reReqIndex.FindString(bare) == "")
	if !heading {
		return sectionNone, false
	}
	if _, listed := stripListMarker(t); listed && !strings.HasPrefix(t, "#") {
		return sectionNone, false
	}
	l := strings.ToLower(bare)
	switch {
	case strings.Contains(l, "selection"):
		return sectionOther, true
	case strings.Contains(l, "passage"), strings.Contains(l, "document"), strings.Contains(l, "map"), strings.Contains(l, "per requirement"):
		return sectionMapping, true
	case strings.Contains(l, "requirement"), strings.Contains(l, "need"):
		return sectionRequirements, true
	}
	return sectionOther, true
}

// setrRequirements reads the requirement and mapping lines of a SetR
// answer (the lines before its selection).
func setrRequirements(lines []string, n int, report *prompts.ParseReport) []SetRRequirement {
	var reqs []SetRRequirement
	section := sectionNone
	next := 0 // the requirement an unnumbered mapping line maps
	addDocs := func(k int, ids []string, raw string) {
		for _, id := range ids {
			p, err := strconv.Atoi(id)
			if err != nil || p < 1 || p > n {
				report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: fmt.Sprintf("identifier %s is outside [1]..[%d]", id, n)})
				continue
			}
			dup := false
			for _, have := range reqs[k].Docs {
				dup = dup || have == p-1
			}
			if !dup {
				reqs[k].Docs = append(reqs[k].Docs, p-1)
			}
		}
	}
	for _, raw := range lines {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if s, ok := setrHeading(raw); ok {
			section = s
			next = 0
			continue
		}
		if section == sectionOther {
			continue
		}
		t := strings.TrimSpace(raw)
		for _, b := range []string{"- ", "* ", "+ ", "• "} {
			t = strings.TrimSpace(strings.TrimPrefix(t, b))
		}
		idx := 0
		if loc := reReqIndex.FindStringSubmatchIndex(t); loc != nil {
			idx, _ = strconv.Atoi(t[loc[4]:loc[5]])
			bold := ""
			if loc[2] >= 0 {
				bold = t[loc[2]:loc[3]]
			}
			t = t[loc[1]:]
			if bold != "" {
				t = strings.TrimSpace(strings.TrimPrefix(t, bold))
			}
		} else if section == sectionNone {
			if _, listed := stripListMarker(raw); !listed {
				continue // prose
			}
		}
		body, rest := t, ""
		if i := strings.IndexByte(t, '['); i >= 0 {
			body, rest = t[:i], t[i:]
		}
		for prev := ""; prev != body; {
			prev = body
			body = unwrapEmphasis(strings.Trim(body, " \t:-–—→=|,;"))
		}
		ids := selectionIDs(rest)
		if reDocsLabel.MatchString(body) || strings.EqualFold(body, "none") {
			body = ""
		}
		if strings.EqualFold(strings.Trim(unwrapEmphasis(rest), " ."), "none") {
			ids = nil
		}
		switch {
		case body != "" && (section != sectionMapping || idx > len(reqs)) && (section != sectionMapping || idx > 0):
			if len(body) > maxQuestionChars {
				report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: "longer than a requirement"})
				continue
			}
			reqs = append(reqs, SetRRequirement{Text: body})
			addDocs(len(reqs)-1, ids, raw)
		case idx >= 1 && idx <= len(reqs):
			addDocs(idx-1, ids, raw)
			next = idx
		case len(ids) > 0 && section == sectionMapping && next < len(reqs):
			addDocs(next, ids, raw)
			next++
		case len(ids) > 0 && section != sectionMapping && len(reqs) > 0:
			addDocs(len(reqs)-1, ids, raw)
		case len(ids) > 0:
			report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: "identifiers for no known requirement"})
		}
	}
	return reqs
}

// Requirement weights of PureCover's requirements task.
const (
	MinRequirementWeight = 1
	MaxRequirementWeight = 5
	// DefaultRequirementWeight is given to a requirement whose weight is
	// missing or unreadable.
	DefaultRequirementWeight = 3
	// MaxRequirements bounds the requirements asked for.
	MaxRequirements = 10
)

// RequirementsInput asks for the weighted information requirements of a
// request (PureCover's P(e|q)).
type RequirementsInput struct {
	Request prompts.RequestInfo
	// Max is the most requirements asked for, 1..MaxRequirements.
	Max int
	// Docs are the candidate documents the requirements will be judged
	// against, each cut to RequirementDocChars: what the collection holds
	// on the request shapes what a report on it can give.
	Docs []PromptDoc
}

// RequirementDocChars is the text of each candidate document the
// requirements prompt shows.
const RequirementDocChars = 400

// Requirement is one information requirement and its weight.
type Requirement struct {
	Text string
	// Weight is the requirement's importance, 1..5.
	Weight int
}

// RequirementsOutput is a parsed requirements answer.
type RequirementsOutput struct {
	Requirements []Requirement
	// Report lists dropped entries, and in Missing the weights that were
	// absent and given DefaultRequirementWeight ("weight of requirement 2").
	Report prompts.ParseReport
}

// BuildRequirements builds the rerank_requirements request. Max is clamped
// to 1..MaxRequirements.
func BuildRequirements(in RequirementsInput) pipeline.ModelRequest {
	m := min(max(in.Max, 1), MaxRequirements)
	in.Max = m
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	if len(in.Docs) > 0 {
		fmt.Fprintf(&b, "\nThe search found these %d documents for it (the start of each):\n\n", len(in.Docs))
		for i, d := range in.Docs {
			d.Text, _ = cutText(strings.TrimSpace(d.Text), RequirementDocChars)
			writeDocBlock(&b, fmt.Sprintf("[%d]", i+1), d)
		}
	}
	fmt.Fprintf(&b, "\nList the information requirements of this request: the separate pieces of information a complete report must give. "+
		"Give at most %d, fewer when the request is narrow, and do not list the same need twice in other words. ", m)
	if len(in.Docs) > 0 {
		b.WriteString("Let the documents show what can be reported, but list what the request needs, not what one document happens to say. ")
	}
	b.WriteString("Give each one a weight from 1 to 5 for how much the report depends on it: 5 when the report would fail without it, " +
		"3 for an important part, 1 for useful background.\n\n")
	b.WriteString("Output format: one requirement per line, numbered, its weight in brackets first. For example:\n\n")
	b.WriteString(FormatRequirements(RequirementsOutput{Requirements: []Requirement{
		{Text: "Which flood barrier the city council approved, and when", Weight: 5},
		{Text: "What the barrier will cost", Weight: 3},
		{Text: "How often the river has flooded before", Weight: 1},
	}[:min(m, 3)]}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskRequirements,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   requirementsMaxTokens * m,
		Temperature: 0,
	}
}

// FormatRequirements writes "1. (weight 5) requirement" lines, the weight
// clamped to 1..5 and the text flattened; blank requirements are left out.
func FormatRequirements(out RequirementsOutput) string {
	var lines []string
	for _, r := range out.Requirements {
		t := formatLine(r.Text)
		if t == "" {
			continue
		}
		w := min(max(r.Weight, MinRequirementWeight), MaxRequirementWeight)
		lines = append(lines, fmt.Sprintf("%d. (weight %d) %s", len(lines)+1, w, t))
	}
	return strings.Join(lines, "\n")
}

var (
	reRequirementLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?\s*(?:requirement|req\.?|r)\s*\d{0,3}\s*(?:\*\*|__)?\s*[:.)：]\s*(?:\*\*|__)?`)
	reWeightBracket    = regexp.MustCompile(`(?i)[(\[]\s*(?:weight|importance|w)\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(?:/\s*5)?\s*[)\]]`)
	reWeightLabel      = regexp.MustCompile(`(?i)\b(?:weight|importance)\b\s*(?:\*\*|__)?\s*[:=]?\s*(?:\*\*|__)?\s*(\d+(?:\.\d+)?)(?:\s*/\s*5)?`)
	reWeightBare       = regexp.MustCompile(`^[(\[]\s*(\d(?:\.\d+)?)\s*(?:/\s*5)?\s*[)\]]|[(\[]\s*(\d(?:\.\d+)?)\s*(?:/\s*5)?\s*[)\]]$|^(\d(?:\.\d+)?)\s*\|\s*|\s*\|\s*(\d(?:\.\d+)?)$`)
)

// ParseRequirements reads weighted requirements: numbered or bulleted
// lines ("1. (weight 4) text", "- text (weight: 4)", "text — importance
// 4/5", "4 | text", "text (4)", a "Requirement 1:" label), or a JSON array
// of objects with a text field ("requirement", "text", "description" or
// the first string) and a "weight" or "importance" number, or of strings.
// Weights are rounded and clamped to 1..5; a missing weight becomes
// DefaultRequirementWeight and is listed in Report.Missing. Blank,
// repeated and overlong entries are dropped and reported. An answer with
// no requirement is a *prompts.ParseError.
func ParseRequirements(text string) (RequirementsOutput, error) {
	clean := cleanText(text)
	if clean == "" {
		return RequirementsOutput{}, parseErrorf(TaskRequirements, text, "the answer is empty")
	}
	var out RequirementsOutput
	type entry struct {
		text   string
		weight float64
		has    bool
	}
	var entries []entry
	if items, ok := requirementsJSON(clean); ok {
		for _, it := range items {
			entries = append(entries, entry{text: it.text, weight: it.weight, has: it.has})
		}
	} else {
		hasWeight := func(t string) bool {
			return reWeightBracket.MatchString(t) || reWeightLabel.MatchString(t) || reWeightBare.MatchString(t)
		}
		for _, line := range listedLines(clean, reRequirementLabel, hasWeight) {
			t, w, has := cutWeight(line)
			entries = append(entries, entry{text: t, weight: w, has: has})
		}
	}
	seen := map[string]bool{}
	for _, e := range entries {
		t := unwrapEmphasis(formatLine(e.text))
		switch key := strings.ToLower(t); {
		case t == "":
			out.Report.Skipped = append(out.Report.Skipped, prompts.SkippedEntry{Text: snippet(e.text), Reason: "blank entry"})
			continue
		case len(t) > maxQuestionChars:
			out.Report.Skipped = append(out.Report.Skipped, prompts.SkippedEntry{Text: snippet(e.text), Reason: "longer than a requirement"})
			continue
		case seen[key]:
			out.Report.Skipped = append(out.Report.Skipped, prompts.SkippedEntry{Text: snippet(e.text), Reason: "repeats an earlier entry"})
			continue
		default:
			seen[key] = true
		}
		w := DefaultRequirementWeight
		if e.has && !math.IsNaN(e.weight) {
			w = int(math.Max(MinRequirementWeight, math.Min(MaxRequirementWeight, math.Round(e.weight))))
		} else {
			out.Report.Missing = append(out.Report.Missing, fmt.Sprintf("weight of requirement %d", len(out.Requirements)+1))
		}
		out.Requirements = append(out.Requirements, Requirement{Text: t, Weight: w})
	}
	if len(out.Requirements) == 0 {
		return out, parseErrorf(TaskRequirements, text, "no requirement found")
	}
	return out, nil
}

// cutWeight takes the weight mark out of a requirement line.
func cutWeight(line string) (text string, weight float64, ok bool) {
	for _, re := range []*regexp.Regexp{reWeightBracket, reWeightLabel, reWeightBare} {
		loc := re.FindStringSubmatchIndex(line)
		if loc == nil {
			continue
		}
		for g := 2; g+1 < len(loc); g += 2 {
			if loc[g] >= 0 {
				if f, err := strconv.ParseFloat(line[loc[g]:loc[g+1]], 64); err == nil {
					weight, ok = f, true
				}
				break
			}
		}
		if !ok {
			continue
		}
		rest := line[:loc[0]] + " " + line[loc[1]:]
		return strings.Trim(strings.TrimSpace(rest), " -–—|:,;"), weight, true
	}
	return line, 0, false
}

type jsonRequirement struct {
	text   string
	weight float64
	has    bool
}

// requirementsJSON reads a JSON array of requirement objects or strings
// (or an object holding one); ok is false when the answer has none.
func requirementsJSON(clean string) ([]jsonRequirement, bool) {
	js := firstJSONValue(clean)
	if js == "" {
		return nil, false
	}
	var v any
	if err := json.NewDecoder(strings.NewReader(js)).Decode(&v); err != nil {
		return nil, false
	}
	if obj, ok := v.(map[string]any); ok {
		v = nil
		for _, k := range sortedKeys(obj) {
			if arr, ok := obj[k].([]any); ok {
				v = arr
				break
			}
		}
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, false
	}
	var out []jsonRequirement
	for _, item := range arr {
		switch x := item.(type) {
		case string:
			t, w, has := cutWeight(x)
			out = append(out, jsonRequirement{text: t, weight: w, has: has})
		case map[string]any:
			var r jsonRequirement
			for _, k := range []string{"requirement", "text", "description", "need", "information"} {
				if s, ok := x[k].(string); ok {
					r.text = s
					break
				}
			}
			if r.text == "" {
				for _, k := range sortedKeys(x) {
					if s, ok := x[k].(string); ok {
						r.text = s
						break
					}
				}
			}
			for _, k := range []string{"weight", "importance"} {
				switch w := x[k].(type) {
				case float64:
					r.weight, r.has = w, true
				case string:
					if f, err := strconv.ParseFloat(strings.TrimSpace(w), 64); err == nil {
						r.weight, r.has = f, true
					}
				}
				if r.has {
					break
				}
			}
			out = append(out, r)
		}
	}
	return out, len(out) > 0
}

// SupportInput asks whether one document meets one information
// requirement of the request (PureCover's judgement of P(d|e)).
type SupportInput struct {
	Request     prompts.RequestInfo
	Requirement string
	Doc         PromptDoc
}

// SupportOutput is the support judgement.
type SupportOutput struct {
	// Yes is true when the document gives the required information.
	Yes bool
}

// BuildSupport builds the rerank_support request, with token
// log-probabilities: the judgement's score is the probability of "yes".
func BuildSupport(in SupportInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	b.WriteString("\nOne piece of information the report needs: " + flatten(in.Requirement) + "\n\n")
	writeDocBlock(&b, "Document", in.Doc)
	b.WriteString("\nDoes this document give that piece of information? It does when a reader could take it from the document; " +
		"it does not when the document only mentions the subject or gives other information about it.\n\n")
	writeYesNo(&b, "the document gives that information")
	return pipeline.ModelRequest{
		Task:        TaskSupport,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatSupport writes "yes" or "no".
func FormatSupport(out SupportOutput) string { return formatYesNo(out.Yes) }

// ParseSupport reads a yes/no answer by the rules of package prompts.
func ParseSupport(text string) (SupportOutput, error) {
	yes, err := parseYesNo(TaskSupport, text)
	if err != nil {
		return SupportOutput{}, err
	}
	return SupportOutput{Yes: yes}, nil
}
