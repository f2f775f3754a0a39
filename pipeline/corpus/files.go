package corpus

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// maxTextTitleRunes is the longest first line of a .txt file used as its
// title; a longer one is a paragraph, not a title.
const maxTextTitleRunes = 200

// readDocFile reads one .txt, .md or .html file as one document whose id is
// the file's path relative to the folder given (its base name when the file
// itself was given).
func (w *walker) readDocFile(e entry, r io.Reader) error {
	// The file is the text of a .txt or .md document; HTML carries markup,
	// so its raw size is held to the line limit and its text to the field
	// limit once extracted.
	limit := w.opts.MaxFieldBytes
	if e.kind == kindHTML {
		limit = max(w.opts.MaxLineBytes, w.opts.MaxFieldBytes)
	}
	data, skip, ok := w.readWhole(e, r, limit)
	if !ok {
		return nil
	}
	if w.content += int64(len(data)); w.opts.MaxTotalBytes > 0 && w.content > w.opts.MaxTotalBytes {
		w.full = true
		reason, _ := w.limitReason(errTotalLimit)
		return skip(reason)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return skip(fmt.Sprintf("binary or non-UTF-8 content: NUL byte at offset %d", i))
	}
	if i := firstInvalidUTF8(data); i >= 0 {
		return skip(fmt.Sprintf("binary or non-UTF-8 content: invalid UTF-8 at offset %d", i))
	}
	data = bytes.TrimPrefix(data, bom)
	content := normalizeNewlines(string(data))
	name := filepath.Base(e.path)

	var title, text string
	switch e.kind {
	case kindText:
		text, title = content, textTitle(content)
	case kindMarkdown:
		text, title = content, markdownTitle(content)
	case kindHTML:
		var err error
		text, title, err = extractHTML(content)
		if err != nil {
			w.report(Problem{File: e.path, Reason: "page read token by token, without its structure: " + err.Error()})
		}
	}
	if strings.TrimSpace(text) == "" {
		if e.kind == kindHTML {
			return skip("empty text: the page has no visible text")
		}
		return skip("empty text: the file holds only white space")
	}
	if int64(len(text)) > w.opts.MaxFieldBytes {
		return skip(fieldTooLarge("text", len(text), w.opts.MaxFieldBytes))
	}
	if reason := checkID(e.id); reason != "" {
		return skip("file path cannot be a document id: " + strings.TrimPrefix(reason, `"id" `))
	}
	if title == "" {
		title = name
	}
	return w.deliver(pipeline.Document{
		ID:       e.id,
		Title:    title,
		Text:     text,
		Metadata: map[string]string{"path": e.id, "format": e.kind.formatName()},
		Source:   e.path,
	})
}

// readWhole reads a one-document file whole, held to limit bytes. An
// empty file is a notice, a file too large or unreadable a skipped
// record: ok is false then, and the problem has been reported. skip
// reports a later problem with the file as a skipped record.
func (w *walker) readWhole(e entry, r io.Reader, limit int64) (data []byte, skip func(string) error, ok bool) {
	if e.size == 0 {
		w.report(Problem{File: e.path, Reason: "empty file"})
		return nil, nil, false
	}
	w.sum.Records++
	skip = func(reason string) error {
		w.report(Problem{File: e.path, Reason: reason, Skipped: true})
		return nil
	}
	var err error
	switch {
	case e.size > limit:
		skip(fmt.Sprintf("file is too large: %d bytes (limit %s)", e.size, sizeText(limit)))
	default:
		data, err = io.ReadAll(io.LimitReader(r, limit+1))
		switch {
		case err != nil:
			skip("cannot read file: " + describeErr(err))
		case int64(len(data)) > limit:
			skip(fmt.Sprintf("file is too large: more than %d bytes (limit %s)", limit, sizeText(limit)))
		default:
			return data, skip, true
		}
	}
	return nil, skip, false
}

// normalizeNewlines turns "\r\n" and lone "\r" line breaks into "\n".
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// textTitle returns the first non-blank line of a .txt file when it is short
// enough to be a title, else "".
func textTitle(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= maxTextTitleRunes {
			return line
		}
		return ""
	}
	return ""
}

// markdownTitle returns the first heading of a Markdown text (ATX "# Title"
// or Setext, underlined with = or -), or the title of its YAML front matter,
// else "". Lines inside fenced code blocks are not headings.
func markdownTitle(s string) string {
	lines := strings.Split(s, "\n")
	i := 0
	if fm, end, ok := frontMatter(lines); ok {
		if fm != "" {
			return fm
		}
		i = end
	}
	var para []string // the current paragraph, for Setext headings
	fence := ""       // the open code fence, if any
	for ; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if fence != "" {
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if indent < 4 {
			if f := fenceOpening(trimmed); f != "" {
				fence, para = f, nil
				continue
			}
			if h, ok := atxHeading(trimmed); ok {
				if h != "" {
					return h
				}
				para = nil
				continue
			}
			if len(para) > 0 && isSetextUnderline(trimmed) && !isListOrQuote(para[0]) {
				return strings.Join(para, " ")
			}
		}
		switch {
		case trimmed == "":
			para = nil
		case indent >= 4 && len(para) == 0:
			// an indented code block line
		default:
			para = append(para, trimmed)
		}
	}
	return ""
}

// frontMatter reads a YAML front matter block ("---" lines around it) at the
// start of a Markdown file and returns its title value, if any, and the
// index of the line after the block.
func frontMatter(lines []string) (title string, end int, ok bool) {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return "", 0, false
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if l == "---" || l == "..." {
			return title, i + 1, true
		}
		if v, found := strings.CutPrefix(l, "title:"); found && title == "" {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			title = v
		}
	}
	return "", 0, false // no closing line: not front matter
}

// fenceOpening returns the fence ("```" or "~~~", possibly longer) that
// line opens, or "".
func fenceOpening(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return "" // inline code, not a fence
			}
			return line[:n]
		}
	}
	return ""
}

// atxHeading parses "# Heading" (one to six #, then a space or the end of
// the line, closing #s dropped); ok is false when line is not a heading.
func atxHeading(line string) (string, bool) {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || n > 6 {
		return "", false
	}
	rest := line[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false // "#hashtag"
	}
	rest = strings.TrimSpace(rest)
	if closed := strings.TrimRight(rest, "#"); closed == "" || strings.HasSuffix(closed, " ") || strings.HasSuffix(closed, "\t") {
		rest = strings.TrimSpace(closed)
	}
	return rest, true
}

// isSetextUnderline reports whether line is made only of '=' or only of
// '-' (spaces around allowed).
func isSetextUnderline(line string) bool {
	if line == "" {
		return false
	}
	c := line[0]
	if c != '=' && c != '-' {
		return false
	}
	return strings.Trim(line, string(c)) == ""
}

// isListOrQuote reports whether a paragraph's first line starts a list item
// or a block quote, whose following "---" is a rule, not a heading underline.
func isListOrQuote(line string) bool {
	if strings.HasPrefix(line, ">") {
		return true
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(line, m) {
			return true
		}
	}
	digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
	return digits > 0 && digits < 10 && (strings.HasPrefix(line[digits:], ". ") || strings.HasPrefix(line[digits:], ") "))
}
