package inputs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func TestOnlyAStreamedMarkerAsksForAPreview(t *testing.T) {
	dir := t.TempDir()
	if Preview(contract.RevisionStreamed, dir) {
		t.Fatal("no marker, no preview")
	}
	if err := os.WriteFile(filepath.Join(dir, contract.PreviewMarker), []byte("# preview\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Preview(contract.RevisionStreamed, dir) {
		t.Fatal("a streamed marker asks for a preview")
	}
	if Preview("4f2a9c1e", dir) {
		t.Fatal("a marker committed to git is ignored")
	}
	link := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, contract.PreviewMarker), filepath.Join(link, contract.PreviewMarker)); err != nil {
		t.Fatal(err)
	}
	if Preview(contract.RevisionStreamed, link) {
		t.Fatal("a symlinked marker is not trusted")
	}
}
