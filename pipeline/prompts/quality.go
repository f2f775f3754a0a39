package prompts

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// NuggetQualityInput asks for the quality judgements of one nugget.
type NuggetQualityInput struct {
	Request RequestInfo
	Nugget  QA
}

// NuggetQualityOutput holds the quality judgements of a nugget. Scores run
// from 0 (not at all) to MaxQualityScore (fully).
type NuggetQualityOutput struct {
	// Task: how directly the nugget helps answer the problem statement.
	Task int
	// Background: how well it fits the request's background.
	Background int
	// Role: how useful it is to someone in the requester's likely role.
	Role int
	// Style: how well it matches the kind and level of detail asked for.
	Style int
	// Scope: how well it stays within the request's scope.
	Scope int
	// Vital: the report would be incomplete without it.
	Vital bool
	// Researchy: a real sub-question needing research, not a trivial fact.
	Researchy bool
	// Question profiles the question itself, each score 0 (not at all) to
	// MaxQualityScore (fully), in the dimensions the Researchy Questions
	// data set scores its questions in (docs/ranking.md).
	Question QuestionProfile
	// Report lists the fields that were missing or unreadable. They are
	// given the defaults 0 (scores) and false (vital, researchy), and the
	// ranking stage can tell them apart through this list.
	Report ParseReport
}

// QuestionProfile describes a nugget's question as a question someone
// researches: the eight intrinsic dimensions the Researchy Questions data
// set scores (Rosset et al., 2024), and how decompositional and how far
// from factoid it is, the two scores that set filters its questions by.
type QuestionProfile struct {
	// Ambiguous: it can be read in more than one way.
	Ambiguous int
	// Incomplete: it leaves out something needed to answer it.
	Incomplete int
	// Assumptive: it takes for granted something that may not hold.
	Assumptive int
	// Multifaceted: an answer must cover several aspects or viewpoints.
	Multifaceted int
	// Knowledge: answering it takes specialised or detailed knowledge.
	Knowledge int
	// Subjective: its answer rests on opinions or values more than facts.
	Subjective int
	// Reasoning: answering it means reasoning over several pieces of
	// information, not looking one up.
	Reasoning int
	// Harmful: the question or its answer could hurt or offend.
	Harmful int
	// Decompositional: it breaks into smaller sub-questions.
	Decompositional int
	// Nonfactoid: its answer is an explanation or an account, not one
	// name, date or figure.
	Nonfactoid int
}

// scores lists the profile's scores in answer order (questionFields).
func (q *QuestionProfile) scores() []*int {
	return []*int{&q.Ambiguous, &q.Incomplete, &q.Assumptive, &q.Multifaceted, &q.Knowledge,
		&q.Subjective, &q.Reasoning, &q.Harmful, &q.Decompositional, &q.Nonfactoid}
}

// MaxQualityScore is the top of the nugget quality scale.
const MaxQualityScore = 5

// The canonical field names of a nugget_quality answer, in order.
const (
	FieldTask       = "task"
	FieldBackground = "background"
	FieldRole       = "role"
	FieldStyle      = "style"
	FieldScope      = "scope"
	FieldVital      = "vital"
	FieldResearchy  = "researchy"
	// The question's profile (QuestionProfile).
	FieldAmbiguous       = "ambiguous"
	FieldIncomplete      = "incomplete"
	FieldAssumptive      = "assumptive"
	FieldMultifaceted    = "multifaceted"
	FieldKnowledge       = "knowledge"
	FieldSubjective      = "subjective"
	FieldReasoning       = "reasoning"
	FieldHarmful         = "harmful"
	FieldDecompositional = "decompositional"
	FieldNonfactoid      = "nonfactoid"
)

// questionFields are the QuestionProfile's field names in answer order.
var questionFields = []string{FieldAmbiguous, FieldIncomplete, FieldAssumptive, FieldMultifaceted, FieldKnowledge,
	FieldSubjective, FieldReasoning, FieldHarmful, FieldDecompositional, FieldNonfactoid}

// QuestionFields returns the QuestionProfile's field names in answer order.
func QuestionFields() []string { return append([]string(nil), questionFields...) }

// Scores returns the profile's scores by field name (questionFields).
func (q QuestionProfile) Scores() map[string]int {
	m := make(map[string]int, len(questionFields))
	for i, p := range q.scores() {
		m[questionFields[i]] = *p
	}
	return m
}

// qualityFields lists the canonical field names in answer order: the
// seven judgements of the nugget, then the question's profile.
var qualityFields = append([]string{FieldTask, FieldBackground, FieldRole, FieldStyle, FieldScope, FieldVital, FieldResearchy}, questionFields...)

const qualityMaxTokens = 200

var qualityExample = NuggetQualityOutput{Task: 4, Background: 3, Role: 4, Style: 3, Scope: 5, Vital: true, Researchy: false,
	Question: QuestionProfile{Ambiguous: 1, Incomplete: 0, Assumptive: 0, Multifaceted: 1, Knowledge: 3, Subjective: 0,
		Reasoning: 1, Harmful: 0, Decompositional: 1, Nonfactoid: 0}}

