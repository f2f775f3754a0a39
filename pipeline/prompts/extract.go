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

// ExtractInput asks for an answer sentence to a nugget's question from one
// passage.
type ExtractInput struct {
	Request  RequestInfo
	Nugget   QA
	DocID    string
	DocTitle string
	// DocAuthor and DocDate are who wrote or spoke the document and when
	// (its metadata; "" when unknown): the sentence is attributed to them.
	DocAuthor string
	DocDate   string
	// PassageText is the passage; the prompt carries at most MaxDocChars
	// characters of it.
	PassageText string
}

// ExtractOutput is an extraction.
type ExtractOutput struct {
	// Found is false when the passage does not answer the question (the
	// other fields are then empty).
	Found bool
	// Support is the passage text the model cites, meant to be copied word
	// for word; LocateSupport finds it in the passage.
	Support string
	// Sentence is one self-contained English sentence answering the
	// question.
	Sentence string
	// Confidence is the model's own confidence, 0 to 1.
	Confidence float64
	// Report names "support" or "confidence" when they were missing or
	// unreadable (Support is then "" and Confidence 0).
	Report ParseReport
}

// The canonical field names of an extract answer.
const (
	FieldSupport    = "support"
	FieldSentence   = "sentence"
	FieldConfidence = "confidence"
)

const extractMaxTokens = 400

// extractExample answers for a passage of a document by "Ruhr Gazette"
// dated 2021-05-04.
var extractExample = ExtractOutput{
	Found: true,
	Support: "The council met on Monday. It approved the Dortmund barrier on 3 May 2021; " +
		"work is expected to last three years.",
	Sentence: "In May 2021, the Ruhr Gazette reported that the Dortmund city council had approved the flood barrier " +
		"on 3 May 2021 and that work on it was expected to last three years.",
	Confidence: 0.9,
}

