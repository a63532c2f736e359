// Package lines reads text a line at a time, lines of any length, for the
// readers of package pairwise (CSV files) and package protein (sequence
// alignments), keeping the number of the line last returned for their
// error messages.
package lines

import (
	"bufio"
	"bytes"
	"io"
)

// Reader returns the lines of a bufio.Reader of any length, without the
// "\n" or "\r\n" ending.
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	line int // number of the line last returned
	eof  bool
}

// NewReader returns a Reader of the lines of br.
func NewReader(br *bufio.Reader) *Reader { return &Reader{br: br} }

// Line returns the number (1-based) of the line last returned by Next, or
// of the line where reading failed; 0 before the first call.
func (lr *Reader) Line() int { return lr.line }

// Next returns the next line, valid until the following call; ok is false at
// the end of the input. A last line without "\n" is returned as a line.
// err is the error of the underlying reader other than io.EOF.
func (lr *Reader) Next() (line []byte, ok bool, err error) {
	if lr.eof {
		return nil, false, nil
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		switch err {
		case bufio.ErrBufferFull:
			lr.buf = append(lr.buf, chunk...)
			continue
		case nil:
		case io.EOF:
			lr.eof = true
			if len(chunk) == 0 && len(lr.buf) == 0 {
				return nil, false, nil
			}
		default:
			lr.line++
			return nil, false, err
		}
		lr.line++
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			chunk = lr.buf
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
		return chunk, true, nil
	}
}
