package pipeline

import (
	"path"
	"path/filepath"
	"strings"
)

// ShownSource is a document's source as the portal shows it: never a
// path on the server. A source is where ingest read the document, a file
// and, for JSON Lines, a line ("speeches.jsonl:12"). An absolute path
// (stored by a version that kept the path given to the CLI, or an
// upload's staging folder) is cut to its file name and line; a relative
// path is shown as it is.
func ShownSource(source string) string {
	file, line := splitSourceLine(source)
	if !isAbsPath(file) {
		return source
	}
	return baseName(file) + line
}

// RelativeSource rewrites a source read from a path given to the CLI so
// that it holds no server path: relative to the working folder wd when
// the file is inside it, else the file's name alone. The line stays.
func RelativeSource(source, wd string) string {
	file, line := splitSourceLine(source)
	if !isAbsPath(file) {
		return source
	}
	if wd != "" {
		if rel, err := filepath.Rel(wd, file); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel) + line
		}
	}
	return baseName(file) + line
}

// splitSourceLine splits "file:12" into "file" and ":12"; a source
// without a line number is all file.
func splitSourceLine(source string) (file, line string) {
	i := strings.LastIndexByte(source, ':')
	if i <= 0 || i == len(source)-1 {
		return source, ""
	}
	for _, r := range source[i+1:] {
		if r < '0' || r > '9' {
			return source, ""
		}
	}
	return source[:i], source[i:]
}

// isAbsPath reports whether p is an absolute path on Unix or Windows
// ("/srv/data/x.jsonl", `C:\data\x.jsonl`).
func isAbsPath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// baseName is the last element of a Unix or Windows path.
func baseName(p string) string {
	return path.Base(strings.ReplaceAll(p, `\`, "/"))
}
