package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/crucible-portal/crucible/views"
)

// `crucible bench serve`: the portal's HTTP server, as `crucible serve`
// assembles it, on a loopback port over a benchmark data folder, with N
// concurrent clients (each signed in as an analyst, like the portal's
// users) requesting search pages, document pages and the home page for a
// fixed duration; optionally with report jobs running all along.

// Bounds of a serve benchmark: it is a loopback measurement, not a load
// tool.
const (
	maxBenchClients  = 1000
	maxBenchDuration = 10 * time.Minute
)

// Request kinds of the serve benchmark and their weights in the mix.
const (
	kindSearch   = "search"
	kindDocument = "document"
	kindHome     = "home"
)

var serveMix = []struct {
	kind   string
	weight int
}{{kindSearch, 6}, {kindDocument, 3}, {kindHome, 1}}

type serveFlags struct {
	clients    int
	duration   time.Duration
	scale      int
	withReport bool
	local      bool
	corpus     string
	queries    string
	requests   string
	data       string
	work       string
	seed       uint64
}

func benchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench serve", stderr)
	var sf serveFlags
	fs.IntVar(&sf.clients, "clients", 50, "concurrent clients, each with its own session (at most 1000)")
	fs.DurationVar(&sf.duration, "duration", 30*time.Second, "how long the clients run (at most 10m)")
	fs.IntVar(&sf.scale, "scale", 1, "corpus replication factor of the data folder")
	fs.BoolVar(&sf.withReport, "with-report", false, "keep a report job (offline engine) running throughout: one submitted at the start, the next when one finishes")
	fs.BoolVar(&sf.local, "local", false, "single-user local mode (no accounts, no sign-in) instead of signed-in analysts")
	fs.StringVar(&sf.corpus, "corpus", "testdata/corpora/sotu.jsonl.gz", "corpus `file` of the data folder")
	fs.StringVar(&sf.queries, "queries", querySetDefault, "search page queries, one per line")
	fs.StringVar(&sf.requests, "requests", "testdata/eval/sotu-requests.jsonl", "report requests for --with-report (NeuCLIR-style JSON Lines)")
	fs.StringVar(&sf.data, "data", "", "benchmark a copy of this data `folder` instead of building one from --corpus and --scale")
	fs.StringVar(&sf.work, "work", "", "scratch `folder`, kept afterwards (default: a temporary folder)")
	fs.Uint64Var(&sf.seed, "seed", 1, "seed of the clients' choices")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed run (server and clients: one process) to this `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if sf.clients < 1 || sf.clients > maxBenchClients {
		return fmt.Errorf("%w: --clients %d: want 1 to %d", errUsage, sf.clients, maxBenchClients)
	}
	if sf.duration <= 0 || sf.duration > maxBenchDuration {
		return fmt.Errorf("%w: --duration %s: want more than 0 and at most %s", errUsage, sf.duration, maxBenchDuration)
	}
	if sf.scale < 1 {
		return fmt.Errorf("%w: --scale %d: want a positive integer", errUsage, sf.scale)
	}
	queries, err := readQueries(sf.queries)
	if err != nil {
		return err
	}
	var reqs []pipeline.Request
	if sf.withReport {
		if reqs, err = readRequests(ctx, sf.requests, 1000); err != nil {
			return err
		}
		if len(reqs) == 0 {
			return fmt.Errorf("bench serve: %s holds no requests", sf.requests)
		}
	}
	if sf.work == "" {
		dir, err := os.MkdirTemp("", "crucible-bench-serve-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		sf.work = dir
	}
	data := filepath.Join(sf.work, "serve-data")
	if err := os.RemoveAll(data); err != nil {
		return err
	}
	if sf.data != "" {
		if err := os.CopyFS(data, os.DirFS(sf.data)); err != nil {
			return fmt.Errorf("copy %s: %w", sf.data, err)
		}
		fmt.Fprintf(stdout, "data folder: a copy of %s\n", sf.data)
	} else {
		docs, err := loadBenchCorpus(ctx, sf.corpus)
		if err != nil {
			return err
		}
		a, n, took, err := buildCrucible(ctx, data, docs, sf.scale, 0)
		if err != nil {
			return err
		}
		if err := a.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "data folder: %s at %d× (%d passages), built in %.1f s\n", sf.corpus, sf.scale, n, took.Seconds())
	}

	// Accounts and the documents the clients will open.
	db, err := sqlite.Open(ctx, dbPath(data))
	if err != nil {
		return err
	}
	docIDs, err := db.DocumentIDs(ctx, 0)
	var user, password string
	if err == nil && !sf.local {
		user, password, err = addBenchUser(ctx, db)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if len(docIDs) == 0 {
		return errors.New("bench serve: the data folder holds no documents")
	}

	// The portal, as `crucible serve` runs it, on a free loopback port.
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	base := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- cmdServe(serveCtx, []string{"--data", data, "--addr", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
			"--log-level", "info", "--workers", "1"}, envFunc(func(string) string { return "" }), io.Discard, io.Discard)
	}()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		stopServe()
		return <-served
	}
	defer stop()
	if err := waitHealthy(ctx, base, served, &stopped); err != nil {
		return err
	}

	transport := &http.Transport{MaxIdleConns: sf.clients + 4, MaxIdleConnsPerHost: sf.clients + 4, IdleConnTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	clients := make([]*http.Client, sf.clients)
	for i := range clients {
		if clients[i], err = benchClient(ctx, transport, base, user, password); err != nil {
			return fmt.Errorf("client %d: %w", i+1, err)
		}
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	mode := "signed in as analysts (one session each)"
	if sf.local {
		mode = "single-user local mode"
	}
	fmt.Fprintf(stdout, "%s: %d clients, %s, %s; mix: search pages %d, document pages %d, home %d in 10 (%d queries, %d documents)\n",
		base, sf.clients, sf.duration, mode, serveMix[0].weight, serveMix[1].weight, serveMix[2].weight, len(queries), len(docIDs))

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var reporter *reportLoop
	reporterDone := make(chan struct{})
	if sf.withReport {
		rc, err := benchClient(ctx, transport, base, user, password)
		if err != nil {
			return fmt.Errorf("report client: %w", err)
		}
		reporter = &reportLoop{client: rc, base: base, requests: reqs, submitted: make(chan error, 1)}
		go func() {
			defer close(reporterDone)
			reporter.run(runCtx)
		}()
		// The clients start once the first job is in.
		select {
		case err := <-reporter.submitted:
			if err != nil {
				return err
			}
		case <-reporterDone:
			return fmt.Errorf("bench serve: no report job submitted: %w", context.Cause(runCtx))
		}
	} else {
		close(reporterDone)
	}
	start := time.Now()
	deadline := start.Add(sf.duration)
	results := make([][]serveSample, sf.clients)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = clientLoop(runCtx, c, base, start, deadline, queries, docIDs, mrand.New(mrand.NewPCG(sf.seed, uint64(i))))
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopRun()
	<-reporterDone
	transport.CloseIdleConnections()
	if err := stop(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("the portal stopped with an error: %w", err)
	}

	var all []serveSample
	for _, r := range results {
		all = append(all, r...)
	}
	var running []interval
	if reporter != nil {
		running = reporter.intervals(start, elapsed)
	}
	return writeServeReport(stdout, all, elapsed, reporter, running)
}

// addBenchUser adds an analyst with a random password (bcrypt at the
// lowest cost: signing in is not what is measured).
func addBenchUser(ctx context.Context, db *sqlite.DB) (string, string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	name, password := "bench-"+hex.EncodeToString(b[:3]), hex.EncodeToString(b[:])
	hash, err := auth.HashPasswordCost(password, 4)
	if err != nil {
		return "", "", err
	}
	if _, err := db.CreateUser(ctx, name, auth.RoleAnalyst, hash); err != nil {
		return "", "", err
	}
	return name, password, nil
}

func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitHealthy waits until /healthz answers 200 or serve stops.
func waitHealthy(ctx context.Context, base string, served chan error, stopped *bool) error {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-served:
			*stopped = true
			if err == nil {
				err = errors.New("it stopped")
			}
			return fmt.Errorf("bench serve: the portal did not start: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("bench serve: the portal was not ready after 5 minutes")
}

var benchCSRFField = regexp.MustCompile(`name="` + views.FieldCSRF + `"\s+value="([^"]+)"`)

