//go:build pairwise_ordinal

package main

import "github.com/mrfkit/pairwise"

// With -tags pairwise_ordinal the likert study's "ordinal" configuration is
// pairwise.Learn with pairwise.WithOrdinal() (issue 31). The tag keeps the
// study building on a library without the option.
func init() {
	likertOrdinalOptions = func() []pairwise.Option { return []pairwise.Option{pairwise.WithOrdinal()} }
}
