package prompts

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// FacetsInput asks for the facets of a request: the things its problem
// statement asks the report to cover, in its order, each with a short
// heading the report's sentences are grouped under.
type FacetsInput struct {
	Request RequestInfo
}

// FacetsOutput is the facets of one answer, in the request's order.
type FacetsOutput struct {
	Facets []pipeline.Facet
	// Report lists the entries that were dropped (a blank heading, a
	// repeated heading, more than pipeline.MaxFacets) and, under Missing,
	// the facets that came without a description ("description of facet
	// 2"): they are kept with an empty one.
	Report ParseReport
}

const facetsMaxTokens = 48 + 40*pipeline.MaxFacets

var facetsExample = FacetsOutput{Facets: []pipeline.Facet{
	{Heading: "Approved flood defences and their cost", Description: "The barriers and dikes approved for the valley since 2020 and what each of them costs"},
	{Heading: "Objections raised", Description: "Who has objected to the defences and on what grounds"},
}}

// BuildFacets builds the facets request.
func BuildFacets(in FacetsInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	fmt.Fprintf(&b, "\nThe report will be read in sections, one for each thing the problem statement asks it to cover. "+
		"List those things in the order in which the problem statement raises them, at most %d. For each, write:\n", pipeline.MaxFacets)
	fmt.Fprintf(&b, "- a heading of at most %d words, in the request's own terms, that a reader can scan: "+
		"a short noun phrase such as \"Reciprocity arrangements\", not a question or an instruction;\n", pipeline.MaxFacetHeadingWords)
	b.WriteString("- after the character |, one line saying what belongs under the heading.\n")
	b.WriteString("A request that asks about one thing gets one section. Leave out instructions that apply to every section, " +
		"such as \"give the dates and figures\" or \"name the people involved\", and add nothing the request does not ask for. " +
		"Do not put a line break or the character | inside a heading.\n\n")
	b.WriteString("Output format: one section per line, numbered from 1, each written as\n" +
		"N. <heading> | <what belongs under it>\nFor example:\n\n")
	b.WriteString(FormatFacets(facetsExample))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
	return pipeline.ModelRequest{
		Task:        TaskFacets,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   facetsMaxTokens,
		Temperature: 0,
	}
}

