package acpv2_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// The test in this file covers every generated type without a fixture per
// type: it walks the pinned v2 schema from each method's params and result
// definition and builds sample values, several per method, so that across
// the samples every branch of every union is taken (including the
// catch-alls, with a "_"-prefixed extension value), optional members are
// present in some samples and absent in others, nullable ones are null in
// some, and _meta carries integers beyond float64. Each sample must be valid
// for the schema (that keeps the sample builder honest), decode into the Go
// type the method table names, and encode back to the same JSON value;
// encoding again must give the same bytes.

const (
	schemaPath         = "../../internal/test/acptest/testdata/v2/schema.json"
	unstableSchemaPath = "../../internal/test/acptest/testdata/v2/schema.unstable.json"
)

type schemaDoc struct {
	path string
	defs map[string]any
}

func loadSchema(t testing.TB, path string) schemaDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return schemaDoc{path: path, defs: doc.Defs}
}

// sampler builds one sample of a definition. A union takes the branch
// taken least often so far (over all samples), so repeated samples reach
// every branch, nested ones included; whether an optional member is there
// or null is pseudo-random, seeded per sample.
type sampler struct {
	doc     schemaDoc
	rnd     *rand.Rand
	covered map[string]int // "Def#branch" → times taken
	reached map[string]bool
	// pending are the definitions never reached and the unions with a
	// branch never taken; a choice that can lead to one is preferred, so
	// that deep ones are reached in a few rounds rather than by chance.
	pending map[string]bool
	closure map[uintptr]map[string]bool
}

// newSampler starts a sample with shared coverage counters.
func newSampler(doc schemaDoc, seed uint64, covered map[string]int, reached map[string]bool, closure map[uintptr]map[string]bool) *sampler {
	s := &sampler{doc: doc, rnd: rand.New(rand.NewPCG(seed, 7)), covered: covered, reached: reached, closure: closure, pending: map[string]bool{}}
	for name, d := range doc.defs {
		if !reached[name] {
			s.pending[name] = true
			continue
		}
		br := asList(d.(map[string]any)["anyOf"])
		if len(br) == 0 {
			br = asList(d.(map[string]any)["oneOf"])
		}
		for i := range br {
			if covered[fmt.Sprintf("%s#%d", name, i)] == 0 {
				s.pending[name] = true
				break
			}
		}
	}
	return s
}

// refs returns the definitions x can reach through $ref, itself included
// when x is a definition's schema.
func (s *sampler) refs(x map[string]any) map[string]bool {
	key := reflect.ValueOf(x).Pointer()
	if r, ok := s.closure[key]; ok {
		return r
	}
	out := map[string]bool{}
	s.closure[key] = out // cycles end here
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/$defs/")
				if !out[name] {
					out[name] = true
					for n := range s.refs(s.doc.defs[name].(map[string]any)) {
						out[n] = true
					}
				}
			}
			for k, e := range v {
				if k != "not" {
					walk(e)
				}
			}
		}
	}
	walk(x)
	return out
}

// wants reports whether x can lead to a union branch never taken.
func (s *sampler) wants(x map[string]any) bool {
	for n := range s.refs(x) {
		if s.pending[n] {
			return true
		}
	}
	return false
}

func (s *sampler) next() int { return s.rnd.IntN(1 << 20) }

func (s *sampler) def(name string, depth int) any {
	s.reached[name] = true
	return s.value(name, s.doc.defs[name].(map[string]any), depth)
}

