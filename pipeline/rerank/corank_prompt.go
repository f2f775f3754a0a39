package rerank

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// This file holds CoRank's feature prompt (DESIGN §6): once per document,
// the model describes the document compactly — a topical title, a
// three-level category path, its section headings, keywords and the
// search queries it answers — so that at query time a coarse listwise
// ranking can look at up to 200 documents through a few chosen lines
// each instead of their full texts.

// TaskCoRankFeatures asks for the compact features of one document.
const TaskCoRankFeatures pipeline.Task = "corank_features"

// FeaturesPromptVersion names the feature prompt and its format. It is
// part of every feature store namespace (FeatureNamespace): change it
// whenever the prompt or the parser changes what features mean, so that
// stored features of the old prompt are extracted again.
const FeaturesPromptVersion = "corank-features-v1"

// Sizes of the features the prompt asks for. The parser keeps what the
// model gives within the parser's bounds (see ParseFeatures); the offline
// engine gives these counts when the document is long enough.
const (
	// CategoryLevels is the depth of the category path, broad to narrow.
	CategoryLevels = 3
	// MinHeadings and MaxHeadings bound the section headings asked for.
	MinHeadings = 3
	MaxHeadings = 8
	// MinKeywords and MaxKeywords bound the keywords asked for.
	MinKeywords = 30
	MaxKeywords = 40
	// PseudoQueries is the number of pseudo-queries asked for.
	PseudoQueries = 20
	// DefaultFeatureChars is the budget of document text the feature
	// prompt shows, in characters (runes): about 5,000 tokens, so that
	// prompt and answer fit an 8k-token context. Longer documents are cut
	// at a word boundary and the prompt says so.
	DefaultFeatureChars = 20000
)

// Parser bounds: an entry longer than maxFeatureEntry bytes is prose,
// not a keyword, heading or query, and a list stops at maxFeatureItems
// entries.
const (
	maxFeatureEntry = 200
	maxFeatureItems = 100
)

// featuresMaxTokens sizes the answer: 40 keywords of about 4 tokens, 20
// queries and 8 headings of about 14, the title and the path.
const featuresMaxTokens = 1200

// DocFeatures are a document's compact features. Lists are in the order
// the model gave them; the prompt asks for the most important keywords
// first and headings in document order. It marshals to the JSON the
// feature store keeps.
type DocFeatures struct {
	// Title is a short topical title.
	Title string `json:"title"`
	// Category is the category path, broad to narrow, at most
	// CategoryLevels entries.
	Category []string `json:"category"`
	// Headings are section headings in document order.
	Headings []string `json:"headings"`
	// Keywords are keywords and key phrases, most important first.
	Keywords []string `json:"keywords"`
	// Queries are pseudo-queries: searches the document answers.
	Queries []string `json:"queries"`
}

// Empty reports whether no feature is set.
func (f DocFeatures) Empty() bool {
	return f.Title == "" && len(f.Category) == 0 && len(f.Headings) == 0 && len(f.Keywords) == 0 && len(f.Queries) == 0
}

// FeaturesInput asks for the features of one document. The text has
// already been cut to its budget (ExtractFeatures), so the offline engine
// reads exactly what a model is shown.
type FeaturesInput struct {
	Doc PromptDoc
	// Cut is true when Doc.Text is only the start of the document.
	Cut bool
}

// FeaturesOutput is a parsed feature answer.
type FeaturesOutput struct {
	Features DocFeatures
	// Report lists dropped entries and the fields the answer lacked.
	Report prompts.ParseReport
}

// featuresExample illustrates the format with a document that has nothing
// to do with any real one, so the example cannot leak into the answer.
var featuresExample = DocFeatures{
	Title:    "Riverside flood barrier approved after a decade of floods",
	Category: []string{"Environment", "Flood protection", "Municipal flood barriers"},
	Headings: []string{"The council's decision", "Cost and funding", "Objections from residents"},
	Keywords: []string{"flood barrier", "city council", "river Lune", "construction cost", "regional fund", "residents' association", "2019 flood", "insurance claims"},
	Queries: []string{
		"when did the city council approve the flood barrier",
		"flood barrier construction cost and funding",
		"why do residents object to the river barrier",
	},
}