// BuildExtract builds the extract request. It asks for token
// log-probabilities: SentenceLikelihood reads the extraction confidence
// from them.
func BuildExtract(in ExtractInput) pipeline.ModelRequest {
	passage, cut := truncateText(strings.TrimSpace(in.PassageText), MaxDocChars)
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nThe report must answer this question:\n")
	b.WriteString("Question: " + flatten(in.Nugget.Question) + "\n")
	b.WriteString("Answer, as another document gave it: " + flatten(in.Nugget.Answer) + "\n\n")
	writeDocHeader(&b, "Passage from document", in.DocID, in.DocTitle)
	writeDocByline(&b, in.DocAuthor, in.DocDate)
	if cut {
		fmt.Fprintf(&b, "(Only the first %d characters of the passage are shown; the rest was cut.)\n", MaxDocChars)
	}
	b.WriteString("<passage>\n" + passage + "\n</passage>\n\n")
	b.WriteString("Use this passage only if it states that answer itself, in any wording. If it gives a different answer, " +
		"only touches on the question, or would need the other document to make the answer true, reply with the single word NONE.\n\n")
	b.WriteString("If the passage states the answer, reply with three lines:\n")
	b.WriteString("SUPPORT: the part of the passage that states the answer, copied word for word, with the context " +
		"the sentence needs: when the answer's sentence refers back (\"this\", \"such\", \"it\", \"these\"), the sentence " +
		"it refers to as well. Three sentences at most.\n")
	b.WriteString("SENTENCE: one English sentence that answers the question using only what the passage says, written so " +
		"that a reader understands it on its own:\n")
	b.WriteString("- say who said or wrote it and when, from the author and date above (for example \"In 1903, Theodore " +
		"Roosevelt reported that ...\"); without them, name the document by its title;\n")
	b.WriteString("- write a proposal, a request, an opinion, a prediction or someone's claim as what it is (\"... proposed " +
		"that ...\", \"... argued that ...\", \"... said that critics had claimed ...\"), never as settled fact; the text of " +
		"a bill or amendment that was only proposed is a proposal;\n")
	b.WriteString("- replace words that point outside the sentence (\"this trade\", \"such a vessel\", \"that State\", " +
		"\"it\") by what they name, and leave out linking words such as \"But\", \"Accordingly\" or \"Moreover\";\n")
	b.WriteString("- never mention \"the passage\", \"the document\", \"the text\", \"the article\" or \"the author\".\n")
	b.WriteString("CONFIDENCE: how sure you are that the passage states the answer as your sentence gives it, as a whole number from 0 to 100.\n")
	b.WriteString("If the passage does not state the answer, reply with the single word NONE.\n\n")
	b.WriteString("For example, for a passage of a document by Ruhr Gazette dated 2021-05-04:\n\n")
	b.WriteString(FormatExtract(extractExample))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
	return pipeline.ModelRequest{
		Task:        TaskExtract,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   extractMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatExtract writes an extraction in the canonical format:
//
//	SUPPORT: <support>
//	SENTENCE: <sentence>
//	CONFIDENCE: <0-100>
//
// or "NONE" when Found is false or the sentence is blank or reads as NONE.
// Text fields are flattened to one line, with wrapping markdown and double
// quotes removed; a support that reads as NONE is written empty. The
// confidence is clamped to 0..1 and written as a whole percentage. It does
// not check the sentence: ParseExtract rejects one that refers to its
// source (see SourceReference).
func FormatExtract(out ExtractOutput) string {
	sentence := cleanQuoted(formatValue(out.Sentence))
	if !out.Found || sentence == "" || isNoneMarker(sentence) {
		return "NONE"
	}
	support := cleanQuoted(formatValue(out.Support))
	if isNoneMarker(support) {
		support = ""
	}
	c := out.Confidence
	if math.IsNaN(c) {
		c = 0
	}
	pct := int(math.Round(math.Max(0, math.Min(1, c)) * 100))
	return strings.TrimSpace("SUPPORT: "+support) + "\nSENTENCE: " + sentence + "\nCONFIDENCE: " + strconv.Itoa(pct)
}

// cleanQuoted removes wrapping markdown and double quotes, repeatedly.
func cleanQuoted(s string) string {
	for {
		next := unwrapQuotes(unwrapMarkup(s))
		if next == s {
			return s
		}
		s = next
	}
}

func matchExtractKey(k string) (string, bool) {
	switch k {
	case "support", "supporting text", "supporting passage", "supporting span", "support text", "supporting quote",
		"evidence", "quote", "excerpt", "span", "citation":
		return FieldSupport, true
	case "sentence", "answer sentence", "report sentence", "statement", "self contained sentence":
		return FieldSentence, true
	case "confidence", "certainty", "confidence level":
		return FieldConfidence, true
	}
	return "", false
}

// ParseExtract reads an extract answer. Labels may be in any case and
// order, with bullets, numbering, bold or code fences; a value may carry
// on over the following lines up to a blank line or the next label; a
// JSON object with support, sentence and confidence fields (and "found":
// false) is read too. NONE, or a sentence or (without a sentence) a
// support that reads as NONE, gives Found false. Support and sentence lose
// wrapping quotes and markdown; a support that reads as NONE counts as
// missing. The confidence may be "85", "85%", "85/100" or "0.85": an
// integer or a number above 1 is a percentage, a decimal from 0 to 1 a
// fraction; it is clamped to 0..1.
//
// A *ParseError is returned for an answer with no sentence and no NONE,
// an empty sentence, and a sentence that refers to its source ("the
// passage states ..."; the error names the phrase).
func ParseExtract(text string) (ExtractOutput, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return ExtractOutput{}, parseErrorf(TaskExtract, text, "the answer is empty")
	}
	fields, notFound := extractFromJSON(clean)
	if fields == nil && !notFound {
		fields = map[string]string{}
		for _, f := range scanLabelled(clean, matchExtractKey) {
			if _, dup := fields[f.name]; !dup {
				fields[f.name] = f.value
			}
		}
	}
	if notFound {
		return ExtractOutput{}, nil
	}
	sentenceRaw, hasSentence := fields[FieldSentence]
	if !hasSentence {
		first, _ := stripLineMarkup(strings.SplitN(clean, "\n", 2)[0])
		if isNoneMarker(first) || isNoneMarker(fields[FieldSupport]) {
			return ExtractOutput{}, nil
		}
		return ExtractOutput{}, parseErrorf(TaskExtract, text, "no SENTENCE line and no NONE")
	}
	sentence := cleanQuoted(cleanValue(sentenceRaw))
	if isNoneMarker(sentence) {
		return ExtractOutput{}, nil
	}
	if sentence == "" {
		return ExtractOutput{}, parseErrorf(TaskExtract, text, "the SENTENCE line is empty")
	}
	if ref := SourceReference(sentence); ref != "" {
		return ExtractOutput{}, parseErrorf(TaskExtract, text, "the sentence refers to %q instead of standing on its own", ref)
	}
	out := ExtractOutput{Found: true, Sentence: sentence}
	support, hasSupport := fields[FieldSupport]
	support = cleanQuoted(cleanValue(support))
	if isNoneMarker(support) {
		support = ""
	}
	if !hasSupport || support == "" {
		out.Report.Missing = append(out.Report.Missing, FieldSupport)
	}
	out.Support = support
	if raw, ok := fields[FieldConfidence]; !ok {
		out.Report.Missing = append(out.Report.Missing, FieldConfidence)
	} else if c, ok := parseConfidence(raw); ok {
		out.Confidence = c
	} else {
		out.Report.skip(FieldConfidence+": "+raw, "no number")
		out.Report.Missing = append(out.Report.Missing, FieldConfidence)
	}
	return out, nil
}

// extractFromJSON reads the fields of a JSON answer. notFound is true for
// {"found": false}.
func extractFromJSON(clean string) (fields map[string]string, notFound bool) {
	js := firstJSON(clean)
	if !strings.HasPrefix(js, "{") {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, false
	}
	fields = map[string]string{}
	for _, k := range sortedKeys(obj) {
		key := normalizeKey(k)
		if key == "found" || key == "answerable" || key == "answered" {
			if b, ok := obj[k].(bool); ok && !b {
				return nil, true
			}
			continue
		}
		if name, ok := matchExtractKey(key); ok {
			if _, dup := fields[name]; !dup {
				fields[name] = jsonScalar(obj[k])
			}
		}
	}
	if len(fields) == 0 {
		return nil, false
	}
	return fields, false
}

// labelledField is one "LABEL: value" field of an answer. Start and End are
// the byte span of the value in the scanned text, continuation lines
// included.
type labelledField struct {
	name       string
	value      string
	start, end int
}

// scanLabelled reads "LABEL: value" fields, each going on over the
// following unlabelled lines up to a blank line or the next label. Lines
// before the first label are ignored.
func scanLabelled(text string, match func(string) (string, bool)) []labelledField {
	var fields []labelledField
	open := false // the last field may still take continuation lines
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		lineStart := off
		off += len(line)
		body := strings.TrimRightFunc(line, isSpace)
		t, _ := stripLineMarkup(body)
		if t == "" {
			open = false
			continue
		}
		if name, value, ok := cutLabel(t, false, match); ok {
			start := lineStart + len(body) - len(value)
			fields = append(fields, labelledField{name: name, value: value, start: start, end: lineStart + len(body)})
			open = true
			continue
		}
		if open {
			f := &fields[len(fields)-1]
			if f.value == "" { // the label line held no value
				f.value = t
				f.start = lineStart + len(body) - len(t)
			} else {
				f.value += "\n" + t
			}
			f.end = lineStart + len(body)
		}
	}
	return fields
}