// value builds a value for schema sch; owner names the $defs entry sch
// belongs to (for coverage), or "".
func (s *sampler) value(owner string, sch map[string]any, depth int) any {
	if ref, ok := sch["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return s.def(name, depth+1)
	}
	if c, ok := sch["const"]; ok {
		return c
	}
	if e, ok := sch["enum"].([]any); ok {
		return e[s.next()%len(e)]
	}
	branches, _ := sch["anyOf"].([]any)
	if len(branches) == 0 {
		branches, _ = sch["oneOf"].([]any)
	}
	var out any
	obj := map[string]any{}
	isObj := false
	if props, ok := sch["properties"].(map[string]any); ok {
		isObj = true
		s.properties(sch, props, obj, depth)
	}
	for _, a := range asList(sch["allOf"]) {
		v := s.value("", a.(map[string]any), depth)
		if m, ok := v.(map[string]any); ok {
			isObj = true
			for k, x := range m {
				obj[k] = x
			}
		} else {
			out = v
		}
	}
	if len(branches) > 0 {
		i := s.pick(owner, len(branches), depth)
		if owner != "" {
			s.covered[fmt.Sprintf("%s#%d", owner, i)]++
		}
		br := branches[i].(map[string]any)
		v := s.branch(br, depth)
		if m, ok := v.(map[string]any); ok && (isObj || len(obj) == 0) {
			for k, x := range m {
				obj[k] = x
			}
			return obj
		}
		return v
	}
	if isObj {
		return obj
	}
	if out != nil {
		return out
	}
	return s.scalar(sch, depth)
}

// pick chooses a branch: the one of owner's taken least so far; deep in
// the tree always the first, to end recursion.
func (s *sampler) pick(owner string, n, depth int) int {
	if depth > 14 {
		return 0
	}
	if owner == "" {
		return s.next() % n
	}
	branches := asList(s.doc.defs[owner].(map[string]any)["anyOf"])
	if len(branches) == 0 {
		branches = asList(s.doc.defs[owner].(map[string]any)["oneOf"])
	}
	best, bestWants := 0, false
	for i := range n {
		c := s.covered[fmt.Sprintf("%s#%d", owner, i)]
		if c == 0 {
			return i
		}
		w := s.wants(branches[i].(map[string]any))
		switch {
		case w && !bestWants:
			best, bestWants = i, true
		case w == bestWants && c < s.covered[fmt.Sprintf("%s#%d", owner, best)]:
			best = i
		}
	}
	return best
}

// branch builds one union branch. A catch-all ("other"/"unknown") gets an
// extension value, so unknown variants and open enum values are exercised.
func (s *sampler) branch(br map[string]any, depth int) any {
	title, _ := br["title"].(string)
	switch {
	case (title == "other" || title == "unknown") && br["type"] == "string":
		return "_ext_value"
	case title == "other" && br["type"] == "object":
		rest := map[string]any{}
		for k, v := range br {
			if k != "not" && k != "title" {
				rest[k] = v
			}
		}
		obj, _ := s.value("", rest, depth).(map[string]any)
		not, _ := br["not"].(map[string]any)
		first, _ := asList(not["anyOf"])[0].(map[string]any)
		for tag := range first["properties"].(map[string]any) {
			obj[tag] = "_ext_" + tag
		}
		obj["_extMember"] = json.Number("12345678901234567890")
		return obj
	case title == "Other" && br["type"] == nil:
		return map[string]any{"anything": []any{json.Number("1"), "two", nil}}
	case title == "Other" && br["type"] == "integer":
		return json.Number("-31999")
	}
	if props, ok := br["properties"].(map[string]any); ok && br["allOf"] == nil && len(props) == 1 {
		// A bare tag, or the null-tag form: its one member is always there.
		for k, p := range props {
			return map[string]any{k: s.value("", p.(map[string]any), depth)}
		}
	}
	return s.value("", br, depth)
}

