// Package static embeds the portal's stylesheet, icon and any small scripts,
// and fingerprints them so pages can link to a URL that changes whenever the
// content does.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

//go:embed assets
var embedded embed.FS

// FS holds the assets at its root: "style.css", "favicon.svg"...
var FS fs.FS = mustSub(embedded, "assets")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		// fs.Sub fails only for an invalid path, which is a constant here.
		panic("static: " + err.Error())
	}
	return sub
}

var (
	hashOnce sync.Once
	hashes   map[string]string
)

// Hash returns a short hex digest of the named asset's content, or "" when
// there is no such asset. It changes whenever the file does, so it serves
// as a cache-busting version and as an ETag.
func Hash(name string) string {
	hashOnce.Do(func() {
		hashes = make(map[string]string)
		// The walk cannot fail on an embedded tree; a file that cannot be
		// read simply gets no hash and is served without long caching.
		_ = fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := fs.ReadFile(FS, path)
			if err != nil {
				return nil
			}
			sum := sha256.Sum256(b)
			hashes[path] = hex.EncodeToString(sum[:6])
			return nil
		})
	})
	return hashes[name]
}
