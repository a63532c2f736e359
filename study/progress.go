package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar on a terminal: label, a bar, done
// of total, elapsed time and an estimate of the time left. It draws nothing
// until the work has run for a second, nothing when quiet, and nothing when
// w is not a terminal, so logs and pipes stay clean. It is safe for
// concurrent use. (A smaller copy of cmd/pairwise's bar: units only, no
// bytes.)
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	total   int
	done    int
	start   time.Time
	last    time.Time
	enabled bool
	drawn   bool
}

// newProgress returns a progress bar for total units of work written to w.
func newProgress(w io.Writer, label string, total int, quiet bool) *progress {
	return &progress{w: w, label: label, total: total, start: time.Now(), enabled: !quiet && isTerminal(w)}
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Set records that done units of the total are finished and redraws the bar
// at most ten times a second.
func (p *progress) Set(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	now := time.Now()
	if !p.enabled || now.Sub(p.start) < time.Second || (now.Sub(p.last) < 100*time.Millisecond && done < p.total) {
		return
	}
	p.last = now
	p.draw(now)
}

// Finish ends the line if a bar was drawn.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) draw(now time.Time) {
	const width = 30
	elapsed := now.Sub(p.start)
	frac := 1.0
	if p.total > 0 {
		frac = min(float64(p.done)/float64(p.total), 1)
	}
	filled := int(frac * width)
	eta := "?"
	if p.done > 0 && p.done < p.total {
		eta = (time.Duration(float64(elapsed) * (1 - frac) / frac)).Round(time.Second).String()
	} else if p.done >= p.total {
		eta = "0s"
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d  %s elapsed, %s left ",
		p.label, strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		p.done, p.total, elapsed.Round(time.Second), eta)
	p.drawn = true
}
