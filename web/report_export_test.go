package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// wantDownload checks a response is a download of the content type and
// returns the file name its Content-Disposition gives.
func wantDownload(t *testing.T, rec *httptest.ResponseRecorder, contentType string) string {
	t.Helper()
	if got := rec.Header().Get("Content-Type"); got != contentType {
		t.Errorf("Content-Type = %q, want %q", got, contentType)
	}
	raw := rec.Header().Get("Content-Disposition")
	kind, params, err := mime.ParseMediaType(raw)
	if err != nil {
		t.Fatalf("Content-Disposition %q does not parse: %v", raw, err)
	}
	if kind != "attachment" {
		t.Errorf("Content-Disposition %q is not an attachment", raw)
	}
	return params["filename"]
}

// neuclirReport is the wire form of the NeuCLIR export the tests read.
type neuclirReport struct {
	RequestID     string   `json:"request_id"`
	RunID         string   `json:"run_id"`
	CollectionIDs []string `json:"collection_ids"`
	Sentences     []struct {
		Text      string   `json:"text"`
		Citations []string `json:"citations"`
		Crucible  struct {
			PassageID string `json:"passage_id"`
			Start     int    `json:"start"`
			End       int    `json:"end"`
			NuggetID  string `json:"nugget_id"`
		} `json:"crucible"`
	} `json:"sentences"`
	Crucible struct {
		Engine  string `json:"engine"`
		Offline bool   `json:"offline"`
		Title   string `json:"title"`
	} `json:"crucible"`
}

func TestReportExportJSON(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Request.ID = "r-42"
	withReport(s, rep)
	rec := s.get(t, views.ReportExportJSONURL(9))
	wantStatus(t, rec, http.StatusOK)
	if name := wantDownload(t, rec, "application/json"); name != "r-42.json" {
		t.Errorf("file name = %q, want r-42.json", name)
	}
	var got neuclirReport
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, rec.Body.String())
	}
	if got.CollectionIDs == nil || len(got.CollectionIDs) != 0 {
		t.Errorf("collection_ids = %#v, want an empty list", got.CollectionIDs)
	}
	type sentence struct {
		Text, PassageID, NuggetID string
		Citations                 []string
		Start, End                int
	}
	var sentences []sentence
	for _, s := range got.Sentences {
		sentences = append(sentences, sentence{Text: s.Text, Citations: s.Citations, PassageID: s.Crucible.PassageID,
			Start: s.Crucible.Start, End: s.Crucible.End, NuggetID: s.Crucible.NuggetID})
	}
	want := []sentence{
		{Text: "The economy is growing.", Citations: []string{sotu}, PassageID: sotu + "#0", Start: 21, End: 39, NuggetID: "n1"},
		{Text: "Denmark paid feed-in tariffs for wind power.", Citations: []string{"news/wind"}, PassageID: "news/wind#0", Start: 0, End: 29, NuggetID: "n2"},
		{Text: "The union is sound.", Citations: []string{sotu}, PassageID: sotu + "#1", Start: 54, End: 72, NuggetID: "n3"},
		{Text: "The Union is strong.", Citations: []string{sotu}, PassageID: sotu + "#0", Start: 0, End: 20, NuggetID: "n9"},
	}
	if diff := cmp.Diff(want, sentences); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
	head := map[string]any{
		"request_id": got.RequestID, "run_id": got.RunID,
		"engine": got.Crucible.Engine, "offline": got.Crucible.Offline, "title": got.Crucible.Title,
	}
	wantHead := map[string]any{
		"request_id": "r-42", "run_id": "crucible-offline-engine",
		"engine": "offline engine", "offline": true, "title": "State of the economy",
	}
	if diff := cmp.Diff(wantHead, head); diff != "" {
		t.Errorf("report fields (-want +got):\n%s", diff)
	}
}

