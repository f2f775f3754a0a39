package index

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/segment"
)

// eachWord calls fn for every word of input, in order, exactly as Bleve's
// Unicode tokenizer (blevesearch/segment's UAX #29 word segmentation,
// Unicode 8.0) emits them: the word's bytes (a slice of input), its byte
// offsets and its token type.
//
// The text is cut at ASCII white space, which no word spans: every word
// pattern of the segmenter excludes it, and a white-space character starts
// a segment of its own that emits nothing. (Format or Extend characters
// following it join that segment; on their own at the start of a run they
// make a segment that emits nothing too.) A run of ASCII bytes — most text
// — is segmented here by the rules that concern ASCII, a table lookup per
// byte; a run holding any other byte goes to the segmenter itself.
// A text that is not UTF-8 goes to the segmenter whole. TestTokenizeAsBleve
// compares the two over the demo corpus and random
// texts made of the characters the rules treat specially.
func eachWord(input []byte, fn func(term []byte, start, end int, typ analysis.TokenType)) {
	if !utf8.Valid(input) {
		// The segmenter's state machine stumbles over such bytes in ways
		// that depend on what came before them: it gets the whole text.
		unicodeWords(input, 0, len(input), fn)
		return
	}
	i := 0
	for i < len(input) {
		if asciiClass[input[i]] == cSpace {
			i++
			continue
		}
		j, ascii := i, true
		for j < len(input) {
			c := input[j]
			if c >= 0x80 {
				ascii = false
			} else if asciiClass[c] == cSpace {
				break
			}
			j++
		}
		if ascii {
			asciiWords(input, i, j, fn)
		} else {
			unicodeWords(input, i, j, fn)
		}
		i = j
	}
}

// Classes of ASCII bytes for word segmentation (UAX #29 word-break
// properties as blevesearch/segment's Unicode 8.0 tables give them).
const (
	cOther     = iota
	cSpace     // white space: 9–13 and 32 (CR, LF, Newline or Other)
	cLetter    // ALetter: A–Z, a–z
	cDigit     // Numeric: 0–9
	cUnder     // ExtendNumLet: _
	cMidLetter // MidLetter: ':'
	cMidNumLet // MidNumLet '.' and Single_Quote '\'': between letters or between digits
	cMidNum    // MidNum: ',' ';'
)

var asciiClass = func() (t [256]uint8) {
	for c := 9; c <= 13; c++ {
		t[c] = cSpace
	}
	t[' '] = cSpace
	for c := 'a'; c <= 'z'; c++ {
		t[c] = cLetter
		t[c-'a'+'A'] = cLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	t['_'] = cUnder
	t[':'] = cMidLetter
	t['.'] = cMidNumLet
	t['\''] = cMidNumLet
	t[','] = cMidNum
	t[';'] = cMidNum
	return t
}()

// asciiWords segments input[i:j], all ASCII, as the segmenter does: a word
// is a longest run of letters, digits and underscores, in which one
// ':', '.' or '\” may also stand between two letters and one ',', ';',
// '.' or '\” between two digits (WB5–WB13b, with the segmenter's own
// allowance of underscores next to each other). A word without letters
// but with a digit is Numeric, any other AlphaNumeric (a lone "_" too).
// Every other byte is a segment of its own that emits nothing.
func asciiWords(input []byte, i, j int, fn func(term []byte, start, end int, typ analysis.TokenType)) {
	k := i
	for k < j {
		switch asciiClass[input[k]] {
		case cLetter, cDigit, cUnder:
		default:
			k++
			continue
		}
		start := k
		letters, digits := false, false
	word:
		for k < j {
			switch cl := asciiClass[input[k]]; cl {
			case cLetter:
				letters = true
				k++
			case cDigit:
				digits = true
				k++
			case cUnder:
				k++
			case cMidLetter, cMidNumLet, cMidNum:
				if k+1 >= j {
					break word
				}
				prev, next := asciiClass[input[k-1]], asciiClass[input[k+1]]
				if prev == cLetter && next == cLetter && cl != cMidNum ||
					prev == cDigit && next == cDigit && cl != cMidLetter {
					k++
					continue
				}
				break word
			default:
				break word
			}
		}
		typ := analysis.AlphaNumeric
		if digits && !letters {
			typ = analysis.Numeric
		}
		fn(input[start:k:k], start, k, typ)
	}
}

// unicodeWords segments input[i:j] with the segmenter, as Bleve's Unicode
// tokenizer does.
func unicodeWords(input []byte, i, j int, fn func(term []byte, start, end int, typ analysis.TokenType)) {
	s := segment.NewWordSegmenterDirect(input[i:j])
	start := i
	for s.Segment() {
		b := s.Bytes()
		end := start + len(b)
		if t := s.Type(); t != segment.None {
			typ := analysis.AlphaNumeric
			switch t {
			case segment.Ideo, segment.Kana:
				typ = analysis.Ideographic
			case segment.Number:
				typ = analysis.Numeric
			}
			fn(input[start:end:end], start, end, typ)
		}
		start = end
	}
}

// tokenize is Bleve's Unicode tokenizer (eachWord's words, numbered from
// position 1).
func tokenize(input []byte) analysis.TokenStream {
	toks := make([]analysis.Token, 0, len(input)/6+1)
	eachWord(input, func(term []byte, start, end int, typ analysis.TokenType) {
		toks = append(toks, analysis.Token{Term: term, Start: start, End: end, Position: len(toks) + 1, Type: typ})
	})
	out := make(analysis.TokenStream, len(toks))
	for i := range toks {
		out[i] = &toks[i]
	}
	return out
}
