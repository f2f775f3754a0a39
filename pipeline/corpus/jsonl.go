package corpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// bom is the UTF-8 byte order mark, ignored at the start of a file.
var bom = []byte{0xEF, 0xBB, 0xBF}

// textFields are the fields that may hold a record's text, in order of
// preference.
var textFields = [...]string{"text", "contents", "body"}

// readBufferSize is the size of the buffers between the file, the gzip
// decoder and the line reader; Progress is called about once per buffer.
const readBufferSize = 64 << 10

// readJSONLFile reads a JSON Lines file, decompressing it when it is .gz.
func (w *walker) readJSONLFile(e entry, r io.Reader) error {
	if !e.gz {
		return w.readJSONL(e.path, r, "read error")
	}
	br := bufio.NewReaderSize(r, readBufferSize)
	if _, err := br.Peek(1); err == io.EOF {
		w.report(Problem{File: e.path, Reason: "empty file"})
		return nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		reason := "gzip stream truncated or corrupt after line 0: " + err.Error()
		if errors.Is(err, gzip.ErrHeader) {
			reason = "not a gzip file: " + err.Error()
		}
		w.report(Problem{File: e.path, Reason: reason, Skipped: true})
		return nil
	}
	defer zr.Close()
	return w.readJSONL(e.path, zr, "gzip stream truncated or corrupt")
}

// readJSONL reads JSON Lines from r, the content of the file name. A read
// error ends the file with one Problem "name: CUT after line N: err", where
// cut describes the failure; the records before it have been delivered. The
// error returned is fatal: ctx is done or fn failed.
func (w *walker) readJSONL(name string, r io.Reader, cut string) error {
	r = &contentReader{r: r, w: w}
	lr := &lineReader{r: bufio.NewReaderSize(r, readBufferSize), max: w.opts.MaxLineBytes}
	seen := make(map[string]int)
	lineNo, records := 0, 0
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		line, n, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			reason, limited := w.limitReason(err)
			if limited {
				reason = fmt.Sprintf("reading stopped after line %d: %s", lineNo, reason)
			} else {
				reason = fmt.Sprintf("%s after line %d: %v", cut, lineNo, err)
			}
			w.report(Problem{File: name, Reason: reason, Skipped: true})
			return nil
		}
		lineNo++
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		if tooLong {
			records++
			w.sum.Records++
			w.report(Problem{File: name, Line: lineNo, Skipped: true,
				Reason: fmt.Sprintf("line is too long: %d bytes (limit %s)", n, sizeText(w.opts.MaxLineBytes))})
			continue
		}
		if isBlank(line) {
			continue
		}
		records++
		w.sum.Records++
		doc, reason := parseRecord(line, w.opts.MaxFieldBytes)
		if reason != "" {
			w.report(Problem{File: name, Line: lineNo, Reason: reason, Skipped: true})
			continue
		}
		doc.Source = name + ":" + strconv.Itoa(lineNo)
		if err := w.deliver(doc); err != nil {
			return err
		}
		if first, ok := seen[doc.ID]; ok {
			w.report(Problem{File: name, Line: lineNo,
				Reason: fmt.Sprintf("duplicate id %q (first at line %d); the later record replaces it", doc.ID, first)})
		} else {
			seen[doc.ID] = lineNo
		}
	}
	switch {
	case lineNo == 0:
		w.report(Problem{File: name, Reason: "empty file"})
	case records == 0:
		w.report(Problem{File: name, Reason: "empty file: only blank lines"})
	}
	return nil
}

// isBlank reports whether line holds only ASCII white space.
func isBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n\v\f")) == 0
}

// lineReader reads lines of bounded length.
type lineReader struct {
	r   *bufio.Reader
	max int64
	buf []byte
}

// next returns the next line without its "\n" or "\r\n" terminator, and the
// line's length n. A line longer than max is not kept: tooLong is set and
// line is nil. The line is valid until the next call. At the end of the
// input next returns io.EOF; any other error means the input was cut, and
// the partial line is dropped.
func (lr *lineReader) next() (line []byte, n int64, tooLong bool, err error) {
	if cap(lr.buf) > 4<<20 {
		lr.buf = nil // do not hold on to the memory of one huge line
	}
	lr.buf = lr.buf[:0]
	var total int64 // bytes read, terminator included
	var last2 [2]byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		total += int64(len(chunk))
		for _, c := range chunk[max(0, len(chunk)-2):] {
			last2[0], last2[1] = last2[1], c
		}
		if !tooLong {
			// Two bytes of slack leave room for the "\r\n" terminator.
			if int64(len(lr.buf))+int64(len(chunk)) > lr.max+2 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case err == nil, err == io.EOF && total > 0:
			n = total
			if last2[1] == '\n' {
				n--
				if last2[0] == '\r' && total >= 2 {
					n--
				}
			}
			if !tooLong {
				lr.buf = lr.buf[:n]
				if n > lr.max {
					tooLong = true
				}
			}
			if tooLong {
				return nil, n, true, nil
			}
			return lr.buf, n, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, total, false, err
		}
	}
}