// BuildNuggetQuality builds the nugget_quality request.
func BuildNuggetQuality(in NuggetQualityInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nJudge how well the question and answer below would serve that report.\n\n")
	b.WriteString("Question: " + flatten(in.Nugget.Question) + "\n")
	b.WriteString("Answer: " + flatten(in.Nugget.Answer) + "\n\n")
	fmt.Fprintf(&b, "Give each of these a whole number from 0 (not at all) to %d (fully):\n", MaxQualityScore)
	b.WriteString("- task: how directly it helps to resolve the problem statement.\n")
	b.WriteString("- background: how well it fits what the background says the requester knows, wants and cares about.\n")
	b.WriteString("- role: how useful it is to a person in the requester's likely role (an analyst, a journalist, a policy maker, " +
		"a researcher...), as far as the request suggests one.\n")
	b.WriteString("- style: how well it suits the kind of information and the level of detail the request asks for.\n")
	b.WriteString("- scope: how well it stays within the limits of the request, neither off the subject nor too general.\n")
	b.WriteString("Then answer yes or no:\n")
	b.WriteString("- vital: a report on this request would be incomplete without this information.\n")
	b.WriteString("- researchy: the question is a real sub-question that takes research in the documents to answer, " +
		"not a trivial or common-knowledge fact.\n")
	fmt.Fprintf(&b, "Then describe the question itself, as if someone had typed it into a search engine, each with a whole number from 0 (not at all) to %d (fully):\n", MaxQualityScore)
	b.WriteString("- ambiguous: it can be read in more than one way.\n")
	b.WriteString("- incomplete: it leaves out something needed to answer it, such as a time, a place or who is meant.\n")
	b.WriteString("- assumptive: it takes for granted something that may not be true.\n")
	b.WriteString("- multifaceted: a good answer has to cover several aspects or points of view.\n")
	b.WriteString("- knowledge: answering it takes specialised or detailed knowledge.\n")
	b.WriteString("- subjective: the answer rests on opinions or values more than on facts.\n")
	b.WriteString("- reasoning: answering it means weighing several pieces of information, not looking one up.\n")
	b.WriteString("- harmful: the question or its answer could hurt or offend someone.\n")
	b.WriteString("- decompositional: it breaks down into smaller questions that are answered one by one.\n")
	b.WriteString("- nonfactoid: its answer is an explanation or an account, not a single name, date or figure.\n\n")
	fmt.Fprintf(&b, "Output format: exactly these %d lines, in this order, each with its field name, a colon and the value. For example:\n\n", len(qualityFields))
	b.WriteString(FormatNuggetQuality(qualityExample))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
	return pipeline.ModelRequest{
		Task:        TaskNuggetQuality,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   qualityMaxTokens,
		Temperature: 0,
	}
}

// FormatNuggetQuality writes the canonical lines, "task: 4" ... "vital:
// yes", "researchy: no", then the question's profile ("ambiguous: 1" ...
// "nonfactoid: 0"). Scores are clamped to 0..MaxQualityScore.
func FormatNuggetQuality(out NuggetQualityOutput) string {
	var b strings.Builder
	for i, s := range []int{out.Task, out.Background, out.Role, out.Style, out.Scope} {
		fmt.Fprintf(&b, "%s: %d\n", qualityFields[i], clampScore(s))
	}
	fmt.Fprintf(&b, "%s: %s\n", FieldVital, formatYesNo(out.Vital))
	fmt.Fprintf(&b, "%s: %s", FieldResearchy, formatYesNo(out.Researchy))
	for i, s := range out.Question.scores() {
		fmt.Fprintf(&b, "\n%s: %d", questionFields[i], clampScore(*s))
	}
	return b.String()
}

func clampScore(s int) int { return max(0, min(MaxQualityScore, s)) }

// matchQualityKey maps the labels models use to the canonical field names.
func matchQualityKey(k string) (string, bool) {
	switch k {
	case "task", "task statement", "problem", "problem statement", "task fit", "statement":
		return FieldTask, true
	case "background", "background fit":
		return FieldBackground, true
	case "role", "requester role", "requester's role", "user role", "role fit":
		return FieldRole, true
	case "style", "communication style", "style fit":
		return FieldStyle, true
	case "scope", "scope fit":
		return FieldScope, true
	case "vital", "vitality", "essential", "is vital":
		return FieldVital, true
	case "researchy", "research", "researchiness", "research question", "is researchy":
		return FieldResearchy, true
	case "ambiguous", "ambiguity":
		return FieldAmbiguous, true
	case "incomplete", "incompleteness":
		return FieldIncomplete, true
	case "assumptive", "assumptions":
		return FieldAssumptive, true
	case "multifaceted", "multi faceted":
		return FieldMultifaceted, true
	case "knowledge", "knowledge intensive":
		return FieldKnowledge, true
	case "subjective", "subjectivity":
		return FieldSubjective, true
	case "reasoning", "reasoning intensive":
		return FieldReasoning, true
	case "harmful", "harm":
		return FieldHarmful, true
	case "decompositional", "decomposable", "decomposition":
		return FieldDecompositional, true
	case "nonfactoid", "non factoid":
		return FieldNonfactoid, true
	}
	return "", false
}