// A report whose request has no id is exported under its generated one,
// and the collection is named as the portal names it; a failure to name
// it is an error, not an empty list.
func TestReportExportJSONNamesRequestAndCollection(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{}, func(d *reportDeps) {
		d.collection = func(context.Context) ([]string, error) { return []string{"sotu"}, nil }
	})
	rep := sampleReport()
	rep.Request.ID = ""
	withReport(s, rep)
	rec := s.get(t, views.ReportExportJSONURL(9))
	wantStatus(t, rec, http.StatusOK)
	var got neuclirReport
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.RequestID != rep.Request.GeneratedID() || !strings.HasPrefix(got.RequestID, "req-") {
		t.Errorf("request_id %q, want the generated %q", got.RequestID, rep.Request.GeneratedID())
	}
	if !cmp.Equal(got.CollectionIDs, []string{"sotu"}) {
		t.Errorf("collection_ids %v, want [sotu]", got.CollectionIDs)
	}

	s = newReportServer(t, reportStore(), web.Config{}, func(d *reportDeps) {
		d.collection = func(context.Context) ([]string, error) { return nil, errors.New("database is locked") }
	})
	withReport(s, rep)
	wantStatus(t, s.get(t, views.ReportExportJSONURL(9)), http.StatusInternalServerError)
}