// formToken fetches a page and returns the CSRF token of its form.
func formToken(ctx context.Context, c *http.Client, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	m := benchCSRFField.FindSubmatch(body)
	if m == nil {
		return "", fmt.Errorf("GET %s: no %s field in the page", u, views.FieldCSRF)
	}
	return htmlUnescape(string(m[1])), nil
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&quot;", `"`).Replace(s)
}

// benchClient is a client with its own cookies, signed in as user (none
// in local mode). It does not follow redirects: the caller reads them.
func benchClient(ctx context.Context, transport http.RoundTripper, base, user, password string) (*http.Client, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Transport: transport, Jar: jar, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if user == "" {
		return c, nil
	}
	token, err := formToken(ctx, c, base+views.LoginPath)
	if err != nil {
		return nil, err
	}
	form := url.Values{views.FieldUserName: {user}, views.FieldPassword: {password}, views.FieldCSRF: {token}}
	resp, err := postForm(ctx, c, base+views.LoginPath, form)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in: %s", resp.Status)
	}
	return c, nil
}

func postForm(ctx context.Context, c *http.Client, u string, form url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// serveSample is one request of the benchmark.
type serveSample struct {
	kind    string
	start   time.Duration // since the benchmark started
	latency time.Duration
	err     string // "" when the page came back 200 and whole
}

// clientLoop requests pages one after another until the deadline; a
// request started before the deadline runs to its end.
func clientLoop(ctx context.Context, c *http.Client, base string, origin, deadline time.Time, queries []benchQuery, docIDs []string, rng *mrand.Rand) []serveSample {
	total := 0
	for _, m := range serveMix {
		total += m.weight
	}
	var out []serveSample
	for ctx.Err() == nil && time.Now().Before(deadline) {
		kind, r := serveMix[0].kind, rng.IntN(total)
		for _, m := range serveMix {
			if r < m.weight {
				kind = m.kind
				break
			}
			r -= m.weight
		}
		var path string
		switch kind {
		case kindSearch:
			path = views.SearchURL(queries[rng.IntN(len(queries))].Text, false, 1)
		case kindDocument:
			path = views.DocumentURL(docIDs[rng.IntN(len(docIDs))], nil, "")
		default:
			path = views.HomePath
		}
		start := time.Now()
		s := serveSample{kind: kind, start: start.Sub(origin)}
		s.err = fetch(ctx, c, base+path)
		s.latency = time.Since(start)
		out = append(out, s)
	}
	return out
}

// fetch gets a page and reads it whole; it returns "" or what went wrong.
func fetch(ctx context.Context, c *http.Client, u string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err.Error()
	}
	resp, err := c.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err.Error()
	}
	if resp.StatusCode != http.StatusOK {
		return resp.Status
	}
	return ""
}

// interval is a span of the benchmark, from its start.
type interval struct{ from, to time.Duration }

// reportLoop keeps one report job running: it submits a request through
// the new-report form, follows the job's event stream until the job has
// finished, and submits the next.
type reportLoop struct {
	client   *http.Client
	base     string
	requests []pipeline.Request
	// submitted receives the outcome of the first submission.
	submitted chan error

	mu   sync.Mutex
	jobs []reportRun
	err  error
}

type reportRun struct {
	id       string
	title    string
	from, to time.Time // to zero: still running when the benchmark ended
	state    string
	stage    string // the last stage its events named
}

func (l *reportLoop) run(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		req := l.requests[i%len(l.requests)]
		title := req.Title
		if i >= len(l.requests) {
			// The portal hands back the queued job for a request it has
			// already: each round needs its own.
			title = fmt.Sprintf("%s (bench round %d)", title, i/len(l.requests)+1)
		}
		from := time.Now()
		id, err := l.submit(ctx, req, title)
		if i == 0 {
			l.submitted <- err
		}
		if err != nil {
			l.fail(ctx, err)
			return
		}
		l.mu.Lock()
		l.jobs = append(l.jobs, reportRun{id: id, title: title, from: from})
		l.mu.Unlock()
		state, err := l.follow(ctx, id)
		if err != nil {
			l.fail(ctx, err)
			return
		}
		l.mu.Lock()
		l.jobs[len(l.jobs)-1].to, l.jobs[len(l.jobs)-1].state = time.Now(), state
		l.mu.Unlock()
	}
}

func (l *reportLoop) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return // the benchmark ended
	}
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

var jobPath = regexp.MustCompile(`^` + regexp.QuoteMeta(views.JobsPath) + `/(\d+)`)

func (l *reportLoop) submit(ctx context.Context, r pipeline.Request, title string) (string, error) {
	token, err := formToken(ctx, l.client, l.base+views.NewReportPath)
	if err != nil {
		return "", fmt.Errorf("new report form: %w", err)
	}
	form := url.Values{
		views.FieldTitle: {title}, views.FieldBackground: {r.Background},
		views.FieldProblemStatement: {r.ProblemStatement}, views.FieldCSRF: {token},
	}
	if r.Limit > 0 {
		form.Set(views.FieldLimit, strconv.Itoa(r.Limit))
	}
	resp, err := postForm(ctx, l.client, l.base+views.ReportsPath, form)
	if err != nil {
		return "", fmt.Errorf("submit a report: %w", err)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc == nil {
		return "", fmt.Errorf("submit a report: %s", resp.Status)
	}
	m := jobPath.FindStringSubmatch(loc.Path)
	if m == nil {
		return "", fmt.Errorf("submit a report: redirected to %s, not a job page", loc)
	}
	return m[1], nil
}

// follow reads the job's event stream (reconnecting when the server ends
// it early) until the job has finished, and returns its final state.
func (l *reportLoop) follow(ctx context.Context, id string) (string, error) {
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base+views.JobsPath+"/"+id+"/events", nil)
		if err != nil {
			return "", err
		}
		c := *l.client
		c.Timeout = 0 // a stream
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return "", fmt.Errorf("events of job %s: %s", id, resp.Status)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var st struct {
				State    string `json:"state"`
				Stage    string `json:"stage"`
				Finished bool   `json:"finished"`
			}
			if json.Unmarshal([]byte(data), &st) != nil {
				continue
			}
			l.mu.Lock()
			l.jobs[len(l.jobs)-1].state, l.jobs[len(l.jobs)-1].stage = st.State, st.Stage
			l.mu.Unlock()
			if st.Finished {
				resp.Body.Close()
				return st.State, nil
			}
		}
		resp.Body.Close()
	}
	return "", ctx.Err()
}

// intervals are the spans of the benchmark (which started at origin and
// lasted elapsed) during which a report job was running.
func (l *reportLoop) intervals(origin time.Time, elapsed time.Duration) []interval {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []interval
	for _, j := range l.jobs {
		to := elapsed
		if !j.to.IsZero() {
			to = min(elapsed, j.to.Sub(origin))
		}
		if from := max(0, j.from.Sub(origin)); from < to {
			out = append(out, interval{from, to})
		}
	}
	return out
}

func inAny(t time.Duration, spans []interval) bool {
	for _, s := range spans {
		if t >= s.from && t < s.to {
			return true
		}
	}
	return false
}

// serveStats summarises samples.
type serveStats struct {
	n, errors int
	p50, p99  time.Duration
}

func summarise(samples []serveSample) serveStats {
	st := serveStats{n: len(samples)}
	ds := make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		if s.err != "" {
			st.errors++
		}
		ds = append(ds, s.latency)
	}
	slices.Sort(ds)
	st.p50, st.p99 = percentile(ds, 0.50), percentile(ds, 0.99)
	return st
}

func writeServeReport(w io.Writer, all []serveSample, elapsed time.Duration, reporter *reportLoop, running []interval) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "requests\tkind\tcount\treq/s\tp50 ms\tp99 ms\terrors\t")
	row := func(label, kind string, samples []serveSample, secs float64) {
		st := summarise(samples)
		rate := "-"
		if secs > 0 {
			rate = fmt.Sprintf("%.1f", float64(st.n)/secs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t\n", label, kind, st.n, rate, msf(st.p50), msf(st.p99), st.errors)
	}
	byKind := func(label string, samples []serveSample, secs float64) {
		row(label, "all", samples, secs)
		for _, m := range serveMix {
			var ks []serveSample
			for _, s := range samples {
				if s.kind == m.kind {
					ks = append(ks, s)
				}
			}
			row(label, m.kind, ks, secs)
		}
	}
	byKind("all", all, elapsed.Seconds())
	if reporter != nil {
		var during, outside []serveSample
		for _, s := range all {
			if inAny(s.start, running) {
				during = append(during, s)
			} else {
				outside = append(outside, s)
			}
		}
		var busy time.Duration
		for _, iv := range running {
			busy += min(iv.to, elapsed) - iv.from
		}
		byKind("report running", during, busy.Seconds())
		// Between two jobs there are only moments without one: not worth
		// a row unless a report ended well before the benchmark did.
		if idle := elapsed - busy; idle >= time.Second {
			byKind("no report", outside, idle.Seconds())
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%.1f s; req/s = requests started in the window ÷ its length; latency = request sent to page read whole\n", elapsed.Seconds())
	errs := map[string]int{}
	for _, s := range all {
		if s.err != "" {
			errs[s.kind+": "+s.err]++
		}
	}
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i == 5 {
			fmt.Fprintf(w, "... and %d other kinds of error\n", len(keys)-5)
			break
		}
		fmt.Fprintf(w, "error ×%d: %s\n", errs[k], k)
	}
	if reporter != nil {
		reporter.mu.Lock()
		defer reporter.mu.Unlock()
		done := 0
		var total time.Duration
		for _, j := range reporter.jobs {
			if !j.to.IsZero() {
				done++
				total += j.to.Sub(j.from)
			}
		}
		line := fmt.Sprintf("report jobs (offline engine): %d submitted, %d finished", len(reporter.jobs), done)
		if done > 0 {
			line += fmt.Sprintf(", %.1f s each on average", total.Seconds()/float64(done))
		}
		var busy time.Duration
		for _, iv := range running {
			busy += iv.to - iv.from
		}
		line += fmt.Sprintf("; a report was running %.0f%% of the time", 100*math.Min(1, busy.Seconds()/elapsed.Seconds()))
		fmt.Fprintln(w, line)
		for _, j := range reporter.jobs {
			switch {
			case j.to.IsZero():
				fmt.Fprintf(w, "report job %s (%s) was %s at the end (stage %q)\n", j.id, j.title, j.state, j.stage)
			case j.state != string(pipeline.JobDone):
				fmt.Fprintf(w, "report job %s (%s) ended %s\n", j.id, j.title, j.state)
			}
		}
		if reporter.err != nil {
			fmt.Fprintf(w, "report jobs stopped: %v\n", reporter.err)
		}
	}
	return nil
}