func (s *sampler) properties(sch, props map[string]any, obj map[string]any, depth int) {
	required := map[string]bool{}
	for _, r := range asList(sch["required"]) {
		required[r.(string)] = true
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := props[k].(map[string]any)
		wanted := s.wants(p)
		if !required[k] && !wanted && (depth > 12 || s.next()%3 == 0) {
			continue
		}
		if k == "_meta" {
			obj[k] = map[string]any{"traceparent": "00-ab", "big": json.Number("12345678901234567890"), "nested": map[string]any{"f": json.Number("1.5e300")}}
			continue
		}
		if !required[k] && !wanted && nullable(p) && s.next()%4 == 0 {
			obj[k] = nil
			continue
		}
		v := s.value("", p, depth)
		if def, ok := p["default"]; ok && !required[k] && reflect.DeepEqual(v, def) {
			// The encoder leaves out an optional member equal to its
			// default ("capabilities": {}), which means the same.
			continue
		}
		obj[k] = v
	}
}

func nullable(p map[string]any) bool {
	switch t := p["type"].(type) {
	case []any:
		return slices.Contains(t, any("null"))
	}
	for _, b := range asList(p["anyOf"]) {
		if b.(map[string]any)["type"] == "null" {
			return true
		}
	}
	return false
}

func (s *sampler) scalar(sch map[string]any, depth int) any {
	types := []string{}
	switch t := sch["type"].(type) {
	case string:
		types = append(types, t)
	case []any:
		for _, x := range t {
			if x != "null" {
				types = append(types, x.(string))
			}
		}
	}
	if sch["type"] == "null" {
		return nil
	}
	if len(types) == 0 {
		// Any JSON value (rawInput, rawOutput).
		return map[string]any{"any": []any{json.Number("12345678901234567890"), "<&>", nil, true}}
	}
	switch types[0] {
	case "string":
		switch {
		case sch["contentEncoding"] == "base64":
			return "aGkK"
		case sch["format"] == "date-time":
			return "2026-01-02T03:04:05Z"
		case sch["format"] == "uri":
			return "https://example.invalid/a"
		}
		return "s<&>\u2028é"
	case "integer":
		n := int64(7)
		if m, ok := sch["minimum"].(json.Number); ok {
			if v, _ := m.Int64(); v > n {
				n = v
			}
		}
		if m, ok := sch["maximum"].(json.Number); ok {
			if v, _ := m.Int64(); v < n {
				n = v
			}
		}
		return json.Number(fmt.Sprint(n))
	case "number":
		return json.Number("0.5")
	case "boolean":
		return true
	case "array":
		items, _ := sch["items"].(map[string]any)
		n := 1
		if m, ok := sch["minItems"].(json.Number); ok {
			v, _ := m.Int64()
			n = max(n, int(v))
		} else if !s.wants(items) && (depth > 12 || s.next()%4 == 0) {
			n = 0
		}
		out := []any{}
		for range n {
			out = append(out, s.value("", items, depth))
		}
		return out
	case "object":
		ap, _ := sch["additionalProperties"].(map[string]any)
		if ap == nil {
			return map[string]any{"k": json.Number("1")}
		}
		return map[string]any{"k": s.value("", ap, depth)}
	}
	panic("unknown type " + types[0])
}

func asList(v any) []any { l, _ := v.([]any); return l }

// methodDefs reads x-method/x-side: method → [params def, result def].
func methodDefs(doc schemaDoc) map[string][2]string {
	resultRefs := ""
	for _, env := range []string{"AgentResponse", "ClientResponse"} {
		b, _ := json.Marshal(doc.defs[env])
		resultRefs += string(b)
	}
	out := map[string][2]string{}
	for name, d := range doc.defs {
		dm := d.(map[string]any)
		m, _ := dm["x-method"].(string)
		if m == "" {
			continue
		}
		e := out[m]
		if strings.Contains(resultRefs, `"#/$defs/`+name+`"`) {
			e[1] = name
		} else {
			e[0] = name
		}
		out[m] = e
	}
	return out
}

