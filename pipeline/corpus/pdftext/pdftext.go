// Package pdftext extracts the text of a PDF page by page with PDFium, the
// PDF engine of Chromium, run as WebAssembly inside the process (go-pdfium's
// WebAssembly mode on the wazero runtime): no C library, no external
// program, the same single binary.
//
// The engine is started on first use (compiling the module takes a few
// seconds; the compiled code is cached under the user's cache folder, so
// later starts take well under a second) and serves one file at a time.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Errors a file can fail with; each says what the reader should do.
var (
	// ErrEncrypted: the PDF needs a password to be read.
	ErrEncrypted = errors.New("the PDF is encrypted: it needs a password, which ingest does not take; save an unprotected copy")
	// ErrCorrupt: the file is not a PDF PDFium can open.
	ErrCorrupt = errors.New("the file is not a readable PDF (damaged, truncated or of another format)")
)

// engine is the process's PDFium instance, started on first use.
var engine struct {
	mu       sync.Mutex
	pool     pdfium.Pool
	instance pdfium.Pdfium
}

// CacheDir is where the compiled engine is kept between runs: the user's
// cache folder (CRUCIBLE_CACHE_DIR overrides it); "" when there is none.
func CacheDir() string {
	if d := os.Getenv("CRUCIBLE_CACHE_DIR"); d != "" {
		return filepath.Join(d, "pdfium")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "crucible", "pdfium")
}

// start starts the engine if it is not running. The caller holds engine.mu.
func start() error {
	if engine.instance != nil {
		return nil
	}
	// PDFium's module uses WebAssembly exception handling for setjmp.
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if dir := CacheDir(); dir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle: 1, MaxIdle: 1, MaxTotal: 1,
		// The engine reads files from memory only: no folder is mounted.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
	})
	if err != nil {
		return fmt.Errorf("start the PDF engine: %w", err)
	}
	instance, err := pool.GetInstance(30 * time.Second)
	if err != nil {
		pool.Close()
		return fmt.Errorf("start the PDF engine: %w", err)
	}
	engine.pool, engine.instance = pool, instance
	return nil
}

// Doc is what a PDF holds for ingest.
type Doc struct {
	// Title is the document information's title; "" when it has none.
	Title string
	// Pages is the text of every page in page order ("" for a page without
	// text, such as a scanned one).
	Pages []string
}

// Read extracts the title and the text of every page of the PDF in data.
// It fails with ErrEncrypted or ErrCorrupt for files it cannot open.
func Read(ctx context.Context, data []byte) (Doc, error) {
	var out Doc
	if err := ctx.Err(); err != nil {
		return out, err
	}
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if err := start(); err != nil {
		return out, err
	}
	in := engine.instance
	doc, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return out, ErrEncrypted
	case err != nil:
		return out, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	n, err := in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return out, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if t, err := in.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		out.Title = strings.TrimSpace(t.Value)
	}
	out.Pages = make([]string, n.PageCount)
	for i := range out.Pages {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		t, err := in.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i}}})
		if err != nil {
			return out, fmt.Errorf("%w: page %d: %v", ErrCorrupt, i+1, err)
		}
		out.Pages[i] = cleanPage(t.Text)
	}
	return out, nil
}

// cleanPage normalises a page's extracted text: PDFium ends lines with
// "\r\n" and marks soft hyphens and form feeds, which a passage should not
// carry.
func cleanPage(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.NewReplacer("\u00ad", "", "\u0002", "", "\f", "\n", "\x00", "").Replace(s)
	return strings.TrimSpace(s)
}
