package dedup

import "github.com/agentlsp/agentlsp/messages"

// Delta compares a baseline with a later set of diagnostics by Key, as
// multisets: two identical diagnostics count twice, so a duplicate that
// disappears is reported as removed. added and remaining keep the order of
// after; removed keeps the order of before. When before holds several equal
// diagnostics, the first ones match and the last ones are removed.
func Delta(before, after []messages.Diagnostic) (added, removed, remaining []messages.Diagnostic) {
	inBefore := countKeys(before)
	for _, d := range after {
		k := KeyOf(d)
		if inBefore[k] > 0 {
			inBefore[k]--
			remaining = append(remaining, d)
		} else {
			added = append(added, d)
		}
	}
	inAfter := countKeys(after)
	for _, d := range before {
		k := KeyOf(d)
		if inAfter[k] > 0 {
			inAfter[k]--
		} else {
			removed = append(removed, d)
		}
	}
	return added, removed, remaining
}

// countKeys counts the diagnostics of ds by Key.
func countKeys(ds []messages.Diagnostic) map[Key]int {
	n := make(map[Key]int, len(ds))
	for _, d := range ds {
		n[KeyOf(d)]++
	}
	return n
}