func TestReportExportFileNames(t *testing.T) {
	tests := []struct {
		name      string
		requestID string
		// wantBase is the file name without its extension; wantHeader the
		// Content-Disposition of the JSON export.
		wantBase   string
		wantHeader string
	}{
		{name: "plain", requestID: "r-42", wantBase: "r-42", wantHeader: `attachment; filename=r-42.json`},
		{name: "no request id", requestID: "", wantBase: "report-9", wantHeader: `attachment; filename=report-9.json`},
		{name: "quotes", requestID: `say "hi"`, wantBase: `say "hi"`, wantHeader: `attachment; filename="say \"hi\".json"`},
		{name: "slashes", requestID: `../etc/a\b`, wantBase: `.._etc_a_b`, wantHeader: `attachment; filename=.._etc_a_b.json`},
		{name: "unicode", requestID: "über bericht", wantBase: "über bericht",
			wantHeader: `attachment; filename*=utf-8''%C3%BCber%20bericht.json`},
		{name: "header injection", requestID: "x\r\nSet-Cookie: a=b", wantBase: "x__Set-Cookie_ a=b",
			wantHeader: `attachment; filename="x__Set-Cookie_ a=b.json"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, reportStore(), web.Config{})
			rep := sampleReport()
			rep.Request.ID = tt.requestID
			withReport(s, rep)

			rec := s.get(t, views.ReportExportJSONURL(9))
			wantStatus(t, rec, http.StatusOK)
			if got := wantDownload(t, rec, "application/json"); got != tt.wantBase+".json" {
				t.Errorf("JSON file name = %q, want %q", got, tt.wantBase+".json")
			}
			if got := rec.Header().Get("Content-Disposition"); got != tt.wantHeader {
				t.Errorf("JSON Content-Disposition = %q, want %q", got, tt.wantHeader)
			}
			if got := rec.Header().Values("Set-Cookie"); len(got) != 0 {
				t.Errorf("the file name set cookies: %q", got)
			}

			rec = s.get(t, views.ReportExportMarkdownURL(9))
			wantStatus(t, rec, http.StatusOK)
			if got := wantDownload(t, rec, "text/markdown; charset=utf-8"); got != tt.wantBase+".md" {
				t.Errorf("Markdown file name = %q, want %q", got, tt.wantBase+".md")
			}
		})
	}
}

func TestReportExportMarkdown(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	rec := s.get(t, views.ReportExportMarkdownURL(9))
	wantStatus(t, rec, http.StatusOK)
	if name := wantDownload(t, rec, "text/markdown; charset=utf-8"); name != "report-9.md" {
		t.Errorf("file name = %q, want report-9.md", name)
	}
	lines := strings.Split(rec.Body.String(), "\n")
	for _, want := range []string{
		"# State of the economy",
		"The economy is growing. [1] Denmark paid feed-in tariffs for wind power. [2] The union is sound. [3] The Union is strong. [1]",
		"## References",
		"1. Address Before a Joint Session (`sotu/2021 biden`, passage 0)",
		"2. Wind subsidies in Denmark (`news/wind`, passage 0)",
		"3. Address Before a Joint Session (`sotu/2021 biden`, passage 1)",
	} {
		if !containsLine(lines, want) {
			t.Errorf("Markdown has no line %q:\n%s", want, rec.Body.String())
		}
	}
	if !strings.Contains(lines[2], "offline engine") {
		t.Errorf("Markdown does not say the offline engine made it: %q", lines[2])
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// titledStore is a document store that also looks titles up in bulk, as
// the SQLite store does, prefixing them so a test can tell which lookup
// answered.
type titledStore struct {
	*fakeStore
	prefix string
	err    error
	calls  [][]string
}

func (s *titledStore) Titles(_ context.Context, ids []string) (map[string]string, error) {
	s.calls = append(s.calls, append([]string(nil), ids...))
	if s.err != nil {
		return nil, s.err
	}
	out := map[string]string{}
	for _, id := range ids {
		if d, ok := s.docs[id]; ok {
			out[id] = s.prefix + d.Title
		}
	}
	return out, nil
}

func TestReportExportMarkdownTitleLookup(t *testing.T) {
	bulk := &titledStore{fakeStore: reportStore(), prefix: "Bulk: "}
	explicit := &titledStore{fakeStore: reportStore(), prefix: "Explicit: "}
	tests := []struct {
		name string
		opt  func(*reportDeps)
		// wantRefs are the reference lines; wantCalls the bulk lookups
		// the store that should answer saw.
		wantRefs  []string
		lookups   *titledStore
		wantCalls [][]string
	}{
		{
			name: "one document at a time through the store",
			wantRefs: []string{
				"1. Address Before a Joint Session (`sotu/2021 biden`, passage 0)",
				"2. deleted/doc (`deleted/doc`, passage 0)",
			},
		},
		{
			name: "the store looks titles up in bulk",
			opt:  func(d *reportDeps) { d.store = bulk },
			wantRefs: []string{
				"1. Bulk: Address Before a Joint Session (`sotu/2021 biden`, passage 0)",
				"2. deleted/doc (`deleted/doc`, passage 0)",
			},
			lookups: bulk, wantCalls: [][]string{{"deleted/doc", sotu}},
		},
		{
			name: "Deps.Titles comes first",
			opt:  func(d *reportDeps) { d.store = bulk; d.titles = explicit },
			wantRefs: []string{
				"1. Explicit: Address Before a Joint Session (`sotu/2021 biden`, passage 0)",
				"2. deleted/doc (`deleted/doc`, passage 0)",
			},
			lookups: explicit, wantCalls: [][]string{{"deleted/doc", sotu}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bulk.calls, explicit.calls = nil, nil
			var opts []func(*reportDeps)
			if tt.opt != nil {
				opts = append(opts, tt.opt)
			}
			s := newReportServer(t, reportStore(), web.Config{}, opts...)
			rep := sampleReport()
			// A document no longer stored has no title: its reference
			// shows its id.
			rep.Sentences = []pipeline.Sentence{
				rep.Sentences[0],
				{Text: "Gone.", Citation: pipeline.Citation{DocID: "deleted/doc", Start: 0, End: 4}, NuggetID: "n1"},
			}
			withReport(s, rep)
			rec := s.get(t, views.ReportExportMarkdownURL(9))
			wantStatus(t, rec, http.StatusOK)
			body := rec.Body.String()
			var refs []string
			for _, l := range strings.Split(body, "\n") {
				if len(l) > 2 && l[0] >= '1' && l[0] <= '9' && l[1] == '.' {
					refs = append(refs, l)
				}
			}
			if diff := cmp.Diff(tt.wantRefs, refs); diff != "" {
				t.Errorf("references (-want +got):\n%s", diff)
			}
			if tt.lookups != nil {
				if diff := cmp.Diff(tt.wantCalls, tt.lookups.calls); diff != "" {
					t.Errorf("bulk title lookups (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestReportExportMarkdownTitleLookupFails(t *testing.T) {
	failing := &titledStore{fakeStore: reportStore(), err: fmt.Errorf("select titles: %w", errSecret)}
	s := newReportServer(t, reportStore(), web.Config{}, func(d *reportDeps) { d.store = failing })
	withReport(s, sampleReport())
	rec := s.get(t, views.ReportExportMarkdownURL(9))
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
	if got := rec.Header().Get("Content-Disposition"); got != "" {
		t.Errorf("a failed export is still a download: Content-Disposition %q", got)
	}
}

// evidenceItem is what the printable page's appendix says of one
// reference.
type evidenceItem struct {
	Number, Title, Href, DocID string
	Notes, Quotes, Bytes       []string
}

// readEvidence reads the printable page's appendix.
func readEvidence(doc *goquery.Document) []evidenceItem {
	var out []evidenceItem
	byTestID(doc, "evidence-item").Each(func(_ int, li *goquery.Selection) {
		field := func(id string) string {
			return strings.Join(strings.Fields(li.Find(`[data-testid="`+id+`"]`).Text()), " ")
		}
		all := func(ids ...string) []string {
			var sel []string
			for _, id := range ids {
				sel = append(sel, `[data-testid="`+id+`"]`)
			}
			return li.Find(strings.Join(sel, ", ")).Map(func(_ int, q *goquery.Selection) string {
				return strings.Join(strings.Fields(q.Text()), " ")
			})
		}
		href, _ := li.Find(`[data-testid="evidence-title"]`).Attr("href")
		item := evidenceItem{
			Number: field("evidence-number"), Title: field("evidence-title"), Href: href, DocID: field("evidence-doc-id"),
			Notes:  all("evidence-missing", "evidence-changed", "evidence-outside"),
			Quotes: all("evidence-quote"), Bytes: all("evidence-bytes"),
		}
		if id, _ := li.Attr("id"); id != views.ReferenceAnchor(len(out)+1) {
			item.Number += " (anchor " + id + ")"
		}
		out = append(out, item)
	})
	return out
}

func TestReportPrintPage(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Request.ID = "r-42"
	withReport(s, rep)
	rec := s.get(t, views.ReportPrintURL(9))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	got := map[string]string{
		"title":    textOf(doc, "print-title"),
		"engine":   textOf(doc, "print-engine"),
		"offline":  byTestID(doc, "print-engine").AttrOr("class", ""),
		"notice":   textOf(doc, "print-offline-notice"),
		"run id":   textOf(doc, "print-run-id"),
		"problem":  textOf(doc, "request-problem"),
		"request":  textOf(doc, "request-id"),
		"limit":    textOf(doc, "request-limit"),
		"body":     textOf(doc, "print-body"),
		"back":     byTestID(doc, "print-report-link").AttrOr("href", ""),
		"document": strings.TrimSpace(doc.Find("title").Text()),
	}
	want := map[string]string{
		"title":   "State of the economy",
		"engine":  "offline engine",
		"offline": "badge badge-offline",
		"notice": "Made with the offline engine: its sentences come from lexical matching over the passages, " +
			"not from a language model.",
		"run id":  "crucible-offline-engine",
		"problem": "How is the economy doing?",
		"request": "r-42",
		"limit":   "2,000",
		"body": "The economy is growing. [1] Denmark paid feed-in tariffs for wind power. [2] " +
			"The union is sound. [3] The Union is strong. [1]",
		"back":     "/reports/9",
		"document": "State of the economy (printable) · Crucible",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("printable page (-want +got):\n%s", diff)
	}
	var refs []string
	byTestID(doc, "print-sentence-ref").Each(func(_ int, a *goquery.Selection) {
		refs = append(refs, a.Text()+" "+a.AttrOr("href", ""))
	})
	if diff := cmp.Diff([]string{"[1] #ref-1", "[2] #ref-2", "[3] #ref-3", "[1] #ref-1"}, refs); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}

	wantEvidence := []evidenceItem{
		{Number: "[1]", Title: "Address Before a Joint Session", Href: "/documents/sotu/2021%20biden#p0", DocID: sotu,
			Quotes: []string{"Our economy grows.", "The Union is strong."}, Bytes: []string{"bytes 21–39", "bytes 0–20"}},
		{Number: "[2]", Title: "Wind subsidies in Denmark", Href: "/documents/news/wind#p0", DocID: "news/wind",
			Quotes: []string{"Denmark paid feed-in tariffs."}, Bytes: []string{"bytes 0–29"}},
		{Number: "[3]", Title: "Address Before a Joint Session", Href: "/documents/sotu/2021%20biden#p1", DocID: sotu,
			Quotes: []string{"the union is sound"}, Bytes: []string{"bytes 54–72"}},
	}
	if diff := cmp.Diff(wantEvidence, readEvidence(doc), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	// On screen the page keeps the portal's navigation; the print style
	// sheet hides it and the page's own links by these classes.
	for _, sel := range []string{".site-header", ".site-footer", ".breadcrumbs", ".print-actions"} {
		if doc.Find(sel).Length() != 1 {
			t.Errorf("%d elements match %s, want 1", doc.Find(sel).Length(), sel)
		}
	}
}

func TestReportPrintModelEngine(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Engine = "Llama-3.3-70B"
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, views.ReportPrintURL(9)))
	if got := textOf(doc, "print-engine"); got != "Llama-3.3-70B" {
		t.Errorf("engine = %q", got)
	}
	if byTestID(doc, "print-engine").HasClass("badge-offline") || byTestID(doc, "print-offline-notice").Length() != 0 {
		t.Errorf("a model's report is labelled offline")
	}
}

func TestReportPrintEmptyReport(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Sentences = nil
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, views.ReportPrintURL(9)))
	if !strings.Contains(textOf(doc, "print-empty"), "no sentences") {
		t.Errorf("empty report notice = %q", textOf(doc, "print-empty"))
	}
	if n := byTestID(doc, "evidence").Length(); n != 0 {
		t.Errorf("an empty report has an evidence appendix")
	}
}

func TestReportPrintEvidenceWhenSourcesChanged(t *testing.T) {
	store := reportStore()
	store.add(pipeline.Document{ID: "short", Title: "Short", Text: "Only one passage here."})
	// "ï" and "é" are two bytes each: bytes 2-4 and 10-12.
	store.add(pipeline.Document{ID: "uni", Title: "Unicode", Text: "naïve café"})
	s := newReportServer(t, store, web.Config{})
	rep := sampleReport()
	cite := func(doc string, ordinal, start, end int) pipeline.Sentence {
		return pipeline.Sentence{Text: "S.", NuggetID: "n1",
			Citation: pipeline.Citation{DocID: doc, Ordinal: ordinal, Start: start, End: end}}
	}
	rep.Sentences = []pipeline.Sentence{
		cite("deleted/doc", 2, 0, 5),
		cite("short", 3, 0, 4),    // the document has no passage 3 now
		cite("short", 0, 90, 120), // past the end of the text
		cite("uni", 0, 3, 11),     // both ends inside a character
		cite("uni", 0, -5, 1000),  // clamped to the whole text
		cite("uni", 0, 3, 11),     // quoted once
		cite("short", 0, 7, 7),    // empty
	}
	withReport(s, rep)
	rec := s.get(t, views.ReportPrintURL(9))
	wantStatus(t, rec, http.StatusOK)
	want := []evidenceItem{
		{Number: "[1]", Title: "deleted/doc", Href: "/documents/deleted/doc#p2", DocID: "deleted/doc",
			Notes: []string{"The document is no longer in the collection, so the cited text cannot be quoted."}},
		{Number: "[2]", Title: "Short", Href: "/documents/short#p3", DocID: "short",
			Notes: []string{"The document no longer has this passage: it may have been ingested again since the report was made, " +
				"so the quotes below may differ from what was cited."},
			Quotes: []string{"Only"}, Bytes: []string{"bytes 0–4"}},
		{Number: "[3]", Title: "Short", Href: "/documents/short#p0", DocID: "short",
			Notes: []string{
				"The cited bytes 90–120 lie outside the document's text, which has changed since the report was made.",
				"The cited bytes 7–7 lie outside the document's text, which has changed since the report was made.",
			}},
		{Number: "[4]", Title: "Unicode", Href: "/documents/uni#p0", DocID: "uni",
			Quotes: []string{"ïve café", "naïve café"}, Bytes: []string{"bytes 3–11", "bytes -5–1000"}},
	}
	if diff := cmp.Diff(want, readEvidence(parseHTML(t, rec)), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
}

func TestReportPrintStoreFailure(t *testing.T) {
	store := reportStore()
	store.err = fmt.Errorf("select document: %w", errSecret)
	s := newReportServer(t, store, web.Config{})
	withReport(s, sampleReport())
	rec := s.get(t, views.ReportPrintURL(9))
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
}

func TestReportExportsOfUnknownReports(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	for _, id := range []string{"404", "0", "abc"} {
		for _, suffix := range []string{"/export.json", "/export.md", "/print"} {
			target := "/reports/" + id + suffix
			t.Run(target, func(t *testing.T) {
				rec := s.get(t, target)
				wantStatus(t, rec, http.StatusNotFound)
				doc := parseHTML(t, rec)
				if got := textOf(doc, "error-status"); got != "404" {
					t.Errorf("error page status = %q, want 404", got)
				}
				if got := rec.Header().Get("Content-Disposition"); got != "" {
					t.Errorf("a 404 is a download: Content-Disposition %q", got)
				}
			})
		}
	}
}

func TestReportPageExportLinks(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	doc := parseHTML(t, s.get(t, "/reports/9"))
	group := byTestID(doc, "report-exports")
	if group.Length() != 1 {
		t.Fatalf("%d export groups, want 1", group.Length())
	}
	type link struct{ Text, Href, Download string }
	var got []link
	for _, id := range []string{"export-json", "export-markdown", "export-print"} {
		a := group.Find(`[data-testid="` + id + `"]`)
		_, download := a.Attr("download")
		got = append(got, link{Text: a.Text(), Href: a.AttrOr("href", ""), Download: fmt.Sprint(download)})
	}
	want := []link{
		{Text: "JSON (NeuCLIR)", Href: "/reports/9/export.json", Download: "true"},
		{Text: "Markdown", Href: "/reports/9/export.md", Download: "true"},
		{Text: "Printable", Href: "/reports/9/print", Download: "false"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("export links (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(strings.TrimSpace(group.Text()), "Export") {
		t.Errorf("export group is not labelled: %q", group.Text())
	}
	// Each link leads to a working export.
	for _, l := range want {
		wantStatus(t, s.get(t, l.Href), http.StatusOK)
	}
}

// The TREC formats download from the report page, one JSON line each in
// the track's form, and an unknown format is refused in words.
func TestReportPageTRECExports(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	doc := parseHTML(t, s.get(t, "/reports/9"))
	group := byTestID(doc, "report-trec-exports")
	want := map[string]string{"ragtime": `"responses":`, "rag24": `"topic_id":`, "rag25": `"narrative_id":`}
	if n := group.Find("a[download]").Length(); n != len(want) {
		t.Fatalf("%d TREC export links, want %d", n, len(want))
	}
	for f, field := range want {
		a := group.Find(`[data-testid="export-` + f + `"]`)
		href := a.AttrOr("href", "")
		if href != "/reports/9/export.json?format="+f {
			t.Errorf("%s link = %q", f, href)
		}
		rec := s.get(t, href)
		wantStatus(t, rec, http.StatusOK)
		body := rec.Body.String()
		if !strings.Contains(body, field) || strings.Count(body, "\n") != 1 {
			t.Errorf("%s export is not one %s line:\n%s", f, field, body)
		}
		if cd := rec.Header().Get("Content-Disposition"); !strings.Contains(cd, "."+f+".jsonl") {
			t.Errorf("%s export is called %q", f, cd)
		}
	}
	rec := s.get(t, "/reports/9/export.json?format=trec")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "unknown report format") {
		t.Errorf("unknown format: %d %s", rec.Code, rec.Body.String())
	}
}

func TestReportExportsEscapeHostileText(t *testing.T) {
	s := hostileServer(t)

	rec := s.get(t, views.ReportPrintURL(9))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	assertInertPage(t, doc, rec.Body.String())
	if got := byTestID(doc, "evidence-quote").Text(); got != scriptTag {
		t.Errorf("quoted span = %q, want the hostile text as text", got)
	}
	if got := textOf(doc, "print-title"); got != hostile {
		t.Errorf("title = %q", got)
	}
	if got := byTestID(doc, "evidence-title").Map(func(_ int, a *goquery.Selection) string { return a.Text() }); !cmp.Equal(got, []string{hostile, hostile}) {
		t.Errorf("evidence titles = %q, want the hostile title and the hostile id as text", got)
	}

	rec = s.get(t, views.ReportExportMarkdownURL(9))
	wantStatus(t, rec, http.StatusOK)
	md := rec.Body.String()
	if first, _, _ := strings.Cut(md, "\n"); first != `# \<script\>alert(1)\</script\> and "\>\<img src=x onerror=alert(1)\>` {
		t.Errorf("Markdown title line = %q", first)
	}
	if !strings.Contains(md, "\n## Evidence\n") || !strings.Contains(md, "\n> "+`\<script\>alert(1)\</script\>`+"\n") {
		t.Errorf("Markdown has no evidence appendix quoting the cited span, escaped:\n%s", md)
	}
	for i, line := range strings.Split(md, "\n") {
		// A block quote's marker opens a line of the evidence appendix.
		line = strings.TrimPrefix(line, "> ")
		if raw := unescapedAngles(line); raw != "" {
			t.Errorf("Markdown line %d has raw markup outside code spans (%q): %q", i+1, raw, line)
		}
	}

	rec = s.get(t, views.ReportExportJSONURL(9))
	wantStatus(t, rec, http.StatusOK)
	if strings.ContainsAny(rec.Body.String(), "<>") {
		t.Errorf("JSON export carries raw angle brackets:\n%s", rec.Body.String())
	}
	var got neuclirReport
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("JSON export does not parse: %v", err)
	}
	if len(got.Sentences) == 0 || got.Sentences[0].Text != hostile {
		t.Errorf("JSON export does not keep the sentence text: %+v", got.Sentences)
	}
}

