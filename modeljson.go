package pairwise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The model JSON format is described in ReadModel's doc, where go doc
// shows it.

// SetNames names the variables of m, one name a variable: WriteModel writes
// them, and the samplers' samples can carry them (see Samples.WithNames). A
// nil names removes the names. It returns an error unless len(names) is n,
// the names are distinct, and each can stand in a CSV header that ReadCSV
// reads back: non-empty, not an integer, without commas, double quotes, line
// breaks or surrounding white space. names is copied.
func (m *Model) SetNames(names []string) error {
	if names == nil {
		m.names = nil
		return nil
	}
	if err := checkNames("SetNames", names, m.n); err != nil {
		return err
	}
	m.names = append([]string(nil), names...)
	return nil
}

// Names returns a copy of the variable names set by SetNames or read by
// ReadModel, or nil when the variables have no names.
func (m *Model) Names() []string {
	if m.names == nil {
		return nil
	}
	return append([]string(nil), m.names...)
}

// WriteModel writes m to w in the model JSON format (see ReadModel), one
// coupling and one field a line. It returns the first write error of w.
func (m *Model) WriteModel(w io.Writer) error {
	if _, err := w.Write(m.appendJSON(nil)); err != nil {
		return fmt.Errorf("pairwise: WriteModel: %w", err)
	}
	return nil
}

// MarshalJSON returns m in the model JSON format, as WriteModel writes it;
// with UnmarshalJSON it lets a Model be a member of a caller's JSON
// document.
func (m *Model) MarshalJSON() ([]byte, error) {
	return m.appendJSON(nil), nil
}

// UnmarshalJSON sets m to the model that data holds in the model JSON
// format, with the checks and errors of ReadModel (positions are relative
// to data). On error m is unchanged.
func (m *Model) UnmarshalJSON(data []byte) error {
	got, err := parseModel("Model.UnmarshalJSON", data)
	if err != nil {
		return err
	}
	*m = *got
	return nil
}

// ReadModel reads a model in the model JSON format from r. ReadModel reads
// r to its end; it does not close r.
//
// The model JSON format stores a Model as one JSON object:
//
//	{
//	  "n": 3,
//	  "k": 2,
//	  "names": ["smoker", "cough", "fever"],
//	  "couplings": [
//	    {"i": 0, "j": 1, "w": [[0.5, -0.5], [-0.5, 0.5]]},
//	    {"i": 1, "j": 2, "w": [[-0.25, 0.25], [0.25, -0.25]]}
//	  ],
//	  "fields": [[-0.1, 0.1], [0, 0], [0, 0]]
//	}
//
// with these members:
//
//   - "n": the number of variables, at least 1. Required.
//   - "k": the alphabet size, 2 to MaxAlphabet; states are 0..k-1. Required.
//   - "names": the variable names, one a variable, distinct, each usable in a
//     CSV header (see Samples.WithNames). Optional; absent when the model has
//     no names.
//   - "couplings": the coupled pairs, each with 0-based variable indices "i"
//     and "j" (i ≠ j) and the k×k matrix "w" = W_ij, row a and column b
//     holding W_ij(a, b); W_ji = W_ij^T is implied, so each pair appears once.
//     WriteModel writes the pairs with a nonzero W_ij, i < j, sorted by
//     (i, j); ReadModel also accepts i > j, and an all-zero "w" (no
//     coupling). Required, possibly empty.
//   - "fields": the n fields θ_i, each an array of k numbers θ_i(0..k-1).
//     Required.
//
// Numbers are JSON numbers, so every value is finite; WriteModel writes the
// shortest decimal that reads back to the same float64, so a model survives
// WriteModel then ReadModel exactly. For an Ising model (k = 2) built by
// NewIsing, "w" is [[A_ij, -A_ij], [-A_ij, A_ij]] and the field
// [-θ_i, θ_i].
//
// It returns a *ParseError naming the line and column (1-based, columns
// counted in bytes) and the JSON path of the problem, such as
//
//	pairwise: ReadModel: line 6, column 5: couplings[1].w[0]: 3 entries, want k = 2
//
// for malformed JSON, a missing or unknown member, a value of the wrong
// type, n < 1, k outside 2..MaxAlphabet, a count of names, fields or matrix
// entries that does not match n or k, a bad or repeated name, a coupling
// with i == j, an index outside 0..n-1, the same pair twice, or a number
// too large for a float64; and an error for a read error of r or a nil r.
func ReadModel(r io.Reader) (*Model, error) {
	if r == nil {
		return nil, errors.New("pairwise: ReadModel: nil reader")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pairwise: ReadModel: %w", err)
	}
	return parseModel("ReadModel", data)
}