// BuildFeatures builds the corank_features request.
func BuildFeatures(in FeaturesInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("Below is one document from a collection. Describe it compactly, so that a search system can later judge " +
		"from your description alone, without reading the document again, which questions it answers.\n\n")
	writeDocBlock(&b, "Document", in.Doc)
	if in.Cut {
		b.WriteString("(The document goes on; only its beginning is shown. Describe what is shown.)\n")
	}
	b.WriteString("\nWrite five labelled parts:\n")
	b.WriteString("TITLE: a short title of at most 12 words that says what the document is about, not only what kind of document it is.\n")
	fmt.Fprintf(&b, "CATEGORY: a path of %d categories from broad to narrow, separated by \" > \".\n", CategoryLevels)
	fmt.Fprintf(&b, "HEADINGS: %d to %d section headings, one per line, following the parts of the document in order; "+
		"use the document's own headings when it has them.\n", MinHeadings, MaxHeadings)
	fmt.Fprintf(&b, "KEYWORDS: %d to %d keywords or short key phrases on one line, separated by semicolons, the most important first: "+
		"the people, places, organisations, events, topics and figures the document is about.\n", MinKeywords, MaxKeywords)
	fmt.Fprintf(&b, "QUERIES: %d search queries, one per line, that someone would type to find information this document gives; "+
		"each about a different point, some as keywords and some as questions.\n", PseudoQueries)
	b.WriteString("Use the document's own words where you can, and write only what the document says.\n\n")
	fmt.Fprintf(&b, "Output format: exactly these five parts, as in this shortened example about an unrelated document "+
		"(your answer has %d to %d keywords and %d queries):\n\n", MinKeywords, MaxKeywords, PseudoQueries)
	b.WriteString(FormatFeatures(featuresExample))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskCoRankFeatures,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   featuresMaxTokens,
		Temperature: 0,
	}
}

// The canonical labels of a feature answer.
const (
	labelTitle    = "TITLE"
	labelCategory = "CATEGORY"
	labelHeadings = "HEADINGS"
	labelKeywords = "KEYWORDS"
	labelQueries  = "QUERIES"
)

// FormatFeatures writes features in the canonical format:
//
//	TITLE: <title>
//	CATEGORY: <broad> > <middle> > <narrow>
//	HEADINGS:
//	- <heading>
//	KEYWORDS: <keyword>; <keyword>; ...
//	QUERIES:
//	- <query>
//
// Every value is flattened to one line (formatLine); separators that
// would split a value when it is read back are replaced by spaces (';'
// and ',' in a keyword; "::", '>', '/', '|', '→', '»' and '›' in a
// category level).
// Blank values are left out, and so are parts with no value.
func FormatFeatures(f DocFeatures) string {
	var lines []string
	if t := formatEntry(f.Title, ""); t != "" {
		lines = append(lines, labelTitle+": "+t)
	}
	var path []string
	for _, c := range f.Category {
		if c = formatEntry(strings.ReplaceAll(c, "::", " "), categorySeparators); c != "" {
			path = append(path, c)
		}
	}
	if len(path) > 0 {
		lines = append(lines, labelCategory+": "+strings.Join(path, " > "))
	}
	list := func(label string, items []string) {
		var out []string
		for _, it := range items {
			if it = formatEntry(it, ""); it != "" {
				out = append(out, "- "+it)
			}
		}
		if len(out) > 0 {
			lines = append(lines, label+":")
			lines = append(lines, out...)
		}
	}
	list(labelHeadings, f.Headings)
	var kws []string
	for _, k := range f.Keywords {
		if k = formatEntry(k, keywordSeparators); k != "" {
			kws = append(kws, k)
		}
	}
	if len(kws) > 0 {
		lines = append(lines, labelKeywords+": "+strings.Join(kws, "; "))
	}
	list(labelQueries, f.Queries)
	return strings.Join(lines, "\n")
}

// Separators within one line of a feature answer.
const (
	categorySeparators = ">/|→»›"
	keywordSeparators  = ";,"
)

// formatEntry cleans a value as the parser does (cleanEntry) after
// replacing the runes of seps by spaces, so that the parser reads back
// exactly what is written.
func formatEntry(s, seps string) string {
	if seps != "" && strings.ContainsAny(s, seps) {
		s = strings.Map(func(r rune) rune {
			if strings.ContainsRune(seps, r) {
				return ' '
			}
			return r
		}, s)
	}
	return cleanEntry(s)
}

// cleanEntry flattens a value to one line (formatLine) and removes list
// markers, heading and quote marks and wrapping emphasis or quotes until
// none is left: "- **1. Tariffs**" becomes "Tariffs".
func cleanEntry(s string) string {
	s = formatLine(s)
	for {
		t, _ := stripListMarker(s)
		t = unwrapEmphasis(strings.TrimSpace(t))
		if t == s {
			return s
		}
		s = t
	}
}

// featureField is one of the five parts of a feature answer.
type featureField int

const (
	fieldNone featureField = iota
	fieldTitle
	fieldCategory
	fieldHeadings
	fieldKeywords
	fieldQueries
)

// featureFieldNames are the fields' names in ParseReport.Missing, in
// canonical order.
var featureFieldNames = [...]string{fieldTitle: "title", fieldCategory: "category", fieldHeadings: "headings", fieldKeywords: "keywords", fieldQueries: "queries"}