// canonical re-reads JSON as a Go value with exact numbers, for comparing
// JSON values regardless of member order.
func canonical(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestEverySchemaTypeRoundTrips(t *testing.T) {
	stable := loadSchema(t, schemaPath)
	unstable := loadSchema(t, unstableSchemaPath)
	stableMethods, unstableMethods := methodDefs(stable), methodDefs(unstable)
	covered := map[string]int{}
	reached := map[string]bool{}
	closures := map[string]map[uintptr]map[string]bool{stable.path: {}, unstable.path: {}}
	type target struct {
		method string
		def    string
		doc    schemaDoc
		new    func() any
	}
	var targets []target
	for _, spec := range acpv2.Methods() {
		doc, defs := stable, stableMethods[spec.Name]
		if spec.Unstable {
			doc, defs = unstable, unstableMethods[spec.Name]
		}
		targets = append(targets, target{spec.Name, defs[0], doc, spec.NewParams})
		if !spec.Notification {
			targets = append(targets, target{spec.Name, defs[1], doc, spec.NewResult})
		}
	}
	// missing lists the branches of reached unions never taken.
	missing := func() []string {
		var out []string
		for name, d := range stable.defs {
			br := asList(d.(map[string]any)["anyOf"])
			if len(br) == 0 {
				br = asList(d.(map[string]any)["oneOf"])
			}
			if !reached[name] || len(br) == 0 {
				continue
			}
			for i := range br {
				if covered[fmt.Sprintf("%s#%d", name, i)] == 0 {
					out = append(out, fmt.Sprintf("%s#%d", name, i))
				}
			}
		}
		slices.Sort(out)
		return out
	}
	// unreached lists the definitions never reached, but for the
	// placeholders of extension methods, which are not generated.
	unreached := func() []string {
		var out []string
		for name := range stable.defs {
			if !reached[name] && !strings.HasPrefix(name, "Ext") && stable.defs[name].(map[string]any)["x-docs-ignore"] != true {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	// One sample of every params and result type per round, until every
	// definition has been reached and every branch of every union taken
	// (at least 10 rounds).
	const minRounds, maxRounds = 10, 400
	samples := 0
	for round := 0; round < maxRounds && (round < minRounds || len(missing()) > 0 || len(unreached()) > 0); round++ {
		for _, tg := range targets {
			if tg.def == "" {
				t.Fatalf("%s: no schema definition", tg.method)
			}
			s := newSampler(tg.doc, uint64(round), covered, reached, closures[tg.doc.path])
			sample := s.def(tg.def, 0)
			in := marshal(t, sample)
			name := fmt.Sprintf("%s %s, round %d", tg.method, tg.def, round)
			acptest.ValidateV2Def(t, tg.def, json.RawMessage(in))
			v := tg.new()
			if reflect.TypeOf(v).Elem().Name() != goTypeName(tg.def) {
				t.Fatalf("%s: method table type %T for %s", tg.method, v, tg.def)
			}
			if err := json.Unmarshal(in, v); err != nil {
				t.Fatalf("%s: decode: %v\n%s", name, err, in)
			}
			out := marshal(t, v)
			if !reflect.DeepEqual(canonical(t, in), canonical(t, out)) {
				t.Fatalf("%s: round trip changed the value\n in %s\nout %s", name, in, out)
			}
			w := tg.new()
			if err := json.Unmarshal(out, w); err != nil {
				t.Fatalf("%s: own output does not decode: %v", name, err)
			}
			if again := marshal(t, w); !bytes.Equal(again, out) {
				t.Fatalf("%s: unstable encoding\n%s\n%s", name, out, again)
			}
			samples++
		}
	}
	if m := missing(); len(m) > 0 {
		t.Errorf("union branches never sampled in %d rounds: %v", maxRounds, m)
	}
	if u := unreached(); len(u) > 0 {
		t.Errorf("definitions never reached from a method: %v", u)
	}
	t.Logf("%d samples, %d union branches, %d definitions", samples, len(covered), len(reached))
}

// goTypeName mirrors the generator's naming for the few definitions whose
// Go name differs from the schema name.
func goTypeName(def string) string {
	r := strings.NewReplacer("Mcp", "MCP", "Http", "HTTP", "Url", "URL", "Id", "ID")
	return r.Replace(def)
}
