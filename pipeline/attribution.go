package pipeline

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
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
// Taft proposed: “...”", "In 1877, Rutherford B Hayes proposed that ..."
// (an item of a list of recommendations), "According to “Title” (2019),
// ...".
var (
	reQuotedLead = regexp.MustCompile(`^((?:In \d{3,4}, )?[^“”:]{1,120}? (?:reported|proposed|argued|said): )“(.*)”$`)
	reThatLead   = regexp.MustCompile(`^((?:In \d{3,4}, )?[^“”:]{1,120}? (?:reported|proposed) that )(.*)$`)
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

// surnameParticles are the words that belong to a surname when written
// before its last word ("Martin Van Buren", "Ludwig van Beethoven").
var surnameParticles = map[string]bool{
	"van": true, "von": true, "de": true, "der": true, "den": true, "del": true,
	"della": true, "di": true, "da": true, "du": true, "la": true, "le": true,
	"st.": true, "saint": true, "ter": true, "ten": true,
}

// nameSuffixes are the words after a surname that are not it.
var nameSuffixes = map[string]bool{"jr": true, "jr.": true, "sr": true, "sr.": true, "ii": true, "iii": true, "iv": true}

// Surname is the family name of a person's name as metadata writes it:
// its last word, with the particles written before it ("Van Buren") and
// without a suffix ("Jr."); "Mc" or "Mac" written apart joins the word
// after it ("William Mc Kinley" is McKinley). "" when the name is one
// word, is written "Surname, Given", or joins several people ("A and B").
func Surname(name string) string {
	if strings.ContainsAny(name, ",;&") {
		return ""
	}
	ws := strings.Fields(name)
	for len(ws) > 1 && nameSuffixes[strings.ToLower(ws[len(ws)-1])] {
		ws = ws[:len(ws)-1]
	}
	for _, w := range ws {
		if w == "and" || w == "others" {
			return ""
		}
	}
	if len(ws) < 2 {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(ws[len(ws)-1]); !unicode.IsUpper(r) {
		return ""
	}
	i := len(ws) - 1
	for i > 1 && surnameParticles[strings.ToLower(ws[i-1])] {
		i--
	}
	if i > 1 && (ws[i-1] == "Mc" || ws[i-1] == "Mac") {
		return ws[i-1] + strings.Join(ws[i:], " ")
	}
	return strings.Join(ws[i:], " ")
}

// ShortNames maps each of a collection's authors whose surname no other
// author shares to that surname: "Abraham Lincoln" → "Lincoln", "William
// Mc Kinley" → "McKinley"; "Lyndon B Johnson" and "Andrew Johnson" are
// left out (an attribution names them in full). A report attributes
// sentences by year and surname, the way a historian writes ("In 1862,
// Lincoln reported ..."), where the surname alone names one author of the
// collection.
func ShortNames(authors []string) map[string]string {
	bySurname := map[string][]string{}
	for _, a := range authors {
		if s := Surname(a); s != "" {
			k := strings.ToLower(s)
			bySurname[k] = append(bySurname[k], a)
		}
	}
	out := map[string]string{}
	for _, as := range bySurname {
		distinct := map[string]bool{}
		for _, a := range as {
			distinct[strings.Join(strings.Fields(a), " ")] = true
		}
		if len(distinct) == 1 {
			for _, a := range as {
				out[a] = Surname(a)
			}
		}
	}
	return out
}

// HeadingAlone reports whether a sentence is a heading in capitals that
// sentence splitting left on its own ("MAXIMUM AND MINIMUM CLAUSE IN
// TARIFF ACT.", "GREAT BRITAIN AND CANADA."): every word with letters is
// written in capitals and one of them has three letters or more. It
// states nothing a report could quote; an acronym inside a sentence in
// lower case ("NATO was founded ...") does not make one.
func HeadingAlone(s string) bool {
	long := false
	words := 0
	for _, w := range strings.Fields(s) {
		n := 0
		for _, r := range w {
			switch {
			case unicode.IsUpper(r):
				n++
			case unicode.IsLetter(r):
				return false
			}
		}
		if n > 0 {
			words++
		}
		long = long || n >= 3
	}
	return words > 0 && long
}

// transcriptMark matches what a transcript adds to an address in
// brackets or parentheses that the speaker did not say: the audience's
// response ("[Laughter]", "(Applause.)", "(laughs)") and a page or
// footnote number ("[1]", "[p.6]"), with the dashes around it. An
// editor's bracketed word ("[the States]") is part of the text and
// stays, as does a list's "(1)".
var transcriptMark = regexp.MustCompile(`(?i)\s*[—–-]?\s*(?:[\[(](?:laughter|applause|laughs)\.?[\])]|\[(?:p\.\s*)?\d{1,3}\])\s*[—–-]?`)

// DropTranscriptMarks removes a transcript's stage directions and page or
// footnote numbers from a text (transcriptMark): a sentence quoted in a
// report holds what was said, and what it quotes is its cited span with
// these marks removed. A mark between two dashes leaves one dash
// ("desk—(laughs)—let's" reads "desk—let's"), any other a space.
func DropTranscriptMarks(s string) string {
	return transcriptMark.ReplaceAllStringFunc(s, func(m string) string {
		t := strings.TrimSpace(m)
		lead, _ := utf8.DecodeRuneInString(t)
		trail, _ := utf8.DecodeLastRuneInString(t)
		if strings.ContainsRune("—–-", lead) && strings.ContainsRune("—–-", trail) {
			return string(lead)
		}
		return " "
	})
}