var reConfidence = regexp.MustCompile(`(\d+(?:[.,]\d+)?|[.,]\d+)\s*(%|/\s*(\d+(?:[.,]\d+)?)|out\s+of\s+(\d+(?:[.,]\d+)?))?`)

// parseConfidence reads a confidence: "85", "85%", "85/100", "0.85", ".9",
// "9/10", "90 out of 100". Integers and numbers above 1 are percentages;
// decimals from 0 to 1 are fractions.
func parseConfidence(s string) (float64, bool) {
	m := reConfidence.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	num := strings.Replace(m[1], ",", ".", 1)
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	denom := m[3]
	if denom == "" {
		denom = m[4]
	}
	switch {
	case m[2] == "%":
		x /= 100
	case denom != "":
		n, err := strconv.ParseFloat(strings.Replace(denom, ",", ".", 1), 64)
		if err != nil || n <= 0 {
			return 0, false
		}
		x /= n
	case strings.Contains(num, ".") && x <= 1:
	default:
		x /= 100
	}
	return math.Max(0, math.Min(1, x)), true
}

var reSourceReference = regexp.MustCompile(`(?i)\b(?:the|this|that|these|those|said)\s+(?:(?:provided|given|above|following|source|original|cited|same|present|current|whole)\s+)?(?:document|passage|text|article|author|excerpt|snippet)s?\b`)
var reOfNext = regexp.MustCompile(`(?i)^\s+of\b`)

// SourceReference returns the phrase by which a sentence points at its
// source instead of standing on its own ("the passage", "this article",
// "the given text", "the author"), or "" when there is none. A phrase
// followed by "of" names something else and is allowed ("the text of the
// treaty", "the passage of the bill", "the author of the report").
func SourceReference(sentence string) string {
	for _, loc := range reSourceReference.FindAllStringIndex(sentence, -1) {
		if reOfNext.MatchString(sentence[loc[1]:]) {
			continue
		}
		return sentence[loc[0]:loc[1]]
	}
	return ""
}

// SentenceLikelihood is the extraction confidence read from the token
// log-probabilities of an extract answer: the geometric mean of the
// probabilities of the tokens that spell the SENTENCE value (the label
// excluded, continuation lines included; tokens only partly inside count,
// whitespace-only tokens do not). The tokens are read after any </think>
// section. ok is false without log-probabilities or when the tokens spell
// no SENTENCE field (a NONE answer).
func SentenceLikelihood(resp pipeline.ModelResponse) (float64, bool) {
	toks := resp.TokenLogprobs
	if len(toks) == 0 {
		return 0, false
	}
	var b strings.Builder
	starts := make([]int, len(toks))
	for i, t := range toks {
		starts[i] = b.Len()
		b.WriteString(t.Token)
	}
	text := b.String()
	from := 0
	if locs := reThinkClose.FindAllStringIndex(text, -1); len(locs) > 0 {
		from = locs[len(locs)-1][1]
	}
	var field *labelledField
	for _, f := range scanLabelled(text[from:], matchExtractKey) {
		if f.name == FieldSentence {
			f.start += from
			f.end += from
			field = &f
			break
		}
	}
	if field == nil || field.end <= field.start {
		return 0, false
	}
	var sum float64
	n := 0
	for i, t := range toks {
		end := starts[i] + len(t.Token)
		if end <= field.start || starts[i] >= field.end || strings.TrimSpace(t.Token) == "" {
			continue
		}
		if math.IsNaN(t.Logprob) {
			continue
		}
		sum += math.Min(t.Logprob, 0)
		n++
	}
	if n == 0 {
		return 0, false
	}
	return math.Exp(sum / float64(n)), true
}
