package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// runCmdInput runs one command line with stdin and returns its output and
// exit status.
func runCmdInput(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func TestUserCommands(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "fresh") // user add creates the folder
	out, stderr, code := runCmdInput(t, "correct horse battery\n", "user", "add", "--data", data, "--role", "admin", "ada")
	if code != 0 || out != "created admin account \"ada\"\n" {
		t.Fatalf("user add: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// A Windows line ending is not part of the password.
	if _, stderr, code := runCmdInput(t, "grace's long password\r\n", "user", "add", "--data", data, "--role", "Reviewer", "grace"); code != 0 {
		t.Fatalf("user add grace: exit %d: %s", code, stderr)
	}

	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{name: "name taken, in another case", stdin: "another long password\n", args: []string{"user", "add", "--data", data, "--role", "analyst", "ADA"},
			wantCode: 1, wantStderr: `a user called "ADA" already exists`},
		{name: "short password", stdin: "short\n", args: []string{"user", "add", "--data", data, "--role", "analyst", "alan"},
			wantCode: 1, wantStderr: "the password has 5 characters; it needs at least 10"},
		{name: "no password", stdin: "", args: []string{"user", "add", "--data", data, "--role", "analyst", "alan"},
			wantCode: 1, wantStderr: "no password on standard input"},
		{name: "unknown role", stdin: "a long password\n", args: []string{"user", "add", "--data", data, "--role", "owner", "alan"},
			wantCode: 2, wantStderr: `unknown role "owner": want admin, analyst or reviewer`},
		{name: "no role", stdin: "a long password\n", args: []string{"user", "add", "--data", data, "alan"},
			wantCode: 2, wantStderr: "--role is required"},
		{name: "bad name", stdin: "a long password\n", args: []string{"user", "add", "--data", data, "--role", "analyst", "alan turing"},
			wantCode: 1, wantStderr: "(a space)"},
		{name: "flags after the name", stdin: "a long password\n", args: []string{"user", "add", "--data", data, "alan", "--role", "analyst"},
			wantCode: 2, wantStderr: "flags go before the name"},
		{name: "no subcommand", args: []string{"user"}, wantCode: 2, wantStderr: "add, list or passwd"},
		{name: "passwd of nobody", stdin: "a long password\n", args: []string{"user", "passwd", "--data", data, "nobody"},
			wantCode: 1, wantStderr: `no user is called "nobody"`},
		{name: "list of a missing folder", args: []string{"user", "list", "--data", filepath.Join(t.TempDir(), "nope")},
			wantCode: 1, wantStderr: "no database at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCmdInput(t, tt.stdin, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tt.wantCode, tt.wantStderr)
			}
		})
	}

	out, _, code = runCmdInput(t, "", "user", "list", "--data", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") ||
		!regexp.MustCompile(`^ada\s+admin\s+\d{4}-\d\d-\d\d`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^grace\s+reviewer\s+`).MatchString(lines[2]) {
		t.Errorf("user list: exit %d\n%s", code, out)
	}

	out, stderr, code = runCmdInput(t, "a brand new password\n", "user", "passwd", "--data", data, "Ada")
	if code != 0 || !strings.Contains(out, `changed the password of "ada"`) {
		t.Fatalf("user passwd: exit %d, %q %q", code, out, stderr)
	}
	db, err := sqlite.Open(context.Background(), dbPath(data))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, want := range map[string]string{"ada": "a brand new password", "grace": "grace's long password"} {
		u, hash, err := db.Credentials(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if !auth.CheckPassword(hash, want) {
			t.Errorf("%s's password is not %q", name, want)
		}
		if name == "grace" && u.Role != auth.RoleReviewer {
			t.Errorf("grace's role = %q", u.Role)
		}
	}
}

func TestServeAccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		addr      string
		users     int
		admins    int
		wantLocal bool
		wantErr   string
		wantUsage bool
	}{
		{name: "loopback, no accounts", addr: "127.0.0.1:8080", wantLocal: true},
		{name: "loopback IPv6", addr: "[::1]:8080", wantLocal: true},
		{name: "localhost", addr: "localhost:8080", wantLocal: true},
		{name: "another loopback address", addr: "127.0.0.2:8080", wantLocal: true},
		// Local mode is allowed; the portal still asks to sign in once an
		// account exists.
		{name: "loopback with accounts", addr: "127.0.0.1:8080", users: 2, admins: 0, wantLocal: true},
		{name: "all interfaces, no accounts", addr: "0.0.0.0:8080", wantErr: "crucible user add --data /srv/crucible --role admin NAME"},
		{name: "empty host, no accounts", addr: ":8080", wantErr: "no accounts exist"},
		{name: "LAN address, analysts only", addr: "192.168.1.5:8080", users: 2, wantErr: "none of the 2 accounts is an admin"},
		{name: "host name", addr: "crucible.example:8080", wantErr: "without an admin account"},
		{name: "all interfaces with an admin", addr: "0.0.0.0:8080", users: 3, admins: 1, wantLocal: false},
		{name: "not HOST:PORT", addr: "8080", wantErr: "want HOST:PORT", wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local, err := serveAccess(tt.addr, "/srv/crucible", tt.users, tt.admins)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("serveAccess = %v, %v; want an error with %q", local, err, tt.wantErr)
				}
				if errors.Is(err, errUsage) != tt.wantUsage {
					t.Errorf("usage error: %v, want %v", errors.Is(err, errUsage), tt.wantUsage)
				}
				return
			}
			if err != nil || local != tt.wantLocal {
				t.Errorf("serveAccess = %v, %v; want %v", local, err, tt.wantLocal)
			}
		})
	}
}

// TestServeRefusesWithoutAdmin starts serve on all interfaces without an
// admin account: it must stop before listening, naming the command that
// creates one.
func TestServeRefusesWithoutAdmin(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	_, stderr, code := runCmd(t, "serve", "--data", data, "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(stderr, "crucible user add --data "+data+" --role admin NAME") {
		t.Fatalf("serve without accounts: exit %d, stderr:\n%s", code, stderr)
	}
	if _, stderr, code := runCmdInput(t, "a long password\n", "user", "add", "--data", data, "--role", "analyst", "alan"); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code = runCmd(t, "serve", "--data", data, "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(stderr, "none of the 1 accounts is an admin") {
		t.Fatalf("serve with an analyst only: exit %d, stderr:\n%s", code, stderr)
	}
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// TestServeLocalModeAndLogin serves a data folder on 127.0.0.1: without
// accounts in local mode, then, once an admin exists, with sign-in.
func TestServeLocalModeAndLogin(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	base := startServe(t, "--data", data)
	code, body := get(t, base+"/")
	if code != http.StatusOK || !strings.Contains(body, `data-testid="account-local"`) {
		t.Fatalf("local mode home page: %d, local mode shown: %v", code, strings.Contains(body, "account-local"))
	}

	// An account added while the portal runs ends local mode at once.
	if _, stderr, code := runCmdInput(t, "correct horse battery\n", "user", "add", "--data", data, "--role", "admin", "ada"); code != 0 {
		t.Fatal(stderr)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	fetch := func(resp *http.Response, err error) (string, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Request.URL.Path, string(b)
	}
	path, body := fetch(client.Get(base + "/jobs"))
	m := csrfField.FindStringSubmatch(body)
	if path != "/login" || m == nil {
		t.Fatalf("with an account, /jobs led to %s (sign-in form with a token: %v)", path, m != nil)
	}
	path, body = fetch(client.PostForm(base+"/login", url.Values{
		"csrf_token": {m[1]}, "name": {"ada"}, "password": {"correct horse battery"}, "next": {"/jobs"}}))
	if path != "/jobs" || !strings.Contains(body, `data-testid="account-name">ada<`) {
		t.Fatalf("after signing in: at %s, signed in as ada: %v", path, strings.Contains(body, "account-name"))
	}
	// A form without the token is refused.
	resp, err := client.PostForm(base+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("logout without a token: %d, want 403", resp.StatusCode)
	}
}
