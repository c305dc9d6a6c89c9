package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/textpos"
)

// An outline (documentSymbol) of a long file converts hundreds of LSP
// positions of one text to editor columns. "scan" finds each line from
// the start of the text (textpos.ToEditor); "indexed" indexes the lines
// once (textpos.Lines, what the editor view does). One op is the outline
// of a 1,000-line file: 250 symbols, 4 positions each.
func BenchmarkOutlinePositions(b *testing.B) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "func f%d(x int) string { return fmt.Sprint(x, \"é\") } // %d\n", i, i)
	}
	text := sb.String()
	convert := func(b *testing.B, outline func() func(line, char int) (int, int, error)) {
		for b.Loop() {
			to := outline()
			for sym := range 250 {
				line := sym * 4
				for _, char := range []int{0, 5, 7, 60} {
					if _, _, err := to(line, char); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("scan", func(b *testing.B) {
		convert(b, func() func(line, char int) (int, int, error) {
			return func(line, char int) (int, int, error) { return textpos.ToEditor(text, line, char, textpos.UTF16) }
		})
	})
	b.Run("indexed", func(b *testing.B) {
		convert(b, func() func(line, char int) (int, int, error) {
			lines := textpos.NewLines(text) // once per outline
			return func(line, char int) (int, int, error) { return lines.ToEditor(line, char, textpos.UTF16) }
		})
	})
}

// One hover call on line 805 of a 1,000-line file converts three positions:
// the agent's editor position to LSP (the MCP tool), the same position
// checked against the document's text (the router), and the answer's
// range back to the editor view. "scan" finds the line from the start of
// the text each time and indexes the text for the answer's range, as each
// call did before the editor cache and the router kept a text's lines;
// "indexed" uses lines indexed once per text, as they do now.
func BenchmarkHoverPositions(b *testing.B) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "func f%d(x int) string { return fmt.Sprint(x, \"é\") } // %d\n", i, i)
	}
	text := sb.String()
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			line, char, err := textpos.FromEditor(text, 805, 23, textpos.UTF16)
			if err == nil {
				err = textpos.Check(text, line, char, textpos.UTF16)
			}
			if err == nil {
				_, _, err = textpos.NewLines(text).ToEditor(line, char, textpos.UTF16)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("indexed", func(b *testing.B) {
		lines := textpos.NewLines(text) // once per text (the editor cache, the router's document)
		for b.Loop() {
			line, char, err := lines.FromEditor(805, 23, textpos.UTF16)
			if err == nil {
				err = lines.Check(line, char, textpos.UTF16)
			}
			if err == nil {
				_, _, err = lines.ToEditor(line, char, textpos.UTF16)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLinesCROnly indexes a 500 KB text whose lines end in '\r'
// alone (old Mac files): each line break is found from where the last one
// was, never by scanning the rest of the text (that took 44 ms, not 0.8).
func BenchmarkLinesCROnly(b *testing.B) {
	text := strings.Repeat("x := 1 // some code here\r", 20000)
	for b.Loop() {
		textpos.NewLines(text)
	}
}
