package jsonfast

import (
	"slices"
	"testing"
)

// TestFields: the walker yields the shape's members in text order, skips
// the others, and sets Odd exactly where encoding/json would decode a
// struct of the shape differently.
func TestFields(t *testing.T) {
	shape := Shape{Names: []string{"type", "text"}}
	for _, c := range []struct {
		in   string
		want []int
		odd  bool
	}{
		{`{}`, nil, false},
		{`{"text":"a","other":[1,{"type":2}],"type":"t"}`, []int{1, 0}, false},
		{`{"type":"a","type":"b"}`, []int{0, 0}, true}, // duplicate
		{`{"TYPE":"a"}`, nil, true},                    // matches without regard to case
		{`{"typ\u0065":"a"}`, nil, true},               // escaped name
		{`{"types":"a","tex":1}`, nil, false},          // other names
	} {
		var d Dec
		d.Reset([]byte(c.in))
		d.Object()
		var got []int
		var f Fields
		for f.Next(&d, &shape) {
			got = append(got, f.I)
			d.Skip()
		}
		if !slices.Equal(got, c.want) || d.Odd() != c.odd || !d.End() && !c.odd {
			t.Errorf("%s: members %v, Odd %v; want %v, %v", c.in, got, d.Odd(), c.want, c.odd)
		}
	}
	var d Dec
	d.Reset([]byte(`{"type":1 "text":2}`))
	d.Object()
	var f Fields
	for f.Next(&d, &shape) {
		d.Skip()
	}
	if !d.Bad() {
		t.Error("a missing comma is not Bad")
	}
}
