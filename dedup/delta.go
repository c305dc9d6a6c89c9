package dedup

import "github.com/agentlsp/agentlsp/messages"

// Delta compares a baseline with a later set of diagnostics by Key, as
// multisets: two identical diagnostics count twice, so a duplicate that
// disappears is reported as removed. added and remaining keep the order of
// after; removed keeps the order of before. When before holds several equal
// diagnostics, the first ones match and the last ones are removed.
func Delta(before, after []messages.Diagnostic) (added, removed, remaining []messages.Diagnostic) {
	if len(before) <= SmallSet && len(after) <= SmallSet {
		return smallDelta(before, after)
	}
	return mapDelta(before, after)
}

// mapDelta is Delta by counting keys in maps.
func mapDelta(before, after []messages.Diagnostic) (added, removed, remaining []messages.Diagnostic) {
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

// SmallSet is the size up to which sets of diagnostics are compared pair
// by pair: cheaper than hashing their keys into a map (the strings of
// every key hashed, a map allocated) for a document's few diagnostics.
const SmallSet = 16

// Contains reports whether ds holds a diagnostic with d's Key.
func Contains(ds []messages.Diagnostic, d messages.Diagnostic) bool {
	return containsKey(ds, KeyOf(d))
}

func containsKey(ds []messages.Diagnostic, k Key) bool {
	for _, o := range ds {
		if KeyOf(o) == k {
			return true
		}
	}
	return false
}

// smallDelta is Delta for sets of at most SmallSet, pair by pair: each
// diagnostic of after matches the first unmatched equal one of before.
func smallDelta(before, after []messages.Diagnostic) (added, removed, remaining []messages.Diagnostic) {
	var matched [SmallSet]bool
	for _, d := range after {
		k, found := KeyOf(d), false
		for j, o := range before {
			if !matched[j] && KeyOf(o) == k {
				matched[j], found = true, true
				break
			}
		}
		if found {
			remaining = append(remaining, d)
		} else {
			added = append(added, d)
		}
	}
	for j, d := range before {
		if !matched[j] {
			removed = append(removed, d)
		}
	}
	return added, removed, remaining
}
