package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// This file holds the on-topic sentences measure: a hand-written list of
// topic terms per request, and the share of a report's sentences that
// contain at least one of them. It does not depend on the judge.

// TopicTerm is one compiled topic term. Its matching rule:
//
//   - Case is ignored (both sides are lower-cased), and typographic
//     apostrophes and quotes (‘ ’ ‚ ‛ ʼ ′ and “ ” „ ‟ ″) read as ' and ",
//     and the hyphens U+2010 and U+2011 as "-".
//   - A run of white space in the term matches any run of white space
//     (spaces, tabs, line ends, no-break and other Unicode spaces) in the
//     text. Every other character matches itself only: a hyphen is not
//     white space ("customs-duties" does not match "customs duties"), and
//     digit groups are not normalised ("1,000" does not match "1000").
//   - Word boundaries: a letter, digit or combining mark at either end of
//     the term may not be glued to a letter, digit or combining mark in
//     the text. Any other character separates: "tariff" does not match in
//     "tariffs" or "antitariff" but does in "tariff-makers", "(tariff)"
//     and "tariff's"; "1890" matches in "in 1890," but not in "18901" or
//     "1890s"; "3" matches in "3.5", since "." separates. A term that
//     starts or ends with another character ("$40", "U.S.") has no
//     boundary to check at that end.
//   - A trailing "*" matches any (possibly empty) run of letters, digits
//     and combining marks, so "tariff*" matches "tariff", "tariffs" and
//     "tariffed", and the "tariff" of "tariff-makers". "*" is special only
//     at the very end of a term: a term that is only "*", that ends in a
//     "*" standing alone after white space ("customs *"), or that has a
//     "*" anywhere else is an error.
type TopicTerm struct {
	// Text is the term as written (trimmed).
	Text  string
	re    *regexp.Regexp
	left  bool // the term starts with a word character: check the boundary before
	right bool // the term ends with a word character and no wildcard: check after
}

// topicSpace matches a run of white space as unicode.IsSpace defines it.
const topicSpace = `[\t\n\v\f\r \x{85}\p{Z}]+`

// ParseTopicTerm compiles a topic term. The error says what is wrong with
// it.
func ParseTopicTerm(s string) (TopicTerm, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return TopicTerm{}, errors.New("is empty")
	}
	if text == "*" || strings.Trim(text, "*") == "" {
		return TopicTerm{}, errors.New(`is only "*"`)
	}
	norm := normTopic(text)
	wildcard := strings.HasSuffix(norm, "*")
	body := strings.TrimSuffix(norm, "*")
	if strings.Contains(body, "*") {
		return TopicTerm{}, fmt.Errorf(`%q: "*" is a wildcard only at the end of a term`, text)
	}
	last, _ := utf8.DecodeLastRuneInString(body)
	if wildcard && unicode.IsSpace(last) {
		return TopicTerm{}, fmt.Errorf(`%q: "*" must end a word, not stand alone`, text)
	}
	words := strings.Fields(body)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	pat := strings.Join(words, topicSpace)
	if wildcard {
		pat += `[\p{L}\p{N}\p{M}]*`
	}
	re, err := regexp.Compile(pat)
	if err != nil { // cannot happen: every word is quoted
		return TopicTerm{}, fmt.Errorf("%q: %v", text, err)
	}
	first, _ := utf8.DecodeRuneInString(body)
	return TopicTerm{Text: text, re: re, left: isWordRune(first), right: !wildcard && isWordRune(last)}, nil
}

// Matches reports whether the term occurs in s.
func (t TopicTerm) Matches(s string) bool { return t.matchNorm(normTopic(s)) }

// matchNorm matches the term in text normalised by normTopic. A candidate
// glued to a word character is skipped and the search goes on from the
// next character, so an overlapping later occurrence is still found.
func (t TopicTerm) matchNorm(text string) bool {
	for pos := 0; pos <= len(text); {
		loc := t.re.FindStringIndex(text[pos:])
		if loc == nil {
			return false
		}
		start, end := pos+loc[0], pos+loc[1]
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (!t.left || start == 0 || !isWordRune(before)) && (!t.right || end == len(text) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		pos = start + max(size, 1)
	}
	return false
}

// isWordRune reports whether r glues to a neighbouring word: a letter,
// digit or combining mark.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r)
}

// topicFold maps typographic apostrophes, quotes and hyphens to their
// ASCII forms.
var topicFold = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u02bc", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u2033", `"`,
	"\u2010", "-", "\u2011", "-",
)

// normTopic is the form both a term and a sentence are matched in.
func normTopic(s string) string { return topicFold.Replace(strings.ToLower(s)) }

// Topics are the topic terms of a set of requests: a sentence is on topic
// for a request when it contains at least one of the request's terms (see
// TopicTerm for the matching rule). The zero value has no request.
type Topics struct {
	terms map[string][]TopicTerm
}

