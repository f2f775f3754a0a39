package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// formOf builds a form from name, value pairs.
func formOf(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// postWith sends a URL-encoded form with the CSRF token in the header.
func postWith(b *browser, token, target string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(views.HeaderCSRF, token)
	return b.do(req)
}

// steps sends the posts in order and returns the last answer: an action
// that needs an earlier one (a second version to restore from) as one
// request of the permission matrix.
func steps(posts ...struct {
	target string
	form   url.Values
}) func(*testing.T, *browser, string) *httptest.ResponseRecorder {
	return func(_ *testing.T, b *browser, token string) *httptest.ResponseRecorder {
		var rec *httptest.ResponseRecorder
		for _, p := range posts {
			rec = postWith(b, token, p.target, p.form)
		}
		return rec
	}
}

type post = struct {
	target string
	form   url.Values
}

// authoringStateRoutes are the permission matrix's authoring routes, each
// sent as a browser's form would be (report 12 is a draft at version 1,
// report 13 in review); allowed roles get 303 See Other.
func authoringStateRoutes() []stateRoute {
	key1 := pipeline.SentenceKey(evalReport().Sentences[0])
	one := func(target string, kv ...string) func(*testing.T, *browser, string) *httptest.ResponseRecorder {
		return steps(post{target, formOf(append([]string{"version", "1"}, kv...)...)})
	}
	edit, review, approve := auth.PermEditReport, auth.PermReviewCitations, auth.PermApproveReport
	return []stateRoute{
		{name: "edit a sentence", route: "POST /reports/:id/sentences/:n/text", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/1/text", "text", "Steel tariffs rose to 25 percent.")},
		{name: "edit a sentence, no form", route: "POST /reports/:id/sentences/:n/text", perm: edit, allowed: http.StatusUnprocessableEntity,
			send: steps(post{"/reports/12/sentences/1/text", nil})},
		{name: "delete a sentence", route: "POST /reports/:id/sentences/:n/delete", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/2/delete")},
		{name: "move a sentence", route: "POST /reports/:id/sentences/:n/move", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/1/move", "direction", "down")},
		{name: "swap a candidate", route: "POST /reports/:id/sentences/:n/swap", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/1/swap", "candidate", "0")},
		{name: "re-verify a sentence", route: "POST /reports/:id/sentences/:n/verify", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/1/verify")},
		{name: "review a citation", route: "POST /reports/:id/sentences/:n/review", perm: review, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/1/review", "key", key1, "verdict", "supported", "comment", "fine")},
		{name: "add a candidate", route: "POST /reports/:id/sentences", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences", "candidate", "1")},
		{name: "quote a document", route: "POST /reports/:id/sentences/quote", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/sentences/quote", "doc_id", "d1", "start", "45", "end", "51")},
		{name: "restore a version", route: "POST /reports/:id/versions/:v/restore", perm: edit, allowed: http.StatusSeeOther,
			send: steps(post{"/reports/12/sentences/4/delete", formOf("version", "1")},
				post{"/reports/12/versions/1/restore", formOf("version", "2")})},
		{name: "submit for review", route: "POST /reports/:id/submit", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/submit")},
		{name: "approve", route: "POST /reports/:id/approve", perm: approve, allowed: http.StatusSeeOther,
			send: one("/reports/13/approve", "confirm_unreviewed", "1")},
		{name: "reopen", route: "POST /reports/:id/reopen", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/13/reopen")},
		{name: "add a nugget", route: "POST /reports/:id/nuggets/add", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/nuggets/add", "question", "What did Canada tax?", "answer", "whiskey")},
		{name: "edit a nugget", route: "POST /reports/:id/nuggets/edit", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/nuggets/edit", "nugget", "b", "question", "What did Canada tax?", "answer", "whiskey")},
		{name: "remove a nugget", route: "POST /reports/:id/nuggets/remove", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/nuggets/remove", "nugget", "d")},
		{name: "pin a nugget", route: "POST /reports/:id/nuggets/pin", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/nuggets/pin", "nugget", "c", "pinned", "1")},
		{name: "move a nugget", route: "POST /reports/:id/nuggets/move", perm: edit, allowed: http.StatusSeeOther,
			send: one("/reports/12/nuggets/move", "nugget", "a", "direction", "down")},
		{name: "regenerate", route: "POST /reports/:id/nuggets/regenerate", perm: edit, allowed: http.StatusSeeOther,
			send: steps(post{"/reports/12/nuggets/remove", formOf("version", "1", "nugget", "d")},
				post{"/reports/12/nuggets/regenerate", formOf("version", "2")})},
	}
}

// authorBrowser signs u in on s and returns the browser and its CSRF
// token.
func authorBrowser(t *testing.T, s *accountServer, u auth.User) (*browser, string) {
	t.Helper()
	b := newBrowser(s)
	b.mustLogin(t, u)
	return b, b.csrf(t, "/reports/12")
}

// reportPage gets a report page and parses it.
func reportPage(t *testing.T, b *browser, target string) *goquery.Document {
	t.Helper()
	rec := b.get(target)
	wantStatus(t, rec, http.StatusOK)
	return parseHTML(t, rec)
}

// formVersion is the base version a page's first form of testID carries.
func formVersion(t *testing.T, doc *goquery.Document, testID string) string {
	t.Helper()
	v, ok := byTestID(doc, testID).First().Find(`input[name="version"]`).Attr("value")
	if !ok {
		t.Fatalf("the page has no %s form with a version", testID)
	}
	return v
}

// wantRedirect checks a 303 to the target.
func wantRedirect(t *testing.T, rec *httptest.ResponseRecorder, target string) {
	t.Helper()
	wantStatus(t, rec, http.StatusSeeOther)
	if got := rec.Header().Get("Location"); got != target {
		t.Errorf("redirect to %q, want %q", got, target)
	}
}

func TestEditSentence(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	doc := reportPage(t, b, "/reports/12")
	if got := textOf(doc, "version-number"); got != "1" {
		t.Fatalf("a report never edited shows version %q, want 1", got)
	}
	base := formVersion(t, doc, "edit-form")

	const xss = `Tariffs <script>alert("x")</script> rose & <img src=x onerror=alert(1)> fell.`
	rec := postWith(b, token, "/reports/12/sentences/1/text", formOf("version", base, "text", xss))
	wantRedirect(t, rec, "/reports/12#s1")

	doc = reportPage(t, b, "/reports/12")
	got := texts(doc, "sentence-text")
	if len(got) != 4 || got[0] != xss {
		t.Fatalf("sentences after the edit = %q", got)
	}
	if n := doc.Find(`[data-testid="report-body"] script, [data-testid="report-body"] img`).Length(); n != 0 {
		t.Errorf("the edited text became %d elements: it must stay text", n)
	}
	first := byTestID(doc, "sentence").First()
	if first.Find(`[data-testid="sentence-recheck"]`).Length() != 1 {
		t.Error("the edited sentence is not marked “edited, re-check”")
	}
	if byTestID(doc, "sentence").Eq(1).Find(`[data-testid="sentence-recheck"]`).Length() != 0 {
		t.Error("an untouched sentence is marked for re-check")
	}
	if got := first.Find(`[data-testid="prov-supported"]`).Text(); got != "not checked" {
		t.Errorf("the edited sentence's support verdict reads %q, want not checked", got)
	}
	for id, want := range map[string]string{"version-number": "2", "version-author": "alan", "version-change": "edited sentence 1"} {
		if got := textOf(doc, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}

	// Bad input re-renders the page with 422, the reason next to the
	// sentence and what was typed kept.
	rec = postWith(b, token, "/reports/12/sentences/2/text", formOf("version", "2", "text", " \n "))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	doc = parseHTML(t, rec)
	if got := textOf(doc, "sentence-problem"); !strings.Contains(got, "The sentence is empty") {
		t.Errorf("problem %q", got)
	}
	if !byTestID(doc, "sentence").Eq(1).Is("[open]") {
		t.Error("the sentence whose form was refused is not open")
	}
	if s.versions.changed() != 1 {
		t.Errorf("%d changes stored, want the one edit", s.versions.changed())
	}

	// Exports use the current version.
	rec = b.get("/reports/12/export.md")
	wantStatus(t, rec, http.StatusOK)
	if md := rec.Body.String(); !strings.Contains(md, `Tariffs \<script\>alert("x")\</script\> rose & \<img src=x onerror=alert(1)\> fell. [1]`) {
		t.Errorf("the Markdown export does not hold the edited sentence, escaped:\n%s", md)
	}
	var neu export.NeuCLIRReport
	rec = b.get("/reports/12/export.json")
	if err := json.Unmarshal(rec.Body.Bytes(), &neu); err != nil || neu.Sentences[0].Text != xss {
		t.Errorf("JSON export sentence 1 = %+v (%v)", neu.Sentences, err)
	}
	rec = b.get("/reports/12/print")
	if got := texts(parseHTML(t, rec), "print-sentence"); len(got) == 0 || got[0] != xss {
		t.Errorf("printable sentences = %q", got)
	}
}

func TestConcurrentEditConflict(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	alan, alanToken := authorBrowser(t, s, analystUser)
	ada, adaToken := authorBrowser(t, s, adminUser)
	// Both open version 1.
	alanBase := formVersion(t, reportPage(t, alan, "/reports/12"), "edit-form")
	adaBase := formVersion(t, reportPage(t, ada, "/reports/12"), "delete-form")
	if alanBase != "1" || adaBase != "1" {
		t.Fatalf("bases %s and %s, want 1", alanBase, adaBase)
	}
	wantRedirect(t, postWith(alan, alanToken, "/reports/12/sentences/3/text",
		formOf("version", alanBase, "text", "Steel prices fell in 2019.")), "/reports/12#s3")

	// ada's delete, made from version 1, is refused and changes nothing.
	rec := postWith(ada, adaToken, "/reports/12/sentences/1/delete", formOf("version", adaBase))
	wantStatus(t, rec, http.StatusConflict)
	msg := textOf(parseHTML(t, rec), "error-message")
	const want = "This report changed since you opened it: version 2 by alan, 'edited sentence 3'; reload the report and make your change again"
	if msg != want {
		t.Errorf("conflict message %q, want %q", msg, want)
	}
	doc := reportPage(t, ada, "/reports/12")
	if got := texts(doc, "sentence-text"); len(got) != 4 || got[2] != "Steel prices fell in 2019." || textOf(doc, "version-number") != "2" {
		t.Errorf("after the refused delete: version %s, sentences %q", textOf(doc, "version-number"), got)
	}
	// Reloaded, ada's delete goes through.
	wantRedirect(t, postWith(ada, adaToken, "/reports/12/sentences/1/delete",
		formOf("version", formVersion(t, doc, "delete-form"))), "/reports/12")
}

func TestVersionRestore(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	original := texts(reportPage(t, b, "/reports/12"), "sentence-text")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/1/delete", formOf("version", "1")), "/reports/12")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/1/move", formOf("version", "2", "direction", "down")), "/reports/12#s2")

	doc := reportPage(t, b, "/reports/12/history")
	if diff := cmp.Diff([]string{"moved sentence 1 down", "deleted sentence 1", "generated by the offline engine"},
		texts(doc, "history-change")); diff != "" {
		t.Errorf("history (-want +got)\n%s", diff)
	}
	if n := byTestID(doc, "restore-form").Length(); n != 2 {
		t.Errorf("%d restore buttons, want one per old version (2)", n)
	}
	old := reportPage(t, b, "/reports/12/versions/1")
	if diff := cmp.Diff(original, texts(old, "version-sentence-text")); diff != "" {
		t.Errorf("version 1 page (-want +got)\n%s", diff)
	}
	// Restoring from a stale page is refused.
	wantStatus(t, postWith(b, token, "/reports/12/versions/1/restore", formOf("version", "2")), http.StatusConflict)
	wantRedirect(t, postWith(b, token, "/reports/12/versions/1/restore", formOf("version", "3")), "/reports/12")
	doc = reportPage(t, b, "/reports/12")
	if diff := cmp.Diff(original, texts(doc, "sentence-text")); diff != "" {
		t.Errorf("restored text (-want +got)\n%s", diff)
	}
	if textOf(doc, "version-number") != "4" || textOf(doc, "version-change") != "restored version 1" {
		t.Errorf("after restoring: version %s %q", textOf(doc, "version-number"), textOf(doc, "version-change"))
	}
	// A reviewer sees the history without restore buttons.
	r := newBrowser(s)
	r.mustLogin(t, reviewerUser)
	if n := byTestID(reportPage(t, r, "/reports/12/history"), "restore-form").Length(); n != 0 {
		t.Errorf("a reviewer is offered %d restore buttons", n)
	}
}

func TestSwapAndAddCandidates(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	doc := reportPage(t, b, "/reports/12")
	alts := byTestID(doc, "sentence").First().Find(`[data-testid="alternative-text"]`)
	if alts.Length() != 1 || alts.Text() != "Steel tariffs reached 25 percent." {
		t.Fatalf("sentence 1's alternatives = %q, want candidate 0 alone", alts.Text())
	}
	if got := texts(doc, "addable-text"); !cmp.Equal(got, []string{"Steel tariffs reached 25 percent.", "Canada put duties on whiskey."}) {
		t.Errorf("addable candidates = %q", got)
	}
	swap := byTestID(doc, "sentence").First().Find(`[data-testid="swap-form"] input[name="candidate"]`).AttrOr("value", "")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/1/swap", formOf("version", "1", "candidate", swap)), "/reports/12#s1")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences", formOf("version", "2", "candidate", "1")), "/reports/12#s3")
	doc = reportPage(t, b, "/reports/12")
	want := []string{"Steel tariffs reached 25 percent.", "Canada answered with duties on whiskey.", "Canada put duties on whiskey.",
		"Steel prices fell sharply in 2019.", "Mexico signed a new trade agreement."}
	if diff := cmp.Diff(want, texts(doc, "sentence-text")); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}
	if byTestID(doc, "sentence").First().Find(`[data-testid="sentence-recheck"]`).Length() != 0 {
		t.Error("a swapped-in candidate is marked for re-check")
	}
	// Another nugget's candidate cannot be swapped in.
	rec := postWith(b, token, "/reports/12/sentences/1/swap", formOf("version", "3", "candidate", "1"))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	if got := textOf(parseHTML(t, rec), "sentence-problem"); !strings.Contains(got, `answers nugget "b", not sentence 1's nugget "a"`) {
		t.Errorf("problem %q", got)
	}
}

func TestReviewAndApprove(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	grace, graceToken := authorBrowser(t, s, reviewerUser)
	alan, alanToken := authorBrowser(t, s, analystUser)
	doc := reportPage(t, grace, "/reports/12")
	if byTestID(doc, "edit-form").Length() != 0 || byTestID(doc, "add-sentences").Length() != 0 {
		t.Error("a reviewer is offered editing forms")
	}
	if byTestID(doc, "submit-review").Length() != 0 {
		t.Error("a reviewer is offered to submit the report")
	}
	key := byTestID(doc, "review-form").First().Find(`input[name="key"]`).AttrOr("value", "")
	const comment = `Only the year <b>holds</b>`
	wantRedirect(t, postWith(grace, graceToken, "/reports/12/sentences/1/review",
		formOf("version", "1", "key", key, "verdict", "partly", "comment", comment)), "/reports/12#s1")
	doc = reportPage(t, grace, "/reports/12")
	// One citation reviewed, partly: 0.5 / 1 = 0.500.
	if got := textOf(doc, "review-support"); got != "0.500" {
		t.Errorf("reviewed citation support %q, want 0.500", got)
	}
	if got := texts(doc, "unreviewed-link"); !cmp.Equal(got, []string{"2", "3", "4"}) {
		t.Errorf("unreviewed sentences %q, want 2, 3, 4", got)
	}
	first := byTestID(doc, "sentence").First()
	if got := first.Find(`[data-testid="review-comment"]`).Text(); got != comment || first.Find(`[data-testid="review-comment"] b`).Length() != 0 {
		t.Errorf("review comment %q rendered as more than text", got)
	}
	if got := first.Find(`[data-testid="sentence-review"]`).Text(); got != "partly supported" {
		t.Errorf("sentence badge %q", got)
	}
	// An unknown verdict is refused with 422.
	wantStatus(t, postWith(grace, graceToken, "/reports/12/sentences/2/review",
		formOf("version", "1", "key", key, "verdict", "maybe")), http.StatusUnprocessableEntity)

	// alan submits, grace approves; the approved report refuses edits.
	wantRedirect(t, postWith(alan, alanToken, "/reports/12/submit", formOf("version", "1")), "/reports/12")
	if got := textOf(reportPage(t, grace, "/reports/12"), "status-label"); got != "in review" {
		t.Errorf("status %q after submitting", got)
	}
	wantRedirect(t, postWith(grace, graceToken, "/reports/12/approve", formOf("version", "1", "confirm_unreviewed", "1")), "/reports/12")
	doc = reportPage(t, alan, "/reports/12")
	if textOf(doc, "status-label") != "approved" || byTestID(doc, "edit-form").Length() != 0 || byTestID(doc, "reopen").Length() != 1 {
		t.Errorf("approved page: status %q, %d edit forms, %d reopen buttons", textOf(doc, "status-label"),
			byTestID(doc, "edit-form").Length(), byTestID(doc, "reopen").Length())
	}
	rec := postWith(alan, alanToken, "/reports/12/sentences/1/text", formOf("version", "1", "text", "New words."))
	wantStatus(t, rec, http.StatusConflict)
	if msg := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(msg, "approved (by grace): reopen it as a draft") {
		t.Errorf("message %q", msg)
	}
	// Reopened, the report can change; the edited sentence's review goes.
	wantRedirect(t, postWith(alan, alanToken, "/reports/12/reopen", formOf("version", "1")), "/reports/12")
	wantRedirect(t, postWith(alan, alanToken, "/reports/12/sentences/1/text", formOf("version", "1", "text", "New words.")), "/reports/12#s1")
	doc = reportPage(t, grace, "/reports/12")
	if byTestID(doc, "sentence").First().Find(`[data-testid="sentence-review"]`).Length() != 0 || textOf(doc, "review-none-yet") == "" {
		t.Error("the edited sentence kept its review")
	}
}

func TestVerifySentence(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/2/text",
		formOf("version", "1", "text", "Canada answered, an unsupported claim.")), "/reports/12#s2")
	calls := s.model.count()
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/2/verify", formOf("version", "2")), "/reports/12#s2")
	if got := s.model.count() - calls; got != 2 {
		t.Errorf("verification made %d model calls, want 2 (support, coverage)", got)
	}
	second := byTestID(reportPage(t, b, "/reports/12"), "sentence").Eq(1)
	if second.Find(`[data-testid="sentence-recheck"]`).Length() != 0 {
		t.Error("the re-verified sentence is still marked for re-check")
	}
	if sup, cov := second.Find(`[data-testid="prov-supported"]`).Text(), second.Find(`[data-testid="prov-covers"]`).Text(); sup != "no" || cov != "yes" {
		t.Errorf("verdicts: supports %q, covers %q; want no, yes", sup, cov)
	}
}

func TestQuoteFromDocument(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	doc := reportPage(t, b, "/documents/d1?report=12")
	form := byTestID(doc, "cite-form")
	if form.Length() != 1 || form.Find(`input[name="version"]`).AttrOr("value", "") != "1" ||
		form.Find(`input[name="doc_id"]`).AttrOr("value", "") != "d1" || form.Find(`input[name="csrf_token"]`).AttrOr("value", "") == "" {
		html, _ := goquery.OuterHtml(form)
		t.Fatalf("cite form: %d forms; html %s", form.Length(), truncate(html, 1500))
	}
	if starts := doc.Find(".passage-text[data-start]").Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-start", "") }); !cmp.Equal(starts, []string{"0", "45"}) {
		t.Errorf("passages' data-start = %q, want 0 and 45", starts)
	}
	// "Canada answered" is bytes 45–60, selected with the space before.
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/quote",
		formOf("version", "1", "doc_id", "d1", "start", "44", "end", "60", "nugget", "b")), "/reports/12#s3")
	doc = reportPage(t, b, "/reports/12")
	third := byTestID(doc, "sentence").Eq(2)
	if got := third.Find(`[data-testid="sentence-text"]`).Text(); got != "Canada answered" {
		t.Errorf("quoted sentence %q", got)
	}
	if got := third.Find(`[data-testid="prov-passage"] mark`).Text(); got != "Canada answered" {
		t.Errorf("its citation marks %q", got)
	}
	// A selection across the two passages is refused.
	rec := postWith(b, token, "/reports/12/sentences/quote", formOf("version", "2", "doc_id", "d1", "start", "30", "end", "60"))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	if got := textOf(parseHTML(t, rec), "action-problem"); !strings.Contains(got, "within one passage") {
		t.Errorf("problem %q", got)
	}
	// Reviewers get the page without the form.
	r := newBrowser(s)
	r.mustLogin(t, reviewerUser)
	if byTestID(reportPage(t, r, "/documents/d1?report=12"), "cite-form").Length() != 0 {
		t.Error("a reviewer is offered the cite form")
	}
}

func TestNuggetBankEditingAndRegenerate(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	before := reportPage(t, b, "/reports/12")
	keys := func(doc *goquery.Document) []string {
		return byTestID(doc, "review-form").Map(func(_ int, s *goquery.Selection) string {
			return s.Find(`input[name="key"]`).AttrOr("value", "")
		})
	}
	oldKeys := keys(before)

	const xssQ = `<script>alert(1)</script>Who?`
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/add",
		formOf("version", "1", "question", xssQ, "answer", `<i>them</i>`)), "/reports/12/nuggets")
	doc := reportPage(t, b, "/reports/12/nuggets")
	qs := texts(doc, "nugget-question")
	if len(qs) != 5 || qs[4] != xssQ || doc.Find(`[data-testid="kept-nuggets"] script, [data-testid="kept-nuggets"] i`).Length() != 0 {
		t.Errorf("bank questions %q; the added nugget must show as text", qs)
	}
	if byTestID(doc, "nugget-changed").Length() != 1 || byTestID(doc, "regenerate").Length() != 1 {
		t.Error("the added nugget is not marked changed, or no regenerate button")
	}
	// Remove it again, pin c, and edit b to ask about the whiskey duties.
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/remove", formOf("version", "2", "nugget", "a1")), "/reports/12/nuggets")
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/pin", formOf("version", "3", "nugget", "c", "pinned", "1")), "/reports/12/nuggets#nugget-c")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/2/delete", formOf("version", "4")), "/reports/12#s1")
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/edit",
		formOf("version", "5", "nugget", "b", "question", "What did Canada tax?", "answer", "whiskey")), "/reports/12/nuggets#nugget-b")
	doc = reportPage(t, b, "/reports/12/nuggets")
	if got := texts(doc, "nugget-question"); !cmp.Equal(got[:2], []string{"What happened to steel prices?", "How high did the steel tariff rise?"}) {
		t.Errorf("bank order %q: the pinned nugget c must lead", got)
	}
	// A pinned nugget cannot be removed.
	rec := postWith(b, token, "/reports/12/nuggets/remove", formOf("version", "6", "nugget", "c"))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	if got := textOf(parseHTML(t, rec), "bank-problem"); !strings.Contains(got, "unpin it before removing it") {
		t.Errorf("problem %q", got)
	}

	calls := s.model.count()
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/regenerate", formOf("version", "6")), "/reports/12")
	if s.model.count() == calls {
		t.Error("regeneration asked the model nothing")
	}
	doc = reportPage(t, b, "/reports/12")
	// The bank is c (pinned), a, b, d: nugget b's new sentence goes after
	// the last sentence of a nugget ranked above it (c's); the others are
	// untouched.
	want := []string{"Tariffs on steel rose to 25 percent in 2018.", "Steel prices fell sharply in 2019.",
		"Canada answered with duties on whiskey.", "Mexico signed a new trade agreement."}
	if diff := cmp.Diff(want, texts(doc, "sentence-text")); diff != "" {
		t.Errorf("sentences after regenerating (-want +got)\n%s", diff)
	}
	newKeys := keys(doc)
	if newKeys[0] != oldKeys[0] || newKeys[1] != oldKeys[2] || newKeys[3] != oldKeys[3] {
		t.Error("regeneration changed sentences of unchanged nuggets")
	}
	if got := textOf(doc, "version-change"); got != "regenerated 1 changed nugget: 1 sentence added" {
		t.Errorf("change %q", got)
	}
	if byTestID(reportPage(t, b, "/reports/12/nuggets"), "nugget-changed").Length() != 0 {
		t.Error("a nugget is still marked changed after regenerating")
	}
}

func TestDownloadAll(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, analystUser)
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/4/text", formOf("version", "1", "text", "Mexico & Canada signed.")), "/reports/12#s4")
	rec := b.get("/reports/12/download.zip")
	wantStatus(t, rec, http.StatusOK)
	if ct, cd := rec.Header().Get("Content-Type"), rec.Header().Get("Content-Disposition"); ct != "application/zip" || cd != `attachment; filename=r1.zip` {
		t.Errorf("headers: %q, %q", ct, cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(body)
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"export.json", "export.md", "print.html", "nuggets.json"}, names); diff != "" {
		t.Fatalf("archive (-want +got)\n%s", diff)
	}
	if !strings.Contains(files["export.md"], "Mexico & Canada signed. [3]") {
		t.Errorf("export.md lacks the edited sentence:\n%s", files["export.md"])
	}
	var bank export.NuggetBank
	if err := json.Unmarshal([]byte(files["nuggets.json"]), &bank); err != nil || len(bank.Nuggets) != 4 || bank.Version != 2 {
		t.Errorf("nuggets.json: %+v (%v)", bank, err)
	}
	page, err := goquery.NewDocumentFromReader(strings.NewReader(files["print.html"]))
	if err != nil {
		t.Fatal(err)
	}
	if page.Find("style").Length() != 1 || page.Find("form, nav, meta[name=csrf-token]").Length() != 0 {
		t.Error("print.html must inline its style sheet and hold no forms, navigation or CSRF token")
	}
	if strings.Contains(files["print.html"], token) {
		t.Error("print.html holds the session's CSRF token")
	}
	if got := texts(page, "print-sentence"); len(got) != 4 || got[3] != "Mexico & Canada signed." {
		t.Errorf("print.html sentences %q", got)
	}
}

func TestEvaluationWithReviewerVerdicts(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	gold, err := judge.ReadNuggets(strings.NewReader(evalGold), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	set, err := s.gold.CreateGoldSet(context.Background(), "gold", gold)
	if err != nil {
		t.Fatal(err)
	}
	b, token := authorBrowser(t, s, reviewerUser)
	rep := evalReport()
	for n, verdict := range map[int]string{3: "supported", 4: "partly"} {
		wantRedirect(t, postWith(b, token, "/reports/12/sentences/"+strconv.Itoa(n)+"/review",
			formOf("version", "1", "key", pipeline.SentenceKey(rep.Sentences[n-1]), "verdict", verdict)), "/reports/12#s"+strconv.Itoa(n))
	}
	target := "/reports/12/evaluation?gold=" + strconv.FormatInt(set.ID, 10)
	// The offline judge alone: sentences 1 and 2 are supported, 2/4.
	if got := cardTexts(reportPage(t, b, target))["metric-citation-support"]; got != "0.500 | 2/4 citations" {
		t.Errorf("judge's citation support %q", got)
	}
	doc := reportPage(t, b, target+"&reviewed=1")
	// With the reviews: sentence 3 supported, sentence 4 partly:
	// (3 + 0.5) / 4 = 0.875.
	if got := cardTexts(doc)["metric-citation-support"]; got != "0.875 | 3/4 citations, and 1 partly (½ each)" {
		t.Errorf("citation support with reviews %q", got)
	}
	if got := textOf(doc, "reviewed-citations"); !strings.Contains(got, "2 citations") {
		t.Errorf("notice %q", got)
	}
	if !byTestID(doc, "use-reviews").Is("[checked]") {
		t.Error("the checkbox is not kept checked")
	}
}

// TestAuthoringCSRF checks that every form the authoring pages show
// carries the session's CSRF token and the version it was made from, and
// that the authoring routes refuse posts without the token.
func TestAuthoringCSRF(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b, token := authorBrowser(t, s, adminUser)
	// A second version, so the history offers a restore form.
	wantRedirect(t, postWith(b, token, "/reports/12/nuggets/add", formOf("version", "1", "question", "Q?", "answer", "A")), "/reports/12/nuggets")
	pages := []string{"/reports/12", "/reports/12/nuggets", "/reports/12/history", "/reports/12/versions/1", "/documents/d1?report=12", "/reports/13"}
	forms := 0
	for _, target := range pages {
		doc := reportPage(t, b, target)
		doc.Find(`form[method="post"]`).Each(func(_ int, f *goquery.Selection) {
			action := f.AttrOr("action", "")
			if action == views.LogoutPath {
				return
			}
			forms++
			if got := f.Find(`input[name="csrf_token"]`).AttrOr("value", ""); got != token {
				t.Errorf("%s: the form posting to %s carries CSRF token %q, want the session's", target, action, got)
			}
			if v := f.Find(`input[name="version"]`).AttrOr("value", ""); v == "" {
				t.Errorf("%s: the form posting to %s carries no version", target, action)
			}
		})
	}
	// Pages: status, review ×4, edit ×4 (text, move, verify, delete...),
	// candidates, nugget forms, restore, cite. At least one each.
	if forms < 30 {
		t.Errorf("found %d authoring forms on %d pages; the pages lost their forms", forms, len(pages))
	}

	changes := s.versions.changed()
	for _, rt := range authoringStateRoutes() {
		for _, tok := range []string{"", "forged"} {
			rec := rt.send(t, b, tok)
			wantStatus(t, rec, http.StatusForbidden)
		}
	}
	if got := s.versions.changed(); got != changes {
		t.Errorf("posts without a valid CSRF token stored %d changes", got-changes)
	}
}

// TestApproveNeedsConfirmation: approving a report whose citations are
// not all reviewed supported is refused with 422 unless the form carries
// the confirmation, and changes nothing; confirmed, the approval records
// the counts, which the history shows. Confirming counts other than the
// page's current ones is refused too.
func TestApproveNeedsConfirmation(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	grace, token := authorBrowser(t, s, reviewerUser)
	id := strconv.Itoa(reviewedReportID)
	page := "/reports/" + id

	// Report 13 is in review: sentence 1 not supported, the rest unreviewed.
	doc := reportPage(t, grace, page)
	key := byTestID(doc, "review-form").First().Find(`input[name="key"]`).AttrOr("value", "")
	wantRedirect(t, postWith(grace, token, page+"/sentences/1/review",
		formOf("version", "1", "key", key, "verdict", "unsupported")), page+"#s1")
	doc = reportPage(t, grace, page)
	if got, want := strings.Join(strings.Fields(textOf(doc, "approve-confirm-label")), " "), "Approve although 3 citations are unreviewed and 1 is not supported"; got != want {
		t.Errorf("confirmation label %q, want %q", got, want)
	}
	form := byTestID(doc, "approve-form")
	shown := map[string]string{}
	for _, f := range []string{"open_unreviewed", "open_partly", "open_unsupported"} {
		shown[f] = form.Find(`input[name="`+f+`"]`).AttrOr("value", "")
	}
	if diff := cmp.Diff(map[string]string{"open_unreviewed": "3", "open_partly": "0", "open_unsupported": "1"}, shown); diff != "" {
		t.Errorf("counts the form carries (-want +got)\n%s", diff)
	}
	if _, required := byTestID(doc, "approve-confirm").Attr("required"); required {
		t.Error("the checkbox is required in the browser: the server's refusal must be reachable")
	}

	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"no confirmation", formOf("version", "1", "open_unreviewed", "3", "open_partly", "0", "open_unsupported", "1"),
			"Approving needs a confirmation: the report has 3 unreviewed and 1 not supported citations"},
		{"no confirmation, no counts", formOf("version", "1"), "Approving needs a confirmation"},
		{"confirmed other counts", formOf("version", "1", "confirm_unreviewed", "1", "open_unreviewed", "4", "open_partly", "0", "open_unsupported", "0"),
			"The reviews changed since the page was shown (it showed 4 unreviewed citations; the report now has 3 unreviewed and 1 not supported citations)"},
		{"half the counts", formOf("version", "1", "confirm_unreviewed", "1", "open_unreviewed", "3"), "sent 1 of the 3 open-citation counts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := postWith(grace, token, page+"/approve", tc.form)
			wantStatus(t, rec, http.StatusUnprocessableEntity)
			doc := parseHTML(t, rec)
			if got := textOf(doc, "action-problem"); !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want it to contain %q", got, tc.want)
			}
			if got := textOf(doc, "status-label"); got != "in review" {
				t.Errorf("status %q after a refused approval", got)
			}
			if byTestID(doc, "approve-confirm").Length() != 1 {
				t.Error("the refusal page offers no confirmation")
			}
		})
	}

	wantRedirect(t, postWith(grace, token, page+"/approve", formOf("version", "1", "confirm_unreviewed", "1",
		"open_unreviewed", "3", "open_partly", "0", "open_unsupported", "1")), page)
	doc = reportPage(t, grace, page)
	if got := textOf(doc, "status-label"); got != "approved" {
		t.Errorf("status %q after a confirmed approval", got)
	}
	if got := textOf(doc, "status-confirmed"); got != "approved with 3 unreviewed and 1 not supported citations, confirmed" {
		t.Errorf("status line %q", got)
	}
	hist := reportPage(t, grace, page+"/history")
	want := []string{"approved with 3 unreviewed and 1 not supported citations, confirmed by grace", "submitted for review by alan"}
	if diff := cmp.Diff(want, texts(hist, "status-change-text")); diff != "" {
		t.Errorf("status changes in the history (-want +got)\n%s", diff)
	}
}

