package scrub

import "strings"

// holdMin is the shortest start of a secret a Stream holds back. Shorter
// ends ("s", "sk") are common in any text, and holding them would delay
// many pieces for nothing; the few characters of a secret that go out
// that way are harmless, and the rest of the secret is recognised after
// them (Next's first step).
const holdMin = 4

// A Stream redacts known secrets in text that arrives in pieces (Claude's
// streamed answer), where a secret may be split across two or more of
// them: each piece alone holds only a fragment, and no fragment is a
// known value.
//
// It holds back the end of a piece only while that end (holdMin
// characters or more, counting what went out just before it) could begin
// a known secret ("…your key is sk-an" when a secret starts "sk-ant-"),
// and only until the next piece shows whether the secret follows. The rest
// goes out at once: a piece that ends in ordinary text is never delayed,
// the first piece included, and what is held is shorter than the longest
// known secret. A secret whose first characters (fewer than holdMin) went
// out unheld is recognised by its remainder, which is redacted. With no
// known secrets a Stream passes text through as it is. The owner calls
// Flush when the text ends (the block or message is over, something else
// is shown) so that nothing held is lost.
//
// The zero value is ready to use; a Stream is not safe for concurrent use.
type Stream struct {
	held   string            // the end of the text so far, not shown yet
	shown  [holdMin - 1]byte // the last bytes shown, right-aligned
	nShown int
}

// Next returns what can be shown of the text so far, given its next piece:
// the redacted text up to any end held back.
func (st *Stream) Next(piece string) string {
	set := Known.snap.Load()
	text := piece
	if st.held != "" {
		text = st.held + piece
		st.held = ""
	}
	if set == nil {
		return text
	}
	shown := st.shown[len(st.shown)-st.nShown:]
	// A secret that began in what was shown already: its remainder goes.
	text = set.redactRemainder(shown, text)
	text = Known.Redact(text)
	if k := set.heldSuffix(shown, text); k > 0 {
		// A copy: the piece may be a buffer its owner reuses.
		st.held = strings.Clone(text[len(text)-k:])
		text = text[:len(text)-k]
	}
	st.remember(text)
	return text
}

// remember keeps the last holdMin-1 bytes shown.
func (st *Stream) remember(text string) {
	n := len(st.shown)
	if len(text) >= n {
		copy(st.shown[:], text[len(text)-n:])
		st.nShown = n
		return
	}
	copy(st.shown[:], st.shown[len(text):])
	copy(st.shown[n-len(text):], text)
	st.nShown = min(n, st.nShown+len(text))
}

// Holding reports whether text is held back.
func (st *Stream) Holding() bool { return st.held != "" }

// Flush returns what is held back (it is no complete secret) and forgets
// it, and what was shown: the text has ended.
func (st *Stream) Flush() string {
	h := st.held
	st.held, st.nShown = "", 0
	return h
}

// redactRemainder redacts the rest of a secret at the start of text whose
// first characters end shown.
func (set *secretSet) redactRemainder(shown []byte, text string) string {
	if len(shown) == 0 {
		return text
	}
	for _, v := range set.values {
		for j := min(len(shown), len(v)-1); j >= 1; j-- {
			if string(shown[len(shown)-j:]) == v[:j] && strings.HasPrefix(text, v[j:]) {
				return Redacted + text[len(v)-j:]
			}
		}
	}
	return text
}

// heldSuffix is the length of the end of text to hold back: the longest
// end of shown+text, holdMin bytes or more, that begins a known secret
// without being all of it, less the part already shown.
func (set *secretSet) heldSuffix(shown []byte, text string) int {
	n := len(shown) + len(text)
	at := func(p int) byte {
		if p < len(shown) {
			return shown[p]
		}
		return text[p-len(shown)]
	}
	for p := max(0, n-(set.maxLen-1)); p <= n-holdMin; p++ {
		if !set.first[at(p)] {
			continue
		}
		for _, v := range set.values {
			if len(v) > n-p && beginsWith(v, shown, text, p) {
				return min(n-p, len(text))
			}
		}
	}
	return 0
}

// beginsWith reports whether v begins with (shown+text)[p:].
func beginsWith(v string, shown []byte, text string, p int) bool {
	if p < len(shown) {
		s := shown[p:]
		if string(s) != v[:len(s)] {
			return false
		}
		return strings.HasPrefix(v[len(s):], text)
	}
	return strings.HasPrefix(v, text[p-len(shown):])
}
