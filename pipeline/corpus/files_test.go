package corpus

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMarkdownTitle(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ATX level 1", "# Title\n\nText.", "Title"},
		{"ATX deeper level first", "Intro.\n\n### Third level\n# First level", "Third level"},
		{"closing hashes", "  ## Sub heading ##  \n", "Sub heading"},
		{"hash inside the text", "# C# in practice\n", "C# in practice"},
		{"no space after hash", "#hashtag\n# Real", "Real"},
		{"seven hashes", "####### too deep\n", ""},
		{"empty heading skipped", "#\n# Real", "Real"},
		{"Setext equals", "Big Title\n=========\n\nText.", "Big Title"},
		{"Setext dashes over two lines", "A title over\ntwo lines\n---\n", "A title over two lines"},
		{"rule after a blank line", "Para.\n\n---\n\n# Real", "Real"},
		{"rule after a list item", "- item\n---\n# Real", "Real"},
		{"front matter title", "---\ntitle: \"From front matter\"\ndate: 2020\n---\n# Heading", "From front matter"},
		{"front matter without title", "---\nauthor: Ann\n---\n# Heading", "Heading"},
		{"fenced code is not a heading", "```sh\n# comment\n```\nReal\n====", "Real"},
		{"tilde fence", "~~~\n# x\n~~~~\n# Real", "Real"},
		{"indented code is not a heading", "    # code\n\n# Real", "Real"},
		{"no heading", "Just text.\nMore text.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markdownTitle(tt.in); got != tt.want {
				t.Errorf("markdownTitle(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTextTitle(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"first non-blank line", "\n \n  Annual report  \nBody.", "Annual report"},
		{"200 characters is short enough", strings.Repeat("é", 200) + "\nBody.", strings.Repeat("é", 200)},
		{"201 characters is a paragraph", strings.Repeat("é", 201) + "\nBody.", ""},
		{"blank", " \n\t", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textTitle(tt.in); got != tt.want {
				t.Errorf("textTitle(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestExtractHTML(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantText  string
		wantTitle string
	}{
		{
			name:      "title, entities and collapsed space",
			in:        "<html><head><title> Caf&eacute;\n &amp; bar </title></head><body><p>Fish&nbsp;&nbsp;&amp;\n\tchips &lt;3</p></body></html>",
			wantText:  "Fish & chips <3",
			wantTitle: "Café & bar",
		},
		{
			name:      "first h1 when there is no title",
			in:        "<h2>Second</h2><h1>First <em>one</em></h1><h1>Later</h1>",
			wantText:  "Second\n\nFirst one\n\nLater",
			wantTitle: "First one",
		},
		{
			name:     "no title",
			in:       "<p>Only text.</p>",
			wantText: "Only text.",
		},
		{
			name:     "scripts, styles and hidden elements",
			in:       `<head><style>p{}</style><script>x()</script></head><body><script>y()</script><noscript>Enable JS</noscript><p hidden>gone</p><p style="DISPLAY: none">gone</p><template><p>gone</p></template><p>Shown</p><!-- comment --></body>`,
			wantText: "Shown",
		},
		{
			name:     "lists and line breaks",
			in:       "<p>Line one<br>line two<br><br>after a gap</p><ul><li>a</li><li>b <b>bold</b></li></ul>",
			wantText: "Line one\nline two\n\nafter a gap\n\na\nb bold",
		},
		{
			name:     "table cells are separated",
			in:       "<table><tr><th>Name</th><th>Year</th></tr><tr><td>Ann</td><td>1950</td></tr></table>",
			wantText: "Name Year\nAnn 1950",
		},
		{
			name:     "pre keeps its white space",
			in:       "<p>Code:</p><pre>\nfunc  main() {\n\tx := 1\n}\n</pre><p>After.</p>",
			wantText: "Code:\n\nfunc  main() {\n\tx := 1\n}\n\nAfter.",
		},
		{
			name:     "inline elements do not break words",
			in:       "<p>un<b>bold</b>ed and <a href=x>a link</a>.</p>",
			wantText: "unbolded and a link.",
		},
		{
			name:     "nested blocks give one paragraph break",
			in:       "<div><section><p>One</p></section></div><div><p>Two</p></div>",
			wantText: "One\n\nTwo",
		},
		{
			name:      "only markup",
			in:        "<html><head><title>T</title></head><body><script>x</script></body></html>",
			wantText:  "",
			wantTitle: "T",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, title, err := extractHTML(tt.in)
			if err != nil {
				t.Fatalf("extractHTML: %v", err)
			}
			if text != tt.wantText {
				t.Errorf("text = %q, want %q", text, tt.wantText)
			}
			if title != tt.wantTitle {
				t.Errorf("title = %q, want %q", title, tt.wantTitle)
			}
		})
	}
}

// TestExtractHTMLDeepNesting checks that pages nested deeper than the HTML
// parser accepts are still read, token by token.
func TestExtractHTMLDeepNesting(t *testing.T) {
	const depth = 100_000
	in := "<title>Deep &amp; nested</title><style>p{}</style>" + strings.Repeat("<div>", depth) +
		"<h1>Top</h1><p>deep <b>bold</b> text</p><script>if (a<b) {}</script><pre> two  spaces</pre><p>end</p>" + strings.Repeat("</div>", depth)
	text, title, err := extractHTML(in)
	if err == nil {
		t.Errorf("extractHTML: no error for a page nested %d deep; the parser's limit may have changed", depth)
	}
	if want := "Top\n\ndeep bold text\n\n two  spaces\n\nend"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if want := "Deep & nested"; title != want {
		t.Errorf("title = %q, want %q", title, want)
	}
	if _, title := tokenText("<h1>First <i>one</i></h1><h1>Second</h1>"); title != "First one" {
		t.Errorf("tokenText title = %q, want the first h1", title)
	}
}

// TestExtractHTMLGolden reads a realistic page; run with -update to rewrite
// testdata/article.golden after checking the change by eye.
func TestExtractHTMLGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	text, title, err := extractHTML(string(in))
	if err != nil {
		t.Fatalf("extractHTML: %v", err)
	}
	got := "title: " + title + "\n---\n" + text + "\n"
	golden := filepath.Join("testdata", "article.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("extractHTML(testdata/article.html) (-want +got):\n%s", diff)
	}
}
