package web

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzFirstMultipartToken feeds arbitrary bodies to the multipart CSRF
// peek: it must never panic, and the body the handler then reads must be
// exactly the body sent.
func FuzzFirstMultipartToken(f *testing.F) {
	var seed bytes.Buffer
	mw := multipart.NewWriter(&seed)
	mw.SetBoundary("xyz")
	mw.WriteField("csrf_token", "tok")
	fw, _ := mw.CreateFormFile("nuggets", "gold.jsonl")
	fw.Write([]byte(`{"request_id": "r1"}`))
	mw.Close()
	f.Add(seed.Bytes(), "xyz")
	f.Add([]byte("--xyz\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"), "xyz")
	f.Add([]byte(""), "xyz")
	f.Add(bytes.Repeat([]byte("a"), 20000), "a")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		tok, err := firstMultipartToken(req, boundary)
		if err != nil {
			t.Fatalf("error without a body limit: %v", err)
		}
		if len(tok) > maxCSRFTokenLen {
			t.Fatalf("token of %d bytes", len(tok))
		}
		got, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("the body changed: %d bytes read back of %d sent", len(got), len(body))
		}
	})
}

func TestFirstMultipartToken(t *testing.T) {
	build := func(fields ...string) (*bytes.Buffer, string) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		for i := 0; i+1 < len(fields); i += 2 {
			mw.WriteField(fields[i], fields[i+1])
		}
		mw.Close()
		return &b, mw.Boundary()
	}
	tests := []struct {
		name   string
		fields []string
		want   string
	}{
		{name: "first", fields: []string{"csrf_token", "abc", "name", "x"}, want: "abc"},
		{name: "second", fields: []string{"name", "x", "csrf_token", "abc"}, want: ""},
		{name: "too long", fields: []string{"csrf_token", strings.Repeat("a", maxCSRFTokenLen+1)}, want: ""},
		{name: "none", fields: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, boundary := build(tt.fields...)
			sent := append([]byte(nil), body.Bytes()...)
			req := httptest.NewRequest(http.MethodPost, "/", body)
			got, err := firstMultipartToken(req, boundary)
			if err != nil || got != tt.want {
				t.Errorf("token = %q, %v; want %q", got, err, tt.want)
			}
			rest, _ := io.ReadAll(req.Body)
			if !bytes.Equal(rest, sent) {
				t.Errorf("body not restored: %q, want %q", rest, sent)
			}
		})
	}
}