// TestApproveFullyReviewed: a report whose every citation a reviewer
// found supported is approved without a confirmation, and the page
// offers none.
func TestApproveFullyReviewed(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	grace, token := authorBrowser(t, s, reviewerUser)
	page := "/reports/" + strconv.Itoa(reviewedReportID)
	doc := reportPage(t, grace, page)
	byTestID(doc, "review-form").Each(func(i int, f *goquery.Selection) {
		key := f.Find(`input[name="key"]`).AttrOr("value", "")
		n := strconv.Itoa(i + 1)
		wantRedirect(t, postWith(grace, token, page+"/sentences/"+n+"/review",
			formOf("version", "1", "key", key, "verdict", "supported")), page+"#s"+n)
	})
	doc = reportPage(t, grace, page)
	if byTestID(doc, "approve").Length() != 1 || byTestID(doc, "approve-confirm").Length() != 0 {
		t.Errorf("a fully reviewed report: %d approve buttons, %d confirmations; want 1 and 0",
			byTestID(doc, "approve").Length(), byTestID(doc, "approve-confirm").Length())
	}
	wantRedirect(t, postWith(grace, token, page+"/approve", formOf("version", "1")), page)
	hist := reportPage(t, grace, page+"/history")
	if got := texts(hist, "status-change-text"); len(got) == 0 || got[0] != "approved by grace" {
		t.Errorf("status changes %q, want an approval with nothing confirmed first", got)
	}
}