// parseRecord turns one non-blank JSON Lines line into a document, or
// returns the reason it is rejected. Fields bigger than maxField bytes
// reject the record.
func parseRecord(line []byte, maxField int64) (pipeline.Document, string) {
	if !utf8.Valid(line) {
		return pipeline.Document{}, invalidUTF8Reason(line)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return pipeline.Document{}, jsonSyntaxReason(line, syn)
		case errors.As(err, &typ):
			return pipeline.Document{}, "not a JSON object: the line holds " + jsonKind(bytes.TrimLeft(line, " \t\r\n"))
		}
		return pipeline.Document{}, "invalid JSON: " + err.Error()
	}
	if fields == nil {
		return pipeline.Document{}, "not a JSON object: the line holds null"
	}

	id, reason := recordID(fields["id"])
	if reason != "" {
		return pipeline.Document{}, reason
	}
	doc := pipeline.Document{ID: id, Metadata: make(map[string]string, len(fields))}

	if raw, ok := fields["title"]; ok {
		title, isText := scalarText(raw)
		if !isText {
			return pipeline.Document{}, fmt.Sprintf(`"title" must be a string, not %s`, jsonKind(raw))
		}
		if int64(len(title)) > maxField {
			return pipeline.Document{}, fieldTooLarge("title", len(title), maxField)
		}
		doc.Title = strings.TrimSpace(title)
	}

	textField, reason := chooseText(fields, &doc.Text)
	if reason != "" {
		return pipeline.Document{}, reason
	}
	if int64(len(doc.Text)) > maxField {
		return pipeline.Document{}, fieldTooLarge(textField, len(doc.Text), maxField)
	}

	// Sorted, so that of several oversized fields the same one is reported
	// every time.
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k == "id" || k == "title" || k == textField {
			continue
		}
		v, err := metadataValue(fields[k])
		if err != nil {
			return pipeline.Document{}, fmt.Sprintf("field %q: %v", k, err)
		}
		if int64(len(v)) > maxField {
			return pipeline.Document{}, fieldTooLarge(k, len(v), maxField)
		}
		doc.Metadata[k] = v
	}
	return doc, ""
}

func fieldTooLarge(name string, size int, limit int64) string {
	return fmt.Sprintf("field %q is too large: %d bytes (limit %s)", name, size, sizeText(limit))
}

// recordID validates the raw "id" value and returns the id as text.
func recordID(raw json.RawMessage) (string, string) {
	if raw == nil {
		return "", `missing "id" field`
	}
	var id string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", `"id": ` + err.Error()
		}
	case 'n':
		return "", `"id" is null`
	case '{', '[', 't', 'f':
		return "", fmt.Sprintf(`"id" must be a string or a number, not %s`, jsonKind(raw))
	default:
		s, ok := numberText(string(raw))
		if !ok {
			return "", fmt.Sprintf(`"id" is a number too large to use as an id: %s`, truncate(string(raw), 40))
		}
		id = s
	}
	return id, checkID(id)
}

// checkID returns why id cannot be a document id, or "".
func checkID(id string) string {
	switch {
	case id == "":
		return `"id" is empty`
	case strings.TrimSpace(id) == "":
		return `"id" is blank (only white space)`
	case len(id) > MaxIDBytes:
		return fmt.Sprintf(`"id" is too long: %d bytes (limit %d)`, len(id), MaxIDBytes)
	}
	for _, r := range id {
		if r < 0x20 || (r >= 0x7F && r <= 0x9F) {
			return fmt.Sprintf(`"id" contains a control character (%U)`, r)
		}
	}
	return ""
}

// numberText converts a JSON number literal to decimal text: integers are
// kept digit for digit, other values are written without an exponent
// (1e3 becomes "1000", 2.50 becomes "2.5"). It fails for values out of the
// float64 range.
func numberText(lit string) (string, bool) {
	if isIntegerLiteral(lit) {
		return lit, true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

func isIntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// scalarText returns the text of a string, number or null value; isText is
// false for other values.
func scalarText(raw json.RawMessage) (s string, isText bool) {
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	case 'n':
		return "", true
	case '{', '[', 't', 'f':
		return "", false
	}
	return string(raw), true
}

// chooseText sets *text to the first of the text fields holding a string
// that is not blank and returns that field's name, or explains what each
// text field held.
func chooseText(fields map[string]json.RawMessage, text *string) (string, string) {
	var states []string
	for _, name := range textFields {
		raw, ok := fields[name]
		var state string
		switch {
		case !ok:
			state = "is missing"
		case raw[0] == 'n':
			state = "is null"
		case raw[0] != '"':
			state = "is " + jsonKind(raw) + ", not a string"
		default:
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				state = "cannot be decoded: " + err.Error()
				break
			}
			if s == "" {
				state = "is empty"
				break
			}
			if strings.TrimSpace(s) == "" {
				state = "is blank"
				break
			}
			*text = s
			return name, ""
		}
		states = append(states, fmt.Sprintf("%q %s", name, state))
	}
	return "", "empty text: " + strings.Join(states, ", ")
}

