package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line progress bar on a terminal: label, a bar, done
// of total, elapsed time and an estimate of the time left. It draws nothing
// until the work has run for a second, nothing when quiet, and nothing when
// w is not a terminal, so logs and pipes stay clean. It is safe for
// concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	total   int
	done    int
	start   time.Time
	last    time.Time
	enabled bool
	drawn   bool
	bytes   bool // count in bytes, shown in MB
	// Stage, when positive, is the units of the first stage: beyond it
	// (the learner's nodes done, its edge test running) the label
	// becomes "edge test".
	Stage int
}

// NewProgress returns a progress bar for total units of work written to w.
func NewProgress(w io.Writer, label string, total int, quiet bool) *Progress {
	return &Progress{w: w, label: label, total: total, start: time.Now(), enabled: !quiet && IsTerminal(w)}
}

// NewByteProgress returns a progress bar for reading total bytes (0 when
// the size is not known in advance, as for a pipe).
func NewByteProgress(w io.Writer, label string, total int64, quiet bool) *Progress {
	p := NewProgress(w, label, int(total), quiet)
	p.bytes = true
	return p
}

// IsTerminal reports whether w is a character device such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice != 0
}

// Set records that done units of the total are finished and redraws the bar
// at most ten times a second.
func (p *Progress) Set(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	now := time.Now()
	if !p.enabled || now.Sub(p.start) < time.Second || (now.Sub(p.last) < 100*time.Millisecond && (done < p.total || p.total <= 0)) {
		return
	}
	p.last = now
	p.draw(now)
}

// Func returns a callback for pairwise.WithProgress that drives this bar,
// with the total the learner reports (the nodes, and the edge test's
// units when it runs).
func (p *Progress) Func() func(done, total int) {
	return func(done, total int) {
		p.mu.Lock()
		if total > 0 {
			p.total = total
		}
		if p.Stage > 0 && done >= p.Stage && done < p.total {
			p.label = "edge test"
		}
		p.mu.Unlock()
		p.Set(done)
	}
}

// Finish ends the line if a bar was drawn.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// draw writes the bar's line (over the previous one) as of now; the
// caller holds p.mu.
func (p *Progress) draw(now time.Time) {
	const width = 30
	elapsed := now.Sub(p.start)
	if p.total <= 0 {
		// Unknown total: no bar and no estimate, only what is done.
		fmt.Fprintf(p.w, "\r%s %s  %s elapsed ", p.label, p.count(p.done), elapsed.Round(time.Second))
		p.drawn = true
		return
	}
	frac := min(float64(p.done)/float64(p.total), 1)
	filled := int(frac * width)
	eta := "?"
	if p.done > 0 && p.done < p.total {
		eta = (time.Duration(float64(elapsed) * (1 - frac) / frac)).Round(time.Second).String()
	} else if p.done >= p.total {
		eta = "0s"
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %s/%s  %s elapsed, %s left ",
		p.label, strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		p.count(p.done), p.count(p.total), elapsed.Round(time.Second), eta)
	p.drawn = true
}

// count formats a number of units: plain, or in MB for bytes.
func (p *Progress) count(v int) string {
	if p.bytes {
		return fmt.Sprintf("%.1f MB", float64(v)/1e6)
	}
	return fmt.Sprint(v)
}
