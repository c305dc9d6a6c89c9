package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// worker is one of a client's concurrent callers: it makes one call at a
// time, drawing from a deck that holds every navigation question of both
// languages once, and workerEdits, shuffled again each time it is used
// up. Owned by its goroutine.
type worker struct {
	c        *client
	id       int
	rng      *rand.Rand
	nav      []navCase
	edits    []editFile     // in a deck after the questions
	versions map[string]int // last version written, by editFile.key
	deck     []int          // indexes: < len(nav) a question, then edits
}

func newWorker(c *client, id int, nav []navCase, seed uint64) *worker {
	w := &worker{c: c, id: id, rng: rand.New(rand.NewPCG(seed, uint64(c.id)<<32|uint64(id))), nav: nav,
		versions: map[string]int{}}
	w.edits = workerEdits(c.id, id)
	return w
}

// next is the next call's index in the deck.
func (w *worker) next() int {
	if len(w.deck) == 0 {
		w.deck = w.rng.Perm(len(w.nav) + len(w.edits))
	}
	i := w.deck[0]
	w.deck = w.deck[1:]
	return i
}

// run makes calls until stop is closed, recording each; ctx cancels the
// call in flight (Ctrl-C, the run's deadline).
func (w *worker) run(ctx context.Context, stop <-chan struct{}, rec *recorder) {
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		var r result
		switch i := w.next(); {
		case i < len(w.nav):
			r = w.navigate(ctx, w.nav[i])
		default:
			r = w.edit(ctx, w.edits[i-len(w.nav)])
		}
		r.client, r.worker = w.c.id, w.id
		rec.add(r)
		if r.outcome == outcomeUnanswered {
			// A closed connection fails every call at once: do not spin.
			_ = sleep(ctx, unansweredPause)
		}
	}
}

// unansweredPause is a worker's pause after a call got no answer.
const unansweredPause = 100 * time.Millisecond

// workerEdits are the edits in a worker's deck: in each language, its own
// file twice and its dependency once; with nine questions per language,
// one call in four is an edit.
func workerEdits(client, worker int) []editFile {
	var out []editFile
	for _, lang := range []string{langGo, langPy} {
		own := editFileFor(lang, editOwn, client, worker)
		out = append(out, own, own, editFileFor(lang, editDep, client, worker))
	}
	return out
}
