package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentlsp/agentlsp/install"
)

// installServers is servers --install NAME...: it installs each server in
// turn (the others even when one fails), one line per server on stdout,
// progress on stderr.
func installServers(ctx context.Context, names []string, std stdio) error {
	if len(names) == 0 {
		return usageErrorf("servers", "--install needs the servers to install: any of %s", strings.Join(install.Names(), ", "))
	}
	var recipes []install.Recipe
	seen := map[string]bool{}
	for _, name := range names {
		r, err := install.Lookup(name)
		if err != nil {
			return usageErrorf("servers", "%s", strings.TrimPrefix(err.Error(), "install: "))
		}
		if !seen[r.Name] {
			seen[r.Name] = true
			recipes = append(recipes, r)
		}
	}
	in := &install.Installer{Cache: install.CacheDir(), Root: install.IsRoot(), Log: std.errOut}
	var failed []string
	for _, r := range recipes {
		res, err := in.Install(ctx, r)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			fmt.Fprintf(std.errOut, "agentlsp: %s: %s\n", r.Name, installMessage(err))
			failed = append(failed, r.Name)
			continue
		case res.Already:
			fmt.Fprintf(std.out, "%s %s: already installed: %s\n", r.Name, r.Pinned(), res.Path)
		default:
			fmt.Fprintf(std.out, "%s %s: installed: %s\n", r.Name, r.Pinned(), res.Path)
		}
		if res.Note != "" {
			fmt.Fprintf(std.out, "  note: %s\n", res.Note)
		}
	}
	if len(failed) > 0 {
		return &cliError{code: exitFailure, reported: true,
			err: fmt.Errorf("agentlsp: could not install %s", strings.Join(failed, ", "))}
	}
	return nil
}

// installMessage is an install error without the package prefix: what
// went wrong and what to do.
func installMessage(err error) string {
	msg := err.Error()
	for _, sentinel := range []error{install.ErrNeedsRoot, install.ErrMissingTool, install.ErrNoPackageManager, install.ErrNotInstalled} {
		if errors.Is(err, sentinel) {
			msg = strings.TrimPrefix(msg, sentinel.Error()+": ")
		}
	}
	return strings.TrimPrefix(msg, "install: ")
}
