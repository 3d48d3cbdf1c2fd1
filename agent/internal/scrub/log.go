package scrub

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// NewHandler wraps h so that no record carries a secret: at every level
// the message and the attribute values lose the known secrets and
// credentials of any recognisable shape (Credentials); at info and above
// they also lose environment values, transport URLs and private paths
// (Text). Debug keeps those for the developers who turn it on.
func NewHandler(h slog.Handler) slog.Handler { return scrubHandler{h} }

type scrubHandler struct{ h slog.Handler }

func (s scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	clean := Credentials
	if r.Level >= slog.LevelInfo {
		clean = Text
	}
	out := slog.NewRecord(r.Time, r.Level, clean(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a, clean))
		return true
	})
	return s.h.Handle(ctx, out)
}

// WithAttrs scrubs the attributes as for info and above, whatever the
// level of the records that will carry them.
func (s scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = scrubAttr(a, Text)
	}
	return scrubHandler{s.h.WithAttrs(clean)}
}

func (s scrubHandler) WithGroup(name string) slog.Handler { return scrubHandler{s.h.WithGroup(name)} }

func scrubAttr(a slog.Attr, clean func(string) string) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, clean(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, x := range g {
			out[i] = scrubAttr(x, clean)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, clean(x.Error()))
		case json.RawMessage:
			return slog.String(a.Key, clean(string(x)))
		case []byte:
			return slog.String(a.Key, clean(string(x)))
		case fmt.Stringer:
			return slog.String(a.Key, clean(x.String()))
		case []string:
			out := make([]string, len(x))
			for i, s := range x {
				out[i] = clean(s)
			}
			return slog.Any(a.Key, out)
		}
	}
	return a
}