// NewTopics compiles the terms of each request. A request with no term,
// or a term ParseTopicTerm rejects, is an error wrapping
// pipeline.ErrInvalid.
func NewTopics(terms map[string][]string) (*Topics, error) {
	t := &Topics{terms: map[string][]TopicTerm{}}
	for _, id := range sortedKeys(terms) {
		if len(terms[id]) == 0 {
			return nil, pipeline.Invalidf("topics: request %q has no terms", id)
		}
		for i, s := range terms[id] {
			tt, err := ParseTopicTerm(s)
			if err != nil {
				return nil, pipeline.Invalidf("topics: request %q: terms[%d] %v", id, i, err)
			}
			t.terms[id] = append(t.terms[id], tt)
		}
	}
	return t, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Has reports whether the request has topic terms.
func (t *Topics) Has(requestID string) bool { return t != nil && len(t.terms[requestID]) > 0 }

// RequestIDs lists the requests with topic terms, sorted.
func (t *Topics) RequestIDs() []string {
	if t == nil {
		return nil
	}
	return sortedKeys(t.terms)
}

// Terms returns the request's terms as written, in file order.
func (t *Topics) Terms(requestID string) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, tt := range t.terms[requestID] {
		out = append(out, tt.Text)
	}
	return out
}

// Match returns the first of the request's terms (in file order) that the
// sentence contains; ok is false when it contains none or the request has
// no terms.
func (t *Topics) Match(requestID, sentence string) (term string, ok bool) {
	if t == nil {
		return "", false
	}
	norm := normTopic(sentence)
	for _, tt := range t.terms[requestID] {
		if tt.matchNorm(norm) {
			return tt.Text, true
		}
	}
	return "", false
}

// Mark measures on-topic sentences in an evaluated report: it sets every
// sentence's OnTopic (and TopicTerm when on topic), Counts.OnTopicSentences
// and Metrics.OnTopicSentences (on-topic sentences / sentences; 0 for a
// report without sentences). It does nothing and returns false when the
// report's request has no topic terms.
func (t *Topics) Mark(rr *ReportResult) bool {
	if !t.Has(rr.RequestID) {
		return false
	}
	n := 0
	for j := range rr.Sentences {
		s := &rr.Sentences[j]
		term, ok := t.Match(rr.RequestID, s.Text)
		s.OnTopic, s.TopicTerm = &ok, term
		if ok {
			n++
		}
	}
	share := ratio(n, len(rr.Sentences))
	rr.Counts.OnTopicSentences = &n
	rr.Metrics.OnTopicSentences = &share
	return true
}

// topicLine is a topics line as written.
type topicLine struct {
	RequestID json.RawMessage `json:"request_id"`
	Terms     json.RawMessage `json:"terms"`
}

// ReadTopics reads topic terms from JSON Lines, one request per line:
//
//	{"request_id": "sotu-04", "terms": ["tariff*", "customs duties", "reciprocity", "McKinley Act"]}
//
// "request_id" is a string or an integer, unique in the file; "terms" a
// non-empty list of strings, each a term ParseTopicTerm accepts. Other
// fields are ignored. Blank lines are skipped; a UTF-8 byte order mark and
// CR line ends are tolerated. A file without any line is an error.
//
// name labels errors, which are *ParseError values "name:LINE: reason".
func ReadTopics(r io.Reader, name string) (*Topics, error) {
	br := bufio.NewReader(r)
	t := &Topics{terms: map[string][]TopicTerm{}}
	seen := map[string]int{} // request → line
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				return nil, &ParseError{File: name, Line: lineNo, Reason: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if b := bytes.TrimSpace(line); len(b) > 0 {
			id, terms, reason := parseTopicLine(b)
			if reason == "" {
				if prev, dup := seen[id]; dup {
					reason = fmt.Sprintf("duplicate request_id %q (first on line %d)", id, prev)
				}
			}
			if reason != "" {
				return nil, &ParseError{File: name, Line: lineNo, Reason: reason}
			}
			seen[id] = lineNo
			t.terms[id] = terms
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(t.terms) == 0 {
		return nil, &ParseError{File: name, Reason: "no topic lines"}
	}
	return t, nil
}

// ReadTopicsFile reads a topics file with ReadTopics, naming errors by its
// path.
func ReadTopicsFile(path string) (*Topics, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open topics: %w", err)
	}
	defer f.Close()
	return ReadTopics(f, path)
}

// parseTopicLine reads one non-blank line; reason is non-empty when it is
// malformed.
func parseTopicLine(b []byte) (id string, terms []TopicTerm, reason string) {
	if b[0] != '{' {
		return "", nil, "not a JSON object"
	}
	var l topicLine
	if err := json.Unmarshal(b, &l); err != nil {
		return "", nil, "bad JSON: " + jsonReason(err, b)
	}
	id, ok := idValue(l.RequestID)
	if !ok {
		return "", nil, "request_id must be a string or an integer"
	}
	if id == "" {
		return "", nil, "missing request_id"
	}
	raw := bytes.TrimSpace(l.Terms)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, fmt.Sprintf("request %q: missing terms", id)
	}
	var list []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return "", nil, fmt.Sprintf("request %q: terms must be a list of strings", id)
	}
	if len(list) == 0 {
		return "", nil, fmt.Sprintf("request %q: terms is an empty list", id)
	}
	for i, r := range list {
		var s string
		if r = bytes.TrimSpace(r); len(r) == 0 || r[0] != '"' || json.Unmarshal(r, &s) != nil {
			return "", nil, fmt.Sprintf("request %q: terms[%d] is not a string: %s", id, i, r)
		}
		tt, err := ParseTopicTerm(s)
		if err != nil {
			return "", nil, fmt.Sprintf("request %q: terms[%d] %v", id, i, err)
		}
		terms = append(terms, tt)
	}
	return id, terms, ""
}
