package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxLineBytes bounds one line of a queries or requests file.
const maxLineBytes = 1 << 20

// eachLine calls fn with every non-blank line of the JSON Lines file at
// path. A line longer than maxLineBytes, or one fn rejects, is reported as
// "skipped: PATH:LINE: reason" on stderr and counted as bad; the other
// lines still run. Cancelling ctx stops at once with its error.
func eachLine(ctx context.Context, path string, stderr io.Writer, fn func(raw []byte) error) (ok, bad int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		raw, tooLong, rerr := readLine(r, maxLineBytes)
		if len(raw) == 0 && !tooLong && rerr == io.EOF {
			return ok, bad, nil
		}
		var lerr error
		switch {
		case tooLong:
			lerr = fmt.Errorf("line longer than %d bytes", maxLineBytes)
		case strings.TrimSpace(string(raw)) == "":
		default:
			if lerr = fn(raw); lerr == nil {
				ok++
			}
		}
		if ctx.Err() != nil {
			return ok, bad, ctx.Err()
		}
		if lerr != nil {
			fmt.Fprintf(stderr, "skipped: %s:%d: %v\n", path, line, lerr)
			bad++
		}
		if rerr == io.EOF {
			return ok, bad, nil
		}
		if rerr != nil {
			return ok, bad, fmt.Errorf("read %s: %w", path, rerr)
		}
	}
}

// readLine reads one line; a line longer than max bytes is consumed
// without being kept and reported with tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) <= max {
			line = append(line, chunk...)
		} else {
			tooLong, line = true, nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}
