package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// serveAccess decides how `crucible serve` controls access when listening
// on addr with the given numbers of accounts and of administrators among
// them. On a loopback address it allows single-user local mode (local is
// true): the portal needs no sign-in while no account exists, and requires
// one as soon as any does. On any other address it requires accounts and
// refuses to start without an administrator, with an error naming the
// command that creates one for the data folder. An addr that is not
// HOST:PORT is a usage error.
func serveAccess(addr, data string, users, admins int) (local bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("%w: --addr %q: want HOST:PORT, such as 127.0.0.1:8080: %v", errUsage, addr, err)
	}
	if loopbackHost(host) {
		return true, nil
	}
	if admins == 0 {
		what := "no accounts exist"
		if users > 0 {
			what = fmt.Sprintf("none of the %d accounts is an admin", users)
		}
		return false, fmt.Errorf("refusing to serve on %s without an admin account: it is not a loopback address, "+
			"so the portal needs sign-in, and %s. Create the first administrator with:\n"+
			"  crucible user add --data %s --role admin NAME\n"+
			"or serve on 127.0.0.1 for single-user local mode", addr, what, data)
	}
	return false, nil
}

// loopbackHost reports whether a listen host is a loopback address:
// "localhost" or a loopback IP. An empty host (all interfaces) and other
// names are not.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenerIsLoopback reports whether a listener is bound to a loopback
// address, the check serve repeats after listening, so a host name that
// resolved elsewhere cannot keep local mode.
func listenerIsLoopback(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// accessCounts reads how many accounts and administrators exist.
func accessCounts(ctx context.Context, db *sqlite.DB) (users, admins int, err error) {
	if users, err = db.CountUsers(ctx); err != nil {
		return 0, 0, err
	}
	if admins, err = db.CountAdmins(ctx); err != nil {
		return 0, 0, err
	}
	return users, admins, nil
}

// csrfSecretSetting is the settings key of the CSRF secret.
const csrfSecretSetting = "csrf_secret"

// csrfSecret returns the portal's CSRF secret (32 random bytes), creating
// and storing it on first use, so tokens in open pages survive a restart.
func csrfSecret(ctx context.Context, db *sqlite.DB) ([]byte, error) {
	v, err := db.Setting(ctx, csrfSecretSetting)
	switch {
	case err == nil:
		if b, derr := hex.DecodeString(v); derr == nil && len(b) >= 32 {
			return b, nil
		}
		// A damaged value is replaced: only open forms are lost.
	case !errors.Is(err, pipeline.ErrNotFound):
		return nil, fmt.Errorf("read the CSRF secret: %w", err)
	}
	b := make([]byte, 32)
	// crypto/rand.Read never fails (Go 1.24+).
	_, _ = rand.Read(b)
	if err := db.SetSetting(ctx, csrfSecretSetting, hex.EncodeToString(b)); err != nil {
		return nil, fmt.Errorf("store the CSRF secret: %w", err)
	}
	return b, nil
}

// envBool reads a boolean environment variable; unset or unreadable is
// false.
func envBool(env envFunc, key string) bool {
	b, err := strconv.ParseBool(env.get(key, "false"))
	return err == nil && b
}
