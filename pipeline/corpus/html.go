package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML returns the visible text of an HTML page and its title: the
// <title> element, else the first <h1>, else "". Scripts, styles, the head
// and hidden elements are left out; block elements become line or paragraph
// breaks; white space outside <pre> collapses to single spaces; character
// references are decoded by the parser.
//
// The HTML parser refuses pages nested deeper than 512 elements; those are
// read token by token instead, which loses only the finer points (implied
// end tags, the hidden attribute), and err says why.
func extractHTML(src string) (text, title string, err error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		text, title = tokenText(src)
		return text, title, err
	}
	if n := findElement(doc, atom.Title); n != nil {
		title = collapseSpace(visibleText(n, true))
	}
	if title == "" {
		if n := findElement(doc, atom.H1); n != nil {
			title = collapseSpace(visibleText(n, false))
		}
	}
	return visibleText(doc, false), title, nil
}

// blockBreaks is the number of line breaks around each block element: 2 for
// a paragraph break, 1 for a line break.
var blockBreaks = map[atom.Atom]int{
	atom.Address: 2, atom.Article: 2, atom.Aside: 2, atom.Blockquote: 2,
	atom.Details: 2, atom.Dialog: 2, atom.Dl: 2, atom.Fieldset: 2,
	atom.Figure: 2, atom.Footer: 2, atom.Form: 2, atom.H1: 2, atom.H2: 2,
	atom.H3: 2, atom.H4: 2, atom.H5: 2, atom.H6: 2, atom.Header: 2,
	atom.Hgroup: 2, atom.Hr: 2, atom.Main: 2, atom.Menu: 2, atom.Nav: 2,
	atom.Ol: 2, atom.P: 2, atom.Pre: 2, atom.Section: 2, atom.Table: 2,
	atom.Ul: 2,

	atom.Caption: 1, atom.Center: 1, atom.Dd: 1, atom.Div: 1, atom.Dt: 1,
	atom.Figcaption: 1, atom.Legend: 1, atom.Li: 1, atom.Option: 1,
	atom.Summary: 1, atom.Tbody: 1, atom.Tfoot: 1, atom.Thead: 1, atom.Tr: 1,
}

// hiddenElements hold no visible text.
var hiddenElements = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Template: true,
	atom.Noscript: true, atom.Title: true, atom.Svg: true, atom.Canvas: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Select: true,
	atom.Textarea: true, atom.Audio: true, atom.Video: true,
}

// isHidden reports whether the element n is not rendered.
func isHidden(n *html.Node) bool {
	if hiddenElements[n.DataAtom] {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(s, "display:none") {
				return true
			}
		}
	}
	return false
}

// visibleText returns the text of the subtree at root. When whole is set
// the root itself is not checked for being hidden (used for <title>).
func visibleText(root *html.Node, whole bool) string {
	var b textBuilder
	pre := 0
	walkTree(root, func(n *html.Node) bool {
		switch n.Type {
		case html.TextNode:
			if pre > 0 {
				b.writePre(n.Data)
			} else {
				b.write(n.Data)
			}
		case html.ElementNode:
			if isHidden(n) && !(whole && n == root) {
				return false
			}
			switch n.DataAtom {
			case atom.Br:
				b.lineBreak()
			case atom.Pre, atom.Listing, atom.Plaintext:
				pre++
			}
			b.blockBreak(blockBreaks[n.DataAtom])
		}
		return true
	}, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.DataAtom {
		case atom.Pre, atom.Listing, atom.Plaintext:
			pre--
		case atom.Td, atom.Th:
			b.space = true
		}
		b.blockBreak(blockBreaks[n.DataAtom])
	})
	return strings.TrimRightFunc(b.b.String(), unicode.IsSpace)
}

// findElement returns the first element of kind a in document order, or nil.
func findElement(root *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	walkTree(root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == a {
			found = n
			return false
		}
		return true
	}, func(*html.Node) {})
	return found
}

// walkTree visits the tree at root in document order without recursion, so
// deeply nested markup cannot exhaust the stack. enter is called for each
// node and returns whether to visit its children; leave is called after the
// children of every node entered with true.
func walkTree(root *html.Node, enter func(*html.Node) bool, leave func(*html.Node)) {
	n := root
	for {
		if enter(n) {
			if n.FirstChild != nil {
				n = n.FirstChild
				continue
			}
			leave(n)
		}
		for n != root && n.NextSibling == nil {
			n = n.Parent
			leave(n)
		}
		if n == root {
			return
		}
		n = n.NextSibling
	}
}

