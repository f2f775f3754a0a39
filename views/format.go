package views

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// formatCount writes n with thousands separators: 1234567 → "1,234,567".
func formatCount[T ~int | ~int64](n T) string { return pipeline.Thousands(n) }

// formatScore shows a retrieval score with three decimals.
func formatScore(s float64) string {
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// formatTook shows how long a search took, in milliseconds below ten
// seconds.
func formatTook(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case ms < 10000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
}

// formatTime shows an instant in UTC to the minute, or "never" for the zero
// time.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// machineTime is the datetime attribute of a <time> element.
func machineTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// plural picks the singular or plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// excerpt returns the start of text, at most limit characters, cut at a
// word boundary when one is near, with an ellipsis when anything was cut.
func excerpt(text string, limit int) string {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	cut := 0
	for i := range text {
		if limit == 0 {
			cut = i
			break
		}
		limit--
	}
	head := text[:cut]
	if sp := strings.LastIndexAny(head, " \t\n"); sp > len(head)*3/4 {
		head = head[:sp]
	}
	return strings.TrimSpace(head) + "…"
}

// metaField is one row of a document's metadata table.
type metaField struct {
	Key   string
	Value string
	// Link is set when the value is an absolute http(s) URL worth linking.
	Link string
}

// metadataFields returns the metadata sorted by key. Values that are
// absolute http or https URLs also become links; anything else, including
// javascript: URLs, stays text.
func metadataFields(m map[string]string) []metaField {
	fields := make([]metaField, 0, len(m))
	for k, v := range m {
		if k == pipeline.MetaPageStarts {
			continue // shown as each passage's page instead
		}
		f := metaField{Key: k, Value: v}
		if u, err := url.Parse(strings.TrimSpace(v)); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			f.Link = u.String()
		}
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Key < fields[j].Key })
	return fields
}

// formatDuration shows an elapsed time to the second below an hour and to
// the minute above: "45 s", "3 min 5 s", "2 h 7 min".
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + " s"
	case s < 3600:
		m, rest := s/60, s%60
		if rest == 0 {
			return strconv.FormatInt(m, 10) + " min"
		}
		return strconv.FormatInt(m, 10) + " min " + strconv.FormatInt(rest, 10) + " s"
	default:
		m := (s + 30) / 60
		h, rest := m/60, m%60
		if rest == 0 {
			return strconv.FormatInt(h, 10) + " h"
		}
		return strconv.FormatInt(h, 10) + " h " + strconv.FormatInt(rest, 10) + " min"
	}
}

// formatEstimate words an estimated duration as roughly as it is known:
// "a few seconds" below 5 seconds, then "about" the time to 5 seconds
// below a minute, to the minute below an hour and to 5 minutes above:
// "about 40 s", "about 3 min", "about 1 h 5 min".
func formatEstimate(d time.Duration) string {
	switch {
	case d < 5*time.Second:
		return "a few seconds"
	case d < 58*time.Second:
		return "about " + formatDuration(d.Round(5*time.Second))
	case d < 59*time.Minute+30*time.Second:
		return "about " + formatDuration(d.Round(time.Minute))
	default:
		return "about " + formatDuration(d.Round(5*time.Minute))
	}
}

// formatPercent shows a share in [0, 1] as a whole percentage: "87%".
// Values outside the range are clamped.
func formatPercent(x float64) string {
	if x != x || x < 0 { // NaN or negative
		x = 0
	}
	if x > 1 {
		x = 1
	}
	return strconv.FormatFloat(x*100, 'f', 0, 64) + "%"
}