// reFeatureLabel matches a part's label at the start of a line (markdown
// markers already stripped): optional emphasis (group 1), the label (2),
// an optional parenthesis ("KEYWORDS (30)"), emphasis closed before the
// colon (3), then a colon or the end of the line, and the rest (group 5,
// after emphasis in group 4 that closes a "**Title:**" label).
var reFeatureLabel = regexp.MustCompile(`(?i)^(\*\*|__)?\s*(topical\s+title|short\s+title|title|category\s+path|categories|category|section\s+headings|section\s+titles|headings|sections|key\s*words|key\s+phrases|key\s+terms|pseudo[\s-]*queries|search\s+queries|queries|questions)\s*(?:\([^)]*\))?\s*(\*\*|__)?\s*(?:[:：]|$)\s*((?:\*\*|__)?)(.*)$`)

// featureLabel reads a label line: the field and the rest of the line.
// Emphasis after the colon belongs to the label only when the label
// opened with emphasis that had not closed before the colon
// ("**Title:** x"); otherwise it starts the value ("Title: **x** y").
func featureLabel(t string) (featureField, string, bool) {
	m := reFeatureLabel.FindStringSubmatch(t)
	if m == nil {
		return fieldNone, "", false
	}
	rest := m[5]
	if m[4] != "" && !(m[1] != "" && m[3] == "") {
		rest = m[4] + rest
	}
	return featureFieldOf(m[2]), strings.TrimSpace(rest), true
}

// featureFieldOf maps a label (any case and spacing) to its field.
func featureFieldOf(label string) featureField {
	l := strings.ToLower(strings.Join(strings.Fields(label), " "))
	switch {
	case strings.Contains(l, "title") && !strings.HasPrefix(l, "section"):
		return fieldTitle
	case strings.HasPrefix(l, "categor"):
		return fieldCategory
	case strings.HasPrefix(l, "section"), l == "headings":
		return fieldHeadings
	case strings.HasPrefix(l, "key"):
		return fieldKeywords
	}
	return fieldQueries
}

// reCategorySplit splits a category path: ">", "/", "|", "→", "»", "›"
// and "::", with any spaces around them.
var reCategorySplit = regexp.MustCompile(`\s*(?:::|[>/|→»›])\s*`)

// ParseFeatures reads a feature answer. It takes the five labelled parts
// in any order and case — "TITLE:", "Category path:", "**Keywords:**",
// "## Section headings", "Pseudo-queries (20):" and their synonyms — or a
// JSON object with such keys ("title", "category", "headings",
// "keywords", "queries", ...). Prose before the first label, markdown,
// quotes, code fences and a reasoning model's <think> section are
// ignored.
//
//   - Title and category take the rest of their label line, or the next
//     non-blank line when it is empty. The category path is split at
//     ">", "/", "|", "→", "»", "›" or "::" (a JSON array is taken as
//     is); levels beyond CategoryLevels are dropped and reported.
//   - Headings and queries take one entry per line after their label,
//     bullets and numbers removed; entries on the label line itself are
//     split at ';'. Inside these lists a bulleted or numbered line is an
//     entry even when it begins like a label.
//   - Keywords take the label line and the lines after it, split at ';'
//     and ','.
//
// Blank, repeated (ignoring case) and overlong (over 200 bytes) entries
// are dropped and reported, and a list keeps at most 100 entries. The
// parts the answer lacks are listed in Report.Missing. An answer with
// none of the five parts is a *prompts.ParseError.
func ParseFeatures(text string) (FeaturesOutput, error) {
	clean := cleanText(text)
	if clean == "" {
		return FeaturesOutput{}, parseErrorf(TaskCoRankFeatures, text, "the answer is empty")
	}
	var (
		raw [fieldQueries + 1][]string
		out FeaturesOutput
	)
	if !featuresFromJSON(clean, &raw) {
		featuresFromLines(clean, &raw)
	}
	f := &out.Features
	if ts := featureEntries(raw[fieldTitle], "title", &out.Report); len(ts) > 0 {
		f.Title = ts[0]
	}
	var levels []string
	for _, c := range raw[fieldCategory] {
		levels = append(levels, reCategorySplit.Split(c, -1)...)
	}
	f.Category = featureEntries(levels, "category level", &out.Report)
	if len(f.Category) > CategoryLevels {
		for _, c := range f.Category[CategoryLevels:] {
			out.Report.Skipped = append(out.Report.Skipped, prompts.SkippedEntry{Text: snippet(c), Reason: fmt.Sprintf("category level beyond the %d asked for", CategoryLevels)})
		}
		f.Category = f.Category[:CategoryLevels]
	}
	f.Headings = featureEntries(raw[fieldHeadings], "heading", &out.Report)
	var kws []string
	for _, k := range raw[fieldKeywords] {
		kws = append(kws, strings.FieldsFunc(k, func(r rune) bool { return r == ';' || r == ',' })...)
	}
	f.Keywords = featureEntries(kws, "keyword", &out.Report)
	f.Queries = featureEntries(raw[fieldQueries], "query", &out.Report)
	for field, has := range map[featureField]bool{
		fieldTitle: f.Title != "", fieldCategory: len(f.Category) > 0, fieldHeadings: len(f.Headings) > 0,
		fieldKeywords: len(f.Keywords) > 0, fieldQueries: len(f.Queries) > 0,
	} {
		if !has {
			out.Report.Missing = append(out.Report.Missing, featureFieldNames[field])
		}
	}
	out.Report.Missing = canonicalMissing(out.Report.Missing)
	if f.Empty() {
		return out, parseErrorf(TaskCoRankFeatures, text, "no title, category, heading, keyword or query found")
	}
	return out, nil
}

