package uploads_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/uploads"
)

func TestAccepted(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{name: "speeches.jsonl", want: true},
		{name: "speeches.JSONL.GZ", want: true},
		{name: "records.json", want: true},
		{name: "records.ndjson.gz", want: true},
		{name: "note.txt", want: true},
		{name: "README.md", want: true},
		{name: "notes.markdown", want: true},
		{name: "page.html", want: true},
		{name: "page.HTM", want: true},
		{name: "note.txt.gz", want: false},
		{name: "paper.PDF", want: true},
		{name: "memo.docx", want: true},
		{name: "paper.pdf.gz", want: false},
		{name: "slides.pptx", want: false},
		{name: "old.doc", want: false},
		{name: "archive.tar.gz", want: false},
		{name: "jsonl", want: false},
		{name: ".jsonl", want: false},
		{name: ".gz", want: false},
		{name: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := uploads.Accepted(tt.name); got != tt.want {
				t.Errorf("Accepted(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "plain", in: "a.jsonl", want: "a.jsonl"},
		{name: "unix path", in: "/home/ada/corpus/a.jsonl", want: "a.jsonl"},
		{name: "windows path", in: `C:\corpus\a.jsonl`, want: "a.jsonl"},
		{name: "control characters", in: "a\x00b\r\n.txt", want: "ab.txt"},
		{name: "spaces", in: "  my notes.txt ", want: "my notes.txt"},
		// The slash of "</b>" makes "b>.txt" the base name; markup is
		// kept as text (pages escape it).
		{name: "markup stays text", in: "<b>x</b>.txt", want: "b>.txt"},
		{name: "markup without a slash", in: "<img src=x onerror=alert(1)>.txt", want: "<img src=x onerror=alert(1)>.txt"},
		{name: "invalid UTF-8", in: "a\xffb.txt", want: "a\uFFFDb.txt"},
		{name: "dot dot", in: "..", wantErr: true},
		{name: "dot", in: ".", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "only a slash", in: "/", wantErr: true},
		{name: "too long", in: strings.Repeat("a", 252) + ".txt", wantErr: true},
		{name: "longest", in: strings.Repeat("a", 251) + ".txt", want: strings.Repeat("a", 251) + ".txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := uploads.CleanName(tt.in)
			if tt.wantErr {
				if !errors.Is(err, pipeline.ErrInvalid) {
					t.Errorf("CleanName(%q) = %q, %v; want ErrInvalid", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CleanName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzCleanName checks that a cleaned name is always safe to create in a
// folder: one path element, not "." or "..", valid UTF-8 without control
// characters, at most MaxNameBytes.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"a.jsonl", "../../etc/passwd", `..\..\x.txt`, "a\x00.txt", "\xff\xfe", " . ", "a/", strings.Repeat("é", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := uploads.CleanName(in)
		if err != nil {
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Fatalf("CleanName(%q) error %v does not wrap ErrInvalid", in, err)
			}
			return
		}
		switch {
		case got == "" || got == "." || got == "..":
			t.Fatalf("CleanName(%q) = %q", in, got)
		case strings.ContainsAny(got, `/\`):
			t.Fatalf("CleanName(%q) = %q holds a separator", in, got)
		case !utf8.ValidString(got):
			t.Fatalf("CleanName(%q) = %q is not valid UTF-8", in, got)
		case len(got) > uploads.MaxNameBytes:
			t.Fatalf("CleanName(%q) is %d bytes", in, len(got))
		case strings.IndexFunc(got, unicode.IsControl) >= 0:
			t.Fatalf("CleanName(%q) = %q holds a control character", in, got)
		}
		_ = uploads.Accepted(got)
	})
}
