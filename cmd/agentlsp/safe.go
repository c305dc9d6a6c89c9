package main

import "github.com/agentlsp/agentlsp/safetext"

// safeText is s made safe to print on a terminal (safetext.Escape):
// control characters (ESC, NUL, CR, DEL, the C1 controls such as U+009B,
// which terminals take for an escape sequence's start), bytes that are
// not UTF-8, and the invisible characters that reorder or hide text (the
// bidirectional overrides of Trojan Source, zero-width characters, the
// byte-order mark, U+2028 and U+2029) are written as Go escapes them
// (\x1b, \x00, \r, \u009b, \xff, \u202e). Language servers' text
// (diagnostic messages, hover, symbol names, their errors) and file names
// reach the text output through it; --json output needs it not, and keeps
// the text exact. Backslashes are left as they are: the text is for
// reading, the JSON for taking exactly.
func safeText(s string) string { return safetext.Escape(s) }

// safeLine is safeText for a record that must stay one line (a
// diagnostic's line, a location): a newline, which only a file name can
// bring there, is escaped too (safetext.EscapeLine), so a file named
// "a.py\nmain.py:1:1: error: forged" prints no line of its own.
func safeLine(s string) string { return safetext.EscapeLine(s) }
