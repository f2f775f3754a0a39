package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

const userUsage = `Usage:
  crucible user add    --data DIR --role admin|analyst|reviewer NAME
  crucible user list   --data DIR
  crucible user passwd --data DIR NAME

add and passwd read the password from the terminal without echo (twice),
or, when standard input is not a terminal, from its first line. Passwords
need at least 10 characters and at most 72 bytes. Changing a password
signs the user out everywhere.
`

// cmdUser manages the portal's accounts: add, list, passwd. It opens only
// the database, not the index, so it works while the portal is serving.
func cmdUser(ctx context.Context, args []string, env envFunc, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, userUsage)
		return fmt.Errorf("%w: crucible user needs a subcommand: add, list or passwd", errUsage)
	}
	switch args[0] {
	case "add":
		return cmdUserAdd(ctx, args[1:], env, stdin, stdout, stderr)
	case "list":
		return cmdUserList(ctx, args[1:], env, stdout, stderr)
	case "passwd":
		return cmdUserPasswd(ctx, args[1:], env, stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, userUsage)
		return nil
	default:
		fmt.Fprint(stderr, userUsage)
		return fmt.Errorf("%w: unknown user subcommand %q: want add, list or passwd", errUsage, args[0])
	}
}

func cmdUserAdd(ctx context.Context, args []string, env envFunc, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("user add", stderr)
	data := dataFlag(fs, env)
	roleName := fs.String("role", "", "the account's `role`: admin, analyst or reviewer")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := oneUserName(fs.Args())
	if err != nil {
		return err
	}
	if *roleName == "" {
		return fmt.Errorf("%w: user add: --role is required: admin, analyst or reviewer", errUsage)
	}
	role, err := auth.ParseRole(*roleName)
	if err != nil {
		return fmt.Errorf("%w: user add: %v", errUsage, err)
	}
	if err := auth.ValidateName(name); err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	db, err := openUserDB(ctx, *data, true)
	if err != nil {
		return err
	}
	defer db.Close()
	// Refuse a taken name before asking for a password.
	if _, err := db.UserByName(ctx, name); err == nil {
		return fmt.Errorf("user add: a user called %q already exists (change a password with crucible user passwd)", name)
	} else if !errors.Is(err, pipeline.ErrNotFound) {
		return fmt.Errorf("user add: %w", err)
	}
	hash, err := newPassword(stdin, stderr, name)
	if err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	u, err := db.CreateUser(ctx, name, role, hash)
	if err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	fmt.Fprintf(stdout, "created %s account %q\n", u.Role, u.Name)
	return nil
}

func cmdUserList(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("user list", stderr)
	data := dataFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: user list takes no arguments, got %q", errUsage, fs.Args())
	}
	db, err := openUserDB(ctx, *data, false)
	if err != nil {
		return err
	}
	defer db.Close()
	users, err := db.Users(ctx)
	if err != nil {
		return fmt.Errorf("user list: %w", err)
	}
	if len(users) == 0 {
		fmt.Fprintln(stdout, "no accounts: the portal runs in single-user local mode on a loopback address;")
		fmt.Fprintf(stdout, "create the first administrator with: crucible user add --data %s --role admin NAME\n", *data)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tCREATED")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Name, u.Role, u.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return tw.Flush()
}

func cmdUserPasswd(ctx context.Context, args []string, env envFunc, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("user passwd", stderr)
	data := dataFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := oneUserName(fs.Args())
	if err != nil {
		return err
	}
	db, err := openUserDB(ctx, *data, false)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.UserByName(ctx, name)
	if err != nil {
		return fmt.Errorf("user passwd: %w", err)
	}
	hash, err := newPassword(stdin, stderr, u.Name)
	if err != nil {
		return fmt.Errorf("user passwd: %w", err)
	}
	if err := db.SetPassword(ctx, u.Name, hash); err != nil {
		return fmt.Errorf("user passwd: %w", err)
	}
	fmt.Fprintf(stdout, "changed the password of %q and signed them out everywhere\n", u.Name)
	return nil
}

// dataFlag registers --data as the other commands do.
func dataFlag(fs *flag.FlagSet, env envFunc) *string {
	var data string
	fs.StringVar(&data, "data", env.get("CRUCIBLE_DATA", "data"), "data `folder` holding crucible.db (env CRUCIBLE_DATA)")
	return &data
}

// oneUserName returns the one positional argument, the user name.
func oneUserName(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", fmt.Errorf("%w: give the user name after the flags", errUsage)
	case 1:
		return args[0], nil
	}
	return "", fmt.Errorf("%w: want one user name, got %d arguments %q (flags go before the name)", errUsage, len(args), args)
}

// openUserDB opens the data folder's database. create allows a new folder
// and database (the first account is often made before the first serve);
// otherwise a missing database is an error naming the path.
func openUserDB(ctx context.Context, data string, create bool) (*sqlite.DB, error) {
	if data == "" {
		return nil, fmt.Errorf("%w: --data is empty", errUsage)
	}
	path := dbPath(data)
	if create {
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, fmt.Errorf("create data folder: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s: is --data the portal's data folder?", path)
		}
		return nil, err
	}
	return sqlite.Open(ctx, path)
}

// maxPasswordLine bounds a password line read from a pipe.
const maxPasswordLine = 4096

// newPassword reads a new password for the user and returns its hash. From
// a terminal it prompts on stderr without echo and asks twice; otherwise it
// reads the first line of stdin (without its line ending).
func newPassword(stdin io.Reader, stderr io.Writer, name string) (string, error) {
	var pw string
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		first, err := promptPassword(f, stderr, fmt.Sprintf("Password for %s (at least %d characters): ", name, auth.MinPasswordChars))
		if err != nil {
			return "", err
		}
		if err := auth.ValidatePassword(first); err != nil {
			return "", err
		}
		again, err := promptPassword(f, stderr, "Repeat the password: ")
		if err != nil {
			return "", err
		}
		if again != first {
			return "", errors.New("the two passwords differ; nothing was changed")
		}
		pw = first
	} else {
		line, err := readPasswordLine(stdin)
		if err != nil {
			return "", err
		}
		pw = line
	}
	return auth.HashPassword(pw)
}

func promptPassword(f *os.File, stderr io.Writer, prompt string) (string, error) {
	fmt.Fprint(stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stderr)
	if err != nil {
		return "", fmt.Errorf("read the password: %w", err)
	}
	return string(b), nil
}

// readPasswordLine reads the first line of r, without "\n" or "\r\n".
func readPasswordLine(r io.Reader) (string, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxPasswordLine+2), maxPasswordLine+2)
	line, err := br.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	if line == "" {
		return "", errors.New("no password on standard input: pipe one line, or run in a terminal to be asked")
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if len(line) > maxPasswordLine {
		return "", fmt.Errorf("the first line of standard input is over %d bytes: it is not a password", maxPasswordLine)
	}
	return line, nil
}