// unescapedAngles returns the angle brackets of a Markdown line that are
// neither backslash-escaped nor inside a code span: those a renderer could
// take for HTML.
func unescapedAngles(line string) string {
	var raw strings.Builder
	inCode := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && !inCode:
			i++ // the escaped character
		case c == '`':
			inCode = !inCode
		case (c == '<' || c == '>') && !inCode:
			raw.WriteByte(c)
		}
	}
	return raw.String()
}

// TestReportVerificationCounts: the report page's header, the printable
// page, the Markdown export and the NeuCLIR JSON say how many candidate
// sentences verification dropped and how many sentences are unchecked.
func TestReportVerificationCounts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verify  bool
		dropped int
		want    string
		notice  bool
	}{
		{"verified", true, 2, "2 candidate sentences dropped as unsupported by verification · 3 of 4 sentences unchecked · 1 failed a check", true},
		{"not verified", false, 0, "3 of 4 sentences unchecked (verification was off) · 1 failed a check", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newReportServer(t, reportStore(), web.Config{})
			rep := sampleReport() // sentence 2 failed support; 1, 3 and 4 lack verdicts
			rep.Settings.Verify, rep.DroppedUnsupported = tc.verify, tc.dropped
			withReport(s, rep)

			doc := parseHTML(t, s.get(t, "/reports/9"))
			if got := textOf(doc, "report-verification"); got != tc.want {
				t.Errorf("report page: %q, want %q", got, tc.want)
			}
			if got := byTestID(doc, "report-verification").HasClass("notice"); got != tc.notice {
				t.Errorf("report page: notice %v, want %v", got, tc.notice)
			}
			doc = parseHTML(t, s.get(t, views.ReportPrintURL(9)))
			if got := textOf(doc, "print-verification"); got != tc.want {
				t.Errorf("printable page: %q, want %q", got, tc.want)
			}
			md := s.get(t, views.ReportExportMarkdownURL(9)).Body.String()
			if !strings.Contains(md, "_Verification: "+tc.want+"._") {
				t.Errorf("Markdown export lacks the counts:\n%s", md)
			}
			var neu struct {
				Crucible struct {
					Verified           bool `json:"verified"`
					DroppedUnsupported int  `json:"dropped_unsupported"`
					Unchecked          int  `json:"unchecked"`
				} `json:"crucible"`
			}
			if err := json.Unmarshal(s.get(t, views.ReportExportJSONURL(9)).Body.Bytes(), &neu); err != nil {
				t.Fatal(err)
			}
			if c := neu.Crucible; c.Verified != tc.verify || c.DroppedUnsupported != tc.dropped || c.Unchecked != 3 {
				t.Errorf("NeuCLIR crucible object %+v", c)
			}
		})
	}
}

