package pipeline

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
)

// authorFields are the metadata fields that name who wrote or spoke a
// document, in the order they are tried.
var authorFields = []string{"author", "speaker", "by", "creator", "authors"}

// maxAuthorChars bounds an author name taken from metadata: a longer value
// is a description, not a name, and is not used.
const maxAuthorChars = 80

// DocumentAuthor is who wrote or spoke a document, from its metadata: the
// first of the fields author, speaker, by, creator and authors that holds a
// name of at most 80 characters. A JSON list of names (a non-string value
// is kept as its JSON encoding) gives "A", "A and B" or "A and others".
// false when the metadata names nobody.
func DocumentAuthor(metadata map[string]string) (string, bool) {
	for _, f := range authorFields {
		v := strings.Join(strings.Fields(metadata[f]), " ")
		if strings.HasPrefix(v, "[") {
			var names []string
			if json.Unmarshal([]byte(v), &names) != nil {
				continue
			}
			var kept []string
			for _, n := range names {
				if n = strings.Join(strings.Fields(n), " "); n != "" {
					kept = append(kept, n)
				}
			}
			switch {
			case len(kept) == 0:
				continue
			case len(kept) == 1:
				v = kept[0]
			case len(kept) == 2:
				v = kept[0] + " and " + kept[1]
			default:
				v = kept[0] + " and others"
			}
		}
		if v != "" && utf8.RuneCountInString(v) <= maxAuthorChars {
			return v, true
		}
	}
	return "", false
}

// Attribution leads the offline engine writes (pipeline/llm/offline):
// "In 1903, Theodore Roosevelt reported that ...", "In 1909, William H
// Taft proposed: “...”", "According to “Title” (2019), ...".
var (
	reQuotedLead = regexp.MustCompile(`^((?:In \d{3,4}, )?[^“”:]{1,120}? (?:reported|proposed|argued|said): )“(.*)”$`)
	reThatLead   = regexp.MustCompile(`^((?:In \d{3,4}, )?[^“”:]{1,120}? reported that )(.*)$`)
	reAccordLead = regexp.MustCompile(`^(According to “[^”]{1,300}”(?: \(\d{3,4}\))?, )(.*)$`)
)

// SplitAttribution splits a report sentence into the attribution the
// offline engine puts before what a document says ("In 1903, Theodore
// Roosevelt reported that ", quotation marks included for a quote) and
// what the document says; lead is "" for a sentence without one of its
// attribution forms. The words of body come from the cited span; those of
// lead from the document's metadata.
func SplitAttribution(s string) (lead, body string) {
	for _, re := range []*regexp.Regexp{reQuotedLead, reThatLead, reAccordLead} {
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1], m[2]
		}
	}
	return "", s
}
