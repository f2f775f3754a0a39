//go:build !race

package index_test

// raceEnabled is set when the tests run under the race detector: the
// effectiveness runs skip then (make test runs them in its race-free pass).
const raceEnabled = false
