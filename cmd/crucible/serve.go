package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/metrics"
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/pipeline/uploads"
	"github.com/crucible-portal/crucible/web"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("%w: log level %q: want debug, info, warn or error", errUsage, level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func cmdServe(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	var c commonFlags
	c.register(fs, env)
	addr := fs.String("addr", env.get("CRUCIBLE_ADDR", "127.0.0.1:8080"), "listen `address` (env CRUCIBLE_ADDR)")
	seed := fs.String("ingest-if-empty", "", "ingest this `path` first when the collection is empty (make run uses the demo corpus)")
	level := fs.String("log-level", env.get("CRUCIBLE_LOG_LEVEL", "info"), "log level: debug, info, warn, error")
	maxBody := fs.Int64("max-body-bytes", web.DefaultMaxBodyBytes, "largest request body accepted")
	workers := fs.Int("workers", 1, "report jobs run at once")
	teamID := fs.String("team-id", env.get("CRUCIBLE_TEAM_ID", export.DefaultTeamID), "team id the TREC report exports name (env CRUCIBLE_TEAM_ID)")
	collection := fs.String("collection", env.get("CRUCIBLE_COLLECTION", ""), "collection id(s), comma-separated, for exports' collection_ids (env CRUCIBLE_COLLECTION); default: the names of the files the documents came from")
	uploadFileContent := fs.Int64("max-file-content-bytes", uploads.DefaultMaxFileContentBytes,
		"stop reading an uploaded JSON Lines file after this much content (decompressed)")
	uploadContent := fs.Int64("max-upload-content-bytes", uploads.DefaultMaxContentBytes,
		"stop reading an upload after this much content of all its files (decompressed)")
	uploadPassages := fs.Int("max-passages-per-doc", uploads.DefaultMaxPassages,
		"refuse an uploaded document that segments into more passages than this; 0: no limit")
	secureCookies := fs.Bool("secure-cookies", envBool(env, "CRUCIBLE_SECURE_COOKIES"),
		"mark cookies Secure although requests arrive over plain HTTP: set behind a TLS proxy (env CRUCIBLE_SECURE_COOKIES)")
	trustProxy := fs.Bool("trust-proxy", envBool(env, "CRUCIBLE_TRUST_PROXY"),
		"take client addresses for the login rate limit from X-Forwarded-For set by a proxy on a private address (env CRUCIBLE_TRUST_PROXY)")
	metricsAddr := fs.String("metrics-addr", env.get("CRUCIBLE_METRICS_ADDR", ""),
		"also serve the Prometheus metrics at http://`HOST:PORT`/metrics without sign-in, on a loopback address (env CRUCIBLE_METRICS_ADDR); the portal's address serves them to admins only")
	metricsPublic := fs.Bool("metrics-public", envBool(env, "CRUCIBLE_METRICS_PUBLIC"),
		"allow --metrics-addr on an address that is not loopback: only where a firewall or proxy keeps strangers from it (env CRUCIBLE_METRICS_PUBLIC)")
	var mf modelFlags
	mf.register(fs, env)
	var cf capFlags
	cf.register(fs, env, "CRUCIBLE_", "every report job")
	var jf judgeFlags
	jf.register(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	limits, err := cf.caps()
	if err != nil {
		return err
	}
	logger, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	if *metricsAddr != "" {
		if err := metricsAccess(*metricsAddr, *metricsPublic); err != nil {
			return err
		}
	}
	a, err := openApp(ctx, c)
	if err != nil {
		return err
	}
	defer a.Close()

	// Decide on access before any slow work, so a portal that must not
	// start fails at once.
	users, admins, err := accessCounts(ctx, a.db)
	if err != nil {
		return err
	}
	localMode, err := serveAccess(*addr, c.data, users, admins)
	if err != nil {
		return err
	}
	secret, err := csrfSecret(ctx, a.db)
	if err != nil {
		return err
	}

	// Listen at once: while the demo corpus is ingested or an index out
	// of step is rebuilt, every request gets a 503 saying so (web.Starting)
	// and /healthz says "starting"; the portal takes over when ready.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	if localMode && !listenerIsLoopback(ln) {
		ln.Close()
		return fmt.Errorf("%s resolved to %s, which is not a loopback address: serve on 127.0.0.1 for local mode", *addr, ln.Addr())
	}
	starting := &web.Starting{}
	handler := web.NewSwitch(starting)
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// The metrics are kept from the start, so a scrape during a long
	// preparation already sees the process and the collection.
	met := metrics.New(metrics.Options{Version: version, JobCounts: a.db.JobCounts, Stats: a.db.Stats, IndexDir: indexPath(c.data)})
	var metricsSrv *http.Server
	var metricsLn net.Listener
	if *metricsAddr != "" {
		if metricsLn, err = listenMetrics(*metricsAddr, *metricsPublic); err != nil {
			ln.Close()
			return err
		}
		metricsSrv = &http.Server{
			Handler:           web.NewMetricsHandler(met),
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if metricsSrv != nil {
		go func() {
			if err := metricsSrv.Serve(metricsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics listener: %w", err)
			}
		}()
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		logger.Info("shutting down")
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if metricsSrv != nil {
			if err := metricsSrv.Shutdown(shutdownCtx); err != nil {
				return fmt.Errorf("shutdown the metrics listener: %w", err)
			}
		}
		if err := srv.Shutdown(shutdownCtx); err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
	defer stop()
	url := "http://" + ln.Addr().String()
	if strings.HasPrefix(ln.Addr().String(), "[::]") || strings.HasPrefix(ln.Addr().String(), "0.0.0.0") {
		url = "http://" + *addr
	}
	fmt.Fprintf(stdout, "Crucible is serving %s on %s (Ctrl-C to stop)\n", c.data, url)
	if metricsLn != nil {
		fmt.Fprintf(stdout, "Prometheus metrics without sign-in at http://%s%s\n", metricsLn.Addr(), web.MetricsPath)
	}
	if localMode && users == 0 {
		fmt.Fprintf(stdout, "Single-user local mode: no accounts exist, so there is no sign-in. "+
			"Add accounts with: crucible user add --data %s --role admin NAME\n", c.data)
	}
	// stopping is what serve returns when preparing fails: nothing, when it
	// failed because serve was asked to stop.
	stopping := func(err error) error {
		if ctx.Err() != nil {
			return stop()
		}
		return err
	}

	st, err := a.db.Stats(ctx)
	if err != nil {
		return err
	}
	if st.Documents == 0 && *seed != "" {
		logger.Info("collection is empty: ingesting", "path", *seed)
		starting.Set("ingesting "+filepath.Base(*seed), 0, 0)
		res, err := ingest(ctx, a, []string{*seed}, ingestOptions{MaxPassages: defaultMaxPassages}, stderr)
		if err != nil {
			met.Ingested("seed", "failed", pipeline.IngestCounts{})
			return stopping(err)
		}
		met.Ingested("seed", "done", pipeline.IngestCounts{Added: res.stats.Inserted, Replaced: res.stats.Replaced,
			Unchanged: res.stats.Unchanged, Skipped: res.walk.Skipped, Passages: res.stats.Passages})
		logger.Info(res.summaryLine())
	}
	err = a.syncIndex(ctx, func(msg string) { logger.Warn(msg) }, func(done, total int) {
		starting.Set("rebuilding the index", int64(done), int64(total))
	})
	if err != nil {
		return stopping(err)
	}

	engines, err := a.engines(mf, logger)
	if err != nil {
		return err
	}
	observeEngines(engines, met)
	runner := &jobs.Runner{Store: a.db, Available: engines, Rerankers: rerank.Methods(), Workers: *workers, Logger: logger,
		Observer: met, Limits: limits}
	runCtx, stopRunner := context.WithCancel(context.WithoutCancel(ctx))
	runnerDone := make(chan error, 1)
	go func() { runnerDone <- runner.Run(runCtx) }()
	defer func() {
		// Jobs still running are left for the next start to resume.
		stopRunner()
		<-runnerDone
	}()
	// Corpus uploads from the portal go into the store and index it
	// searches; their files wait in DATA/uploads until ingested.
	uploadRunner := &uploads.Runner{Store: a.db, Documents: a.db, Index: a.index, Segment: index.Segment,
		Dir: filepath.Join(c.data, "uploads"), Logger: logger,
		Options: corpus.Options{MaxFileBytes: *uploadFileContent, MaxTotalBytes: *uploadContent}, MaxPassages: *uploadPassages,
		Observer: met}
	uploadsDone := make(chan struct{})
	go func() {
		defer close(uploadsDone)
		if err := uploadRunner.Run(runCtx); err != nil {
			logger.Error("corpus uploads are not ingested", "err", err)
		}
	}()
	defer func() {
		// An upload still being read resumes at the next start.
		stopRunner()
		<-uploadsDone
	}()

	// The portal's judge: a judge model apart from the generator
	// (--judge-model-url) judges scorecards and is the evaluation pages'
	// model judge; without one, scorecards take the offline judge and
	// evaluation pages offer the generator's model, whose scores of its
	// own reports they label self-judged.
	judgeClient, err := jf.client(mf, logger)
	if err != nil {
		return err
	}
	var judgeModel pipeline.Model
	var judgeLabel string
	var judgeInfo pipeline.JudgeInfo
	var scoreJudge judge.Judge = judge.Offline{}
	if judgeClient != nil {
		mj := modelJudge(judgeClient, a.db)
		judgeModel, judgeLabel, judgeInfo, scoreJudge = mj.Model, mj.Label, judge.Info(mj), mj
		logger.Info("judge model", "model", mj.ModelName, "endpoint_host", mj.Host)
	} else if e := engines[0]; !e.Info.Offline {
		// The engine's label is its model's name (llm.OpenAI.Name).
		judgeModel, judgeLabel = e.Pipeline.Model, e.Info.Label
		judgeInfo = pipeline.JudgeInfo{Name: "model judge: " + judgeLabel, Model: judgeLabel}
	}
	e, err := web.New(web.Config{
		MaxBodyBytes:  *maxBody,
		Stop:          ctx.Done(),
		LocalMode:     localMode,
		Secret:        secret,
		SecureCookies: *secureCookies,
		TrustProxy:    *trustProxy,
	}, web.Deps{
		Searcher:        met.Searcher(a.searcher(), metrics.SourcePortal),
		Store:           a.db,
		Marker:          a.index,
		Jobs:            a.db,
		Reports:         runner,
		Gold:            a.db,
		Logger:          logger,
		Version:         version,
		Engine:          engines[0].Info.Label,
		JudgeModel:      judgeModel,
		JudgeModelLabel: judgeLabel,
		JudgeModelInfo:  judgeInfo,
		ScoreJudge:      scoreJudge,
		Accounts:        a.db,
		Uploads:         uploadRunner,
		Authoring:       editor(a, engines),
		Collection:      collectionNamer(a, *collection),
		TeamID:          *teamID,
		Metrics:         met,
	})
	if err != nil {
		return err
	}
	handler.Set(e)
	logger.Info("serving", "addr", ln.Addr().String(), "data", c.data, "bm25_k1", a.opts.K1, "bm25_b", a.opts.B,
		"local_mode", localMode && users == 0, "accounts", users)

	select {
	case err := <-errc:
		stopped = true
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	if err := stop(); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// observeEngines has the engines report to m: every model call through
// their caches, by engine id, and the searches of their retrieval.
func observeEngines(engines []jobs.Engine, m *metrics.Metrics) {
	for _, e := range engines {
		if c, ok := e.Pipeline.Model.(llm.Cached); ok {
			c.Observer, c.Engine = m, e.Info.ID
			e.Pipeline.Model = c
		}
		e.Pipeline.Searcher = m.Searcher(e.Pipeline.Searcher, metrics.SourceReport)
	}
}

// metricsAccess checks the --metrics-addr address: HOST:PORT, and a
// loopback host unless public allows any. The metrics listener has no
// sign-in, and the metrics tell whoever reads them what the portal is
// used for (request routes, report jobs, model calls, the collection's
// size), so it is kept off addresses others can reach unless the
// operator says a firewall or proxy guards it.
func metricsAccess(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: --metrics-addr %q: want HOST:PORT, such as 127.0.0.1:9090: %v", errUsage, addr, err)
	}
	if public || loopbackHost(host) {
		return nil
	}
	return fmt.Errorf("refusing to serve metrics on %s: it is not a loopback address, and the metrics listener has no sign-in, "+
		"so anyone who can reach it would read what the portal does (request routes, report jobs, model calls, the collection's size). "+
		"Serve them on 127.0.0.1 (a Prometheus on another machine can scrape through a tunnel or a proxy), read them at /metrics "+
		"on the portal's address as an admin, or pass --metrics-public if a firewall or proxy keeps strangers from %s", addr, addr)
}

// listenMetrics listens for the metrics listener and, unless public,
// checks that the address bound is loopback (a host name may resolve
// elsewhere).
func listenMetrics(addr string, public bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics on %s: %w", addr, err)
	}
	if !public && !listenerIsLoopback(ln) {
		ln.Close()
		return nil, fmt.Errorf("refusing to serve metrics on %s: it resolved to %s, which is not a loopback address; "+
			"serve them on 127.0.0.1, or pass --metrics-public if a firewall or proxy keeps strangers from it", addr, ln.Addr())
	}
	return ln, nil
}

// editor is the portal's report authoring: versions, reviews and statuses
// in the database, verification and regeneration through the engine that
// made each report (the first engine when that one is not configured).
func editor(a *app, engines []jobs.Engine) *crucible.Editor {
	return &crucible.Editor{
		Versions: a.db, Jobs: a.db, ReportJobs: a.db, Documents: a.db,
		Engine: func(id string) (*crucible.Engine, error) {
			for _, e := range engines {
				if e.Info.ID == id {
					return e.Pipeline, nil
				}
			}
			return engines[0].Pipeline, nil
		},
	}
}

// maxCollectionFiles bounds the source files that name a collection.
const maxCollectionFiles = 20

// collectionNamer names the collection in exports: the ids given
// (comma-separated), else the names of the files its documents came from
// (export.CollectionIDs), read at each export so uploads count.
func collectionNamer(a *app, given string) func(ctx context.Context) ([]string, error) {
	var fixed []string
	for _, id := range strings.Split(given, ",") {
		if id = strings.TrimSpace(id); id != "" {
			fixed = append(fixed, id)
		}
	}
	if len(fixed) > 0 {
		return func(context.Context) ([]string, error) { return fixed, nil }
	}
	return func(ctx context.Context) ([]string, error) {
		files, err := a.db.SourceFiles(ctx, maxCollectionFiles)
		if err != nil {
			return nil, err
		}
		return export.CollectionIDs(files), nil
	}
}
