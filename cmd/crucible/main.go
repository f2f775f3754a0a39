// Command crucible is the Crucible portal and its tools: serve the web
// portal, ingest a collection, rebuild the index, search, and benchmark.
//
// main only calls run; run is what the tests call.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitError carries a specific exit status; its message (if any) has
// already been printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

// exitCode prints err and maps it to an exit status: 0 success, 1 failure,
// 2 bad usage, 3 finished but some input records were skipped.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "crucible:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "crucible:", err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

const usage = `crucible: cited, nugget-based reports over your own documents

Usage:
  crucible serve   --data DIR [--addr 127.0.0.1:8080] [--ingest-if-empty FILE]
  crucible ingest  --data DIR PATH...
  crucible reindex --data DIR
  crucible search  --data DIR [--k N] [--docs] [--json] QUERY
  crucible search  --data DIR --queries FILE.jsonl --run OUT.run [--k 1000] [--docs]
  crucible report  --data DIR --requests FILE.jsonl --out DIR [--engine offline|openai] [--verify] [--markdown] [--baseline lead]
  crucible rerank  --data DIR --requests FILE.jsonl --run IN.run --method M --out OUT.run [--engine offline|openai]
  crucible features --data DIR [--engine offline|openai] [--docs N]
  crucible eval    retrieval --qrels Q [--nugget-qrels NQ] --run R [--k 10,20,100] [--json]
  crucible eval    reports --data DIR --requests FILE --nuggets FILE --reports DIR [--judge offline|model] [--json]
  crucible diff    [--request ID] [--nuggets FILE [--data DIR]] A.json B.json
  crucible train   ranker --data DIR --requests FILE --nuggets FILE [--engine offline|openai] [--dry-run]
  crucible bench   index|search [--data DIR] [--scale 1,10] [--corpus FILE]
  crucible user    add|list|passwd --data DIR [--role admin|analyst|reviewer] [NAME]

Every command takes --k1 and --b (BM25 parameters, defaults 0.9 and 0.4).
Environment: CRUCIBLE_DATA (data folder), CRUCIBLE_ADDR, CRUCIBLE_BM25_K1,
CRUCIBLE_BM25_B, CRUCIBLE_LOG_LEVEL (debug|info|warn|error); for a model
endpoint OPENAI_BASE_URL, OPENAI_API_KEY, CRUCIBLE_MODEL.
Run "crucible COMMAND -h" for a command's flags.
`

// run executes one command line.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command given", errUsage)
	}
	env := envFunc(getenv)
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], env, stdout, stderr)
	case "ingest":
		return cmdIngest(ctx, args[1:], env, stdout, stderr)
	case "reindex":
		return cmdReindex(ctx, args[1:], env, stdout, stderr)
	case "search":
		return cmdSearch(ctx, args[1:], env, stdout, stderr)
	case "report":
		return cmdReport(ctx, args[1:], env, stdout, stderr)
	case "rerank":
		return cmdRerank(ctx, args[1:], env, stdout, stderr)
	case "features":
		return cmdFeatures(ctx, args[1:], env, stdout, stderr)
	case "eval":
		return cmdEval(ctx, args[1:], env, stdout, stderr)
	case "diff":
		return cmdDiff(ctx, args[1:], env, stdout, stderr)
	case "train":
		return cmdTrain(ctx, args[1:], env, stdout, stderr)
	case "bench":
		return cmdBench(ctx, args[1:], env, stdout, stderr)
	case "user":
		return cmdUser(ctx, args[1:], env, stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
}

// envFunc wraps getenv with defaults.
type envFunc func(string) string

func (e envFunc) get(key, def string) string {
	if e != nil {
		if v := e(key); v != "" {
			return v
		}
	}
	return def
}
