package handlers

import (
	"mime"
	"testing"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestQuoteSpan(t *testing.T) {
	// "é" is bytes 4-6 of the text.
	const text = "The é fact holds"
	tests := []struct {
		name       string
		start, end int
		want       string
		wantOK     bool
	}{
		{name: "inside", start: 7, end: 11, want: "fact", wantOK: true},
		{name: "whole text", start: 0, end: len(text), want: text, wantOK: true},
		{name: "clamped at both ends", start: -4, end: 400, want: text, wantOK: true},
		{name: "start inside a character widens to it", start: 5, end: 7, want: "é ", wantOK: true},
		{name: "end inside a character widens to it", start: 0, end: 5, want: "The é", wantOK: true},
		{name: "empty", start: 7, end: 7},
		{name: "empty inside a character", start: 5, end: 5},
		{name: "reversed", start: 11, end: 7},
		{name: "past the end", start: 20, end: 30},
		{name: "before the start", start: -10, end: -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := quoteSpan(text, pipeline.Citation{DocID: "d", Start: tt.start, End: tt.end})
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("quoteSpan(%d, %d) = %q, %t; want %q, %t", tt.start, tt.end, got, ok, tt.want, tt.wantOK)
			}
			if !utf8.ValidString(got) {
				t.Errorf("quote %q is not valid UTF-8", got)
			}
		})
	}
}

func TestAttachment(t *testing.T) {
	tests := []struct {
		name      string
		requestID string
		want      string
	}{
		{name: "token", requestID: "r-42", want: "r-42.md"},
		{name: "no request id", want: "report-7.md"},
		{name: "quote and backslash", requestID: `a"b\c`, want: `a"b_c.md`},
		{name: "unicode", requestID: "日本語 report", want: "日本語 report.md"},
		{name: "control characters", requestID: "a\nb\x00c", want: "a_b_c.md"},
		{name: "invalid UTF-8 becomes U+FFFD", requestID: "a\xffb", want: "a\uFFFDb.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := pipeline.Report{ID: 7, Request: pipeline.Request{ID: tt.requestID}}
			header := attachment(exportFileName(rep, ".md"))
			kind, params, err := mime.ParseMediaType(header)
			if err != nil {
				t.Fatalf("Content-Disposition %q does not parse: %v", header, err)
			}
			if kind != "attachment" || params["filename"] != tt.want {
				t.Errorf("Content-Disposition %q = %s, filename %q; want attachment, %q", header, kind, params["filename"], tt.want)
			}
			for i := 0; i < len(header); i++ {
				if c := header[i]; c < ' ' || c > '~' {
					t.Fatalf("Content-Disposition %q has byte %#x outside printable ASCII", header, c)
				}
			}
		})
	}
}
