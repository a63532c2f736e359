package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCmd runs the command in-process with args and returns the exit code,
// standard output and standard error.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runOK runs the command in-process with args, fails the test unless it
// exits 0, and returns its standard output.
func runOK(t *testing.T, args ...string) (stdout string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("study %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// TestUsage checks the dispatch: no command is a usage error (exit 2), -h
// lists every command and exits 0, an unknown command exits 2, and a
// command's -h prints its help and exits 0.
func TestUsage(t *testing.T) {
	if code, _, stderr := runCmd(t); code != 2 || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no arguments: exit %d, stderr %q; want 2 and the usage", code, stderr)
	}
	code, _, stderr := runCmd(t, "-h")
	if code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, c := range commands {
		if !strings.Contains(stderr, "  "+c.Name+" ") {
			t.Errorf("-h does not list %q:\n%s", c.Name, stderr)
		}
		code, _, help := runCmd(t, c.Name, "-h")
		if code != 0 || !strings.Contains(help, "Usage: go run . "+c.Name) {
			t.Errorf("%s -h: exit %d, stderr %q; want 0 and its usage", c.Name, code, help)
		}
	}
	if code, _, stderr := runCmd(t, "learn"); code != 2 || !strings.Contains(stderr, `unknown command "learn"`) {
		t.Errorf("learn: exit %d, stderr %q; want 2 naming the unknown command", code, stderr)
	}
}