// appendJSON appends the model JSON text of m to dst.
func (m *Model) appendJSON(dst []byte) []byte {
	dst = append(dst, "{\n  \"n\": "...)
	dst = strconv.AppendInt(dst, int64(m.n), 10)
	dst = append(dst, ",\n  \"k\": "...)
	dst = strconv.AppendInt(dst, int64(m.k), 10)
	if m.names != nil {
		dst = append(dst, ",\n  \"names\": ["...)
		for i, name := range m.names {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			b, _ := json.Marshal(name) // a string always marshals
			dst = append(dst, b...)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, ",\n  \"couplings\": ["...)
	k := m.k
	first := true
	for i := 0; i < m.n; i++ {
		for _, nb := range m.adj[i] {
			if nb.j <= i {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, "\n    {\"i\": "...)
			dst = strconv.AppendInt(dst, int64(i), 10)
			dst = append(dst, ", \"j\": "...)
			dst = strconv.AppendInt(dst, int64(nb.j), 10)
			dst = append(dst, ", \"w\": ["...)
			for a := 0; a < k; a++ {
				if a > 0 {
					dst = append(dst, ", "...)
				}
				dst = appendNumbers(dst, nb.w[a*k:(a+1)*k])
			}
			dst = append(dst, "]}"...)
		}
	}
	if !first {
		dst = append(dst, "\n  "...)
	}
	dst = append(dst, "],\n  \"fields\": ["...)
	for i := 0; i < m.n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		dst = appendNumbers(dst, m.theta[i*k:(i+1)*k])
	}
	return append(dst, "\n  ]\n}\n"...)
}

