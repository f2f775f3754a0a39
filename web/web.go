// Package web assembles Crucible's HTTP server: middleware, every route (in
// routes.go), the one error handler that turns errors into pages, and the
// embedded static assets.
package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/handlers"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/static"
	"github.com/crucible-portal/crucible/views"
)

// DefaultMaxBodyBytes is the request body limit when Config.MaxBodyBytes is
// not set: 1 MiB.
const DefaultMaxBodyBytes = 1 << 20

// Config tunes the server.
type Config struct {
	// MaxBodyBytes is the largest request body accepted; larger bodies get
	// 413. Zero or negative means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// JobPollInterval is how often a job's event stream reads the job.
	// Zero means handlers.DefaultPollInterval (500 ms).
	JobPollInterval time.Duration
	// EventStreamLimit bounds how long one event stream stays open (the
	// browser then reconnects). Zero means handlers.DefaultStreamLimit.
	EventStreamLimit time.Duration
	// MaxGoldBytes bounds a gold nugget file uploaded on an evaluation
	// page; larger files get 413. Zero or negative means
	// handlers.DefaultMaxGoldBytes (5 MiB). The upload route is exempt from
	// MaxBodyBytes.
	MaxGoldBytes int64
	// MaxUploadBytes bounds all the files of one corpus upload, and
	// MaxUploadFileBytes one file; larger uploads get 413. Zero or
	// negative means handlers.DefaultMaxUploadBytes (200 MiB) and
	// handlers.DefaultMaxUploadFileBytes (100 MiB). The upload route is
	// exempt from MaxBodyBytes.
	MaxUploadBytes     int64
	MaxUploadFileBytes int64
	// Stop, when closed, ends the open event streams, so a graceful
	// shutdown does not wait for them: pass the serving context's Done
	// channel. Optional.
	Stop <-chan struct{}
	// Now is the clock job pages measure elapsed time with, and sessions
	// and the login rate limit run on. Nil means time.Now; tests fix it.
	Now func() time.Time

	// LocalMode allows single-user local mode: while no account exists
	// (or there is no account store), every request acts as an
	// administrator without signing in. Set it only when the portal
	// listens on a loopback address; once an account exists, signing in
	// is required even there.
	LocalMode bool
	// Secret keys the CSRF tokens: at least 32 bytes, kept across
	// restarts so forms in open pages stay valid. Nil means a random one
	// for this server's life.
	Secret []byte
	// SecureCookies marks the cookies Secure even for requests that came
	// over plain HTTP: set it when a TLS-terminating proxy fronts the
	// portal. Requests over TLS always get Secure cookies.
	SecureCookies bool
	// TrustProxy takes the client's address, which the login rate limit
	// counts failures of, from X-Forwarded-For as set by a proxy on a
	// private or loopback address. Off, the connection's address is used
	// and the header ignored, so clients cannot pick their own.
	TrustProxy bool
}

// minSecretBytes is the shortest Config.Secret accepted.
const minSecretBytes = 32

// Deps are the services the portal's pages use.
type Deps struct {
	// Searcher answers the search page. Required.
	Searcher pipeline.Searcher
	// Store reads documents, passages and collection statistics. Required.
	Store pipeline.DocumentStore
	// Marker highlights query terms on document pages (?hl=). Optional:
	// without it the parameter is ignored.
	Marker handlers.Marker
	// Logger receives request and error logs. Optional: nil discards them.
	Logger *slog.Logger
	// Version is shown in the footer; empty means "dev".
	Version string
	// Engine labels the answering engine in the footer, for example
	// "offline engine". Optional.
	Engine string

	// Jobs reads report jobs, their artefacts and reports, and Reports
	// lists the engines and queues and cancels report jobs. Optional: the
	// report pages (new report, job list and pages, reports, nugget banks,
	// exports) are served only when both are set.
	Jobs    pipeline.JobStore
	Reports pipeline.ReportService
	// ReportJobs finds the job that made a report, for the report page's
	// links to its job and nugget bank. Optional: when nil, Jobs is used
	// if it implements handlers.ReportJobFinder; failing that, report
	// pages do not link to their job and nugget banks are not found.
	ReportJobs handlers.ReportJobFinder
	// Titles looks up cited documents' titles in one call for the
	// Markdown export. Optional: when nil, Store is used if it implements
	// handlers.TitleReader (the SQLite store does); failing that, each
	// title is read through Store.Document.
	Titles handlers.TitleReader

	// Gold keeps the gold nugget sets of the reports' evaluation pages.
	// Optional: when nil, Jobs is used if it implements handlers.GoldStore
	// (the SQLite store does); failing that, reports have no evaluation
	// page. Evaluations judge citations against Store.
	Gold handlers.GoldStore
	// JudgeModel, when set, offers the model judge on evaluation pages
	// next to the offline judge; JudgeModelLabel names it. Optional.
	JudgeModel      pipeline.Model
	JudgeModelLabel string
	// JudgeModelInfo names the model judge's model and endpoint host,
	// which tell whether it wrote a report it judges
	// (pipeline.Independence). Optional.
	JudgeModelInfo pipeline.JudgeInfo

	// Scorecards keeps reports' scorecards, which ScoreJudge computes
	// (nil: the offline judge) on the report page and every export
	// carries. Optional: when nil, Jobs is used if it implements
	// pipeline.ScorecardStore (the SQLite store does); failing that,
	// reports have no scorecard. Only with the report pages.
	Scorecards pipeline.ScorecardStore
	ScoreJudge judge.Judge

	// Accounts keeps the user accounts and sessions. Optional only with
	// Config.LocalMode: without it the portal is always in local mode.
	Accounts auth.Store

	// Authoring keeps reports' versions, reviews and statuses and makes
	// the edits (*crucible.Editor). Optional: without it, and without the
	// report pages, reports are read-only and shown as generated.
	Authoring handlers.ReportAuthoring

	// Uploads receives corpus uploads from administrators and ingests
	// them in the background (*uploads.Runner). Optional: without it the
	// upload pages are not served.
	Uploads handlers.UploadService

	// Collection names the collection in exports (collection_ids).
	// Optional: without it exports list none.
	Collection func(ctx context.Context) ([]string, error)
	// TeamID is the team the TREC report formats name; empty is
	// export.DefaultTeamID.
	TeamID string

	// Citing finds the report sentences that cite a document, which its
	// page lists under "Cited in" with links to them. Optional: when nil,
	// Jobs is used if it implements handlers.CitingReader (the SQLite
	// store does); failing that, document pages list none. Only with the
	// report pages.
	Citing handlers.CitingReader

	// Metrics, when set, records every request (its route template,
	// status and time) and serves the operations metrics at MetricsPath
	// to administrators (docs/operations.md). Optional.
	Metrics Metrics

	// Rankers keeps the trained nugget rankers (docs/ranking.md).
	// Optional: when nil, Jobs is used if it implements
	// handlers.RankerStore (the SQLite store does); failing that, the
	// rankers page is not served.
	Rankers handlers.RankerStore
}

