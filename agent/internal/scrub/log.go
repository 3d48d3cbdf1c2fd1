package scrub

import (
	"context"
	"log/slog"
)

// NewHandler wraps h so that records at info level and above have their
// message and attribute values passed through Text (debug is for
// developers and keeps everything).
func NewHandler(h slog.Handler) slog.Handler { return scrubHandler{h} }

type scrubHandler struct{ h slog.Handler }

func (s scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelInfo {
		return s.h.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = scrubAttr(a)
	}
	return scrubHandler{s.h.WithAttrs(clean)}
}

func (s scrubHandler) WithGroup(name string) slog.Handler { return scrubHandler{s.h.WithGroup(name)} }

func scrubAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = scrubAttr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, Text(err.Error()))
		}
	}
	return a
}
