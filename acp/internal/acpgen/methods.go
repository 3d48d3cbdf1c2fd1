package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// methods builds the method table from x-method/x-side, using the
// JSON-RPC envelope definitions to tell params, results and notifications
// apart.
func (b *builder) methods(unstable *Schema) error {
	refsOf := func(names ...string) map[string]bool {
		out := map[string]bool{}
		for _, n := range names {
			collectRefs(b.unstable[n], out)
		}
		return out
	}
	requests := refsOf("AgentRequest", "ClientRequest")
	results := refsOf("AgentResponse", "ClientResponse")
	notes := refsOf("AgentNotification", "ClientNotification")
	for _, top := range unstable.AnyOf {
		if top.Title == "ProtocolLevel" {
			collectRefs(top, notes)
		}
	}
	byMethod := map[string]*method{}
	for _, t := range b.m.Types {
		if t.Schema == "" {
			continue
		}
		s := b.stable[t.Schema]
		if s == nil {
			s = b.unstable[t.Schema]
		}
		if s.XMethod == "" {
			continue
		}
		m := byMethod[s.XMethod]
		if m == nil {
			m = &method{Name: s.XMethod, Const: "Method" + goName(s.XMethod), Receiver: s.XSide}
			byMethod[s.XMethod] = m
		}
		if m.Receiver != s.XSide {
			return fmt.Errorf("method %s: conflicting x-side", s.XMethod)
		}
		m.Unstable = m.Unstable || t.Unstable
		switch {
		case results[t.Schema]:
			m.Result = t.Name
		case notes[t.Schema]:
			m.Notification = true
			m.Params = t.Name
		case requests[t.Schema]:
			m.Params = t.Name
		default:
			return fmt.Errorf("%s: x-method %s but in no envelope", t.Schema, s.XMethod)
		}
		t.Doc = append(t.Doc, "", methodDoc(t.Name, m.Name, s.XSide, results[t.Schema], notes[t.Schema]))
	}
	for _, m := range byMethod {
		if m.Params == "" || (!m.Notification && m.Result == "") || (m.Notification && m.Result != "") {
			return fmt.Errorf("method %s: incomplete (params %q, result %q)", m.Name, m.Params, m.Result)
		}
		b.m.Methods = append(b.m.Methods, m)
	}
	sort.Slice(b.m.Methods, func(i, j int) bool { return b.m.Methods[i].Name < b.m.Methods[j].Name })
	return nil
}

func methodDoc(typ, name, side string, result, note bool) string {
	who := "the " + side
	if side == "protocol" {
		who = "either side"
	}
	switch {
	case result:
		return fmt.Sprintf("%s is the result of %s, which %s handles.", typ, name, who)
	case note:
		return fmt.Sprintf("%s is the params of the %s notification, which %s handles.", typ, name, who)
	}
	return fmt.Sprintf("%s is the params of %s, which %s handles.", typ, name, who)
}

func collectRefs(s *Schema, out map[string]bool) {
	if s == nil {
		return
	}
	if n := s.refName(); n != "" && s.Ref != "" {
		out[n] = true
	}
	for _, list := range [][]*Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			collectRefs(c, out)
		}
	}
	if s.Properties != nil {
		for _, k := range s.Properties.Keys {
			collectRefs(s.Properties.Map[k], out)
		}
	}
}

// checkPayloads makes sure every tagged-union variant and every flattened
// alternative is a struct or a tagged union: their members are written into
// the enclosing object. A union held this way is marked Nested, which gives
// it the struct codec methods (v2 nests them: session_update → state →
// stopReason). Value unions may hold anything.
func (b *builder) checkPayloads() error {
	byGo := map[string]*goType{}
	for _, t := range b.m.Types {
		byGo[t.Name] = t
	}
	for _, t := range b.m.Types {
		if t.Kind == kindValueUnion {
			continue
		}
		for _, v := range append(slices.Clone(t.Variants), t.Flat...) {
			switch p := byGo[v.Type.Go]; {
			case p == nil:
				return fmt.Errorf("%s.%s: payload %s is not generated", t.Name, v.Field, v.Type.Go)
			case p.Kind == kindUnion:
				p.Nested = true
			case p.Kind != kindStruct:
				return fmt.Errorf("%s.%s: payload %s is not a struct", t.Name, v.Field, v.Type.Go)
			}
		}
	}
	return nil
}

// checkNames refuses output that would collide with itself or with the
// names the hand-written connection code owns.
func (b *builder) checkNames() error {
	seen := map[string]string{}
	claim := func(name, what string) error {
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("Go name %s used by %s and %s", name, prev, what)
		}
		if slices.Contains(b.cfg.reserved, name) || slices.ContainsFunc(b.cfg.reservedPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			return fmt.Errorf("Go name %s (%s) is reserved for hand-written code", name, what)
		}
		seen[name] = what
		return nil
	}
	for _, t := range b.m.Types {
		if err := claim(t.Name, "type "+t.Name); err != nil {
			return err
		}
		for _, v := range t.Values {
			if err := claim(v.Go, "enum value of "+t.Name); err != nil {
				return err
			}
		}
	}
	for _, m := range b.m.Methods {
		if err := claim(m.Const, "method "+m.Name); err != nil {
			return err
		}
	}
	for _, n := range runtimeNames {
		if err := claim(n, "runtime"); err != nil {
			return err
		}
	}
	return nil
}