// metadataValue returns a string as is and any other value as its compact
// JSON encoding.
func metadataValue(raw json.RawMessage) (string, error) {
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", err
	}
	return b.String(), nil
}

// jsonKind names the kind of the JSON value that starts data, with an
// article: "an object", "a number"...
func jsonKind(data []byte) string {
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// invalidUTF8Reason locates the first invalid UTF-8 sequence of line and,
// when the line is a JSON object, names the field holding it. encoding/json
// would silently replace it with U+FFFD, hence the check on raw bytes.
func invalidUTF8Reason(line []byte) string {
	off := firstInvalidUTF8(line)
	where := fmt.Sprintf("at column %d", off+1)
	if key, inKey, ok := fieldAt(line, off); ok {
		if inKey {
			return "invalid UTF-8 in a field name " + where
		}
		return fmt.Sprintf("invalid UTF-8 in field %q %s", key, where)
	}
	return "invalid UTF-8 " + where
}

// firstInvalidUTF8 returns the offset of the first invalid UTF-8 sequence
// in b, or -1.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// fieldAt finds which top-level field of the JSON object in line spans byte
// off: its name, or inKey when off falls in a field name. ok is false when
// line is not a well-formed object or off is outside every field.
func fieldAt(line []byte, off int) (key string, inKey, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false, false
	}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", false, false
		}
		k, _ := tok.(string)
		keyEnd := dec.InputOffset()
		if int64(off) >= start && int64(off) < keyEnd {
			return "", true, true
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", false, false
		}
		if int64(off) < dec.InputOffset() {
			return k, false, true
		}
	}
	return "", false, false
}

// truncate shortens s to at most n bytes for a message, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// reJSONChar reads the character Go's JSON decoder names in a syntax
// error ("invalid character 'o' in literal null").
var reJSONChar = regexp.MustCompile(`invalid character '((?:[^'\\]|\\.)+)'`)

// jsonSyntaxReason says in words what is wrong with a line that is not
// valid JSON, where, and shows the text around the spot: "invalid JSON at
// column 12: a bare word where a value should be (text needs double
// quotes; only true, false and null go without): …"text": no…".
func jsonSyntaxReason(line []byte, syn *json.SyntaxError) string {
	col := int(max(syn.Offset, 1))
	msg := syn.Error()
	ch := ""
	if m := reJSONChar.FindStringSubmatch(msg); m != nil {
		ch = m[1]
	}
	var why string
	switch {
	case strings.Contains(msg, "unexpected end of JSON input"):
		why = "the line ends before the JSON object is closed (a missing \"}\", \"]\" or closing quote?)"
	case strings.Contains(msg, "in literal"):
		why = "a bare word where a value should be (text needs double quotes; only true, false and null go without)"
	case strings.Contains(msg, "looking for beginning of object key string"):
		why = fmt.Sprintf("a field name must be in double quotes, found %q", ch)
	case strings.Contains(msg, "looking for beginning of value"):
		why = fmt.Sprintf("a value is missing or starts with %q (text needs double quotes)", ch)
	case strings.Contains(msg, "after object key:value pair"):
		why = fmt.Sprintf("expected \",\" or \"}\" after a field's value, found %q", ch)
	case strings.Contains(msg, "after object key"):
		why = fmt.Sprintf("expected \":\" after a field name, found %q", ch)
	case strings.Contains(msg, "after array element"):
		why = fmt.Sprintf("expected \",\" or \"]\" after a list item, found %q", ch)
	case strings.Contains(msg, "after top-level value"):
		why = "more text after the end of the JSON object (one object per line)"
	case strings.Contains(msg, "in string literal"):
		why = "a line break or control character inside quotes (write it as \\n or \\t)"
	case strings.Contains(msg, "in string escape code"):
		why = fmt.Sprintf("a backslash escape JSON does not have (%q)", ch)
	default:
		why = msg
	}
	return fmt.Sprintf("invalid JSON at column %d: %s: %s", col, why, jsonContext(line, col))
}

// jsonContext quotes up to 20 characters either side of a column.
func jsonContext(line []byte, col int) string {
	text := strings.TrimRight(string(line), "\r\n")
	at := min(max(col-1, 0), len(text))
	from, to := max(at-20, 0), min(at+20, len(text))
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	out := text[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}
