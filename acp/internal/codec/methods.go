package codec

import (
	"slices"
	"strings"
)

// MethodReceiver names the side of a connection that handles a method, as
// the schema's x-side says.
type MethodReceiver string

const (
	ReceiverAgent    MethodReceiver = "agent"    // sent by the client
	ReceiverClient   MethodReceiver = "client"   // sent by the agent
	ReceiverProtocol MethodReceiver = "protocol" // sent by either side ($/ methods)
)

// MethodSpec describes one ACP method: who handles it, whether it is a
// notification, and the Go types of its params and result, so that a
// connection can decode traffic without a hand-written switch.
type MethodSpec struct {
	Name         string
	Receiver     MethodReceiver
	Notification bool
	// Unstable marks methods taken from the unstable schema.
	Unstable bool

	newParams, newResult func() any
}

// NewMethodSpec is how generated method tables build their entries;
// newResult is nil for a notification.
func NewMethodSpec(name string, recv MethodReceiver, notification, unstable bool, newParams, newResult func() any) MethodSpec {
	return MethodSpec{Name: name, Receiver: recv, Notification: notification, Unstable: unstable, newParams: newParams, newResult: newResult}
}

// NewParams returns a pointer to a new zero params value, ready for
// json.Unmarshal.
func (s MethodSpec) NewParams() any {
	if s.newParams == nil {
		return nil
	}
	return s.newParams()
}

// NewResult returns a pointer to a new zero result value, or nil for a
// notification.
func (s MethodSpec) NewResult() any {
	if s.newResult == nil {
		return nil
	}
	return s.newResult()
}

// SortedMethods returns the specs of a method table sorted by name.
func SortedMethods(table map[string]MethodSpec) []MethodSpec {
	out := make([]MethodSpec, 0, len(table))
	for _, s := range table {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b MethodSpec) int { return strings.Compare(a.Name, b.Name) })
	return out
}