// TestReportRunNotes: what the run had to tell a report's readers
// (Report.Problems) is shown on the report page and the printable page,
// and carried by the Markdown export and the NeuCLIR JSON; a report
// without problems shows no notes.
func TestReportRunNotes(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Problems = []string{
		`subject: only 6 of the request's 100 best passages speak of its subject (read from its words "tariff", "<duties>"), so the report may be short`,
		"a problem without a stage",
	}
	withReport(s, rep)
	wantNotes := []string{
		`Subject: Only 6 of the request's 100 best passages speak of its subject (read from its words "tariff", "<duties>"), so the report may be short.`,
		"a problem without a stage.",
	}
	for _, page := range []struct{ url, id string }{{"/reports/9", "report-run-notes"}, {views.ReportPrintURL(9), "print-run-notes"}} {
		doc := parseHTML(t, s.get(t, page.url))
		if !strings.HasPrefix(textOf(doc, page.id), "Notes from the run") {
			t.Errorf("%s: notes %q", page.url, textOf(doc, page.id))
		}
		var got []string
		byTestID(doc, page.id).Find(`[data-testid="run-note"]`).Each(func(_ int, li *goquery.Selection) {
			got = append(got, strings.Join(strings.Fields(li.Text()), " "))
		})
		if diff := cmp.Diff(wantNotes, got); diff != "" {
			t.Errorf("%s: notes (-want +got)\n%s", page.url, diff)
		}
	}
	// The report page links to the request's form filled in, to reword
	// it; the printable page does not.
	if href, _ := byTestID(parseHTML(t, s.get(t, "/reports/9")), "run-notes-resubmit").Attr("href"); href != views.ResubmitURL(5) {
		t.Errorf("run notes link to %q, want the request's form %q", href, views.ResubmitURL(5))
	}
	if n := byTestID(parseHTML(t, s.get(t, views.ReportPrintURL(9))), "run-notes-resubmit").Length(); n != 0 {
		t.Errorf("the printable page links to the form %d times", n)
	}
	md := s.get(t, views.ReportExportMarkdownURL(9)).Body.String()
	if !strings.Contains(md, `_Note from the run: Subject: Only 6 of the request's 100 best passages`) ||
		!strings.Contains(md, "_Note from the run: a problem without a stage._") || strings.Contains(md, "<duties>") {
		t.Errorf("Markdown export lacks the notes, or carries raw angle brackets:\n%s", md)
	}
	var neu struct {
		Crucible struct {
			RunNotes []string `json:"run_notes"`
		} `json:"crucible"`
	}
	if err := json.Unmarshal(s.get(t, views.ReportExportJSONURL(9)).Body.Bytes(), &neu); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Problems, neu.Crucible.RunNotes); diff != "" {
		t.Errorf("NeuCLIR crucible run_notes (-want +got)\n%s", diff)
	}

	plain := newReportServer(t, reportStore(), web.Config{})
	withReport(plain, sampleReport())
	if n := byTestID(parseHTML(t, plain.get(t, "/reports/9")), "report-run-notes").Length(); n != 0 {
		t.Errorf("a report without problems shows %d run notes", n)
	}
}

