package views

import (
	"context"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/auth"
)

func TestLocalPath(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "path", in: "/jobs", want: "/jobs"},
		{name: "path and query", in: "/search?q=a+b&page=2", want: "/search?q=a+b&page=2"},
		{name: "escaped document id", in: "/documents/a%2Fb", want: "/documents/a%2Fb"},
		{name: "empty", in: "", want: ""},
		{name: "relative", in: "jobs", want: ""},
		{name: "scheme-relative host", in: "//evil.example/x", want: ""},
		{name: "backslash host", in: `/\evil.example`, want: ""},
		{name: "backslash later", in: `/a\b`, want: ""},
		{name: "absolute URL", in: "https://evil.example/", want: ""},
		{name: "javascript", in: "javascript:alert(1)", want: ""},
		{name: "control character", in: "/jobs\r\nSet-Cookie: x=y", want: ""},
		{name: "tab", in: "/\t/evil.example", want: ""},
		{name: "the sign-in page", in: "/login?next=/", want: ""},
		{name: "the sign-out route", in: "/logout", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LocalPath(tt.in); got != tt.want {
				t.Errorf("LocalPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLoginURL(t *testing.T) {
	tests := []struct {
		next, want string
	}{
		{next: "", want: "/login"},
		{next: "/", want: "/login"},
		{next: "/search?q=a b", want: "/login?next=%2Fsearch%3Fq%3Da+b"},
	}
	for _, tt := range tests {
		if got := LoginURL(tt.next); got != tt.want {
			t.Errorf("LoginURL(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

func TestViewer(t *testing.T) {
	tests := []struct {
		name       string
		v          Viewer
		wantSigned bool
		wantCreate bool
	}{
		{name: "nobody", v: Viewer{}, wantSigned: false, wantCreate: false},
		{name: "a role without a name is not signed in", v: Viewer{Role: auth.RoleAdmin}, wantSigned: false, wantCreate: false},
		{name: "local", v: Viewer{Local: true, Role: auth.RoleAdmin}, wantSigned: true, wantCreate: true},
		{name: "analyst", v: Viewer{Name: "alan", Role: auth.RoleAnalyst}, wantSigned: true, wantCreate: true},
		{name: "reviewer", v: Viewer{Name: "grace", Role: auth.RoleReviewer}, wantSigned: true, wantCreate: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ViewerFrom(WithViewer(context.Background(), tt.v))
			if got != tt.v {
				t.Fatalf("ViewerFrom(WithViewer(v)) = %+v, want %+v", got, tt.v)
			}
			if got.SignedIn() != tt.wantSigned || got.Can(auth.PermCreateReport) != tt.wantCreate {
				t.Errorf("SignedIn %v Can(create) %v; want %v %v", got.SignedIn(), got.Can(auth.PermCreateReport), tt.wantSigned, tt.wantCreate)
			}
		})
	}
	if (ViewerFrom(context.Background()) != Viewer{}) {
		t.Error("a context without a viewer does not give the zero Viewer")
	}
}

// FuzzLocalPath checks that LocalPath never panics and only ever returns
// its input, a path on this portal that browsers cannot read as another
// host.
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/jobs", "//evil", `/\evil`, "https://x/", "/login", "/a?b=c#d", "/%2F%2Fevil", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := LocalPath(in)
		if got == "" {
			return
		}
		if got != in {
			t.Fatalf("LocalPath(%q) = %q: rewrote its input", in, got)
		}
		if got[0] != '/' || len(got) > 1 && (got[1] == '/' || got[1] == '\\') || strings.ContainsAny(got, "\\\r\n\t") {
			t.Fatalf("LocalPath(%q) accepted a path a browser may read as another host", in)
		}
	})
}
