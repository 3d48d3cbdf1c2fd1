package agent

import "sync"

// A mailbox is a session's inbox: closures to run on the session
// goroutine, in the order they were put, whether the sender waits (do) or
// not (post). Putting never blocks, so a CLI callback or a command
// follower can post while the session goroutine is busy, and nothing
// overtakes anything.
type mailbox struct {
	mu     sync.Mutex
	items  []mail
	closed bool
	wake   chan struct{} // has a value while items may be waiting
}

// mail is one closure; done, when set, is told whether it ran.
type mail struct {
	fn   func()
	done chan bool
}

func newMailbox() *mailbox { return &mailbox{wake: make(chan struct{}, 1)} }

// put queues m and reports false if the mailbox is closed.
func (b *mailbox) put(m mail) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.items = append(b.items, m)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns what is waiting, oldest first.
func (b *mailbox) take() []mail {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

// close refuses further mail and tells the senders waiting on what is left
// that it will not run.
func (b *mailbox) close(left []mail) {
	b.mu.Lock()
	b.closed = true
	left = append(left, b.items...)
	b.items = nil
	b.mu.Unlock()
	for _, m := range left {
		if m.done != nil {
			m.done <- false
		}
	}
}