// FormatFacets writes facets in the canonical format: one line per facet,
// "N. <heading> | <description>", numbered from 1, or "N. <heading>" when
// the description is empty. Headings are cleaned as ParseFacets cleans
// them (one line, no markdown, list markers or labels, '|' written '/',
// a spaced dash written " - ", no trailing '.', ':', ';' or ',', at most
// pipeline.MaxFacetHeadingWords words); descriptions are flattened to one
// line. Facets with a blank heading or a heading that repeats an earlier
// one are left out, and only the first pipeline.MaxFacets are written;
// with none left it writes "NONE".
func FormatFacets(out FacetsOutput) string {
	var b strings.Builder
	var seen []string
	for _, f := range out.Facets {
		h := cleanHeading(f.Heading)
		if h == "" || containsFold(seen, h) {
			continue
		}
		if len(seen) == pipeline.MaxFacets {
			break
		}
		seen = append(seen, h)
		if len(seen) > 1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", len(seen), h)
		if d := cleanFacetDescription(f.Description); d != "" {
			b.WriteString(" | " + d)
		}
	}
	if len(seen) == 0 {
		return "NONE"
	}
	return b.String()
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// matchHeadingKey recognises the labels of a facet's heading: "Heading",
// "Facet 2", "Section", "Title", "Topic", "Name".
func matchHeadingKey(k string) (string, bool) {
	for _, w := range []string{"heading", "facet", "section", "title", "topic", "name", "label"} {
		if k == w {
			return "heading", true
		}
		if rest, ok := strings.CutPrefix(k, w+" "); ok && isDigits(rest) {
			return "heading", true
		}
	}
	return "", false
}

// matchDescriptionKey recognises the labels of a facet's description.
func matchDescriptionKey(k string) (string, bool) {
	switch k {
	case "description", "desc", "about", "covers", "scope", "summary", "detail", "details", "what belongs under it", "contents":
		return "description", true
	}
	return "", false
}

func matchFacetKey(k string) (string, bool) {
	if name, ok := matchHeadingKey(k); ok {
		return name, true
	}
	return matchDescriptionKey(k)
}

// cleanHeading is the clean-up of a facet heading, the same in FormatFacets
// and ParseFacets: one line of valid text without <think> tags, '|' as
// '/', no bold markers, list markers, heading or description labels,
// wrapping quotes or markdown, spaced em and en dashes as " - ", no
// trailing '.', ':', ';' or ',', at most pipeline.MaxFacetHeadingWords
// words; "" for a blank heading or one that reads NONE. It is applied
// until nothing changes, so cleaning a clean heading changes nothing.
func cleanHeading(s string) string {
	s = formatValue(s)
	dashes := strings.NewReplacer(" — ", " - ", " – ", " - ", "|", "/", "**", "", "__", "")
	for {
		prev := s
		s = dashes.Replace(s)
		s, _ = stripLineMarkup(s)
		if _, v, ok := cutLabel(s, false, matchFacetKey); ok {
			s = v
		}
		s = unwrapQuotes(unwrapMarkup(s))
		s = strings.TrimRight(s, ".:;, ")
		if words := strings.Fields(s); len(words) > pipeline.MaxFacetHeadingWords {
			s = strings.Join(words[:pipeline.MaxFacetHeadingWords], " ")
		}
		s = flatten(s)
		if s == prev {
			break
		}
	}
	if isNoneMarker(s) {
		return ""
	}
	return s
}

// cleanFacetDescription is the clean-up of a facet description: one line,
// no description label, wrapping quotes or markdown.
func cleanFacetDescription(s string) string {
	s = formatValue(s)
	for {
		prev := s
		if _, v, ok := cutLabel(s, false, matchDescriptionKey); ok {
			s = v
		}
		s = unwrapQuotes(unwrapMarkup(s))
		if s == prev {
			return s
		}
	}
}

// Reasons for dropping a facet entry.
const (
	reasonBlankHeading    = "a blank heading"
	reasonRepeatedHeading = "the heading of an earlier facet"
	reasonTooManyFacets   = "no room: a request has at most 8 facets"
	reasonNoHeading       = "a description but no heading"
)

// facetCollector gathers facets and what was dropped.
type facetCollector struct {
	report ParseReport
	facets []pipeline.Facet
	// pending is the facet whose description may follow on the next
	// unlisted line; -1 when none.
	pending int
}

func newFacetCollector() *facetCollector { return &facetCollector{pending: -1} }

// add records a facet; hasDescription says whether the entry had a place
// for one (a following line may give it otherwise).
func (c *facetCollector) add(heading, description, raw string, hasDescription bool) {
	c.pending = -1
	h := cleanHeading(heading)
	var seen []string
	for _, f := range c.facets {
		seen = append(seen, f.Heading)
	}
	switch {
	case h == "":
		c.report.skip(raw, reasonBlankHeading)
		return
	case containsFold(seen, h):
		c.report.skip(raw, reasonRepeatedHeading)
		return
	case len(c.facets) == pipeline.MaxFacets:
		c.report.skip(raw, reasonTooManyFacets)
		return
	}
	c.facets = append(c.facets, pipeline.Facet{Heading: h, Description: cleanFacetDescription(description)})
	if !hasDescription {
		c.pending = len(c.facets) - 1
	}
}

// describe gives the pending facet its description.
func (c *facetCollector) describe(description string) bool {
	if c.pending < 0 {
		return false
	}
	c.facets[c.pending].Description = cleanFacetDescription(description)
	c.pending = -1
	return true
}

// output is the facets read, with the facets that have no description
// named under Missing.
func (c *facetCollector) output() FacetsOutput {
	out := FacetsOutput{Facets: c.facets, Report: c.report}
	for i, f := range c.facets {
		if f.Description == "" {
			out.Report.Missing = append(out.Report.Missing, fmt.Sprintf("description of facet %d", i+1))
		}
	}
	return out
}

// ParseFacets reads a facets answer. It accepts the canonical lines and
// also: a heading alone on a list line or a markdown heading, its
// description on the next line; "**Heading**: description" and "Heading
// — description"; "Heading:" and "Description:" labels on their own
// lines; markdown tables of heading and description; a JSON array of
// objects with heading and description fields (title, facet, section,
// name ...; about, summary ...) or of strings, or an object holding one;
// with or without numbering, bullets, bold and code fences, and ignores
// prose around them. An answer of short lines and nothing else is read as
// headings. Headings are cleaned as FormatFacets writes them; blank and
// repeated headings and facets past pipeline.MaxFacets are dropped and
// listed in Report.Skipped; facets without a description are kept and
// named in Report.Missing. An answer with no facet (NONE included: every
// request asks for something) is a *ParseError.
func ParseFacets(text string) (FacetsOutput, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return FacetsOutput{}, parseErrorf(TaskFacets, text, "the answer is empty")
	}
	var jsonReport ParseReport
	isJSON := false
	if js := firstJSON(clean); js != "" {
		c := newFacetCollector()
		isJSON = facetsFromJSON(js, c)
		if len(c.facets) > 0 {
			return c.output(), nil
		}
		jsonReport = c.report
	}
	c := newFacetCollector()
	plain := facetsFromLines(clean, c)
	if len(c.facets) == 0 && len(c.report.Skipped) == 0 && !isJSON {
		for _, line := range plain {
			t, _ := stripLineMarkup(line)
			if strings.HasSuffix(unwrapMarkup(t), ":") {
				continue // "Here are the sections:"
			}
			if looksLikeHeading(t) {
				c.add(t, "", line, true)
			} else {
				c.facets, c.report = nil, ParseReport{}
				break
			}
		}
	}
	if len(c.facets) > 0 {
		return c.output(), nil
	}
	if len(c.report.Skipped) == 0 {
		c.report = jsonReport
	}
	if n := len(c.report.Skipped); n > 0 {
		return FacetsOutput{Report: c.report}, parseErrorf(TaskFacets, text, "no usable facet; %d entries dropped, the first because it had %s",
			n, c.report.Skipped[0].Reason)
	}
	if first, _ := stripLineMarkup(strings.SplitN(clean, "\n", 2)[0]); isNoneMarker(first) {
		return FacetsOutput{}, parseErrorf(TaskFacets, text, "the answer says NONE, but every request asks for at least one thing")
	}
	return FacetsOutput{}, parseErrorf(TaskFacets, text, "no facet heading found")
}