// appendNumbers appends x as a JSON array, each number in the shortest form
// that parses back to the same float64.
func appendNumbers(dst []byte, x []float64) []byte {
	dst = append(dst, '[')
	for a, v := range x {
		if a > 0 {
			dst = append(dst, ", "...)
		}
		dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return append(dst, ']')
}

// modelParser walks the JSON text of a model with a token decoder, keeping
// the byte offset of every value so that errors can name a line and column.
type modelParser struct {
	fn   string
	data []byte
	dec  *json.Decoder
}

// jsonCoupling is one element of "couplings" as decoded; nil pointers mark
// missing members.
type jsonCoupling struct {
	I *json.Number `json:"i"`
	J *json.Number `json:"j"`
	W *[][]float64 `json:"w"`
}

// pos is a value's byte offset and JSON path, for errors.
type pos struct {
	off  int64
	path string
}

// parsedCoupling is a coupling with the position of its element.
type parsedCoupling struct {
	jsonCoupling
	at pos
}

func parseModel(fn string, data []byte) (*Model, error) {
	p := &modelParser{fn: fn, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	p.dec.DisallowUnknownFields()

	start := p.skip(0)
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.decodeErr(pos{start, ""}, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errorf(pos{start, ""}, "the model must be a JSON object {...}, found %s", describeToken(tok))
	}
	var (
		n, k      *int
		nAt, kAt  pos
		names     []string
		namePos   []pos
		namesAt   pos
		hasNames  bool
		couplings []parsedCoupling
		fields    [][]float64
		fieldPos  []pos
		fieldsAt  pos
		seen      = map[string]bool{}
	)
	for p.dec.More() {
		keyAt := p.skip(p.dec.InputOffset())
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.decodeErr(pos{keyAt, ""}, err)
		}
		key := tok.(string) // object keys are strings
		at := pos{p.skip(p.dec.InputOffset()), key}
		if seen[key] {
			return nil, p.errorf(pos{keyAt, ""}, "member %q appears twice", key)
		}
		seen[key] = true
		switch key {
		case "n", "k":
			v, err := p.integer(at)
			if err != nil {
				return nil, err
			}
			if key == "n" {
				n, nAt = &v, at
			} else {
				k, kAt = &v, at
			}
		case "names":
			hasNames, namesAt = true, at
			names = []string{}
			err = p.array(at, func(el pos) error {
				var s string
				if err := p.dec.Decode(&s); err != nil {
					return p.decodeErr(el, err)
				}
				names = append(names, s)
				namePos = append(namePos, el)
				return nil
			})
		case "couplings":
			couplings = []parsedCoupling{}
			err = p.array(at, func(el pos) error {
				var c jsonCoupling
				if err := p.dec.Decode(&c); err != nil {
					return p.decodeErr(el, err)
				}
				couplings = append(couplings, parsedCoupling{c, el})
				return nil
			})
		case "fields":
			fields, fieldsAt = [][]float64{}, at
			err = p.array(at, func(el pos) error {
				var f []float64
				if err := p.dec.Decode(&f); err != nil {
					return p.decodeErr(el, err)
				}
				if f == nil {
					return p.errorf(el, "want an array of k numbers, found null")
				}
				fields = append(fields, f)
				fieldPos = append(fieldPos, el)
				return nil
			})
		default:
			return nil, p.errorf(pos{keyAt, ""}, "unknown member %q (want n, k, names, couplings, fields)", key)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := p.dec.Token(); err != nil { // the closing brace
		return nil, p.decodeErr(pos{p.dec.InputOffset(), ""}, err)
	}
	if rest := data[p.dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
		end := int64(len(data) - len(bytes.TrimLeft(rest, " \t\r\n")))
		return nil, p.errorf(pos{end, ""}, "unexpected data after the model object")
	}
	top := pos{start, ""}
	for _, key := range []string{"n", "k", "couplings", "fields"} {
		if !seen[key] {
			return nil, p.errorf(top, "missing member %q", key)
		}
	}
	if *n < 1 {
		return nil, p.errorf(nAt, "n = %d variables, want at least 1", *n)
	}
	if *k < 2 || *k > MaxAlphabet {
		return nil, p.errorf(kAt, "alphabet size k = %d, want 2 to %d", *k, MaxAlphabet)
	}
	if len(fields) != *n {
		return nil, p.errorf(fieldsAt, "%d fields, want n = %d", len(fields), *n)
	}
	for i, f := range fields {
		if len(f) != *k {
			return nil, p.errorf(fieldPos[i], "%d entries, want k = %d", len(f), *k)
		}
	}
	m, err := NewModel(*n, *k)
	if err != nil {
		return nil, p.errorf(top, "%v", err)
	}
	for i, f := range fields {
		copy(m.theta[i*m.k:], f)
	}
	if hasNames {
		if len(names) != m.n {
			return nil, p.errorf(namesAt, "%d names, want n = %d", len(names), m.n)
		}
		seenName := make(map[string]int, m.n)
		for i, name := range names {
			if err := validName(name); err != nil {
				return nil, p.errorf(namePos[i], "%v", err)
			}
			if j, dup := seenName[name]; dup {
				return nil, p.errorf(namePos[i], "%q repeats names[%d]", name, j)
			}
			seenName[name] = i
		}
		m.names = names
	}
	pairs := make(map[[2]int]string, len(couplings))
	for _, c := range couplings {
		at := c.at
		switch {
		case c.I == nil:
			return nil, p.errorf(at, "missing member \"i\"")
		case c.J == nil:
			return nil, p.errorf(at, "missing member \"j\"")
		case c.W == nil:
			return nil, p.errorf(at, "missing member \"w\" (or null)")
		}
		i, err := p.index(at, "i", *c.I, m.n)
		if err != nil {
			return nil, err
		}
		j, err := p.index(at, "j", *c.J, m.n)
		if err != nil {
			return nil, err
		}
		if i == j {
			return nil, p.errorf(at, "i = j = %d, a variable has no coupling with itself (put it in fields)", i)
		}
		key := [2]int{min(i, j), max(i, j)}
		if prev, dup := pairs[key]; dup {
			return nil, p.errorf(at, "the pair (%d, %d) repeats %s", key[0], key[1], prev)
		}
		pairs[key] = at.path
		w := *c.W
		if len(w) != m.k {
			return nil, p.errorf(pos{at.off, at.path + ".w"}, "%d rows, want k = %d", len(w), m.k)
		}
		data := make([]float64, m.k*m.k)
		for a, row := range w {
			if len(row) != m.k {
				return nil, p.errorf(pos{at.off, fmt.Sprintf("%s.w[%d]", at.path, a)}, "%d entries, want k = %d", len(row), m.k)
			}
			copy(data[a*m.k:], row)
		}
		m.setCoupling(i, j, data)
	}
	return m, nil
}

// skip returns the offset of the next byte at or after off that is not
// white space, a colon or a comma: the start of the next value.
func (p *modelParser) skip(off int64) int64 {
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// array reads a JSON array at at, calling elem for each element with its
// position; elem must consume the element.
func (p *modelParser) array(at pos, elem func(el pos) error) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.decodeErr(at, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return p.errorf(at, "want an array, found %s", describeToken(tok))
	}
	for x := 0; p.dec.More(); x++ {
		el := pos{p.skip(p.dec.InputOffset()), fmt.Sprintf("%s[%d]", at.path, x)}
		if err := elem(el); err != nil {
			return err
		}
	}
	if _, err := p.dec.Token(); err != nil {
		return p.decodeErr(at, err)
	}
	return nil
}

// integer reads a JSON number at at that must be an integer.
func (p *modelParser) integer(at pos) (int, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return 0, p.decodeErr(at, err)
	}
	num, ok := tok.(json.Number)
	if !ok {
		return 0, p.errorf(at, "want an integer, found %s", describeToken(tok))
	}
	v, err := strconv.Atoi(string(num))
	if err != nil {
		return 0, p.errorf(at, "%s is not an integer of a sensible size", num)
	}
	return v, nil
}

// index parses the variable index member name of a coupling.
func (p *modelParser) index(at pos, name string, num json.Number, n int) (int, error) {
	v, err := strconv.Atoi(string(num))
	if err != nil {
		return 0, p.errorf(at, "%q = %s is not an integer", name, num)
	}
	if v < 0 || v >= n {
		return 0, p.errorf(at, "%q = %d is outside 0..%d (n = %d)", name, v, n-1, n)
	}
	return v, nil
}

// describeToken names a JSON token for an error message.
func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' || v == '}' {
			return "an object"
		}
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + string(v)
	case bool:
		return fmt.Sprintf("%t", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// errorf returns a *ParseError at position at.
func (p *modelParser) errorf(at pos, format string, args ...any) error {
	line, col := lineCol(p.data, at.off)
	return &ParseError{Func: p.fn, Line: line, Column: col, Path: at.path, Reason: fmt.Sprintf(format, args...)}
}

// decodeErr turns an error of the JSON decoder, met while reading the value
// at at, into an error naming the place.
func (p *modelParser) decodeErr(at pos, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return p.errorf(pos{syn.Offset, at.path}, "malformed JSON: %v", syn)
	case errors.As(err, &typ):
		path := at.path
		if typ.Field != "" {
			path += "." + typ.Field
		}
		what := typ.Value
		switch {
		case what == "array" || what == "object":
			what = "an " + what
		case what == "string" || what == "number":
			what = "a " + what
		case what == "bool":
			what = "true or false"
		case strings.HasPrefix(what, "number "):
			what = "the " + what
		}
		return p.errorf(pos{at.off, path}, "found %s, want %s", what, jsonTypeName(typ.Type.String()))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return p.errorf(pos{int64(len(p.data)), at.path}, "unexpected end of input")
	}
	// Unknown members of a coupling (DisallowUnknownFields) and the like.
	return p.errorf(at, "%v", trimJSONPrefix(err.Error()))
}

func trimJSONPrefix(s string) string {
	if len(s) > 6 && s[:6] == "json: " {
		return s[6:]
	}
	return s
}

// jsonTypeName says in JSON terms what a Go type of the decoded structs
// expects.
func jsonTypeName(goType string) string {
	switch goType {
	case "float64":
		return "a number that fits a float64"
	case "string":
		return "a string"
	case "json.Number":
		return "an integer"
	case "[]float64":
		return "an array of numbers"
	case "[][]float64":
		return "an array of arrays of numbers"
	case "pairwise.jsonCoupling":
		return `an object {"i": ..., "j": ..., "w": [[...], ...]}`
	}
	return goType
}

// lineCol converts a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
