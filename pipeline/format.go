package pipeline

import "strconv"

// Thousands writes n with commas between groups of three digits, as the
// portal and the CLI show counts: 1234567 → "1,234,567".
func Thousands[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
