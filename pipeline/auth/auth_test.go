package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

// TestCan checks the whole permission matrix cell by cell against the
// table documented on Can.
func TestCan(t *testing.T) {
	const (
		A = auth.RoleAdmin
		N = auth.RoleAnalyst
		R = auth.RoleReviewer
	)
	granted := map[auth.Permission][]auth.Role{
		auth.PermView:            {A, N, R},
		auth.PermCreateReport:    {A, N},
		auth.PermCancelJob:       {A, N},
		auth.PermEditReport:      {A, N},
		auth.PermReviewCitations: {A, N, R},
		auth.PermApproveReport:   {A, R},
		auth.PermUploadCorpus:    {A},
		auth.PermManageUsers:     {A},
		auth.PermEvaluate:        {A, N, R},
		auth.PermManageRankers:   {A},
		auth.PermDeleteReports:   {A},
		auth.PermViewMetrics:     {A},
	}
	if got, want := len(auth.Permissions()), len(granted); got != want {
		t.Fatalf("Permissions() has %d entries, the test table %d", got, want)
	}
	for _, p := range auth.Permissions() {
		for _, r := range auth.Roles() {
			want := false
			for _, g := range granted[p] {
				want = want || g == r
			}
			t.Run(string(r)+"/"+string(p), func(t *testing.T) {
				if got := auth.Can(r, p); got != want {
					t.Errorf("Can(%s, %s) = %v, want %v", r, p, got, want)
				}
				if got := (auth.User{Role: r}).Can(p); got != want {
					t.Errorf("User{Role: %s}.Can(%s) = %v, want %v", r, p, got, want)
				}
			})
		}
	}
	// The two rules, stated directly.
	if auth.Can(auth.RoleReviewer, auth.PermEditReport) {
		t.Error("reviewers can edit report text")
	}
	if auth.Can(auth.RoleAnalyst, auth.PermApproveReport) {
		t.Error("analysts can approve reports")
	}
	for _, r := range []auth.Role{"", "root", "Admin"} {
		if auth.Can(r, auth.PermView) {
			t.Errorf("unknown role %q may view", r)
		}
	}
	if auth.Can(auth.RoleAdmin, "delete-everything") {
		t.Error("an unknown permission is granted to admins")
	}
}

func TestDenial(t *testing.T) {
	tests := []struct {
		name string
		role auth.Role
		perm auth.Permission
		want string
	}{
		{name: "reviewer starts a report", role: auth.RoleReviewer, perm: auth.PermCreateReport, want: "Reviewers cannot start reports."},
		{name: "analyst approves", role: auth.RoleAnalyst, perm: auth.PermApproveReport, want: "Analysts cannot approve reports."},
		{name: "no role", role: "", perm: auth.PermView, want: "Users without a role cannot view the portal."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.Denial(tt.role, tt.perm); got != tt.want {
				t.Errorf("Denial = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseRole(t *testing.T) {
	tests := []struct {
		in      string
		want    auth.Role
		wantErr bool
	}{
		{in: "admin", want: auth.RoleAdmin},
		{in: " Analyst ", want: auth.RoleAnalyst},
		{in: "REVIEWER", want: auth.RoleReviewer},
		{in: "", wantErr: true},
		{in: "editor", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := auth.ParseRole(tt.in)
			if tt.wantErr {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), "admin, analyst or reviewer") {
					t.Errorf("ParseRole(%q) error = %v, want ErrInvalid listing the roles", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseRole(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // "" when valid
	}{
		{name: "plain", in: "ada"},
		{name: "email-like", in: "ada.lovelace@example.org"},
		{name: "digits and dashes", in: "r2-d2_x"},
		{name: "64 characters", in: strings.Repeat("a", 64)},
		{name: "empty", in: "", wantErr: "empty"},
		{name: "65 characters", in: strings.Repeat("a", 65), wantErr: "65 characters long; the limit is 64"},
		{name: "space", in: "ada lovelace", wantErr: "(a space)"},
		{name: "leading dot", in: ".ada", wantErr: "must start with a letter or a digit"},
		{name: "non-ASCII", in: "zoë", wantErr: "'ë'"},
		{name: "markup", in: "<b>", wantErr: "'<'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := auth.ValidateName(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("ValidateName(%q) = %v, want nil", tt.in, err)
				}
				return
			}
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ValidateName(%q) = %v, want ErrInvalid mentioning %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestWaitText(t *testing.T) {
	tests := []struct {
		name string
		in   float64 // seconds
		want string
	}{
		{name: "under a second rounds up", in: 0.2, want: "1 second"},
		{name: "seconds", in: 40, want: "40 seconds"},
		{name: "59.5 s rounds up to 60 s, 1 minute", in: 59.5, want: "1 minute"},
		// 61 s is 1 minute and a bit: rounded up to 2 minutes.
		{name: "just over a minute", in: 61, want: "2 minutes"},
		{name: "a window", in: 15 * 60, want: "15 minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := secondsDuration(tt.in)
			if got := auth.WaitText(d); got != tt.want {
				t.Errorf("WaitText(%v) = %q, want %q", d, got, tt.want)
			}
		})
	}
	e := &auth.RateLimitError{RetryAfter: secondsDuration(0.2)}
	if got := e.RetryAfterSeconds(); got != 1 {
		t.Errorf("RetryAfterSeconds for 0.2 s = %d, want 1", got)
	}
	if diff := cmp.Diff("too many failed logins: try again in 1 second", e.Error()); diff != "" {
		t.Errorf("error text (-want +got)\n%s", diff)
	}
}