// canonicalMissing sorts missing field names into canonical order.
func canonicalMissing(names []string) []string {
	var out []string
	for _, n := range featureFieldNames[fieldTitle:] {
		for _, m := range names {
			if m == n {
				out = append(out, n)
			}
		}
	}
	return out
}

// featuresFromLines reads the labelled parts of a line answer into raw.
func featuresFromLines(clean string, raw *[fieldQueries + 1][]string) {
	current := fieldNone
	pendingSingle := false // a title or category label waits for its value line
	for _, line := range strings.Split(clean, "\n") {
		t, listed := stripListMarker(line)
		if strings.TrimSpace(t) == "" {
			continue
		}
		inList := current == fieldHeadings || current == fieldKeywords || current == fieldQueries
		if field, rest, ok := featureLabel(t); ok && !(listed && inList) {
			current = field
			pendingSingle = false
			switch current {
			case fieldTitle, fieldCategory:
				if rest == "" {
					pendingSingle = true
				} else {
					raw[current] = append(raw[current], rest)
				}
			case fieldHeadings, fieldQueries:
				for _, part := range strings.Split(rest, ";") {
					if strings.TrimSpace(part) != "" {
						raw[current] = append(raw[current], part)
					}
				}
			case fieldKeywords:
				if rest != "" {
					raw[current] = append(raw[current], rest)
				}
			}
			continue
		}
		switch {
		case pendingSingle:
			raw[current] = append(raw[current], t)
			pendingSingle = false
		case inList:
			raw[current] = append(raw[current], t)
		}
		// Otherwise: prose before the first label or after a single-line
		// part; ignored.
	}
}

// featuresFromJSON reads a JSON object answer into raw and reports whether
// it found any part.
func featuresFromJSON(clean string, raw *[fieldQueries + 1][]string) bool {
	js := firstJSONValue(clean)
	if !strings.HasPrefix(js, "{") {
		return false
	}
	var obj map[string]any
	if err := json.NewDecoder(strings.NewReader(js)).Decode(&obj); err != nil {
		return false
	}
	found := false
	for _, k := range sortedKeys(obj) {
		field, rest, ok := featureLabel(strings.NewReplacer("_", " ", "-", " ").Replace(k))
		if !ok || rest != "" {
			continue
		}
		if len(raw[field]) > 0 {
			continue // two keys for one part: the first in key order wins
		}
		var vals []string
		switch v := obj[k].(type) {
		case string:
			if field == fieldHeadings || field == fieldQueries {
				vals = strings.Split(v, ";")
			} else {
				vals = []string{v}
			}
		case []any:
			for _, item := range v {
				if s, ok := item.(string); ok {
					if field == fieldCategory {
						// A JSON array is already split into levels.
						s = formatEntry(s, categorySeparators)
					}
					vals = append(vals, s)
				}
			}
		}
		if len(vals) > 0 {
			raw[field] = vals
			found = true
		}
	}
	return found
}

// featureEntries cleans entries and drops blank, overlong and repeated
// ones and those beyond maxFeatureItems, recording them in report.
func featureEntries(entries []string, what string, report *prompts.ParseReport) []string {
	seen := map[string]bool{}
	var out []string
	skip := func(raw, reason string) {
		report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: reason})
	}
	for _, raw := range entries {
		e := cleanEntry(raw)
		switch key := strings.ToLower(e); {
		case e == "":
			if strings.TrimSpace(raw) != "" {
				skip(raw, "blank "+what)
			}
		case len(e) > maxFeatureEntry:
			skip(raw, fmt.Sprintf("%s longer than %d bytes", what, maxFeatureEntry))
		case seen[key]:
			skip(raw, what+" repeats an earlier one")
		case len(out) == maxFeatureItems:
			skip(raw, fmt.Sprintf("more than %d entries", maxFeatureItems))
		default:
			seen[key] = true
			out = append(out, e)
		}
	}
	return out
}
