package pipeline

import (
	"encoding/json"
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
// is kept as its JSON encoding) gives its first name, or "A and B" for
// two. false when the metadata names nobody.
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
			case len(kept) == 2:
				v = kept[0] + " and " + kept[1]
			default:
				v = kept[0]
			}
		}
		if v != "" && utf8.RuneCountInString(v) <= maxAuthorChars {
			return v, true
		}
	}
	return "", false
}
