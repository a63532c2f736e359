package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPictureFormats: the picture flags write PNG, SVG or PDF by the
// file's extension; contacts' -png writes PNG for any other name, as it
// did before it learned the other two.
func TestPictureFormats(t *testing.T) {
	dir := t.TempDir()
	aln := writeFile(t, dir, "toy.fasta", contactsFASTA(200, 6, 1))
	starts := map[string]string{".png": "\x89PNG", ".svg": "<?xml", ".pdf": "%PDF-", ".map": "\x89PNG"}
	for ext, start := range starts {
		path := filepath.Join(dir, "map"+ext)
		runOK(t, "contacts", "-quiet", "-alphabet", "rna", "-png", path, aln)
		if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), start) {
			t.Errorf("contacts -png map%s: %v, file starts %.8q, want %q", ext, err, b, start)
		}
	}
	path := filepath.Join(dir, "net.PDF")
	runOK(t, "network", "-quiet", "-histogram", "-picture", path, surveyFile)
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "%PDF-") {
		t.Errorf("network -picture net.PDF: %v, file starts %.8q", err, b)
	}
}
