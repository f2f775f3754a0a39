package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/compare"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// cmdDiff compares two exported reports (issue 16 #2): `crucible diff
// A.json B.json` prints how their run manifests differ, the sentences
// added, removed and changed (word by word), the citations changed, the
// nuggets gained and lost, and, given gold nuggets, the metric
// differences. Each file may be in any format the judge reads; files of
// many reports (run files) are compared request by request.
func cmdDiff(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", stderr)
	data := fs.String("data", env.get("CRUCIBLE_DATA", "data"), "data `folder` whose documents the citations are judged against (with --nuggets; env CRUCIBLE_DATA)")
	request := fs.String("request", "", "compare only the reports of this request `id` (files of many reports)")
	nuggetsPath := fs.String("nuggets", "", "JSON Lines gold nuggets `file` (as crucible eval reports reads): evaluate both reports with the offline judge and compare their metrics")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible diff [--request ID] [--nuggets FILE [--data DIR]] A.json B.json")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: diff needs two report files, got %d", errUsage, len(paths))
	}
	var sides [2][]export.NeuCLIRReport
	for i, p := range paths {
		if sides[i], err = judge.ReadReportFile(p); err != nil {
			return err
		}
	}
	pairs, err := diffPairs(sides[0], sides[1], paths, *request)
	if err != nil {
		return err
	}
	var ev *diffEvaluator
	if *nuggetsPath != "" {
		if ev, err = openDiffEvaluator(ctx, *nuggetsPath, *data); err != nil {
			return err
		}
		defer ev.Close()
	}
	for i, p := range pairs {
		a := compare.Side{Label: filepath.Base(paths[0]), Report: p[0]}
		b := compare.Side{Label: filepath.Base(paths[1]), Report: p[1]}
		if ev != nil {
			if err := ev.evaluate(ctx, &a, &b, stderr); err != nil {
				return err
			}
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if len(pairs) > 1 {
			fmt.Fprintf(stdout, "== %s\n", p[0].RequestID)
		}
		if err := compare.WriteText(stdout, compare.Compare(a, b)); err != nil {
			return err
		}
	}
	return nil
}

// parseInterleaved parses flags given before, between or after the
// positional arguments, and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// diffPairs pairs the reports of the two files: the one report of each
// when both hold one, else the reports of each request both hold (or of
// --request), by request id; requests only one file holds are an error
// naming them.
func diffPairs(a, b []export.NeuCLIRReport, paths []string, request string) ([][2]export.NeuCLIRReport, error) {
	if request == "" && len(a) == 1 && len(b) == 1 {
		return [][2]export.NeuCLIRReport{{a[0], b[0]}}, nil
	}
	byID := func(reps []export.NeuCLIRReport) map[string]export.NeuCLIRReport {
		m := make(map[string]export.NeuCLIRReport, len(reps))
		for _, r := range reps {
			m[r.RequestID] = r
		}
		return m
	}
	ma, mb := byID(a), byID(b)
	if request != "" {
		ra, oka := ma[request]
		rb, okb := mb[request]
		switch {
		case !oka:
			return nil, fmt.Errorf("%s has no report for request %q", paths[0], request)
		case !okb:
			return nil, fmt.Errorf("%s has no report for request %q", paths[1], request)
		}
		return [][2]export.NeuCLIRReport{{ra, rb}}, nil
	}
	var ids, onlyA, onlyB []string
	for id := range ma {
		if _, ok := mb[id]; ok {
			ids = append(ids, id)
		} else {
			onlyA = append(onlyA, id)
		}
	}
	for id := range mb {
		if _, ok := ma[id]; !ok {
			onlyB = append(onlyB, id)
		}
	}
	sort.Strings(ids)
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	if len(onlyA) > 0 || len(onlyB) > 0 {
		var parts []string
		if len(onlyA) > 0 {
			parts = append(parts, fmt.Sprintf("only %s has %s", paths[0], strings.Join(onlyA, ", ")))
		}
		if len(onlyB) > 0 {
			parts = append(parts, fmt.Sprintf("only %s has %s", paths[1], strings.Join(onlyB, ", ")))
		}
		return nil, fmt.Errorf("the files hold reports of different requests (%s): name one with --request", strings.Join(parts, "; "))
	}
	out := make([][2]export.NeuCLIRReport, len(ids))
	for i, id := range ids {
		out[i] = [2]export.NeuCLIRReport{ma[id], mb[id]}
	}
	return out, nil
}

// diffEvaluator evaluates both reports with the offline judge.
type diffEvaluator struct {
	gold map[string][]judge.Nugget
	db   *sqlite.DB
}

// openDiffEvaluator reads the gold nuggets and opens the data folder's
// store (read for the cited documents; the index is not needed, so a
// running portal does not stand in the way).
func openDiffEvaluator(ctx context.Context, nuggetsPath, data string) (*diffEvaluator, error) {
	gold, err := judge.ReadNuggetsFile(nuggetsPath)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dbPath(data)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: --nuggets judges citations against the collection, and %s holds none (name the data folder with --data)", errUsage, data)
		}
		return nil, err
	}
	db, err := sqlite.Open(ctx, dbPath(data))
	if err != nil {
		return nil, err
	}
	return &diffEvaluator{gold: judge.ByRequest(gold), db: db}, nil
}

func (e *diffEvaluator) Close() error { return e.db.Close() }

// evaluate sets both sides' metrics, each against the gold nuggets of its
// request; a request without gold nuggets is said on stderr and left
// unevaluated.
func (e *diffEvaluator) evaluate(ctx context.Context, a, b *compare.Side, stderr io.Writer) error {
	ev := &judge.Evaluator{Judge: judge.Offline{}, Source: e.db}
	for _, s := range []*compare.Side{a, b} {
		gold := e.gold[s.Report.RequestID]
		if len(gold) == 0 {
			fmt.Fprintf(stderr, "no gold nuggets for request %q: %s is not evaluated\n", s.Report.RequestID, s.Label)
			continue
		}
		rr, err := ev.EvaluateReport(ctx, s.Report, gold)
		if err != nil {
			return err
		}
		m := rr.Metrics
		s.Metrics, s.Judge = &m, rr.Judge
	}
	return nil
}
