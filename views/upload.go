package views

import (
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/uploads"
)

// Corpus upload pages (administrators only). web/routes.go registers the
// same paths.
const (
	// UploadPath shows the upload form and the recent uploads; the form
	// posts to it.
	UploadPath = "/admin/upload"
	// UploadsPath precedes an upload's id on its progress page.
	UploadsPath = "/admin/uploads"
	// FieldUploadFiles is the form's file input; it takes several files.
	FieldUploadFiles = "files"
	// NavUpload is the upload pages' section of the navigation.
	NavUpload NavItem = "upload"
)

// UploadURL links to an upload's progress page.
func UploadURL(id int64) string {
	return UploadsPath + "/" + strconv.FormatInt(id, 10)
}

// UploadCancelURL is where an upload page's cancel form posts.
func UploadCancelURL(id int64) string { return UploadURL(id) + "/cancel" }

// UploadPage is the view model of the upload form.
type UploadPage struct {
	Site Site
	// MaxBytes and MaxFileBytes are the limits in words ("200 MiB"): all
	// the files of an upload, and one file.
	MaxBytes     string
	MaxFileBytes string
	// Recent lists the most recent uploads, newest first; Limit is how many
	// the list shows at most.
	Recent []uploads.Upload
	Limit  int
	// Problem says why the last upload was refused; empty on a first
	// visit.
	Problem string
}

// uploadAccept is the file input's accept attribute.
func uploadAccept() string {
	return strings.Join(uploads.AcceptedTypes, ",") + ",.gz"
}

// UploadStatusPage is the view model of an upload's progress page.
type UploadStatusPage struct {
	Site   Site
	Upload uploads.Upload
}

// live reports whether the page refreshes itself: while the upload is
// queued or running.
func (vm UploadStatusPage) live() bool { return !vm.Upload.State.Finished() }

// shownProblems says how many of the problems the page lists and how
// many there were.
func (vm UploadStatusPage) shownProblems() string {
	n, all := len(vm.Upload.Errors), vm.Upload.Problems()
	if n >= all {
		return ""
	}
	return "Showing the first " + formatCount(n) + " of " + formatCount(all) + " problems."
}

// uploadStateText words an upload's state.
func uploadStateText(s uploads.State) string {
	switch s {
	case uploads.Queued:
		return "Queued"
	case uploads.Running:
		return "Reading the files"
	case uploads.Done:
		return "Done"
	case uploads.Failed:
		return "Failed"
	}
	return string(s)
}

// uploadStateWords words an upload's state, saying "Cancelled" for an
// upload cancelled from its page.
func uploadStateWords(u uploads.Upload) string {
	if u.CancelledBy != "" {
		return "Cancelled"
	}
	return uploadStateText(u.State)
}

// uploadFileNames lists an upload's file names for the list of uploads.
func uploadFileNames(u uploads.Upload) string {
	names := make([]string, len(u.Files))
	for i, f := range u.Files {
		names[i] = f.Name
	}
	return excerpt(strings.Join(names, ", "), 80)
}

// uploadBytesProgress words how much of an upload's files has been read:
// "1.5 MiB of 3.0 MiB (50%)".
func uploadBytesProgress(u uploads.Upload) string {
	total := u.TotalBytes()
	read := min(u.BytesRead, total)
	s := formatBytes(read) + " of " + formatBytes(total)
	if total > 0 {
		s += " (" + formatPercent(float64(read)/float64(total)) + ")"
	}
	return s
}

// uploadProgressMax and uploadProgressValue are the <progress> element's
// attributes: bytes read of the total.
func uploadProgressMax(u uploads.Upload) string {
	return strconv.FormatInt(max(u.TotalBytes(), 1), 10)
}

func uploadProgressValue(u uploads.Upload) string {
	return strconv.FormatInt(min(u.BytesRead, max(u.TotalBytes(), 1)), 10)
}

// formatBytes words a size: "512 bytes", "3.0 KiB", "1.5 MiB", "2.0 GiB".
func formatBytes(n int64) string {
	const unit = 1024
	switch {
	case n < unit:
		return strconv.FormatInt(n, 10) + " " + plural(int(n), "byte", "bytes")
	case n < unit*unit:
		return strconv.FormatFloat(float64(n)/unit, 'f', 1, 64) + " KiB"
	case n < unit*unit*unit:
		return strconv.FormatFloat(float64(n)/(unit*unit), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(unit*unit*unit), 'f', 1, 64) + " GiB"
}
