package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// entry is one file or directory of a tar: Src is the file on disk whose content it takes
// (empty for a directory or when Data is set).
type entry struct {
	Name     string // slash-separated, no leading slash; a directory ends in "/"
	Mode     int64
	UID, GID int
	Src      string
	Data     []byte
}

func dirEntry(name string, mode int64, uid int) entry {
	return entry{Name: name + "/", Mode: mode, UID: uid, GID: uid}
}

// writeTar writes entries sorted by name, each with mtime epoch and no user or group
// names, so the same files make the same bytes on any machine.
func writeTar(w io.Writer, entries []entry, epoch time.Time) error {
	sorted := append([]entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	tw := tar.NewWriter(w)
	for _, e := range sorted {
		if err := writeEntry(tw, e, epoch); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close tar: %w", err)
	}
	return nil
}

func writeEntry(tw *tar.Writer, e entry, epoch time.Time) error {
	h := &tar.Header{Name: e.Name, Mode: e.Mode, Uid: e.UID, Gid: e.GID, ModTime: epoch.UTC().Truncate(time.Second)}
	data := e.Data
	if e.Src != "" {
		b, err := os.ReadFile(e.Src)
		if err != nil {
			return fmt.Errorf("read %s for %s: %w", e.Src, e.Name, err)
		}
		data = b
	}
	if strings.HasSuffix(e.Name, "/") {
		h.Typeflag = tar.TypeDir
	} else {
		h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("tar header %s: %w", e.Name, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("tar %s: %w", e.Name, err)
	}
	return nil
}

// tarGz is writeTar gzipped, with no name or time in the gzip header.
func tarGz(entries []entry, epoch time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if err := writeTar(gz, entries, epoch); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("close gzip: %w", err)
	}
	return buf.Bytes(), nil
}
