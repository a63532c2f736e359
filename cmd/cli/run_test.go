package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise"
)

// badOptions gives, for every option of OptionFlags, a value the library
// refuses, and how to call the library with it.
var badOptions = map[string]func() error{
	"WithWidth":         func() error { return learnErr(pairwise.WithWidth(-1)) },
	"WithMinEdgeWeight": func() error { return learnErr(pairwise.WithMinEdgeWeight(0)) },
	"WithRadius":        func() error { return learnErr(pairwise.WithRadius(-1)) },
	"WithTolerance":     func() error { return learnErr(pairwise.WithTolerance(0)) },
	"WithMaxIterations": func() error { return learnErr(pairwise.WithMaxIterations(0)) },
	"WithWorkers":       func() error { return learnErr(pairwise.WithWorkers(0)) },
	"WithFalseEdgeRate": func() error { return learnErr(pairwise.WithFalseEdgeRate(2)) },
	"WithSelection":     func() error { return learnErr(pairwise.WithSelection(pairwise.CrossValidation{Folds: 1})) },
	"GibbsBurnIn":       func() error { return gibbsErr(pairwise.GibbsBurnIn(-1)) },
	"GibbsThin":         func() error { return gibbsErr(pairwise.GibbsThin(0)) },
	"GibbsChains":       func() error { return gibbsErr(pairwise.GibbsChains(0)) },
}

func learnErr(o pairwise.Option) error {
	s, err := pairwise.NewSamples(2, [][]int{{0, 1}, {1, 1}, {0, 0}})
	if err != nil {
		return err
	}
	_, err = pairwise.Learn(s, o)
	return err
}

func gibbsErr(o pairwise.GibbsOption) error {
	m, err := pairwise.NewModel(2, 2)
	if err != nil {
		return err
	}
	_, err = pairwise.NewGibbsSampler(m, o)
	return err
}

// TestFlagHint checks that every option of OptionFlags, given a value the
// library refuses, is restated with its flag and the value, "-lambda -1:
// ...", from the library's OptionError; and that the other errors lose the
// package's prefix, with the flag that avoids a too large edge test.
func TestFlagHint(t *testing.T) {
	for option, flag := range OptionFlags {
		bad, ok := badOptions[option]
		if !ok {
			t.Errorf("%s (%s): no bad value in badOptions", option, flag)
			continue
		}
		err := bad()
		var oe *pairwise.OptionError
		if !errors.As(err, &oe) || oe.Option != option {
			t.Errorf("%s: the library's error %v is not an OptionError for it", option, err)
			continue
		}
		want := fmt.Sprintf("%s %v: %s", flag, oe.Value, oe.Reason)
		if got := FlagHint(err).Error(); got != want {
			t.Errorf("%s: FlagHint gives %q, want %q", option, got, want)
		}
	}

	// An option the command does not set keeps its own name.
	if got, want := FlagHint(&pairwise.OptionError{Option: "WithSymmetrization", Value: 7, Reason: "unknown rule"}).Error(), "WithSymmetrization(7): unknown rule"; got != want {
		t.Errorf("unmapped option: %q, want %q", got, want)
	}

	s, err := pairwise.NewSamples(256, [][]int{{0, 255}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pairwise.Learn(s, pairwise.WithWidth(1))
	got := FlagHint(err).Error()
	if !errors.Is(err, pairwise.ErrEdgeTestTooLarge) || strings.HasPrefix(got, "pairwise:") || !strings.HasSuffix(got, "with WithMinEdgeWeight (flag -eta)") {
		t.Errorf("edge test too large: %q, want the message without the prefix, naming -eta", got)
	}
	// n·n·k² beyond MaxLearnEntries: the same hint (issue 30), from a
	// shard (-shard) fitted with another backend (-solver entropic), which
	// keeps the dense test (Learn and its shards with the default backend
	// run the sparse one, issue 33).
	s, err = pairwise.NewSamples(2, [][]int{make([]int, 16385), append([]int{1}, make([]int, 16384)...)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pairwise.LearnShard(s, 0, 1000, pairwise.WithWidth(1), pairwise.WithSolver(pairwise.EntropicMirror{}))
	if err == nil {
		t.Fatal("a shard of n = 16,385 with EntropicMirror and without η learned")
	}
	got = FlagHint(err).Error()
	if !strings.Contains(got, "MaxLearnEntries") || !strings.HasSuffix(got, "with WithMinEdgeWeight (flag -eta)") {
		t.Errorf("MaxLearnEntries: %q, want the message naming -eta", got)
	}
}

// TestInterrupted checks that a run stopped by Ctrl-C (its context
// cancelled, the error wrapped by the library) says so, and that nil
// stays nil.
func TestInterrupted(t *testing.T) {
	if err := Interrupted(fmt.Errorf("pairwise: Bootstrap: %w", context.Canceled)); err.Error() != "interrupted" {
		t.Errorf("cancelled run: %q, want \"interrupted\"", err)
	}
	if err := Interrupted(nil); err != nil {
		t.Errorf("nil: %v", err)
	}
}

// TestStripPrefixes: the command's errors lose the prefixes of package
// pairwise and package protein on every line, and keep other text.
func TestStripPrefixes(t *testing.T) {
	for in, want := range map[string]string{
		"pairwise: ReadCSV: line 3: bad":                    "line 3: bad",
		"protein: ReadAlignment: line 3: ragged alignment":  "line 3: ragged alignment",
		"protein: Reweight: a\npairwise: b":                 "a\nb",
		"protein: Alignment.Samples: sequence 2: weight -1": "sequence 2: weight -1",
		"proteins: x": "proteins: x",
	} {
		if got := StripPrefixes(in); got != want {
			t.Errorf("StripPrefixes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMainHelp: "help COMMAND" prints the command's help and exits 0; an
// unknown command or help topic exits 2 with usage, as Go's flag package
// does for an unknown flag (issue 31: "help nosuch" printed nothing and
// exited 0).
func TestMainHelp(t *testing.T) {
	ran := ""
	cmds := []Command{{Name: "learn", Summary: "learn a model", Run: func(args []string, stdout, stderr io.Writer) error {
		ran = strings.Join(args, " ")
		fmt.Fprintln(stderr, "usage of learn")
		return flag.ErrHelp
	}}}
	usage := func(w io.Writer) { Usage(w, cmds) }
	for _, tc := range []struct {
		args   []string
		code   int
		ran    string
		stderr string
	}{
		{[]string{"help", "learn"}, 0, "-h", "usage of learn"},
		{[]string{"help", "nosuch"}, 2, "", `unknown help topic "nosuch"`},
		{[]string{"help", "learn", "more"}, 2, "", "one topic at most"},
		{[]string{"nosuch"}, 2, "", `unknown command "nosuch"`},
		{[]string{"help"}, 0, "", "learn a model"},
		{nil, 2, "", "learn a model"},
	} {
		ran = ""
		var stdout, stderr bytes.Buffer
		code := Main("pairwise", cmds, usage, tc.args, &stdout, &stderr)
		if code != tc.code || ran != tc.ran || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("Main(%q) = %d, ran %q, stderr %q; want %d, ran %q, stderr containing %q", tc.args, code, ran, stderr.String(), tc.code, tc.ran, tc.stderr)
		}
	}
}
