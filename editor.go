package agentlsp

import "github.com/agentlsp/agentlsp/editor"

// EditorLocation is a location as an editor shows it (package editor).
type EditorLocation = editor.Location

// Editor converts between LSP positions and the editor view (package
// editor).
type Editor = editor.View

// Editor returns a converter for one answer; the runtime's views share a
// cache of the files they read.
func (rt *Runtime) Editor() *Editor { return editor.New(rt.workspace, rt.texts) }