// TestJobRunNotes: the list of reports marks a report whose run left
// notes, with the notes as its tooltip, and the job page lists them under
// the link to the report (its own "Edit and resubmit" follows); a
// report without notes has neither, and notes that cannot be read give
// an error page, not a list that hides them.
func TestJobRunNotes(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Problems = []string{`subject: only 6 of the request's 100 best passages speak of its subject`}
	withReport(s, rep)
	done := pipeline.Job{ID: 5, State: pipeline.JobDone, ReportID: 9, Request: rep.Request, CreatedAt: testNow}
	s.jobs.put(done)
	plainRep := sampleReport()
	plainRep.ID = 11
	s.jobs.mu.Lock()
	s.jobs.reports[11] = plainRep
	s.jobs.mu.Unlock()
	s.jobs.put(pipeline.Job{ID: 6, State: pipeline.JobDone, ReportID: 11, Request: plainRep.Request, CreatedAt: testNow})

	doc := parseHTML(t, s.get(t, views.JobsPath))
	marks := map[string]string{}
	doc.Find(`[data-testid="job-row"]`).Each(func(_ int, row *goquery.Selection) {
		mark := row.Find(`[data-testid="job-row-notes"]`)
		marks[strings.TrimSpace(row.Find(`[data-testid="job-row-link"]`).Text())] = strings.TrimSpace(mark.Text()) + " | " + mark.AttrOr("title", "")
	})
	want := map[string]string{
		"5": "1 note from the run | Subject: Only 6 of the request's 100 best passages speak of its subject.",
		"6": " | ",
	}
	if diff := cmp.Diff(want, marks); diff != "" {
		t.Errorf("list's notes markers (-want +got)\n%s", diff)
	}

	page := parseHTML(t, s.get(t, views.JobURL(5)))
	if got := textOf(page, "job-run-notes"); !strings.Contains(got, "Only 6 of the request's 100 best passages") {
		t.Errorf("job page's notes %q", got)
	}
	// The page's "Edit and resubmit" sits under the notes; they repeat
	// no link of their own.
	if n := byTestID(page, "run-notes-resubmit").Length(); n != 0 {
		t.Errorf("job page's notes repeat the form's link %d times", n)
	}
	if n := byTestID(parseHTML(t, s.get(t, views.JobURL(6))), "job-run-notes").Length(); n != 0 {
		t.Errorf("a job whose report has no notes shows %d", n)
	}

	s.jobs.mu.Lock()
	s.jobs.failProblems = errors.New("disk on fire")
	s.jobs.mu.Unlock()
	for _, url := range []string{views.JobsPath, views.JobURL(5)} {
		if rec := s.get(t, url); rec.Code != http.StatusInternalServerError {
			t.Errorf("%s with unreadable notes: status %d, want 500", url, rec.Code)
		}
	}
}
