package pairwise

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// validName reports whether name can name a variable in a CSV header that
// ReadCSV reads back unchanged, and if not, why: a name must be non-empty,
// must not be an integer (which would make the header look like data), must
// not contain a comma, a double quote or a line break, and must not begin or
// end with white space.
func validName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case strings.ContainsAny(name, ",\"\r\n"):
		return fmt.Errorf("name %q contains a comma, a double quote or a line break", name)
	case string(trimName([]byte(name))) != name:
		return fmt.Errorf("name %q begins or ends with white space", name)
	}
	if _, ok, _ := parseInteger([]byte(name)); ok {
		return fmt.Errorf("name %q is an integer", name)
	}
	return nil
}

// checkNames validates the variable names of n variables for fn.
func checkNames(fn string, names []string, n int) error {
	if len(names) != n {
		return fmt.Errorf("pairwise: %s: %d names for %d variables", fn, len(names), n)
	}
	seen := make(map[string]int, n)
	for i, name := range names {
		if err := validName(name); err != nil {
			return fmt.Errorf("pairwise: %s: variable %d: %w", fn, i, err)
		}
		if j, dup := seen[name]; dup {
			return fmt.Errorf("pairwise: %s: variables %d and %d have the same name %q", fn, j, i, name)
		}
		seen[name] = i
	}
	return nil
}

// trimName removes spaces and byte order marks around a name, so that a
// name written by WriteCSV reads back unchanged.
func trimName(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return r == '\ufeff' || unicode.IsSpace(r) })
}

// parseInteger parses [+-]?[0-9]+. ok is false when field is not of that
// form; big is true when its magnitude exceeds MaxAlphabet (v is then
// meaningless).
func parseInteger(field []byte) (v int, ok, big bool) {
	neg := false
	if len(field) > 0 && (field[0] == '+' || field[0] == '-') {
		neg = field[0] == '-'
		field = field[1:]
	}
	if len(field) == 0 {
		return 0, false, false
	}
	for _, c := range field {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if !big {
			v = 10*v + int(c-'0')
			big = v > MaxAlphabet
		}
	}
	if neg {
		v = -v
	}
	return v, true, big
}