// ParseNuggetQuality reads a nugget_quality answer: "field: value" lines in
// any order and case, with bullets, numbering or bold, several fields on
// one line separated by '|', ';' or ',', "=" instead of ':', or a JSON
// object (also one nested a level or more down). Scores may be written
// "4", "4/5", "4 out of 5", "8/10" (rescaled to 0..5), "4.5" (rounded half
// away from zero); they are clamped to 0..5. Vital and researchy read
// yes/no, true/false or 1/0. When a field appears twice the first counts.
// Missing or unreadable fields get 0 or false and are named in
// Report.Missing (unreadable values also in Report.Skipped). An answer with
// none of the fields, or none readable, is a *ParseError.
func ParseNuggetQuality(text string) (NuggetQualityOutput, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return NuggetQualityOutput{}, parseErrorf(TaskNuggetQuality, text, "the answer is empty")
	}
	raw := map[string]string{}
	var report ParseReport
	if js := firstJSON(clean); strings.HasPrefix(js, "{") {
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err == nil {
			qualityFromJSON(obj, raw, 0)
		}
	}
	if len(raw) == 0 {
		for _, line := range strings.Split(clean, "\n") {
			t, _ := stripLineMarkup(line)
			for _, part := range splitQualityLine(t) {
				part, _ = stripLineMarkup(part)
				if name, value, ok := cutLabel(part, true, matchQualityKey); ok {
					if _, dup := raw[name]; !dup {
						raw[name] = value
					}
				}
			}
		}
	}
	if len(raw) == 0 {
		return NuggetQualityOutput{}, parseErrorf(TaskNuggetQuality, text, "none of the fields %s found", strings.Join(qualityFields, ", "))
	}
	var out NuggetQualityOutput
	scores := map[string]*int{FieldTask: &out.Task, FieldBackground: &out.Background, FieldRole: &out.Role,
		FieldStyle: &out.Style, FieldScope: &out.Scope}
	for i, p := range out.Question.scores() {
		scores[questionFields[i]] = p
	}
	for _, field := range qualityFields {
		value, ok := raw[field]
		if !ok {
			report.Missing = append(report.Missing, field)
			continue
		}
		if score := scores[field]; score != nil {
			s, ok := parseScore(value)
			if !ok {
				report.skip(field+": "+value, "no score from 0 to 5")
				report.Missing = append(report.Missing, field)
				continue
			}
			*score = s
			continue
		}
		yes, ok := yesNoWord(value)
		if !ok {
			switch strings.TrimSpace(unwrapMarkup(value)) {
			case "1":
				yes, ok = true, true
			case "0":
				yes, ok = false, true
			}
		}
		if !ok {
			report.skip(field+": "+value, "no yes or no")
			report.Missing = append(report.Missing, field)
			continue
		}
		if field == FieldVital {
			out.Vital = yes
		} else {
			out.Researchy = yes
		}
	}
	if len(report.Missing) == len(qualityFields) {
		return NuggetQualityOutput{}, parseErrorf(TaskNuggetQuality, text, "no field has a readable value")
	}
	out.Report = report
	return out, nil
}

// splitQualityLine splits a line holding several fields ("task: 4 |
// background: 3; role: 2") into its parts. A line with one field stays
// whole.
func splitQualityLine(t string) []string {
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '|' || r == ';' || r == ',' })
	labelled := 0
	for _, p := range parts {
		p, _ = stripLineMarkup(p)
		if _, _, ok := cutLabel(p, true, matchQualityKey); ok {
			labelled++
		}
	}
	if labelled < 2 {
		return []string{t}
	}
	return parts
}

// qualityFromJSON collects known fields from a decoded JSON object, looking
// into nested objects too.
func qualityFromJSON(obj map[string]any, raw map[string]string, depth int) {
	if depth > 4 {
		return
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		if inner, ok := v.(map[string]any); ok {
			qualityFromJSON(inner, raw, depth+1)
			continue
		}
		name, ok := matchQualityKey(normalizeKey(k))
		if !ok {
			continue
		}
		if _, dup := raw[name]; dup {
			continue
		}
		raw[name] = jsonScalar(v)
	}
}

var reScore = regexp.MustCompile(`(-?\d+(?:[.,]\d+)?)\s*(?:(?:/|out\s+of|of)\s*(\d+(?:[.,]\d+)?))?`)

// parseScore reads the first number of s on the 0..5 scale, rescaling
// "x/N" and "x out of N", rounding and clamping.
func parseScore(s string) (int, bool) {
	m := reScore.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
	if err != nil {
		return 0, false
	}
	if m[2] != "" {
		if n, err := strconv.ParseFloat(strings.Replace(m[2], ",", ".", 1), 64); err == nil && n > 0 {
			x = x * MaxQualityScore / n
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return clampScore(int(math.Round(math.Max(-1, math.Min(x, 10))))), true
}
