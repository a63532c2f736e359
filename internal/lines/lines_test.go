package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 100) // longer than the 16-byte buffer below
	for _, test := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\r\nb\n\nc", []string{"a", "b", "", "c"}},
		{long + "\r\n" + long, []string{long, long}},
	} {
		lr := NewReader(bufio.NewReaderSize(strings.NewReader(test.in), 16))
		var got []string
		for {
			line, ok, err := lr.Next()
			if err != nil {
				t.Fatalf("%q: %v", test.in, err)
			}
			if !ok {
				break
			}
			got = append(got, string(line))
			if lr.Line() != len(got) {
				t.Errorf("%q: Line() = %d after %d lines", test.in, lr.Line(), len(got))
			}
		}
		if strings.Join(got, "|") != strings.Join(test.want, "|") || len(got) != len(test.want) {
			t.Errorf("%q: lines %q, want %q", test.in, got, test.want)
		}
	}
	// A reading error is returned with the number of the line it broke.
	bad := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(errors.New("boom")))
	lr := NewReader(bufio.NewReader(bad))
	if _, ok, err := lr.Next(); !ok || err != nil {
		t.Fatalf("first line: ok %v, err %v", ok, err)
	}
	if _, _, err := lr.Next(); err == nil || lr.Line() != 2 {
		t.Errorf("error %v at line %d, want boom at line 2", err, lr.Line())
	}
}