// New builds the portal's HTTP handler. It returns an error naming the
// missing dependency when Searcher or Store is nil, or Accounts is nil
// outside local mode, and one about Config.Secret when it is too short.
func New(cfg Config, deps Deps) (*echo.Echo, error) {
	var missing []error
	if deps.Searcher == nil {
		missing = append(missing, errors.New("web: Deps.Searcher is nil"))
	}
	if deps.Store == nil {
		missing = append(missing, errors.New("web: Deps.Store is nil"))
	}
	if deps.Accounts == nil && !cfg.LocalMode {
		missing = append(missing, errors.New("web: Deps.Accounts is nil and Config.LocalMode is off: "+
			"a portal that is not in local mode needs accounts"))
	}
	if n := len(cfg.Secret); n > 0 && n < minSecretBytes {
		missing = append(missing, fmt.Errorf("web: Config.Secret is %d bytes; it needs at least %d", n, minSecretBytes))
	}
	if len(missing) > 0 {
		return nil, errors.Join(missing...)
	}
	secret := cfg.Secret
	if len(secret) == 0 {
		secret = make([]byte, minSecretBytes)
		// crypto/rand.Read never fails (Go 1.24+).
		_, _ = rand.Read(secret)
	}
	ac := &access{accounts: deps.Accounts, local: cfg.LocalMode, secret: secret, secureCookies: cfg.SecureCookies}
	if ac.logger = deps.Logger; ac.logger == nil {
		ac.logger = slog.New(slog.DiscardHandler)
	}
	if deps.Accounts != nil {
		ac.svc = auth.NewService(deps.Accounts, cfg.Now)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	logger := deps.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	version := deps.Version
	if version == "" {
		version = "dev"
	}
	reportsEnabled := deps.Jobs != nil && deps.Reports != nil
	gold := deps.Gold
	if gold == nil && reportsEnabled {
		gold, _ = deps.Jobs.(handlers.GoldStore)
	}
	evaluationsEnabled := reportsEnabled && gold != nil
	rankers := deps.Rankers
	if rankers == nil && reportsEnabled {
		rankers, _ = deps.Jobs.(handlers.RankerStore)
	}
	site := views.Site{
		Version:       version,
		Engine:        deps.Engine,
		StylesheetURL: assetURL("style.css"),
		IconURL:       assetURL("favicon.svg"),
		Reports:       reportsEnabled,
		Evaluations:   evaluationsEnabled,
		Uploads:       deps.Uploads != nil,
		Rankers:       rankers != nil,
	}

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(logger, site)
	if cfg.TrustProxy {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	} else {
		e.IPExtractor = echo.ExtractIPDirect()
	}

	if deps.Metrics != nil {
		// Outermost, to time the whole chain and see the status sent.
		e.Use(observeRequests(deps.Metrics))
	}
	e.Use(middlewareChain(cfg.MaxBodyBytes, logger, hasOwnBodyLimit)...)
	// Access control runs after the body limit, so reading a form for its
	// CSRF token is bounded too.
	e.Use(ac.identify, ac.requireLogin, ac.checkCSRF)

	rh := routeHandlers{
		home:      &handlers.Home{Site: site, Stats: deps.Store},
		search:    &handlers.Search{Site: site, Searcher: deps.Searcher},
		documents: &handlers.Documents{Site: site, Store: deps.Store, Marker: deps.Marker},
		health:    &handlers.Health{Stats: deps.Store, Logger: logger, Details: seesHealthDetails},
		static:    staticHandler(),
		login:     &handlers.Login{Site: site, Sessions: ac},
		loginPage: ac.issueLoginCookie,
	}
	if reportsEnabled {
		finder := deps.ReportJobs
		if finder == nil {
			finder, _ = deps.Jobs.(handlers.ReportJobFinder)
		}
		titles := deps.Titles
		if titles == nil {
			titles, _ = deps.Store.(handlers.TitleReader)
		}
		rh.reports = &handlers.Reports{
			Site:       site,
			Service:    deps.Reports,
			Store:      deps.Jobs,
			Documents:  deps.Store,
			Jobs:       finder,
			Titles:     titles,
			Authoring:  deps.Authoring,
			PrintCSS:   printCSS(),
			Collection: deps.Collection,
			TeamID:     deps.TeamID,
			PastJobs:   deps.Jobs,
			ScriptURL:  assetURL("report.js"),
		}
		rh.reports.Rankers, _ = deps.Jobs.(handlers.RankerReader)
		scorecards := deps.Scorecards
		if scorecards == nil {
			scorecards, _ = deps.Jobs.(pipeline.ScorecardStore)
		}
		if scorecards != nil {
			rh.reports.Scorecards = &handlers.Scorecards{Store: scorecards, Judge: deps.ScoreJudge, Now: cfg.Now}
			// Scorecards count the nuggets of the gold sets when the
			// portal keeps them.
			rh.reports.Gold = gold
		}
		citing := deps.Citing
		if citing == nil {
			citing, _ = deps.Jobs.(handlers.CitingReader)
		}
		rh.documents.Citing = citing
		if deps.Authoring != nil {
			rh.documents.Reports = rh.reports
			rh.documents.CiteScriptURL = assetURL("cite.js")
		}
		if finder != nil {
			reranks, _ := deps.Jobs.(handlers.RerankReader)
			authors, _ := deps.Store.(pipeline.AuthorLister)
			rh.retrieval = &handlers.Retrieval{Site: site, Reports: deps.Jobs, Jobs: finder, Reranks: reranks, Authors: authors}
		}
		rh.jobs = &handlers.Jobs{
			Site:         site,
			Store:        deps.Jobs,
			Control:      deps.Reports,
			ScriptURL:    assetURL("job.js"),
			PollInterval: cfg.JobPollInterval,
			StreamLimit:  cfg.EventStreamLimit,
			Stop:         cfg.Stop,
			Now:          cfg.Now,
		}
		if st, ok := deps.Authoring.(interface {
			Status(ctx context.Context, reportID int64) (pipeline.StatusRecord, error)
		}); ok {
			rh.jobs.Statuses = st
		}
		if n, ok := deps.Jobs.(interface {
			ReportProblems(ctx context.Context, reportID int64) ([]string, error)
		}); ok {
			rh.jobs.Notes = n
		}
		if del, ok := deps.Jobs.(handlers.JobDeleter); ok {
			rh.deletions = &handlers.Deletions{Site: site, Jobs: deps.Jobs, Deleter: del, Reports: deps.Jobs}
			rh.deletions.Authoring, _ = deps.Authoring.(interface {
				Reviews(ctx context.Context, reportID int64) (map[string]pipeline.Review, error)
				ReportVersions(ctx context.Context, reportID int64) ([]pipeline.VersionInfo, error)
			})
		}
	}
	if evaluationsEnabled {
		// The compare page judges both reports against a chosen gold set.
		rh.reports.Gold = gold
		rh.evaluations = &handlers.Evaluations{
			Site:         site,
			Reports:      deps.Jobs,
			Gold:         gold,
			Source:       deps.Store,
			Model:        deps.JudgeModel,
			ModelLabel:   deps.JudgeModelLabel,
			ModelInfo:    deps.JudgeModelInfo,
			MaxGoldBytes: cfg.MaxGoldBytes,
			Authoring:    deps.Authoring,
		}
	}
	if deps.Uploads != nil {
		rh.uploads = &handlers.Uploads{
			Site:         site,
			Service:      deps.Uploads,
			MaxBytes:     cfg.MaxUploadBytes,
			MaxFileBytes: cfg.MaxUploadFileBytes,
			Logger:       logger,
		}
	}
	if rankers != nil {
		rh.rankers = &handlers.Rankers{Site: site, Store: rankers}
	}
	if deps.Metrics != nil {
		rh.metrics = echo.WrapHandler(deps.Metrics.Handler())
	}
	registerRoutes(e, rh)
	return e, nil
}

// assetURL is the URL of an embedded asset, versioned by its content hash so
// it can be cached for long.
func assetURL(name string) string {
	u := staticPrefix + name
	if h := static.Hash(name); h != "" {
		u += fmt.Sprintf("?v=%s", h)
	}
	return u
}
