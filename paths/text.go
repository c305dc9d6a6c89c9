package paths

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/messages"
)

// MaxFileSize bounds the files agentlsp reads and syncs, in bytes.
const MaxFileSize = 16 << 20

// Stamp identifies one content of a file on disk: its size, modification
// time and a hash of its bytes. The zero Stamp is a file that does not
// exist (or could not be read).
type Stamp struct {
	Size    int64
	ModTime time.Time
	Hash    uint64
}

// Exists reports whether the stamp is of an existing file.
func (s Stamp) Exists() bool { return s != Stamp{} }

// SameFile reports whether size and time match: cheap, without reading
// the file. A file rewritten within the file system's time resolution with
// the same size looks the same; Hash tells them apart once read.
func (s Stamp) SameFile(o Stamp) bool { return s.Size == o.Size && s.ModTime.Equal(o.ModTime) }

// StampOf stats path; the hash is left zero (see ReadText).
func StampOf(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Stamp{}
	}
	return Stamp{Size: fi.Size(), ModTime: fi.ModTime()}
}

// HashText is the hash a Stamp carries for text.
func HashText(text string) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, text)
	return h.Sum64()
}

// ReadText reads the file at abs (a path InWorkspace or CheckFile
// returned) as text, with its stamp. It must be a regular file of at most
// MaxFileSize bytes holding valid UTF-8 without NUL bytes; the errors wrap
// messages.ErrFileNotFound, ErrIsDirectory, ErrFileTooLarge or ErrNotText
// and name the file as given.
func ReadText(abs, given string) (string, Stamp, error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", Stamp{}, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", Stamp{}, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	case fi.IsDir():
		return "", Stamp{}, &messages.PathError{Path: given, Kind: messages.ErrIsDirectory}
	case fi.Size() > MaxFileSize:
		return "", Stamp{}, fmt.Errorf("%w: %s is %d bytes, the limit is %d", messages.ErrFileTooLarge, given, fi.Size(), MaxFileSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return "", Stamp{}, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	if len(b) > MaxFileSize {
		return "", Stamp{}, fmt.Errorf("%w: %s grew past the limit of %d bytes", messages.ErrFileTooLarge, given, MaxFileSize)
	}
	if err := CheckText(b); err != nil {
		return "", Stamp{}, fmt.Errorf("%w: %s", err, given)
	}
	text := string(b)
	return text, Stamp{Size: fi.Size(), ModTime: fi.ModTime(), Hash: HashText(text)}, nil
}

// CheckText reports text that is not valid UTF-8 or holds a NUL byte
// (messages.ErrNotText).
func CheckText[T string | []byte](text T) error {
	b := []byte(text)
	if bytes.IndexByte(b, 0) >= 0 {
		return fmt.Errorf("%w (it holds a NUL byte)", messages.ErrNotText)
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("%w (it is not valid UTF-8)", messages.ErrNotText)
	}
	return nil
}
