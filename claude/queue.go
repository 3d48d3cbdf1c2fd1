package claude

// msgQueue is the reader's FIFO of frames waiting for the consumer. It
// reuses its storage: slicing the front off a slice (q = q[1:]) leaves a
// queue that empties with no room at its back, so the next frame cost a
// new array, which for a consumer that keeps up was one allocation per
// streamed chunk (issue 16).
type msgQueue struct {
	buf  []Message // buf[head:] are the frames, oldest first
	head int
}

func (q *msgQueue) len() int { return len(q.buf) - q.head }

func (q *msgQueue) push(m Message) {
	if len(q.buf) == cap(q.buf) && q.head >= len(q.buf)/2 {
		// Full at the back but half empty at the front: slide down
		// instead of growing. At most as many moves as pushes.
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, m)
}

// pop removes and returns the oldest frame; the queue must not be empty.
func (q *msgQueue) pop() Message {
	m := q.buf[q.head]
	q.buf[q.head] = Message{} // the frame's bytes are the consumer's now
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	return m
}

// drop forgets every frame and the storage.
func (q *msgQueue) drop() { *q = msgQueue{} }