// textBuilder accumulates text, collapsing white space and merging
// consecutive breaks. Nothing pending is written before the first text or
// after the last.
type textBuilder struct {
	b      strings.Builder
	breaks int  // pending line breaks, 0 to 2
	space  bool // a pending space
}

// flush writes the pending separator before new text.
func (t *textBuilder) flush() {
	if t.b.Len() > 0 {
		if t.breaks > 0 {
			// Count the line breaks a <pre> block already ended with.
			s := t.b.String()
			have := len(s) - len(strings.TrimRight(s, "\n"))
			for i := have; i < t.breaks; i++ {
				t.b.WriteByte('\n')
			}
		} else if t.space {
			t.b.WriteByte(' ')
		}
	}
	t.breaks, t.space = 0, false
}

// write adds text whose white space collapses.
func (t *textBuilder) write(s string) {
	words := strings.FieldsFunc(s, isHTMLSpace)
	if len(words) == 0 {
		if s != "" {
			t.space = true
		}
		return
	}
	if r, _ := utf8.DecodeRuneInString(s); isHTMLSpace(r) {
		t.space = true
	}
	for i, w := range words {
		if i > 0 {
			t.space = true
		}
		t.flush()
		t.b.WriteString(w)
	}
	if r, _ := utf8.DecodeLastRuneInString(s); isHTMLSpace(r) {
		t.space = true
	}
}

// writePre adds preformatted text as is.
func (t *textBuilder) writePre(s string) {
	if t.b.Len() == 0 {
		s = strings.TrimLeft(s, "\n")
	}
	if s == "" {
		return
	}
	t.flush()
	t.b.WriteString(s)
}

// blockBreak asks for at least n line breaks before the next text.
func (t *textBuilder) blockBreak(n int) {
	if n > t.breaks {
		t.breaks = n
	}
}

// lineBreak adds one line break (<br>), up to a paragraph break.
func (t *textBuilder) lineBreak() {
	if t.breaks < 2 {
		t.breaks++
	}
}

// isHTMLSpace reports white space that collapses outside <pre>: HTML's own
// (space, tab, line feed, form feed, carriage return) and, as for reading
// rather than layout, every other Unicode space such as the no-break space
// pages use for padding.
func isHTMLSpace(r rune) bool {
	return unicode.IsSpace(r)
}

// collapseSpace joins the words of s with single spaces.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, isHTMLSpace), " ")
}

// tokenText extracts text and title like extractHTML from the token stream,
// without building the tree. Hidden elements are skipped up to their end
// tag, so only elements that always have one are skipped.
func tokenText(src string) (text, title string) {
	z := html.NewTokenizer(strings.NewReader(src))
	var b textBuilder
	var titleText, h1Text strings.Builder
	var skipping atom.Atom // the hidden element being skipped, if any
	skipDepth, pre := 0, 0
	inTitle, inH1, h1Done := false, false, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: a strings.Reader has no other errors
		}
		tok := z.Token()
		switch tt {
		case html.TextToken:
			switch {
			case inTitle:
				titleText.WriteString(tok.Data)
			case skipping != 0:
			default:
				if inH1 {
					h1Text.WriteString(tok.Data)
				}
				if pre > 0 {
					b.writePre(tok.Data)
				} else {
					b.write(tok.Data)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			a := tok.DataAtom
			if skipping != 0 {
				if a == skipping && tt == html.StartTagToken {
					skipDepth++
				}
				continue
			}
			switch {
			case a == atom.Title:
				inTitle = tt == html.StartTagToken
			case a == atom.Head:
				// <head> often has no end tag; its content is skipped piece
				// by piece (title, script, style).
			case hiddenElements[a] && tt == html.StartTagToken:
				skipping, skipDepth = a, 1
			case a == atom.Br:
				b.lineBreak()
			case a == atom.Pre || a == atom.Listing:
				pre++
			case a == atom.H1 && !h1Done:
				inH1 = true
			}
			b.blockBreak(blockBreaks[a])
		case html.EndTagToken:
			a := tok.DataAtom
			if skipping != 0 {
				if a == skipping {
					if skipDepth--; skipDepth == 0 {
						skipping = 0
					}
				}
				continue
			}
			switch a {
			case atom.Title:
				inTitle = false
			case atom.Pre, atom.Listing:
				pre = max(0, pre-1)
			case atom.H1:
				if inH1 {
					inH1, h1Done = false, true
				}
			case atom.Td, atom.Th:
				b.space = true
			}
			b.blockBreak(blockBreaks[a])
		}
	}
	title = collapseSpace(titleText.String())
	if title == "" {
		title = collapseSpace(h1Text.String())
	}
	return strings.TrimRightFunc(b.b.String(), unicode.IsSpace), title
}