// looksLikeHeading reports whether an unlisted line can be a heading when
// the whole answer is such lines: short, not a sentence, not an
// introduction, not NONE.
func looksLikeHeading(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" || isNoneMarker(t) || len(strings.Fields(t)) > pipeline.MaxFacetHeadingWords || strings.ContainsAny(t[:1], "[{") {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(unwrapMarkup(t))
	return !strings.ContainsRune(".!?:", last)
}

// facetsFromLines reads facets line by line into c and returns the
// unlisted lines that were neither a description nor part of an entry.
func facetsFromLines(clean string, c *facetCollector) (plain []string) {
	for _, line := range strings.Split(clean, "\n") {
		heading := strings.HasPrefix(strings.TrimSpace(line), "#")
		t, listed := stripLineMarkup(line)
		if t == "" {
			continue
		}
		if name, v, ok := cutLabel(t, false, matchFacetKey); ok {
			if name == "description" {
				if !c.describe(v) {
					c.report.skip(line, reasonNoHeading)
				}
				continue
			}
			if h, d, ok := strings.Cut(v, "|"); ok {
				c.add(h, d, line, true)
			} else {
				c.add(v, "", line, false)
			}
			continue
		}
		if cells, ok := tableCells(t); ok {
			switch {
			case len(cells) == 0 || isFacetTableHeader(cells):
			case len(cells) == 1:
				c.add(cells[0], "", line, true)
			default:
				c.add(cells[0], cells[1], line, true)
			}
			continue
		}
		if h, d, ok := strings.Cut(t, "|"); ok {
			c.add(h, d, line, true)
			continue
		}
		if listed || heading {
			if h, d, ok := splitFacetLine(t); ok {
				c.add(h, d, line, true)
			} else {
				c.add(t, "", line, false)
			}
			continue
		}
		if c.describe(t) {
			continue
		}
		plain = append(plain, line)
	}
	return plain
}

// splitFacetLine splits a list entry without '|' into heading and
// description: "**Heading**: description", "**Heading:** description",
// "Heading — description" (a spaced em or en dash).
func splitFacetLine(t string) (heading, description string, ok bool) {
	for _, w := range []string{"**", "__"} {
		inner, found := strings.CutPrefix(t, w)
		if !found {
			continue
		}
		end := strings.Index(inner, w)
		if end <= 0 {
			break
		}
		rest := strings.TrimSpace(inner[end+len(w):])
		for _, sep := range []string{":", "—", "–", "-"} {
			if r, cut := strings.CutPrefix(rest, sep); cut {
				rest = strings.TrimSpace(r)
				break
			}
		}
		if rest == "" {
			return "", "", false
		}
		return inner[:end], rest, true
	}
	for _, sep := range []string{" — ", " – "} {
		if h, d, found := strings.Cut(t, sep); found && strings.TrimSpace(d) != "" {
			return h, d, true
		}
	}
	return "", "", false
}

// isFacetTableHeader reports whether a table row names its columns.
func isFacetTableHeader(cells []string) bool {
	for _, c := range cells {
		if _, h := matchHeadingKey(normalizeKey(c)); h {
			return true
		}
	}
	return false
}

// facetsFromJSON reads a JSON array of facet objects or strings, or an
// object that holds one (under any key) or is one, into c. It reports
// false when js is not JSON of that shape.
func facetsFromJSON(js string, c *facetCollector) bool {
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	items, ok := jsonFacetItems(v, 0)
	if !ok {
		return false
	}
	for _, item := range items {
		switch item := item.(type) {
		case string:
			c.add(item, "", jsonText(item), true)
		case map[string]any:
			var h, d string
			var hasH, hasD bool
			for _, k := range sortedKeys(item) {
				key := normalizeKey(k)
				if _, ok := matchHeadingKey(key); ok && !hasH {
					h, hasH = jsonScalar(item[k]), true
				} else if _, ok := matchDescriptionKey(key); ok && !hasD {
					d, hasD = jsonScalar(item[k]), true
				}
			}
			switch {
			case hasH:
				c.add(h, d, jsonText(item), true)
			case hasD:
				c.report.skip(jsonText(item), reasonNoHeading)
			default:
				c.report.skip(jsonText(item), "no heading field")
			}
		default:
			c.report.skip(jsonText(item), "no heading field")
		}
	}
	return true
}

// jsonFacetItems finds the list of facets in a decoded JSON value.
func jsonFacetItems(v any, depth int) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case map[string]any:
		if depth > 4 {
			return nil, false
		}
		keys := sortedKeys(v)
		for _, k := range keys {
			if _, ok := matchHeadingKey(normalizeKey(k)); ok {
				if _, isText := v[k].(string); isText {
					return []any{v}, true
				}
			}
		}
		for _, k := range keys {
			if items, ok := jsonFacetItems(v[k], depth+1); ok {
				return items, true
			}
		}
	}
	return nil, false
}
